"""Which questions ask for an amount, and which passages state one."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.domain.context import EvidenceIndex
from app.domain.context.ranking.features import states_amount
from app.domain.context.ranking.question import Question
from app.domain.dates import SPAN_OF_TIME
from tests.unit.test_context_budget import FILLER, chat


def asks_amount(q: str) -> bool:
    """Whether ``q`` read as a question asks for an amount."""
    question = Question.of(q)
    return question is not None and "amount" in question.asks


@pytest.mark.parametrize(
    "q",
    [
        "How many photos did I take at the venue?",
        "How much have I saved for the new bike?",
        "How often do I go swimming?",
        "And how old is the boat now?",
        "HOW FAR is the cabin from town?",
        "What was my latest blood pressure reading?",
        "What is my annual salary?",
        "What was my old bike's top recorded speed?",  # the measure eight words on
        "Which versions of the two libraries am I pinned to?",  # a measure in the plural
        "What were the monthly fees at the climbing gym?",
        "What salaries did the two offers name?",
        "How long did the power cut last?",
    ],
)
def test_questions_about_an_amount(q: str) -> None:
    assert asks_amount(q)


@pytest.mark.parametrize(
    "q",
    [
        "What did Ana make at the pottery class?",
        "How do I cope with deadline pressure?",
        "Who is Biscuit?",
        "How was the trip, and how is it going?",
        "How many different platforms do I post my photos to?",
        "How many kinds of bread did we bake?",  # kinds, in the plural or not, are named
        "How many type of knot does the guide show?",
        "What should I read next about change in calculus?",
    ],
)
def test_questions_not_about_an_amount(q: str) -> None:
    assert not asks_amount(q)


LINES = [
    *FILLER,
    ("user", "the costume fund got more money from my aunt and uncle, so glad"),
    *FILLER,
    ("user", "my costume fund is $200 now"),
    *FILLER,
]


def test_a_date_the_record_resolved_is_no_amount() -> None:
    index = EvidenceIndex(
        chat([("user", "the fund was started on 3 March"), ("user", "it holds $80")])
    )
    assert states_amount(index, 0, index.passage_text(0)) == 0.0
    assert states_amount(index, 1, index.passage_text(1)) == 1.0


def test_how_long_counts_a_span_of_time_said_in_words() -> None:
    index = EvidenceIndex(
        chat(
            [
                ("user", "the power cut lasted about an hour"),
                ("user", "the power cut was scary"),
                ("user", "it went dark a couple of weeks ago"),  # a date, not a span
            ]
        )
    )
    how_long = Question.of("How long did the power cut last?")
    how_much = Question.of("How much did the power cut cost us?")
    assert how_long is not None and {"amount", "span"} <= how_long.asks
    assert how_much is not None and "span" not in how_much.asks
    said = [index.passage_text(doc) for doc in range(3)]
    assert [states_amount(index, doc, said[doc], span=True) for doc in range(3)] == [1, 0, 0]
    # Asked how much, "an hour" is no amount: only a number is.
    assert states_amount(index, 0, said[0]) == 0.0


def test_a_span_is_a_count_and_a_unit_as_whole_words() -> None:
    for said in ("an hour", "two weeks", "45 minutes", "a couple of days", "a 3-day trip"):
        assert SPAN_OF_TIME.search(said), said
    for said in ("a great time", "an hourglass", "many years", "weekly"):
        assert not SPAN_OF_TIME.search(said), said


@given(
    st.text(
        alphabet=st.sampled_from(list("how many much what which is my the 1 $ ,.")), max_size=400
    )
)
@settings(max_examples=300, deadline=None)
def test_any_question_is_read_without_error(q: str) -> None:
    assert asks_amount(q) == asks_amount(q.upper())


def test_long_adversarial_questions_are_read_through() -> None:
    assert not asks_amount("what " * 20000 + "is the " * 20000)
    assert asks_amount("what " * 20000 + "how much")
    assert asks_amount("what " * 20000 + "my salary")
