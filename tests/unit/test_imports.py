"""Other services' memory exports and message lists, read as the ingest they amount to."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from app.domain.ingest import prepare
from app.domain.ingest.imports import MemoryImport

# Shapes as other services export them; the words are our own.
MEMORY_LIST = [
    {
        "id": "3f1c",
        "memory": "Prefers window seats on long flights",
        "hash": "ab12",
        "created_at": "2024-03-02T10:00:00-08:00",
        "updated_at": None,
        "user_id": "u-7",
        "metadata": {"category": "travel"},
    },
    {"id": 42, "memory": "Allergic to peanuts", "created_at": "2024-01-05T09:30:00Z"},
]
RESULTS = {"results": [{"text": "Moved to Lisbon in March", "timestamp": "2024-03-20"}]}
FACTS = [{"fact": "Works night shifts at the hospital", "createdAt": 1709373600}]
MESSAGES = {
    "messages": [
        {"role": "system", "content": "You are a travel assistant."},
        {
            "role": "user",
            "content": [{"type": "text", "text": "Book the 9:40 train to Porto."}],
            "created_at": "2024-04-01T08:00:00Z",
            "metadata": {"session_id": "trip"},
        },
        {
            "role": "ai",
            "content": "Booked: 9:40, carriage 4.",
            "created_at": "2024-04-01T08:00:05Z",
        },
    ],
    "subject": "user",
}


def turns_of(body: Any) -> list[tuple[str, str, str, str | None, str | None]]:
    """(kind, speaker, text, day, id) of each turn the import stores."""
    segments = prepare(MemoryImport.model_validate(body).to_payload())
    return [
        (t.kind, t.speaker, t.text, t.ts.date().isoformat() if t.ts else None, t.id)
        for s in segments
        for t in s.turns
    ]


def test_a_memory_list_becomes_notes_with_their_own_times_and_ids() -> None:
    assert turns_of(MEMORY_LIST) == [
        ("text", "user", "Prefers window seats on long flights", "2024-03-02", "3f1c"),
        ("text", "user", "Allergic to peanuts", "2024-01-05", "42"),
    ]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (RESULTS, ("Moved to Lisbon in March", "2024-03-20")),
        (FACTS, ("Works night shifts at the hospital", "2024-03-02")),
    ],
)
def test_each_services_words_and_time_keys_are_read(body: Any, expected: tuple[str, str]) -> None:
    [(_, _, text, day, _)] = turns_of(body)
    assert (text, day) == expected


def test_a_time_or_session_of_another_shape_is_passed_over_not_refused() -> None:
    body = [{"memory": "Likes jazz", "created_at": {"seconds": 1}, "metadata": {"date": True}}]
    assert turns_of(body) == [("text", "user", "Likes jazz", None, None)]


def test_a_message_list_becomes_chat_turns_with_their_roles() -> None:
    turns = turns_of(MESSAGES)
    assert [(kind, who, text) for kind, who, text, _, _ in turns] == [
        ("chat", "system", "You are a travel assistant."),
        ("chat", "user", "Book the 9:40 train to Porto."),
        ("chat", "assistant", "Booked: 9:40, carriage 4."),
    ]
    payload = MemoryImport.model_validate(MESSAGES).to_payload()
    assert payload.items is not None and payload.items[1].session == "trip"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ([], "at least 1 item"),
        ([{"created_at": "2024-01-01"}], "memory, text, content or fact"),
        ({"memories": [{"memory": "x"}], "messages": [{"text": "y"}]}, "one of memories"),
        ([{"memory": "x", "role": ""}], "role"),
    ],
)
def test_what_cannot_be_imported_says_why(body: Any, says: str) -> None:
    with pytest.raises((ValueError, ValidationError)) as raised:
        MemoryImport.model_validate(body).to_payload()
    assert says in str(raised.value)


@given(
    st.lists(
        st.fixed_dictionaries(
            {"memory": st.text(max_size=200)},
            optional={
                "created_at": st.one_of(st.text(max_size=40), st.integers(), st.none()),
                "metadata": st.dictionaries(st.text(max_size=10), st.text(max_size=10)),
                "role": st.sampled_from(["user", "assistant", "human", "ai", "narrator"]),
            },
        ),
        min_size=1,
        max_size=20,
    )
)
@settings(max_examples=200, deadline=None)
def test_any_memory_list_is_imported_or_refused_with_a_reason(body: list[dict[str, Any]]) -> None:
    try:
        segments = prepare(MemoryImport.model_validate(body).to_payload())
    except ValueError as error:  # a pydantic error is one too
        assert str(error)
        return
    kept = [t.text for s in segments for t in s.turns]
    assert all(k.strip() for k in kept)
    assert all(t.ts is None or t.ts.tzinfo is not None for s in segments for t in s.turns)
