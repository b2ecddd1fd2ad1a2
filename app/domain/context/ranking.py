"""How the log's passages are ranked for a query: BM25, a named speaker's lift, the run share."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from app.domain.context.index import EvidenceIndex, Scores
from app.domain.dates import DateWindow

# A query that names a speaker lifts that speaker's matching passages by this share of the best
# score: enough to order near-ties, never enough to outrank a clearly better match.
SPEAKER_LIFT = 0.3
# A passage's score takes this share of the passages beside it in the same session: people say
# one thing over several short messages in a row, and the words of a question spread over them.
RUN_SHARE = 0.1
# The run share is added over at least this many of the best passages (and their neighbours):
# more than any budget shows, so only passages that could never be shown are left out of it.
CANDIDATES = 1000


# In a log of a person talking with an assistant, an assistant's (system's, tool's) passage
# weighs this much of its BM25: the person's own words are where what is true of them is said,
# and an assistant's long answers would otherwise fill the budget with their repeats.
MACHINE_WEIGHT = 0.45

# Below this many characters of room no further line is worth trying.
MIN_LINE = 24


@dataclass(frozen=True)
class Ranked:
    """A query's ranking: each passage's score, the candidates best first, how many records match.

    ``order`` holds at least every passage a budget could show, best first; ``matching`` counts
    the records whose words the query holds (and those its run share reaches near the top);
    ``machine`` says per passage whether an assistant said it (None when none did).
    """

    scores: Scores
    order: list[int]
    matching: int
    machine: npt.NDArray[np.bool_] | None = None


def rank(
    index: EvidenceIndex,
    tokens: Sequence[str],
    allowed: npt.NDArray[np.bool_] | None = None,
    budget: int = 100_000,
) -> Ranked:
    """BM25, a named speaker's lift, then the run share, over the candidates a budget can use.

    The run share (a passage takes RUN_SHARE of its session neighbours' scores) is added to the
    best ``CANDIDATES`` passages and their neighbours only: the rest could not reach the top, and
    a log of any length is then ranked at the cost of its matches, not of its length.
    """
    scores = index.scores(tokens) if tokens else np.zeros(index.n_passages, dtype=np.float32)
    machine = index.machine_passages()
    if machine is not None:
        scores[machine] *= MACHINE_WEIGHT
    if allowed is not None:
        scores = np.where(allowed[index.passage_turns()], scores, 0.0)
    hits = np.flatnonzero(scores > 0)
    if not hits.size:
        return Ranked(scores, [], 0, machine)
    named = index.speakers_named(tokens)
    if named:
        lifted = hits[index.speaker_mask(named)[hits]]
        scores[lifted] += SPEAKER_LIFT * float(scores[hits].max())
    wanted = max(CANDIDATES, max(budget // MIN_LINE, 1) * 4)
    top = hits if hits.size <= wanted else _best(hits, scores, wanted)
    back, ahead = _lenders(index, top)
    lent = _lent(index, back, ahead, allowed)
    extra = lent[scores[lent] <= 0]
    matching = _count_turns(index, hits, scores) + _extra_turns(index, scores, extra)
    _add_run_share(index, scores, back, ahead, allowed)
    candidates = _distinct(np.concatenate((top, extra)))
    candidates = candidates[scores[candidates] > 0]
    return Ranked(scores, best_first(candidates, scores, budget), matching, machine)


def _best(hits: npt.NDArray[np.intp], scores: Scores, k: int) -> npt.NDArray[np.intp]:
    """The ``k`` best scoring of ``hits`` (more than ``k`` of them), in no order."""
    # Selecting the largest in place costs less than negating every score to take the smallest.
    return hits[np.argpartition(scores[hits], hits.size - k)[hits.size - k :]]


def _distinct(values: npt.NDArray[np.intp]) -> npt.NDArray[np.intp]:
    """The values sorted, each once."""
    ordered = np.sort(values)
    return (
        ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))] if ordered.size else ordered
    )


def sort_time(epoch: float) -> float:
    return -math.inf if math.isnan(epoch) else epoch


def allowed_records(index: EvidenceIndex, window: DateWindow) -> npt.NDArray[np.bool_] | None:
    """Per record: whether it is dated within the window; None when nothing is excluded."""
    since, until = window.since, window.until
    if since is None and until is None:
        return None
    epochs = index.record_epochs()
    keep = ~np.isnan(epochs)
    if since is not None:
        keep &= epochs >= since
    if until is not None:
        keep &= epochs <= until
    return np.asarray(keep, dtype=np.bool_)


def best_first(hits: npt.NDArray[np.intp], scores: Scores, budget: int) -> list[int]:
    """The hit passages best first (the newer among equals), as many as a budget could show."""
    # A line costs at least MIN_LINE characters, so no budget shows more hits than this; the
    # rest need not be sorted. Neighbours come from the hits themselves.
    most = max(budget // MIN_LINE, 1) * 2
    if hits.size > most:
        hits = _best(hits, scores, most)
    return by_score(hits, scores)


def by_score(docs: npt.NDArray[np.intp] | list[int], scores: Scores) -> list[int]:
    """The passages best first; among equals the newer, as a chat's latest word on a thing is
    likelier."""
    ordered = np.asarray(docs, dtype=np.intp)
    best: list[int] = ordered[np.lexsort((-ordered, -scores[ordered]))].tolist()
    return best


# How many of the best candidates a question's lift looks at: more than a budget of a few
# thousand characters shows.
LIFT_CANDIDATES = 100


def lifted(order: list[int], scores: Scores, share: Callable[[int], float]) -> list[int]:
    """``order`` (best first) again after each of its first ``LIFT_CANDIDATES`` passages is
    lifted by ``share(doc)`` of its score (in place in ``scores``); itself when none is."""
    moved = False
    for doc in order[:LIFT_CANDIDATES]:
        lift = share(doc)
        if lift:
            scores[doc] *= 1 + lift
            moved = True
    return by_score(order, scores) if moved else order


def _count_turns(index: EvidenceIndex, hits: npt.NDArray[np.intp], scores: Scores) -> int:
    """How many records the hit passages (those scoring above 0, ascending) belong to."""
    # Only a record cut into passages can hold several hits: when those passages are fewer than
    # the hits, each other hit is a record of its own, and only the cut ones need looking up.
    cut = index.cut_passages()
    if cut.size < hits.size:
        cut_hits = cut[scores[cut] > 0]
        return hits.size - cut_hits.size + _records_of(index, cut_hits)
    return _records_of(index, hits)


def _records_of(index: EvidenceIndex, docs: npt.NDArray[np.intp]) -> int:
    """How many records passages (ascending) belong to."""
    # A record's passages are contiguous, so the records of ascending passages never decrease.
    turns = index.passage_turns()[docs]
    return int(np.count_nonzero(turns[1:] != turns[:-1])) + 1 if turns.size else 0


def _lenders(
    index: EvidenceIndex, top: npt.NDArray[np.intp]
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """The top passages that lend back (to the passage before) and ahead, in one session."""
    same = index.same_session_as_next()  # same[i]: passages i and i + 1 are one session's
    back = top[top > 0]
    ahead = top[top < index.n_passages - 1]
    return back[same[back - 1]], ahead[same[ahead]]


def _lent(
    index: EvidenceIndex,
    back: npt.NDArray[np.intp],
    ahead: npt.NDArray[np.intp],
    allowed: npt.NDArray[np.bool_] | None,
) -> npt.NDArray[np.intp]:
    """The passages the lenders lend part of their score to (allowed ones)."""
    lent = _distinct(np.concatenate((back - 1, ahead + 1)))
    if allowed is not None:
        lent = lent[allowed[index.passage_turns()[lent]]]
    return lent


def _add_run_share(
    index: EvidenceIndex,
    scores: Scores,
    back: npt.NDArray[np.intp],
    ahead: npt.NDArray[np.intp],
    allowed: npt.NDArray[np.bool_] | None,
) -> None:
    """Lend RUN_SHARE of each lender's score to its session neighbour, in place."""
    # What each lends is read before anything is added: a neighbour may be a lender too.
    to_back, to_ahead = RUN_SHARE * scores[back], RUN_SHARE * scores[ahead]
    if allowed is not None:
        turns = index.passage_turns()
        to_back *= allowed[turns[back - 1]]
        to_ahead *= allowed[turns[ahead + 1]]
    # Each lender lends to a different passage on each side, so indexed adds are exact.
    scores[back - 1] += to_back
    scores[ahead + 1] += to_ahead


def _extra_turns(index: EvidenceIndex, scores: Scores, lent: npt.NDArray[np.intp]) -> int:
    """Records that only the run share made candidates (none of their passages matched)."""
    turns = _distinct(index.passage_turns()[lent])
    firsts = index.first_passages()
    after = turns + 1
    ends = np.where(
        after < firsts.size, firsts[np.minimum(after, firsts.size - 1)], index.n_passages
    )
    # A one-passage record of a lent (unmatched) passage matched nothing; a longer one may have.
    single = (ends - firsts[turns]) == 1
    longer = turns[~single]
    matched = sum(1 for t in longer.tolist() if index.best_score(t, scores) > 0)
    return int(single.sum()) + len(longer) - matched
