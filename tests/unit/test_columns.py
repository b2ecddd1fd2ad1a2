"""String columns the garbage collector does not walk: read back exactly, by place."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.domain.columns import CHUNK, StrColumn, StrRuns
from bench.ranking import collector_walk


@given(st.lists(st.one_of(st.none(), st.text()), max_size=3 * CHUNK + 5))
def test_a_column_reads_back_what_was_appended(values: list[str | None]) -> None:
    column: StrColumn[str | None] = StrColumn(values)
    assert len(column) == len(values)
    assert list(column) == values
    assert [column[i] for i in range(len(values))] == values
    if values:
        assert column[-1] == values[-1]
        assert column[1:-1] == values[1:-1]


@given(
    st.integers(0, 3 * CHUNK + 5),
    st.integers(-3 * CHUNK, 3 * CHUNK),
    st.integers(-3 * CHUNK, 3 * CHUNK),
    st.sampled_from([None, 1, 2, -1]),
)
def test_a_slice_reads_what_a_list_slice_reads(
    size: int, start: int, stop: int, step: int | None
) -> None:
    values = [str(i) for i in range(size)]
    column = StrColumn.of(values)
    grown: StrColumn[str] = StrColumn(values)  # the same values appended one by one
    assert column[start:stop:step] == values[start:stop:step] == grown[start:stop:step]
    assert column[start : start + 3] == values[start : start + 3]  # within or across a chunk


def test_reading_past_either_end_is_an_index_error() -> None:
    column = StrColumn(["a", "b"])
    with pytest.raises(IndexError):
        column[2]
    with pytest.raises(IndexError):
        column[-3]


@given(st.lists(st.lists(st.text(), max_size=4), max_size=300))
def test_runs_read_back_per_place_empty_ones_too(runs: list[list[str]]) -> None:
    column = StrRuns()
    for run in runs:
        column.append(run)
    assert len(column) == len(runs)
    assert [column[i] for i in range(len(runs))] == [tuple(run) for run in runs]
    if runs:
        assert column[-1] == tuple(runs[-1])
    for past in (len(runs), -len(runs) - 1):
        with pytest.raises(IndexError):
            column[past]


def test_a_long_column_leaves_the_collector_one_open_chunk_to_walk() -> None:
    column = StrColumn(f"turn {n}" for n in range(50 * CHUNK + 7))
    column.append("one more")
    # A list of the same strings would cost a visit per string on every full collection.
    assert collector_walk(column) < 2 * CHUNK
    assert collector_walk(list(column)) > 50 * CHUNK
