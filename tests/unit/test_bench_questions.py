"""Per-question figures of the conversation benches, and the diff of two runs, on made-up data."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.conversations.data import Question as BeamQuestion
from bench.conversations.run import BASELINE as BEAM_BASELINE
from bench.conversations.run import TESSERA as BEAM_TESSERA
from bench.conversations.run import Results as BeamResults
from bench.questions import QuestionFigure, changes, main, net, read_figures, write_figures
from bench.realtalk.data import Question as TalkQuestion
from bench.realtalk.metrics import Haystack
from bench.realtalk.run import TESSERA as TALK_TESSERA
from bench.realtalk.run import Results as TalkResults


def figure(question: str, budget: int, answered: bool, items: float) -> QuestionFigure:
    return QuestionFigure(question, "extraction", budget, answered, items, None)


def test_figures_survive_a_round_trip_through_the_file(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    figures = [figure("Which kiln?", 1500, True, 1.0), figure("Which glaze?", 1500, False, 0.5)]
    write_figures(path, figures)
    assert read_figures(path) == figures


def test_only_questions_whose_figure_moved_are_listed_and_summed_per_budget() -> None:
    before = [
        figure("Which kiln?", 1500, True, 1.0),
        figure("Which glaze?", 1500, False, 0.5),
        figure("Which kiln?", 3000, True, 1.0),
    ]
    after = [
        figure("Which kiln?", 1500, False, 0.5),
        figure("Which glaze?", 1500, False, 0.5),
        figure("Which kiln?", 3000, True, 1.0),
    ]
    moved = changes(before, after, "items")
    assert [(c.before.question, c.delta) for c in moved] == [("Which kiln?", -0.5)]
    assert net(moved) == {1500: -0.5}
    assert changes(before, after, "answered", group="summary") == []


def test_runs_of_other_questions_are_refused(tmp_path: Path) -> None:
    one, other = tmp_path / "one.jsonl", tmp_path / "other.jsonl"
    write_figures(one, [figure("Which kiln?", 1500, True, 1.0)])
    write_figures(other, [figure("Which glaze?", 1500, True, 1.0)])
    with pytest.raises(ValueError):
        changes(read_figures(one), read_figures(other), "answered")
    assert main([str(one), str(other)]) == 2


def test_the_cli_prints_each_change_and_the_net(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    write_figures(one, [figure("Which kiln?", 1500, False, 0.0)])
    write_figures(two, [figure("Which kiln?", 1500, True, 1.0)])
    assert main([str(one), str(two)]) == 0
    out = capsys.readouterr().out
    assert "0.00 -> 1.00  Which kiln?" in out
    assert "1,500: +1.00" in out
    assert main([str(one), str(one)]) == 0
    assert "no question's figure differs" in capsys.readouterr().out


def test_the_beam_bench_records_tesseras_figures_per_question() -> None:
    question = BeamQuestion("What does my kiln fire at?", "extraction", ("1220", "cone 6"), ("1",))
    results = BeamResults()
    results.add(BEAM_TESSERA, 1500, question, "it fires at 1220 degrees", named={"1", "2"})
    results.add(BEAM_BASELINE, 1500, question, "1220 and cone 6", named=set())
    assert results.per_question == [
        QuestionFigure(question.question, "extraction", 1500, False, 0.5, 1.0)
    ]


def test_the_realtalk_bench_records_tesseras_figures_per_question() -> None:
    question = TalkQuestion("Where did Ines go hiking?", "Dolomites", ("D1:1", "D1:2"), "multi-hop")
    results = TalkResults()
    results.add(TALK_TESSERA, 3000, question, {"D1:2"}, Haystack.of("We hiked the Dolomites."))
    [row] = results.per_question
    assert (row.answered, row.items, row.named) == (True, 1.0, 0.5)
