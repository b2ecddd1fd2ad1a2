"""A question about time prefers, among near-equal matches, the passage that says a date."""

from __future__ import annotations

import pytest

from app.domain.context import EvidenceIndex
from app.domain.context.ranking.question import Question
from tests.unit.test_context_budget import FILLER, ask, chat


def asks_when(q: str) -> bool:
    """Whether ``q`` read as a question asks for a time."""
    question = Question.of(q)
    return question is not None and "time" in question.asks


@pytest.mark.parametrize(
    "q",
    [
        "When did Ana go to the pottery class?",
        "How many days passed between the class and the show?",
        "How long did the race take?",
        "Did I hear about it before or after the seminar?",
        "What date is the dentist appointment?",
        "What deadline did I set for the first release?",
        "By when do I need to file the forms?",
    ],
)
def test_questions_about_time(q: str) -> None:
    assert asks_when(q)


@pytest.mark.parametrize(
    "q",
    [
        "What did Ana make at the pottery class?",
        "Who is Biscuit?",
        "Is the weekend free?",
        "How do I cope with deadline pressure?",
    ],
)
def test_questions_not_about_time(q: str) -> None:
    assert not asks_when(q)


LINES = [
    *FILLER,
    ("Ana", "the pottery class was on Friday"),
    *FILLER,
    ("Ana", "the pottery class was fun, kind teacher"),
    *FILLER,
]


def test_a_when_question_shows_the_dated_match_where_only_one_fits() -> None:
    index = EvidenceIndex(chat(LINES))
    dated, undated = "pottery class was on Friday", "pottery class was fun"
    # Room for one line: a question about time gets the one that says the day.
    when = ask(index, "When was the pottery class?", 110)
    assert dated in when.text and undated not in when.text
    # Any other question keeps the plain ranking, where the other one is the better match.
    what = ask(index, "How was the pottery class?", 110)
    assert undated in what.text and dated not in what.text


def test_a_question_in_the_present_finds_its_answer_in_an_irregular_past() -> None:
    index = EvidenceIndex(chat([*FILLER, ("Ana", "I met Jon at the county fair"), *FILLER]))
    assert "met Jon at the county fair" in ask(index, "When did Ana meet Jon?", 200).text
