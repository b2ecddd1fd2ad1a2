"""A question about an amount prefers the passages where a person states one.

"How many photos did I take?", "How much do I have set aside?", "What was my latest blood
pressure reading?": the answer is a number, and the passage that holds it says one ("$250",
"128/80 mmHg", "40 photos"). For such a question a person's passage that states a number other
than a date is lifted by ``AMOUNT_LIFT`` of its score: enough to order near-ties, never enough to
put a weak match above a clearly better one. An assistant's passages are not lifted: its lists
and examples are full of numbers that are nobody's.
"""

from __future__ import annotations

import re

import numpy as np
import numpy.typing as npt

from app.domain.context.index import EvidenceIndex, Scores
from app.domain.context.ranking import lifted

AMOUNT_LIFT = 0.3
# "How many ...", "how much ...": what follows "how" in a question whose answer is an amount.
_HOW = frozenset(
    {"many", "much", "often", "far", "old", "big", "large", "fast", "heavy", "tall", "high"}
)
_KINDS = frozenset({"different", "distinct", "separate", "kinds", "types", "sorts"})
# "What is my annual salary?": a measure named within a few words after "what" or "which".
_MEASURES = frozenset(
    {"number", "amount", "total", "percentage", "percent", "score", "scores", "rate", "result"}
    | {"results", "reading", "readings", "salary", "price", "cost", "budget", "count", "weight"}
    | {"size", "speed", "level", "version", "limit", "balance", "figure", "value", "values"}
    | {"usage", "accuracy", "rating", "rent", "fee", "fees", "costs", "prices", "amounts"}
    | {"threshold", "levels", "rates", "ratio", "dosage", "dose", "distance", "height", "age"}
    | {"income", "savings", "mileage", "duration", "temperature"}
)
MEASURE_REACH = 8
_WORD = re.compile(r"[a-z]+")
_DIGIT = re.compile(r"\d")


def asks_amount(q: str) -> bool:
    """Whether the question's answer is an amount, a count or a measure."""
    words = _WORD.findall(q.lower())
    for at, word in enumerate(words):
        if word == "how" and at + 1 < len(words) and words[at + 1] in _HOW:
            # "How many different platforms ...": kinds, which a chat names, not a number.
            if at + 2 < len(words) and words[at + 2] in _KINDS:
                continue
            return True
        if word in ("what", "which") and not _MEASURES.isdisjoint(
            words[at + 1 : at + 1 + MEASURE_REACH]
        ):
            return True
    return False


def amounts_first(
    index: EvidenceIndex,
    order: list[int],
    scores: Scores,
    machine: npt.NDArray[np.bool_] | None,
) -> list[int]:
    """``order`` again after lifting the person's passages that state an amount (in place in
    ``scores``); ``machine`` says which passages an assistant said."""

    def share(doc: int) -> float:
        if machine is not None and machine[doc]:
            return 0.0
        return AMOUNT_LIFT if _states_amount(index, doc) else 0.0

    return lifted(order, scores, share)


def _states_amount(index: EvidenceIndex, doc: int) -> bool:
    """Whether the passage holds a digit outside the dates its record resolved."""
    text = index.passage_text(doc)
    for said in index.dates(index.turn_of(doc)):
        text = text.replace(said.said, " ")
    return _DIGIT.search(text) is not None
