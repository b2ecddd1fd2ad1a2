"""Stored index segments: a log stored in segments and merged reads as one built at once."""

from __future__ import annotations

import contextlib
import itertools
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.domain.context import MemoryIndex, build_context, records_of, search
from app.domain.context.index import EvidenceIndex, segment_of
from app.domain.context.segments import decode, encode, merged
from app.domain.passport import Passport
from app.services.stored_index import SegmentInfo, level_of, merge_run

START = datetime(2024, 3, 4, 9, 0, tzinfo=UTC)
HEAD = Passport.from_dict(
    {
        "version": "2.1",
        "user_key": "kim",
        "facts": [{"key": "kim.city", "value": "Lyon", "ts": "2024-03-01T00:00:00Z"}],
    }
)
USER_LINES = [
    "my build server runs on port 8080 now",
    "we moved the sprint deadline to Friday",
    "I adopted a greyhound called Pixel yesterday",
    "test coverage of the billing module is 71%",
    "can you make the release notes shorter?",
]
ANSWER = (
    "Here is a plan.\n\n## Steps\n\n1. Check the port settings in the config.\n"
    "2. Restart the server.\n\n```python\nprint('coverage', 71)\nserver.run(port=8080)\n```\n\n"
    "Then rerun the billing tests and compare the coverage with last week's figure."
)


def log_rows(n: int) -> list[tuple[int, str, dict[str, Any]]]:
    """A made-up user–assistant log: turns in daily sessions, observations, episodes, sources."""
    rows: list[tuple[int, str, dict[str, Any]]] = []
    for i in range(n):
        when = START + timedelta(hours=7 * i)
        session = f"s{i // 4}"
        text = USER_LINES[i % len(USER_LINES)] if i % 2 == 0 else f"{ANSWER} ({i})"
        turn = {
            "id": f"t{i}",
            "speaker": "Kim" if i % 2 == 0 else "assistant",
            "role": "user" if i % 2 == 0 else "assistant",
            "text": text,
            "ts": when.isoformat(),
            "session": session,
            "source": f"src{i // 4}",
            "dates": [{"said": "yesterday", "day": (when - timedelta(days=1)).date().isoformat()}]
            if "yesterday" in text
            else [],
        }
        rows.append((len(rows) + 1, "turn", turn))
        if i % 4 == 3:
            rows.append((len(rows) + 1, "source", {"id": f"src{i // 4}", "turn_ids": [f"t{i}"]}))
            rows.append(
                (
                    len(rows) + 1,
                    "observation",
                    {"text": f"Kim talked about {text[:30]}", "source": f"src{i // 4}"},
                )
            )
            rows.append(
                (
                    len(rows) + 1,
                    "episode",
                    {
                        "id": f"e{i}",
                        "summary": f"Kim and the assistant on session {session}",
                        "ts": when.isoformat(),
                        "end": when.isoformat(),
                        "participants": ["Kim", "assistant"],
                        "keywords": ["port", "coverage"],
                        "quoted": i % 8 == 3,
                    },
                )
            )
    return rows


QUESTIONS = [
    "what port does my build server use?",
    "test coverage billing",
    "when did I adopt Pixel?",
    "what did we talk about?",
    "release notes",
    None,
]


def loaded(rows: list[tuple[int, str, dict[str, Any]]], cuts: list[int]) -> MemoryIndex:
    """The rows stored as segments cut at ``cuts``, each through bytes, merged and loaded."""
    bounds = [0, *sorted(set(cuts)), len(rows)]
    parts = [
        decode(encode(segment_of(records_of(rows[a:b]))))
        for a, b in itertools.pairwise(bounds)
        if b > a
    ]
    as_loaded = MemoryIndex.of_segments(HEAD, parts)
    as_merged = MemoryIndex.of_segments(HEAD, [decode(encode(merged(parts)))])
    assert_same(as_loaded.evidence, as_merged.evidence)
    return as_merged


def assert_same(a: EvidenceIndex, b: EvidenceIndex) -> None:
    assert [a.record(i) for i in range(len(a))] == [b.record(i) for i in range(len(b))]
    assert a.vocabulary() == b.vocabulary()
    for token in a.vocabulary():
        assert np.array_equal(a.scores([token]), b.scores([token])), token
    assert [a.span(d) for d in range(a.n_passages)] == [b.span(d) for d in range(b.n_passages)]
    assert np.array_equal(a.same_session_as_next(), b.same_session_as_next())
    assert np.array_equal(a.first_passages(), b.first_passages())
    assert np.array_equal(a.record_epochs(), b.record_epochs(), equal_nan=True)
    machine_a, machine_b = a.machine_passages(), b.machine_passages()
    assert (machine_a is None) == (machine_b is None)
    assert machine_a is None or np.array_equal(machine_a, machine_b)
    assert [a.heading(i) for i in range(len(a))] == [b.heading(i) for i in range(len(b))]
    assert a.speakers_named(["kim"]) == b.speakers_named(["kim"])
    assert a.approx_bytes() == b.approx_bytes()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(min_value=0, max_value=10), max_size=6))
