"""The constants sweep: settings read, set in every module that holds them, and put back."""

from __future__ import annotations

import pytest

from app.domain.context import index as context_index
from app.domain.context import passages, render
from bench.sweep import constants, main, parse, table


def test_a_setting_names_constants_and_their_values() -> None:
    assert parse("BELIEF_SHARE=0.1") == {"BELIEF_SHARE": 0.1}
    assert parse("PASSAGE_TARGET=400; PASSAGE_MAX=500") == {
        "PASSAGE_TARGET": 400,
        "PASSAGE_MAX": 500,
    }
    assert isinstance(parse("RERANKED=50")["RERANKED"], int)
    for bad in ("BELIEF_SHARE", "=3", "BELIEF_SHARE=much"):
        with pytest.raises(ValueError):
            parse(bad)


def test_a_constant_is_set_in_every_module_that_holds_it_and_put_back() -> None:
    before = (passages.PASSAGE_TARGET, context_index.PASSAGE_TARGET, render.BELIEF_SHARE)
    with constants({"PASSAGE_TARGET": 321, "BELIEF_SHARE": 0.05}):
        assert passages.PASSAGE_TARGET == context_index.PASSAGE_TARGET == 321
        assert render.BELIEF_SHARE == 0.05
    assert before == (passages.PASSAGE_TARGET, context_index.PASSAGE_TARGET, render.BELIEF_SHARE)


def test_a_setting_changes_how_the_index_cuts_a_turn() -> None:
    text = " ".join(f"Sentence number {i} about the pottery wheel." for i in range(40))
    assert len(text) > passages.PASSAGE_MAX
    as_is = context_index._passages_of(text, None)
    with constants({"PASSAGE_TARGET": 150, "PASSAGE_MAX": 200}):
        finer = context_index._passages_of(text, None)
    assert len(finer) > len(as_is)


def test_an_unknown_constant_is_refused_before_any_run(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError), constants({"NO_SUCH_CONSTANT": 1}):
        pass
    assert render.BELIEF_SHARE == 0.2  # nothing set on the way
    assert main(["BELIEF_SHARE=0.1", "NO_SUCH_CONSTANT=1"]) == 2
    assert "NO_SUCH_CONSTANT" in capsys.readouterr().err


def test_the_table_puts_each_runs_budgets_side_by_side() -> None:
    figures = {
        (dataset, b): (0.5, 0.25, 0.125) for dataset in ("realtalk", "beam") for b in (1500, 3000)
    }
    out = table([("as the code stands", figures)])
    assert "0.5000 / 0.5000" in out and "0.1250 / 0.1250" in out
