"""The in-process ranking benchmark: its histories and its table, at tiny sizes."""

from __future__ import annotations

from bench.agent_loop import SEED, TURNS, USER
from bench.ingest import user_sessions
from bench.ranking import STEPS, records, report, run


def test_records_keep_each_turn_in_order_with_its_dates_resolved() -> None:
    sessions = user_sessions(SEED, USER, 3, TURNS)
    turns = records(sessions)
    assert [r.turn_id for r in turns] == [t["id"] for s in sessions for t in s["turns"]]
    assert [r.position for r in turns] == list(range(1, len(turns) + 1))
    said = [r for r in turns if r.dates]
    assert said  # the synthetic chat says relative dates: some must have been resolved
    assert all(d.said.lower() in r.text.lower() for r in said for d in r.dates)


def test_each_size_is_timed_step_by_step_and_compared_with_the_smallest() -> None:
    figures = run([1, 4], 5)
    assert [figures[size]["passages"] for size in (1, 4)] == [TURNS, 4 * TURNS]
    for cell in figures.values():
        assert all(cell[step] > 0 for step in STEPS)
        assert cell["matching"] > 0
    table = report(figures)
    assert "(1.0x)" in table.splitlines()[3]  # the first row is its own base
    assert [row.split()[0] for row in table.splitlines()[3:]] == ["1", "4"]
