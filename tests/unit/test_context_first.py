"""A question about the first time something was said shows its earliest saying first."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.domain.text import asks_first, query_tokens
from tests.unit.test_context_budget import FILLER


@pytest.mark.parametrize(
    "q",
    [
        "When did Ana first mention the pottery class?",
        "What did I say my job was when I first described my setup?",
        "When did Ben see the boat for the first time?",
        "What score did I want at the start of our conversation?",
        "Which tools was I using initially?",
        "When did I first meet Vickie?",
    ],
)
def test_questions_about_the_first_time(q: str) -> None:
    assert asks_first(q)


@pytest.mark.parametrize(
    "q",
    [
        "What is the first term of the sequence?",
        "When is my first portfolio review?",
        "How far did I get with my first article?",
        "Who came first in the race?",
        "What did Ana make at the pottery class?",
    ],
)
def test_a_first_that_names_a_thing_is_no_question_about_the_first_time(q: str) -> None:
    assert not asks_first(q)
    assert "first" in query_tokens(q) or "first" not in q.lower().split()


def test_the_words_that_ask_for_the_first_time_are_not_searched() -> None:
    assert query_tokens("When did Ana first mention the pottery class?") == [
        "ana",
        "potteri",
        "class",
    ]
    assert query_tokens("What did I see for the first time?") == ["see"]
    assert "convers" not in query_tokens("What score did I want at the start of our conversation?")
    # Unless they are all the question asks.
    assert query_tokens("at the start") == ["start"]


LINES = [
    ("Ana", "I'm a 41 year old potter and my studio income is about 30k"),
    *FILLER,
    ("Ana", "my studio income doubled this year"),
    *FILLER,
    ("Ana", "talked to the bank about the lease"),
    *FILLER,
]


@given(st.text(max_size=300))
def test_any_question_is_read_without_error(q: str) -> None:
    asks_first(q)
    query_tokens(q)
