"""Row identities and segment ids lead with the time they were said, so they sort as it passes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st

from app.domain.ids import sha256_hex, time_in_id, time_key, timed_id, untimed_id
from app.domain.ingest.segmentation import make_segment, refiled, untimed_ids
from app.domain.ingest.turns import Turn
from app.domain.memory.log import row_hash, segment_keys, turn_hash

T0 = datetime(2023, 5, 8, 13, 56, 7, tzinfo=UTC)
MOMENTS = st.datetimes(
    min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30), timezones=st.just(UTC)
)


def test_a_time_key_is_utc_with_every_field_zero_padded() -> None:
    assert time_key(T0) == "20230508T135607"
    assert time_key(datetime(5, 3, 1, 4, 5, 6, tzinfo=UTC)) == "00050301T040506"
    assert time_key(datetime(2023, 5, 8, 15, 56, 7, tzinfo=timezone(timedelta(hours=2)))) == (
        "20230508T135607"
    )
    assert time_key(datetime(2023, 5, 8, 13, 56, 7)) == "20230508T135607"  # naive is UTC
    assert time_key(None) is None


def test_a_time_whose_utc_day_is_outside_the_calendar_has_no_key() -> None:
    ahead = timezone(timedelta(hours=5))
    assert time_key(datetime(1, 1, 1, 0, 30, tzinfo=ahead)) is None
    assert time_key(datetime(9999, 12, 31, 23, 0, tzinfo=timezone(timedelta(hours=-5)))) is None


@given(MOMENTS, MOMENTS)
def test_keys_sort_as_their_times_do(a: datetime, b: datetime) -> None:
    ka, kb = time_key(a), time_key(b)
    assert ka is not None and kb is not None
    if a.replace(microsecond=0) < b.replace(microsecond=0):
        assert ka < kb


def test_a_timed_id_carries_its_time_and_an_untimed_one_does_not() -> None:
    stamped = timed_id("seg", ["x"], T0)
    assert stamped == f"seg_20230508T135607_{sha256_hex(['x'])[:16]}"
    assert time_in_id(stamped) == "20230508T135607"
    assert timed_id("seg", ["x"], None) == f"seg_{sha256_hex(['x'])[:16]}"
    others = ["seg_a", "m7", None, 42, "SEG_20230508T135607_x", "seg_٢٠٢٣٠٥٠٨T135607_x"]
    for other in (timed_id("seg", ["x"], None), *others):
        assert time_in_id(other) is None


def _turn(text: str, ts: str, turn_id: str) -> dict[str, str]:
    return {"speaker": "ann", "text": text, "ts": ts, "id": turn_id, "session": "s1"}


def test_a_later_turn_is_keyed_after_an_earlier_one_whatever_it_says() -> None:
    earlier = row_hash("turn", _turn("zzz", "2023-05-08T13:56:00Z", "m9"))
    later = row_hash("turn", _turn("aaa", "2023-05-08T13:57:00+00:00", "m1"))
    assert earlier.startswith("20230508T135600:") and later.startswith("20230508T135700:")
    assert earlier < later


def test_a_turn_is_keyed_the_same_however_its_identity_is_computed() -> None:
    item = _turn("hi", "2023-05-08T13:56:00Z", "m1")
    direct = turn_hash("ann", "hi", "2023-05-08T13:56:00Z", "m1", "s1", 0)
    assert row_hash("turn", item) == direct
    assert row_hash("turn", item, 1) != direct  # the second "hi" of one request is its own turn
    # Without a usable time the key is the bare content hash, as every key was before.
    assert row_hash("turn", _turn("hi", "yesterday", "m1")) == sha256_hex(
        ["turn", "ann", "hi", "yesterday", "m1", "s1", 0]
    )


def test_a_segment_id_leads_with_its_first_time_and_its_source_is_keyed_by_it() -> None:
    turns = [
        Turn(speaker="ann", text="hello", ts=T0 + timedelta(minutes=1)),
        Turn(speaker="bo", text="hi", ts=T0),
    ]
    segment = make_segment(turns)
    assert segment.id.startswith("seg_20230508T135607_")
    keys = segment_keys(segment)
    item = {"id": segment.id, "kind": "chat", "hash": segment.hash, "turn_ids": []}
    assert keys[0] == row_hash("source", item) and keys[0].startswith("20230508T135607:")
    # The form a source was stored under before ids carried a time: the same content hash.
    legacy = {"id": "seg_" + segment.id.rsplit("_", 1)[1], "hash": segment.hash}
    assert keys[1] == row_hash("source", legacy) == sha256_hex(["source", segment.hash])
    untimed = make_segment([Turn(speaker="ann", text="hello")])
    assert time_in_id(untimed.id) is None
    assert segment_keys(untimed) == (sha256_hex(["source", untimed.hash]),) * 2


def test_a_segment_keeps_the_untimed_id_its_stored_turns_name() -> None:
    timed = make_segment([Turn(speaker="ann", text="hello", ts=T0)])
    other = make_segment([Turn(speaker="bo", text="bye", ts=T0)])
    untimed = make_segment([Turn(speaker="ann", text="hello")])
    before = untimed_id(timed.id)
    assert before == "seg_" + timed.id.rsplit("_", 1)[1] and untimed_id(untimed.id) == untimed.id
    assert untimed_ids([timed, other, untimed]) == {before, untimed_id(other.id)}
    moved = refiled([timed, other, untimed], {before, "seg_elsewhere"})
    assert [s.id for s in moved] == [before, other.id, untimed.id]
    assert moved[0].turns == timed.turns and moved[0].hash == timed.hash
