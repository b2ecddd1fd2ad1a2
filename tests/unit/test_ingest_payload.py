"""Ingest request bodies: validation, timestamps, limits and normalisation into turns."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from pydantic import ValidationError

from app.domain.ingest.payload import (
    IngestLimits,
    IngestPayload,
    InputError,
    TextIn,
    TurnIn,
    normalize,
    parse_timestamp,
)


def payload(**body: object) -> IngestPayload:
    return IngestPayload.model_validate(body)


# --- shapes -----------------------------------------------------------------------------------


def test_text_becomes_one_text_turn_spoken_by_user() -> None:
    [turn] = normalize(payload(text="  I live in Kwekwe.  "))
    assert (turn.kind, turn.speaker, turn.ts) == ("text", "user", None)
    assert turn.text == "I live in Kwekwe."


def test_chat_turns_keep_speaker_id_session_and_order() -> None:
    turns = normalize(
        payload(
            turns=[
                {"speaker": "Melanie", "text": "I ran a race.", "id": "m1", "session": "s1"},
                {"speaker": "bot", "text": "Nice!", "id": "m2", "session": "s1"},
            ]
        )
    )
    assert [(t.kind, t.speaker, t.text, t.id, t.session) for t in turns] == [
        ("chat", "Melanie", "I ran a race.", "m1", "s1"),
        ("chat", "bot", "Nice!", "m2", "s1"),
    ]


def test_row_renders_sorted_columns_with_json_for_non_strings() -> None:
    [turn] = normalize(
        payload(rows=[{"table": "orders", "row": {"z": None, "qty": 2, "item": "tea", "t": [1]}}])
    )
    assert turn.kind == "row"
    assert turn.speaker == turn.table == "orders"
    assert turn.text == "orders: item=tea; qty=2; t=[1]; z=null"


def test_row_rendering_is_stable_whatever_the_key_order() -> None:
    a = normalize(payload(rows=[{"table": "t", "row": {"a": {"y": 1, "x": 2}, "b": "v"}}]))
    b = normalize(payload(rows=[{"table": "t", "row": {"b": "v", "a": {"x": 2, "y": 1}}}]))
    assert a[0].text == b[0].text == 't: a={"x":2,"y":1}; b=v'


def test_mixed_items_are_discriminated_by_shape_and_keep_order() -> None:
    turns = normalize(
        payload(
            items=[
                {"text": "a note"},
                {"table": "users", "row": {"name": "Ann"}},
                {"speaker": "Ann", "text": "hello"},
                {"text": "another note", "id": "n2"},
            ]
        )
    )
    assert [(t.kind, t.text) for t in turns] == [
        ("text", "a note"),
        ("row", "users: name=Ann"),
        ("chat", "hello"),
        ("text", "another note"),
    ]
    assert turns[3].id == "n2"


def test_all_sections_flatten_in_documented_order() -> None:
    turns = normalize(
        payload(
            items=[{"text": "4"}],
            rows=[{"table": "t", "row": {"c": "3"}}],
            turns=[{"speaker": "s", "text": "2"}],
            text="1",
        )
    )
    assert [t.text for t in turns] == ["1", "2", "t: c=3", "4"]


def test_text_block_speaker_is_used_when_given() -> None:
    turns = normalize(IngestPayload(items=[TextIn(text="memo", speaker="Ann")]))
    assert turns[0].speaker == "Ann"
    assert turns[0].kind == "text"


# --- validation -------------------------------------------------------------------------------


def test_unknown_top_level_field_is_rejected() -> None:
    with pytest.raises(ValidationError, match="extra"):
        payload(text="hi", txet="typo")


def test_unknown_field_inside_a_turn_is_rejected() -> None:
    with pytest.raises(ValidationError):
        payload(turns=[{"speaker": "a", "text": "hi", "timestamp": "2023-05-08"}])


@pytest.mark.parametrize("body", [{}, {"text": ""}, {"turns": []}, {"rows": [], "items": []}])
def test_empty_body_is_rejected(body: dict[str, object]) -> None:
    with pytest.raises(ValidationError, match="nothing to ingest"):
        IngestPayload.model_validate(body)


def test_boolean_timestamp_is_rejected_not_read_as_epoch_one() -> None:
    with pytest.raises(ValidationError):
        payload(turns=[{"speaker": "a", "text": "hi", "ts": True}])


def test_over_long_speaker_is_rejected() -> None:
    with pytest.raises(ValidationError):
        payload(turns=[{"speaker": "x" * 201, "text": "hi"}])


def test_models_publish_field_descriptions_for_openapi() -> None:
    schema = IngestPayload.model_json_schema()
    assert schema["additionalProperties"] is False
    assert "description" in schema["properties"]["items"]
    assert "description" in schema["$defs"]["TurnIn"]["properties"]["speaker"]


# --- normalisation rules ----------------------------------------------------------------------


def test_empty_turns_are_dropped() -> None:
    turns = normalize(
        payload(turns=[{"speaker": "a", "text": "  "}, {"speaker": "b", "text": "kept"}])
    )
    assert [t.text for t in turns] == ["kept"]


def test_ten_thousand_empty_turns_leave_nothing_to_remember() -> None:
    body = payload(turns=[{"speaker": "a", "text": " \n\t"}] * 10_000)
    assert normalize(body) == []


def test_nul_and_control_characters_are_stripped_newlines_and_tabs_kept() -> None:
    [turn] = normalize(payload(text="a\x00b\x1b[31mc\x07\td\r\ne"))
    assert turn.text == "ab[31mc\td\ne"


def test_text_is_unicode_nfc() -> None:
    [turn] = normalize(payload(text="cafe\u0301"))
    assert turn.text == "caf\u00e9"


@pytest.mark.parametrize("blank", [" ", "\t\n", "\x01\x7f", "\u2003"])
def test_a_blank_speaker_or_table_is_refused_by_validation(blank: str) -> None:
    with pytest.raises(ValidationError, match="speaker"):
        payload(turns=[{"speaker": "a", "text": "x"}, {"speaker": blank, "text": "y"}])
    with pytest.raises(ValidationError, match="table"):
        payload(rows=[{"table": blank, "row": {"a": 1}}])


@pytest.mark.parametrize("blank", ["\x00", " ", "\x01\x7f"])
def test_a_blank_time_is_refused_by_validation(blank: str) -> None:
    # A time of NUL characters alone was schema-valid yet refused once they were dropped.
    with pytest.raises(ValidationError, match="session_ts"):
        payload(session_ts=blank, turns=[{"speaker": "a", "text": "x"}])
    with pytest.raises(ValidationError, match=r"turns\.0\.ts"):
        payload(turns=[{"speaker": "a", "text": "x", "ts": blank}])


def test_too_many_items_names_the_limit() -> None:
    body = payload(turns=[{"speaker": "a", "text": "x"}] * 11)
    with pytest.raises(InputError, match="max_items"):
        normalize(body, IngestLimits(max_items=10))
    assert len(normalize(body, IngestLimits(max_items=11))) == 11


def test_over_long_turn_names_the_limit_and_the_index() -> None:
    body = payload(turns=[{"speaker": "a", "text": "ok"}, {"speaker": "a", "text": "x" * 101}])
    with pytest.raises(InputError, match=r"turns\[1\].*max_turn_chars"):
        normalize(body, IngestLimits(max_turn_chars=100))


def test_default_turn_limit_is_enforced() -> None:
    with pytest.raises(InputError, match="max_turn_chars"):
        normalize(payload(text="x" * 200_001))


def test_total_size_limit() -> None:
    body = payload(turns=[{"speaker": "a", "text": "x" * 60}] * 2)
    with pytest.raises(InputError, match="max_total_chars"):
        normalize(body, IngestLimits(max_total_chars=100))


def test_an_unreadable_timestamp_takes_the_sessions_time() -> None:
    body = payload(
        items=[{"text": "ok", "ts": "2023-05-08"}, {"text": "kept", "ts": "yesterday-ish"}],
        session_ts="2023-05-09T10:00:00Z",
    )
    first, second = normalize(body)
    assert first.ts is not None and first.ts.day == 8
    assert second.text == "kept"
    assert second.ts is not None and second.ts.day == 9


def test_an_unreadable_session_ts_is_no_time_at_all() -> None:
    [turn] = normalize(payload(text="hi", session_ts="soon"))
    assert (turn.text, turn.ts) == ("hi", None)


def test_session_ts_applies_only_to_turns_without_their_own() -> None:
    turns = normalize(
        payload(
            session_ts="1:56 pm on 8 May, 2023",
            turns=[
                {"speaker": "a", "text": "no ts"},
                {"speaker": "b", "text": "own ts", "ts": "2023-05-09T10:00:00Z"},
            ],
        )
    )
    assert turns[0].ts == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert turns[1].ts == datetime(2023, 5, 9, 10, 0, tzinfo=UTC)


def test_backfill_keeps_its_2023_dates() -> None:
    turns = normalize(
        payload(
            turns=[
                {"speaker": "a", "text": "first", "ts": "2023-01-02T03:04:05Z"},
                {"speaker": "a", "text": "second", "ts": 1683554160},
            ]
        )
    )
    assert [t.ts for t in turns] == [
        datetime(2023, 1, 2, 3, 4, 5, tzinfo=UTC),
        datetime(2023, 5, 8, 13, 56, tzinfo=UTC),
    ]


def test_turns_without_any_time_stay_undated() -> None:
    assert normalize(IngestPayload(turns=[TurnIn(speaker="a", text="x")]))[0].ts is None


# --- timestamps -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("1:56 pm on 8 May, 2023", datetime(2023, 5, 8, 13, 56, tzinfo=UTC)),
        ("10:37 am on 27 June, 2023", datetime(2023, 6, 27, 10, 37, tzinfo=UTC)),
        ("12:05 am on 1 Jan, 2024", datetime(2024, 1, 1, 0, 5, tzinfo=UTC)),
        ("8 May 2023", datetime(2023, 5, 8, tzinfo=UTC)),
        ("May 8, 2023", datetime(2023, 5, 8, tzinfo=UTC)),
        ("Monday, 8 May 2023 1:56 pm", datetime(2023, 5, 8, 13, 56, tzinfo=UTC)),
        ("2023-05-08", datetime(2023, 5, 8, tzinfo=UTC)),
        ("2023-05-08T13:56:00Z", datetime(2023, 5, 8, 13, 56, tzinfo=UTC)),
        ("2023-05-08T13:56:00", datetime(2023, 5, 8, 13, 56, tzinfo=UTC)),
        ("2023-05-08T15:56:00+02:00", datetime(2023, 5, 8, 13, 56, tzinfo=UTC)),
        (1683554160, datetime(2023, 5, 8, 13, 56, tzinfo=UTC)),
        (1683554160.5, datetime(2023, 5, 8, 13, 56, 0, 500_000, tzinfo=UTC)),
    ],
)
def test_parse_timestamp_accepts_iso_epoch_and_human_dates(
    value: str | float, expected: datetime
) -> None:
    parsed = parse_timestamp(value)
    assert parsed == expected
    assert parsed.utcoffset() == timedelta(0)


@pytest.mark.parametrize(
    "value",
    [
        "yesterday",
        "",
        "31 Feb 2023",
        "13:00 pm on 8 May 2023",
        "8 Smarch 2023",
        "1899-12-31",
        "2201-01-01",
        1683554160000,  # milliseconds
        float("nan"),
        True,
    ],
)
def test_parse_timestamp_rejects_the_rest(value: object) -> None:
    with pytest.raises(InputError):
        parse_timestamp(value)  # type: ignore[arg-type]


def test_input_error_is_a_value_error() -> None:
    assert issubclass(InputError, ValueError)
