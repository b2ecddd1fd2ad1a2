"""A stored index segment checked against the chain and the log rows it was built from."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from app.domain.context.index import segment_of
from app.domain.context.records import records_of
from app.domain.context.segment_checks import records_differ, segment_digest
from app.domain.context.segments import decode, encode


def _turn(row_id: int, speaker: str, text: str) -> tuple[int, str, dict]:
    item = {"id": f"a{row_id}", "speaker": speaker, "text": text, "ts": "2024-03-02T10:00:00Z"}
    return (row_id, "turn", item)


ROWS = [
    _turn(1, "Tove", "My sister lives in Gweru."),
    _turn(2, "Rafe", "Does she still keep bees?"),
    _turn(3, "Tove", "Two hives, behind the school."),
]


def body_of(rows: list) -> bytes:
    return encode(segment_of(records_of(rows)))


def test_a_segment_built_from_the_rows_agrees_with_them() -> None:
    assert records_differ(body_of(ROWS), ROWS) is None


def test_a_segment_of_the_newest_rows_only_agrees_too() -> None:
    assert records_differ(body_of(ROWS[1:]), ROWS) is None


def test_a_text_changed_in_the_segment_is_found() -> None:
    segment = decode(body_of(ROWS))
    segment.texts["texts"][1] = "She sold the bees last year."
    assert records_differ(encode(segment), ROWS) == "its texts are not what the log says"


def test_a_row_the_log_no_longer_holds_is_found() -> None:
    assert records_differ(body_of(ROWS), ROWS[:2]) == "its records are not the log's rows"


def test_bytes_that_are_no_segment_are_found() -> None:
    assert "cannot be read" in (records_differ(b"TSI-junk", ROWS) or "")


def test_the_digest_ties_the_bytes_to_the_version_hash() -> None:
    body = body_of(ROWS)
    digest = segment_digest("ab" * 32, body)
    assert digest == segment_digest("ab" * 32, body)
    assert digest != segment_digest("cd" * 32, body)
    assert digest != segment_digest("ab" * 32, body[:-1] + bytes([body[-1] ^ 1]))


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=0), st.integers(min_value=0, max_value=255))
def test_any_byte_changed_is_a_mismatch_of_the_digest_or_of_the_records(
    at: int, value: int
) -> None:
    body = body_of(ROWS)
    where = at % len(body)
    if body[where] == value:
        return
    changed = body[:where] + bytes([value]) + body[where + 1 :]
    assert segment_digest("ab" * 32, changed) != segment_digest("ab" * 32, body)
