"""Candidate generation: the passages a question's words reach, and their session neighbours.

BM25 scores every passage (one multiply-add per posting); a request's date window zeroes what lies
outside it. The best ``CANDIDATES`` matches (more when a budget could show more), and the passages
beside them in the same session, are the candidates the features and the scorer weigh: the rest
could not reach a budget, so a log of any length is ranked at the cost of its matches.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from app.domain.context.index import EvidenceIndex, Scores
from app.domain.dates import DateWindow

# How many of the best BM25 matches are candidates at least: more than any budget shows.
CANDIDATES = 1000
# Below this many characters of room no further line is worth trying.
MIN_LINE = 24
# With an embedding model on, the passages nearest the question that are candidates too, whether
# or not they share a word with it.
NEAREST = 50


@dataclass(frozen=True)
class Candidates:
    """A question's candidates (ascending), BM25 of every passage, how many records match."""

    docs: npt.NDArray[np.intp]
    bm25: Scores
    matching: int  # records whose words the question holds, and those only neighbours reach


def candidates(
    index: EvidenceIndex,
    tokens: tuple[str, ...],
    allowed: npt.NDArray[np.bool_] | None = None,
    budget: int = 100_000,
    similarity: Scores | None = None,
) -> Candidates:
    """The best BM25 matches a budget could use, the passages most ``similarity`` to the
    question (per passage, when an embedding model is on), and their session neighbours."""
    bm25 = index.scores(tokens) if tokens else np.zeros(index.n_passages, dtype=np.float32)
    if allowed is not None:
        bm25 = np.where(allowed[index.passage_turns()], bm25, np.float32(0.0))
    hits = np.flatnonzero(bm25 > 0)
    near = _nearest(index, similarity, allowed) if similarity is not None else hits[:0]
    if not hits.size and not near.size:
        return Candidates(hits, bm25, 0)
    wanted = max(CANDIDATES, max(budget // MIN_LINE, 1) * 4)
    top = hits if hits.size <= wanted else _best(hits, bm25, wanted)
    if near.size:  # (only then: sorting the matches is work a read without a model skips)
        top = distinct(np.concatenate((top, near)))
    lent = _neighbours(index, top, allowed)
    if near.size:  # the nearest that match no word count as records reached, as neighbours do
        lent = distinct(np.concatenate((lent, near)))
    extra = lent[bm25[lent] <= 0]
    matching = _records_of(index, hits) + _extra_turns(index, bm25, extra)
    return Candidates(distinct(np.concatenate((top, extra))), bm25, matching)


def _nearest(
    index: EvidenceIndex, similarity: Scores, allowed: npt.NDArray[np.bool_] | None
) -> npt.NDArray[np.intp]:
    """The ``NEAREST`` allowed passages most similar to the question (above 0), ascending."""
    close = similarity > 0
    if allowed is not None:
        close &= allowed[index.passage_turns()]
    found = np.flatnonzero(close)
    if found.size > NEAREST:
        found = _best(found, similarity, NEAREST)
    return np.sort(found)


def neighbour_scores(index: EvidenceIndex, docs: npt.NDArray[np.intp], bm25: Scores) -> Scores:
    """Per candidate: the BM25 of the passages just before and after it in the same session."""
    # same[i]: passages i and i + 1 are one session's (the last passage has no next).
    same = np.append(index.same_session_as_next(), False)
    back, ahead = np.maximum(docs - 1, 0), np.minimum(docs + 1, bm25.size - 1)
    before = np.where((docs > 0) & same[back], bm25[back], np.float32(0.0))
    return np.asarray(before + np.where(same[docs], bm25[ahead], np.float32(0.0)), np.float32)


def _best(hits: npt.NDArray[np.intp], scores: Scores, k: int) -> npt.NDArray[np.intp]:
    """The ``k`` best scoring of ``hits`` (more than ``k`` of them), in no order."""
    # Selecting the largest in place costs less than negating every score to take the smallest.
    return hits[np.argpartition(scores[hits], hits.size - k)[hits.size - k :]]


def distinct(values: npt.NDArray[np.intp]) -> npt.NDArray[np.intp]:
    """The values sorted, each once."""
    ordered = np.sort(values)
    return (
        ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))] if ordered.size else ordered
    )


def sort_time(epoch: float) -> float:
    """A record's time for sorting: one without a time sorts first."""
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
    """The passages best first (the newer among equals), as many as a budget could show."""
    # A line costs at least MIN_LINE characters, so no budget shows more hits than this; the
    # rest need not be sorted. Neighbours come from the hits themselves.
    most = max(budget // MIN_LINE, 1) * 2
    if hits.size > most:
        hits = _best(hits, scores, most)
    best: list[int] = hits[np.lexsort((-hits, -scores[hits]))].tolist()
    return best


def _records_of(index: EvidenceIndex, docs: npt.NDArray[np.intp]) -> int:
    """How many records passages (ascending) belong to."""
    # A record's passages are contiguous, so the records of ascending passages never decrease.
    turns = index.passage_turns()[docs]
    return int(np.count_nonzero(turns[1:] != turns[:-1])) + 1 if turns.size else 0


def _neighbours(
    index: EvidenceIndex, top: npt.NDArray[np.intp], allowed: npt.NDArray[np.bool_] | None
) -> npt.NDArray[np.intp]:
    """The passages beside the top ones in the same session (allowed ones), each once."""
    same = index.same_session_as_next()
    back = top[top > 0]
    ahead = top[top < index.n_passages - 1]
    lent = distinct(np.concatenate((back[same[back - 1]] - 1, ahead[same[ahead]] + 1)))
    if allowed is not None:
        lent = lent[allowed[index.passage_turns()[lent]]]
    return lent


def _extra_turns(index: EvidenceIndex, scores: Scores, lent: npt.NDArray[np.intp]) -> int:
    """Records that only a neighbour made candidates (none of their passages matched)."""
    turns = distinct(index.passage_turns()[lent])
    firsts = index.first_passages()
    after = turns + 1
    ends = np.where(
        after < firsts.size, firsts[np.minimum(after, firsts.size - 1)], index.n_passages
    )
    # A one-passage record of a lent (unmatched) passage matched nothing; a longer one may have.
    lengths = ends - firsts[turns]
    single = lengths == 1
    starts, lengths = firsts[turns[~single]], lengths[~single]
    if not lengths.size:
        return int(single.sum())
    # Every passage of the longer records at once: whether any of a record's matched.
    offsets = np.cumsum(lengths) - lengths
    passages = np.arange(int(lengths.sum())) + np.repeat(starts - offsets, lengths)
    matched = np.count_nonzero(np.add.reduceat(scores[passages] > 0, offsets))
    return int(single.sum()) + len(lengths) - int(matched)