def test_a_log_stored_in_any_segments_reads_as_one_built_at_once(writes: list[int]) -> None:
    rows = log_rows(40)
    whole = MemoryIndex.of(HEAD, records_of(rows))
    # A write adds a session's turns with their source, observation and episode (7 rows).
    stored = loaded(rows, [7 * w for w in writes])
    assert_same(whole.evidence, stored.evidence)
    assert whole.sessions.records == stored.sessions.records
    for q in QUESTIONS:
        assert build_context(stored, q, 1500).text == build_context(whole, q, 1500).text
        if q:
            assert search(stored, q, 5) == search(whole, q, 5)


def test_a_loaded_index_grows_with_new_rows_as_the_warm_one_does() -> None:
    rows = log_rows(60)
    warm = MemoryIndex.of(HEAD, records_of(rows[:50]))
    stored = loaded(rows[:50], [21])
    warm.extend(records_of(rows[50:]))
    stored.extend(records_of(rows[50:]))
    assert_same(warm.evidence, stored.evidence)
    for q in QUESTIONS:
        assert build_context(stored, q, 3000).text == build_context(warm, q, 3000).text


def test_a_writes_segment_is_the_bytes_of_a_built_index_s() -> None:
    # A write's segment skips weighing its terms (segments keep term frequencies): the bytes are
    # those of the same rows indexed whole and weighed, as a stored base is.
    for n in (1, 7, 40):
        records = records_of(log_rows(n))
        assert encode(segment_of(records)) == encode(MemoryIndex.of(HEAD, records).to_segment())


def test_a_segment_keeps_every_character_and_none() -> None:
    rows: list[tuple[int, str, dict[str, Any]]] = [
        (1, "turn", {"id": None, "speaker": "", "text": "emoji 🐕 and \u2028 a line separator"}),
        (2, "turn", {"id": "x\u0000y", "speaker": 'Zoë "Z"', "text": 'quote " and \\ slash'}),
    ]
    whole = MemoryIndex.of(HEAD, records_of(rows))
    assert_same(whole.evidence, loaded(rows, []).evidence)


def test_an_empty_log_stores_and_loads() -> None:
    stored = loaded([], [])
    assert stored.evidence.n_passages == 0
    assert (
        build_context(stored, "anything", 500).text
        == build_context(MemoryIndex(HEAD), "anything", 500).text
    )


@pytest.mark.parametrize(
    "damage",
    [b"", b"nope", b"TSI\x01", b"TSI\x01\xff\xff\xff\xff{}", b"TSI\x02" + b"\x00" * 20],
)
def test_damaged_or_foreign_bytes_are_refused_not_misread(damage: bytes) -> None:
    with pytest.raises(ValueError):
        decode(damage)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes_decode_to_a_segment_or_a_value_error(data: bytes) -> None:
    good = encode(segment_of(records_of(log_rows(3))))
    for candidate in (data, good[: len(data)], good[:20] + data):
        with contextlib.suppress(ValueError):
            decode(candidate)


def simulate(base: int, writes: list[int]) -> tuple[list[SegmentInfo], int, int]:
    """Segments after a base of ``base`` records and writes of these sizes, merged as stored:
    the chain, the records merges rewrote, and the most segments held at once."""
    chain = [SegmentInfo(0, 1, 0, level_of(base), base)] if base else []
    rewritten = most = 0
    for n, records in enumerate(writes, start=2):
        chain.append(SegmentInfo(n - 1, n, 0, level_of(records), records))
        while run := merge_run(chain):
            total = sum(info.records for info in run)
            rewritten += total
            merged_info = SegmentInfo(
                run[0].from_version, run[-1].to_version, 0, level_of(total), total
            )
            chain = [*chain[: len(chain) - len(run)], merged_info]
        most = max(most, len(chain))
    return chain, rewritten, most


def test_merging_keeps_segments_few_and_rewrites_each_row_a_few_times() -> None:
    writes = [20] * 10_000
    chain, rewritten, most = simulate(0, writes)
    assert sum(info.records for info in chain) == 200_000
    assert most <= 7 * 5 + 1  # under FANOUT per size class
    assert rewritten / 200_000 <= 5  # a row climbs at most one class per rewrite


def test_a_large_base_is_not_rewritten_by_the_writes_after_it() -> None:
    chain, rewritten, most = simulate(200_000, [20] * 3_000)
    assert chain[0].records == 200_000 and chain[0].to_version == 1
    assert rewritten <= 5 * 3_000 * 20 and most <= 7 * 5 + 1


def test_writes_of_any_sizes_stay_bounded() -> None:
    sizes = [(n * 7919) % 3000 + 1 for n in range(3_000)]
    chain, rewritten, most = simulate(50_000, sizes)
    assert sum(info.records for info in chain) == 50_000 + sum(sizes)
    assert most <= 8 * 5
    assert rewritten / sum(sizes) <= 8


def test_a_segment_whose_columns_disagree_is_refused() -> None:
    good = segment_of(records_of(log_rows(4)))
    assert decode(encode(good)).records == good.records
    short = segment_of(records_of(log_rows(4)))
    short.texts["texts"].pop()  # one record's text gone
    pointing_out = segment_of(records_of(log_rows(4)))
    pointing_out.numbers["docs"] = pointing_out.numbers["docs"] + 1_000  # past every passage
    for damaged in (short, pointing_out):
        with pytest.raises(ValueError, match="do not agree"):
            decode(encode(damaged))
