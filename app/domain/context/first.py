"""A question about the first time prefers the earliest strong matches.

"When did I first mention the Jupiter project?", "What did I say my age was when I first
mentioned my income?": the answer is the earliest saying, and a later one often matches the
question's words as well or better (the thing is said again and again). For such a question the
earliest ``EARLIEST`` records among the candidates that score at least ``FLOOR`` of the best
come first, the earliest first. Only a person's passages are moved: an assistant's repeat of
what the user said is never its first saying.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from app.domain.context.index import EvidenceIndex, Scores
from app.domain.context.ranking import LIFT_CANDIDATES, by_score, sort_time

# A candidate scoring below this share of the best match is too weak to be the thing asked for.
FLOOR = 0.4
# How many of the earliest strong matches are moved to the front.
EARLIEST = 2
# Each moved match scores this much above the best (the earliest most), so it keeps its place.
STEP = 0.01


def earliest_first(
    index: EvidenceIndex,
    order: list[int],
    scores: Scores,
    machine: npt.NDArray[np.bool_] | None,
) -> list[int]:
    """``order`` again with its earliest strong person's matches first (their scores lifted in
    place in ``scores``); ``machine`` says which passages an assistant said."""
    top = order[:LIFT_CANDIDATES]
    if not top:
        return order
    best = max(float(scores[doc]) for doc in top)
    epochs = index.record_epochs()
    turns = index.passage_turns()
    strong = [
        doc for doc in top if scores[doc] >= FLOOR * best and (machine is None or not machine[doc])
    ]
    strong.sort(key=lambda doc: (sort_time(float(epochs[turns[doc]])), doc))
    early: list[int] = []
    seen: set[int] = set()
    for doc in strong:
        if len(early) == EARLIEST:
            break
        turn = int(turns[doc])
        if turn not in seen:
            seen.add(turn)
            early.append(doc)
    for place, doc in enumerate(early):
        scores[doc] = best * (1 + STEP * (len(early) - place))
    return by_score(order, scores)
