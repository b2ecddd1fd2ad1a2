"""A question about time prefers the passages that say a date.

"When did I book the hotel?", "How many days passed between ...", "Did I hear about it before or
after the seminar?": the answer is a day, and the passage that holds it says one ("on March 22",
"last Saturday"). For such a question a dated passage among the candidates is lifted by
``DATED_LIFT`` of its score: enough to order near-ties, never enough to put a weak match that
happens to hold a date above a clearly better one.
"""

from __future__ import annotations

import re

import numpy as np
import numpy.typing as npt

from app.domain.context.index import EvidenceIndex, Scores
from app.domain.context.ranking import lifted
from app.domain.dates import WRITTEN_DAY

DATED_LIFT = 0.15
# Words of a question whose answer is a time, a span of time, or an order in time.
_ASKS_WHEN = re.compile(
    r"\b(?:when|(?:what|which)\s+(?:date|day|time|month|year|deadline|due\s+date)|by\s+when|"
    r"how\s+(?:many|much)\s+(?:days?|weeks?|months?|years?|hours?|time)|how\s+long|"
    r"before\s+or\s+after|after\s+or\s+before|date)\b",
    re.IGNORECASE,
)
# A day written out, read in lower case: "march 22", "22nd of march", "2024-03-22".
_WRITTEN_DATE = re.compile(rf"\b(?:{WRITTEN_DAY})\b")


def asks_when(q: str) -> bool:
    """Whether the question's answer is a time, a span of time or an order in time."""
    return _ASKS_WHEN.search(q) is not None


def dated_first(
    index: EvidenceIndex,
    order: list[int],
    scores: Scores,
    machine: npt.NDArray[np.bool_] | None,
) -> list[int]:
    """``order`` again after lifting its dated passages (in place in ``scores``); ``machine``
    says which passages an assistant said."""

    def share(doc: int) -> float:
        person = machine is None or not machine[doc]
        return DATED_LIFT if _says_a_date(index, doc, person) else 0.0

    return lifted(order, scores, share)


def _says_a_date(index: EvidenceIndex, doc: int, person: bool) -> bool:
    """Whether the passage holds one of its record's resolved dates, or (a person's passage,
    short enough to read) a date written out in full."""
    text = index.passage_text(doc)
    if any(said.said in text for said in index.dates(index.turn_of(doc))):
        return True
    return person and _WRITTEN_DATE.search(text.lower()) is not None
