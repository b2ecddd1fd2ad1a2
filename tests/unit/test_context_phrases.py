"""Two words a question says side by side lift the passages that say them side by side."""

from __future__ import annotations

from itertools import pairwise

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from app.domain.context import EvidenceIndex
from app.domain.context.phrases import PHRASE_LIFT, phrases_first, question_phrases
from tests.unit.test_context_budget import chat


def test_a_question_names_its_phrases_without_function_words_or_what_how_asks() -> None:
    assert question_phrases("Which date did we pick for the garden party at your place?") == {
        "garden party"
    }
    assert question_phrases(
        "How many weeks went by between Omar's 40th birthday and the trip?"
    ) == {
        "weeks went",
        "omar's 40th",
        "40th birthday",
    }
    assert question_phrases("How long is my night shift rota?") == {
        "night shift",
        "shift rota",
    }
    assert question_phrases("What did she say?") == frozenset()


LINES = [
    ("Ana", "we picked a date for the party in the garden"),
    ("Ana", "the garden party moved to Friday"),
    ("Ana", "the aftermath classes were long"),
]


def _order(scores: list[float], q: str) -> list[int]:
    index = EvidenceIndex(chat(LINES))
    lifted = np.array(scores, dtype=np.float32)
    best_first = sorted(range(3), key=lambda doc: -scores[doc])
    return phrases_first(index, best_first, lifted, question_phrases(q))


def test_a_passage_saying_the_phrase_goes_first_among_near_ties() -> None:
    q = "Which date did we pick for the garden party?"
    assert _order([1.0, 0.95, 0.5], q) == [1, 0, 2]


def test_a_clearly_better_match_stays_first() -> None:
    q = "Which date did we pick for the garden party?"
    assert _order([1.0, 1.0 / (1 + PHRASE_LIFT) - 0.05, 0.5], q) == [0, 1, 2]


def test_a_phrase_counts_only_as_whole_words() -> None:
    # "aftermath classes" holds the letters of "math class" but not the words.
    assert _order([0.95, 0.5, 1.0], "When is the math class?") == [2, 0, 1]


@given(st.text(alphabet=st.sampled_from(list("ab '-’.,Éé_1")), max_size=400))
@settings(max_examples=300, deadline=None)
def test_any_question_gives_phrases_made_of_its_own_words(q: str) -> None:
    words = q.lower().replace("’", "'").split()
    said = {f"{a} {b}" for a, b in pairwise(words)}
    for phrase in question_phrases(q):
        assert phrase in " ".join(words)
        assert len(phrase.split(" ")) == 2
        assert any(phrase in pair for pair in said)


def test_long_adversarial_questions_and_passages_are_read_through() -> None:
    q = "math class " * 2000 + "a'" * 20000 + " ab. cd"
    phrases = question_phrases(q)
    assert phrases == {"math class", "class math"}  # no word of 40,000 letters, no "ab cd"
    index = EvidenceIndex(chat([("Ana", "amath classx " * 40 + "math class")]))
    assert phrases_first(index, [0], np.array([1.0], dtype=np.float32), phrases) == [0]
