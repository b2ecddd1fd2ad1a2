"""A question about an amount prefers, among near-equal matches, a person's passage stating one."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.domain.context import EvidenceIndex
from app.domain.context.amounts import AMOUNT_LIFT, amounts_first, asks_amount
from app.domain.context.budget import assemble
from tests.unit.test_context_budget import FILLER, chat


@pytest.mark.parametrize(
    "q",
    [
        "How many photos did I take at the venue?",
        "How much have I saved for the new bike?",
        "How often do I go swimming?",
        "What was my latest blood pressure reading?",
        "What is my annual salary?",
        "Which version of the library do we run?",
        "What is my serve accuracy percentage on clay courts these days?",
        "What was my old bike's top recorded speed?",  # the measure eight words on
        "What is the monthly rent I'm paying for the flat?",
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
        "How many different platforms do I post my photos to?",
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


def test_an_amount_question_shows_the_match_that_states_one_where_only_one_fits() -> None:
    index = EvidenceIndex(chat(LINES))
    stated, unstated = "costume fund is $200", "more money from my aunt"
    # Room for one line: a question about an amount gets the one that states it.
    how_much = assemble(index, "How much money is in my costume fund?", 130)
    assert stated in how_much.text and unstated not in how_much.text
    # Any other question keeps the plain ranking, where the other one is the better match.
    why = assemble(index, "Why is there money in my costume fund?", 130)
    assert unstated in why.text and stated not in why.text


def _order(lines: list[tuple[str, str]], scores: list[float]) -> list[int]:
    index = EvidenceIndex(chat(lines))
    lifted = np.array(scores, dtype=np.float32)
    best_first = sorted(range(len(lines)), key=lambda doc: -scores[doc])
    return amounts_first(index, best_first, lifted, index.machine_passages())


def test_a_date_is_no_amount_and_a_clearly_better_match_stays_first() -> None:
    lines = [("user", "the fund was started on 3 March"), ("user", "the fund holds $80")]
    # "3 March" is a date the record resolved, not an amount: near-equal, the $80 comes first.
    assert _order(lines, [1.0, 0.95]) == [1, 0]
    assert _order(lines, [1.0, 1.0 / (1 + AMOUNT_LIFT) - 0.05]) == [0, 1]


def test_an_assistants_numbers_are_not_lifted() -> None:
    lines = [
        ("user", "which fund should I open for the costumes"),
        ("assistant", "1. open a fund with $50 a month"),
    ]
    assert _order(lines, [1.0, 0.95]) == [0, 1]


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
    assert asks_amount("what " * 20000 + "my salary")
