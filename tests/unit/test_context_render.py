"""The context: beliefs that matter for the question, then the memories that answer it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.domain.context import MemoryIndex, TurnRecord, build_context, search
from app.domain.context.render import BELIEF_SHARE
from app.domain.dates import DateWindow, parse_when, turn_dates
from app.domain.passport import Passport

START = datetime(2023, 5, 7, 18, 0, tzinfo=UTC)


def turns(lines: list[tuple[str, str]], *, days: int = 0) -> list[TurnRecord]:
    """Made-up turns a minute (or ``days``) apart, one session a day."""
    out = []
    for i, (speaker, text) in enumerate(lines):
        when = START + (timedelta(days=days * i) if days else timedelta(minutes=i))
        out.append(
            TurnRecord(
                id=str(i + 1),
                turn_id=f"m{i}",
                speaker=speaker,
                text=text,
                ts=when.isoformat(),
                session=f"{when:%Y-%m-%d}",
                dates=turn_dates(text, when),
                position=i + 1,
            )
        )
    return out


HEAD: dict[str, Any] = {
    "version": "2.1",
    "user_key": "ana",
    "facts": [
        {"key": "ana.location", "value": "Porto", "ts": "2023-05-01T00:00:00Z", "turn_ids": ["m9"]},
        {"key": "ana.job", "value": "nurse", "ts": "2023-04-01T00:00:00Z"},
        {"key": "ana.pet", "value": "a cat called Miso", "ts": "2023-03-01T00:00:00Z"},
        {"key": "ana.car", "value": "a red van", "ts": "2023-02-01T00:00:00Z"},
        {"key": "ana.sister", "value": "Lena", "ts": "2023-01-01T00:00:00Z"},
    ],
    "prefs": [
        {"key": "ana.likes", "value": "sea swimming", "ts": "2023-05-02T00:00:00Z"},
        {"key": "ana.dislikes", "value": "olives", "ts": "2023-05-03T00:00:00Z"},
    ],
    "open_loops": [{"item": "Book the ferry to Madeira", "ts": "2023-05-04T00:00:00Z"}],
    "contradictions": [
        {"key": "ana.location", "old": "Braga", "new": "Porto", "ts_new": "2023-05-01T00:00:00Z"}
    ],
}
CHAT = [
    ("Ana", "morning!"),
    ("Ben", "hey, how was the weekend"),
    ("Ana", "we finally adopted a puppy yesterday"),
    ("Ben", "no way, what's her name?"),
    ("Ana", "Biscuit, she is tiny"),
    ("Ben", "cute!!"),
    ("Ana", "work was long, double shift at the hospital"),
    ("Ben", "you need a break"),
]


def index(chat: list[tuple[str, str]] = CHAT, head: dict[str, Any] = HEAD) -> MemoryIndex:
    return MemoryIndex.of(Passport.from_dict(head), turns(chat))


@pytest.mark.parametrize("budget", [0, 10, 50, 120, 400, 800, 3000])
@pytest.mark.parametrize("q", [None, "", "puppy name", "where does Ana live", "olives"])
def test_the_budget_is_never_exceeded(budget: int, q: str | None) -> None:
    ctx = build_context(index(), q, budget)
    assert len(ctx.text) <= budget


def test_the_answer_turn_comes_with_the_question_it_answers() -> None:
    ctx = build_context(index(), "what is the puppy called", 1500)
    assert "Biscuit" in ctx.text
    assert "what's her name?" in ctx.text  # the neighbour that says what "Biscuit" answers
    assert "yesterday (6 May 2023)" in ctx.text  # the date resolved when it was said
    assert "Memories:\n[7 May 2023]\n" in ctx.text and "\nAna: " in ctx.text  # a day, its lines


def test_core_facts_show_whatever_the_question_and_the_rest_only_when_it_matters() -> None:
    ctx = build_context(index(), "what is the puppy called", 3000)
    facts = [b for b in ctx.beliefs if b.section == "facts"]
    assert [b.key for b in facts] == ["ana.location", "ana.job", "ana.pet"]  # the newest three
    assert not any(b.key == "ana.sister" for b in ctx.beliefs)
    assert "more beliefs not shown" in ctx.text
    asked = build_context(index(), "who is Ana's sister", 3000)
    assert any(b.key == "ana.sister" for b in asked.beliefs)


def test_a_question_about_what_was_said_ranks_by_what_it_asks() -> None:
    chat = [
        ("Ana", "as you mentioned, I'd say the ferry is faster"),
        ("Ben", "I mentioned it, yes, you said so too"),
        ("Ana", "my new address is 14 Rua das Flores"),
        ("Ben", "nice, I'll tell Mia what you said"),
    ]
    ctx = build_context(index(chat), "What address did I mention?", 200)
    hits = [item.text for item in ctx.evidence.items if item.role == "hit"]
    assert hits == ["my new address is 14 Rua das Flores"]
    assert "ferry" not in ctx.text


def test_a_value_the_question_names_comes_before_the_core_facts() -> None:
    value = {"key": "quiz score", "about": "quiz score", "value": "75%", "ts": "2023-05-05"}
    head = {**HEAD, "values": [{**value, "history": [{"value": "60%", "ts": "2023-04-05"}]}]}
    # Room for two or three lines: the value asked about is one of them.
    for budget in (600, 800):
        asked = build_context(index(head=head), "what was my quiz score?", budget)
        assert asked.beliefs[0].section == "values", budget
        assert "quiz score: 75%" in asked.text
    # A question that does not name it leaves the core facts their room.
    other = build_context(index(head=head), "what was my score?", 800)
    assert [b.section for b in other.beliefs] == ["facts", "facts", "facts"]


def test_a_named_organisation_is_shown_and_a_bare_name_of_no_kind_is_not() -> None:
    head = {
        **HEAD,
        "entities": [
            {"name": "Biscuit Bakery", "type": "organization"},
            {"name": "Puppy Palace", "type": "other"},
            {"name": "Puppy Club", "type": "other", "aliases": ["PC"]},
        ],
    }
    q = "Biscuit Bakery, Puppy Palace or the Puppy Club"
    text = build_context(index(head=head), q, 3000).text
    assert "Biscuit Bakery (organization)" in text
    assert "Puppy Club (other; also called PC)" in text
    assert "Puppy Palace (other)" not in text


def test_beliefs_never_take_more_than_their_share() -> None:
    many = {
        **HEAD,
        "facts": [
            {"key": f"ana.thing_{i}", "value": f"puppy fact {i}", "ts": f"2023-01-{i + 1:02d}"}
            for i in range(28)
        ],
    }
    ctx = build_context(index(head=many), "puppy", 2000)
    block = ctx.text.split("\n\nMemories:")[0]
    assert len(block) <= 2000 * BELIEF_SHARE
    assert "Biscuit" in ctx.text  # the evidence still has its room


def test_json_names_the_exact_turns_and_renders_beliefs_as_text() -> None:
    ctx = build_context(index(), "what is the puppy called", 1500)
    doc = ctx.to_json()
    shown = {t for m in doc["memories"] for t in m["turn_ids"]}
    assert "m4" in shown and "m3" in shown  # the answer and its question, by their own ids
    location = next(b for b in doc["beliefs"] if b.get("key") == "ana.location")
    assert location["value"] == "Porto"
    assert "Porto" in location["text"] and "Braga" in location["text"]
    assert location["turn_ids"] == ["m9"]
    assert all(m["kind"] == "turn" for m in doc["memories"])


def test_without_a_question_the_newest_turns_show() -> None:
    ctx = build_context(index(), None, 300)
    assert ctx.evidence.order == "recency"
    assert "you need a break" in ctx.text
    assert "older memories not shown" in ctx.text


def test_since_and_until_keep_only_memories_dated_within() -> None:
    chat = [("Ana", f"day {i}: went sailing with Lena") for i in range(6)]
    idx = index(chat=chat)
    idx = MemoryIndex.of(Passport.from_dict(HEAD), turns(chat, days=10))
    since = parse_when("2023-05-20")
    until = parse_when("2023-06-10")
    assert since is not None and until is not None
    ctx = build_context(idx, "sailing", 3000, DateWindow(since.epoch, until.epoch))
    assert [m.turn_ids for m in ctx.evidence.items] == [("m2",), ("m3",)]


def test_search_gives_one_passage_per_turn_best_first_with_provenance() -> None:
    hits = search(index(), "puppy", 5)
    assert hits and hits[0].record.turn_ids == ("m2",)
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    assert search(index(), "zebra", 5) == []


def test_an_index_grown_row_by_row_reads_as_one_built_at_once() -> None:
    records = turns(CHAT)
    grown = MemoryIndex(Passport.from_dict(HEAD))
    for record in records:
        grown.extend([record])
    whole = MemoryIndex.of(Passport.from_dict(HEAD), records)
    for q in ("puppy", "hospital shift", None, "Ben"):
        assert build_context(grown, q, 900).text == build_context(whole, q, 900).text


def test_a_whole_document_indexes_its_turns_and_observations() -> None:
    doc = {
        **HEAD,
        "turns": [
            {
                "id": "t1",
                "speaker": "Ana",
                "text": "I ran the Porto marathon",
                "ts": "2023-05-01T10:00:00Z",
            }
        ],
        "observations": [
            {"text": "Ana swam across the bay.", "when": "2023-04-02", "turn_ids": ["t0"]}
        ],
    }
    idx = MemoryIndex.of_document(doc)
    swim = build_context(idx, "when did Ana swim across the bay", 1000).to_json()
    assert swim["memories"][0]["kind"] == "observation"
    assert swim["memories"][0]["turn_ids"] == ["t0"]
    assert "marathon" in build_context(idx, "marathon", 1000).text


@settings(max_examples=60, deadline=None)
@given(q=st.text(max_size=80), budget=st.integers(min_value=0, max_value=2500))
def test_any_question_any_budget(q: str, budget: int) -> None:
    ctx = build_context(index(), q, budget)
    assert len(ctx.text) <= budget
    assert ctx.to_json()["chars"] == len(ctx.text)


@pytest.mark.parametrize(
    ("text", "label"),
    [("2023-05-08", "2023-05-08"), ("2023-05", "2023-05"), ("8 May 2023", "2023-05-08")],
)
def test_dates_parse_to_labels(text: str, label: str) -> None:
    when = parse_when(text)
    assert when is not None and when.label == label


def test_an_empty_passport_renders_nothing() -> None:
    idx = MemoryIndex(Passport.empty("nobody"))
    assert build_context(idx, "anything", 3000).text == ""
    assert build_context(idx, None, 3000).text == ""
