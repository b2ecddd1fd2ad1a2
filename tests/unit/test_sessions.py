"""Questions about a whole stretch of conversation get its sessions: when, who, what about."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.domain.context import MemoryIndex, build_context
from app.domain.context.ranking.question import MAX_OVERVIEW_QUESTION_CHARS, Question


def asks_overview(q: str) -> bool:
    """Whether ``q`` read as a question asks what was talked about."""
    question = Question.of(q)
    return question is not None and "overview" in question.asks


def turn(n: int, day: str, speaker: str, text: str) -> dict[str, Any]:
    return {"id": f"t{n}", "speaker": speaker, "text": text, "ts": f"{day}T10:0{n % 10}:00Z"}


def episode(seg: str, day: str, summary: str, keywords: list[str]) -> dict[str, Any]:
    return {
        "id": seg,
        "ts": f"{day}T10:00:00Z",
        "end": f"{day}T11:00:00Z",
        "summary": summary,
        "participants": ["Ana", "assistant"],
        "keywords": keywords,
        "source": seg,
        "quoted": True,
    }


def doc() -> dict[str, Any]:
    """Three sessions: April (sourdough), May (a kitchen), June (a bike)."""
    return {
        "version": "2.1",
        "user_key": "ana",
        "turns": [
            turn(1, "2024-04-10", "Ana", "I started a sourdough starter today."),
            turn(2, "2024-05-03", "Ana", "We are repainting the kitchen blue."),
            turn(3, "2024-05-20", "Ana", "The kitchen cabinets arrive next week."),
            turn(4, "2024-06-02", "Ana", "I bought a gravel bike."),
        ],
        "episodes": [
            episode("seg_apr", "2024-04-10", "I started a sourdough starter today.", ["sourdough"]),
            episode("seg_may1", "2024-05-03", "We are repainting the kitchen blue.", ["kitchen"]),
            episode(
                "seg_may2", "2024-05-20", "The kitchen cabinets arrive next week.", ["kitchen"]
            ),
            episode("seg_jun", "2024-06-02", "I bought a gravel bike.", ["bike", "gravel"]),
        ],
    }


@pytest.mark.parametrize(
    "q",
    [
        "What did we talk about in May?",
        "what did we discuss last week?",
        "Which topics did we cover recently?",
        "Give me a recap of our conversations in April 2024",
        "summarize our sessions",
    ],
)
def test_what_asks_an_overview(q: str) -> None:
    assert asks_overview(q)


@pytest.mark.parametrize(
    "q",
    [
        "What did we talk about regarding the kitchen paint?",
        "What did I buy in June?",
        "When did I start the sourdough?",
        "What did we talk about " + "and more " * 40,
    ],
)
def test_what_asks_something_else(q: str) -> None:
    assert not asks_overview(q)


def test_a_month_shows_that_months_sessions_and_memories_from_it_only() -> None:
    index = MemoryIndex.of_document(doc())
    context = build_context(index, "What did we talk about in May?", 1500)
    text = context.text
    assert "Sessions:" in text
    line = "[3 May 2024] Ana, assistant: We are repainting the kitchen blue. (about: kitchen)"
    assert line in text
    assert "[20 May 2024] Ana, assistant: The kitchen cabinets arrive next week." in text
    assert "sourdough" not in text and "gravel" not in text
    sessions = context.to_json()["sessions"]
    assert [s["id"] for s in sessions] == ["seg_may1", "seg_may2"]
    # The memories come from May too, each once: the quoted summary is not ranked beside it.
    memories = context.to_json()["memories"]
    assert {i for m in memories for i in m["turn_ids"]} <= {"t2", "t3"}
    assert all(m["kind"] == "turn" for m in memories)


def test_a_period_is_read_against_the_latest_session() -> None:
    index = MemoryIndex.of_document(doc())
    # The latest session is 2 June 2024: "last month" is May.
    context = build_context(index, "what did we talk about last month?", 1500)
    assert [s["id"] for s in context.to_json()["sessions"]] == ["seg_may1", "seg_may2"]


def test_without_a_period_the_newest_sessions_that_fit_are_shown_in_time_order() -> None:
    index = MemoryIndex.of_document(doc())
    context = build_context(index, "What did we talk about?", 400)
    ids = [s["id"] for s in context.to_json()["sessions"]]
    assert ids and ids[-1] == "seg_jun"
    assert ids == sorted(ids, key=["seg_apr", "seg_may1", "seg_may2", "seg_jun"].index)
    assert len(context.text) <= 400
    first = build_context(index, "What did we talk about in our first session?", 400)
    assert first.to_json()["sessions"][0]["id"] == "seg_apr"


def test_other_questions_show_no_sessions_and_rank_turns_only() -> None:
    index = MemoryIndex.of_document(doc())
    context = build_context(index, "kitchen cabinets", 1500)
    assert "Sessions:" not in context.text
    assert context.to_json()["sessions"] == []
    assert "t3" in {i for m in context.to_json()["memories"] for i in m["turn_ids"]}
    assert all(m["kind"] == "turn" for m in context.to_json()["memories"])


def test_an_episode_that_does_not_quote_its_turns_is_still_ranked() -> None:
    document = doc()
    written = episode("seg_llm", "2024-06-03", "Ana compared tyre widths for gravel.", ["tyres"])
    del written["quoted"]
    document["episodes"].append(written)
    index = MemoryIndex.of_document(document)
    context = build_context(index, "tyre widths", 1500)
    assert any(m["kind"] == "episode" for m in context.to_json()["memories"])


def test_a_tiny_budget_holds_no_session_and_stays_within_it() -> None:
    index = MemoryIndex.of_document(doc())
    for budget in (0, 20, 80, 150):
        context = build_context(index, "What did we talk about in May?", budget)
        assert len(context.text) <= budget


@settings(max_examples=80, deadline=None)
@given(st.text(max_size=400), st.integers(min_value=0, max_value=2000))
def test_any_question_is_read_and_the_context_stays_within_budget(q: str, budget: int) -> None:
    index = MemoryIndex.of_document(doc())
    if asks_overview(q):
        assert len(q) <= MAX_OVERVIEW_QUESTION_CHARS
    assert len(build_context(index, q, budget).text) <= budget
