"""The garbage-collection benchmark: its table and its figures, at tiny sizes."""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest

from app.domain.context import EvidenceIndex
from bench.agent_loop import SEED, TURNS, USER
from bench.gc_pause import as_lists, main
from bench.ingest import user_sessions
from bench.ranking import records


def test_each_size_gets_a_row_of_pauses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "gc.json"
    assert main(["--sizes", "1,2", "--json", str(out)]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert [row.split()[0] for row in printed[3:5]] == ["1", "2"]
    assert printed[5].startswith("A full collection before")
    figures = json.loads(out.read_text())
    assert figures["2"]["records"] == 2 * TURNS
    assert all(cell["walked"] > 0 for cell in figures.values())
    assert all(cell[k] >= 0 for cell in figures.values() for k in ("index", "as_lists", "nothing"))
    assert gc.get_freeze_count() == 0  # the process's objects are given back afterwards


def test_the_lists_hold_the_same_strings_as_the_index() -> None:
    index = EvidenceIndex(records(user_sessions(SEED, USER, 2, TURNS)))
    texts, ids, turn_ids, stamps, sources = as_lists(index)
    made = [index.record(i) for i in range(len(index))]
    assert len(made) == 2 * TURNS
    assert texts == [r.text for r in made]
    assert ids == [r.id for r in made] and turn_ids == [r.turn_id for r in made]
    assert stamps == [r.ts for r in made] and sources == [r.source for r in made]
