"""Ranking the log's passages for a question, in the order the steps run.

1. ``question``: the question is read once, into its search tokens, the word pairs it says and
   the kind of answer it asks for (a time, an amount, the first time, an overview).
2. ``candidates``: BM25 over every passage (zero outside the request's date window); the best
   matches a budget could use, and the passages beside them in the same session.
3. ``features``: each candidate's named features, each a number in [0, 1] (BM25 as a share of the
   best, who said it, its neighbours' match, the question's rare words it holds, its word pairs,
   a number or a date where the question asks one, how early it is).
4. ``scorer`` (here): the score is the logistic of the bias plus each feature times its weight,
   in (0, 1). The weights are learned, not set: fitted on the development sets' relevance labels
   by ``python -m bench.fit_ranker`` and kept in ``weights.py``. Candidates are ordered by score,
   the newer first among equals.

``Ranked.explain`` gives, for a candidate, its plain BM25, each feature's value and what it added
to the logit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from app.domain.context.index import EvidenceIndex, Scores
from app.domain.context.ranking.candidates import best_first, candidates
from app.domain.context.ranking.features import FEATURES, features_of, sigmoid
from app.domain.context.ranking.question import Question
from app.domain.context.ranking.weights import BIAS, WEIGHTS


def weights_of(similar: bool) -> npt.NDArray[np.float32]:
    """The weights in the order of FEATURES, the bias last: fitted without an embedding model
    (its feature is 0), or with one (``similar``)."""
    at = int(similar)
    return np.array([*(WEIGHTS[name][at] for name in FEATURES), BIAS[at]], dtype=np.float32)


_WEIGHTS, _SIMILAR = weights_of(False), weights_of(True)


@dataclass(frozen=True)
class Ranked:
    """A question's ranking: each passage's score, the candidates best first, how many records
    match, and each candidate's features for the asking.

    ``order`` holds at least every passage a budget could show, best first; ``scores`` is 0 for
    a passage that is no candidate; ``machine`` says per passage whether an assistant said it.
    """

    scores: Scores
    order: list[int]
    matching: int
    machine: npt.NDArray[np.bool_] | None = None
    bm25: Scores = field(default_factory=lambda: np.zeros(0, dtype=np.float32))
    docs: npt.NDArray[np.intp] = field(default_factory=lambda: np.zeros(0, dtype=np.intp))
    features: npt.NDArray[np.float32] = field(default_factory=lambda: np.zeros((0, 0), np.float32))
    weights: npt.NDArray[np.float32] = field(default_factory=lambda: _WEIGHTS)

    def explain(self, doc: int) -> dict[str, Any] | None:
        """How ``doc``'s score was made: its plain BM25, each feature's value and what it
        added to the logit, the bias and the score; None for a passage that is no candidate."""
        place = int(np.searchsorted(self.docs, doc))
        if place >= self.docs.size or self.docs[place] != doc:
            return None
        row = self.features[place]
        adds = row * self.weights[:-1]
        bias = float(self.weights[-1])
        logit = float(adds.sum()) + bias
        return {
            "score": round(float(sigmoid(np.array([logit], dtype=np.float32))[0]), 6),
            "bm25": round(float(self.bm25[doc]), 6),
            "bias": round(bias, 4),
            "features": {
                name: {"value": round(float(v), 4), "adds": round(float(a), 4)}
                for name, v, a in zip(FEATURES, row, adds, strict=True)
            },
        }


def rank(
    index: EvidenceIndex,
    question: Question,
    allowed: npt.NDArray[np.bool_] | None = None,
    budget: int = 100_000,
) -> Ranked:
    """The candidates for ``question`` scored by the fitted weights, best first."""
    similarity = similarity_of(index, question)
    weights = _WEIGHTS if similarity is None else _SIMILAR
    found = candidates(index, question.tokens, allowed, budget, similarity)
    machine = index.machine_passages()
    if not found.docs.size:
        return Ranked(found.bm25, [], 0, machine, found.bm25, found.docs)
    rows, logits = features_of(index, question, found, weights, similarity)
    scores = np.zeros(index.n_passages, dtype=np.float32)
    scores[found.docs] = sigmoid(logits)
    order = best_first(found.docs, scores, budget)
    return Ranked(scores, order, found.matching, machine, found.bm25, found.docs, rows, weights)


def similarity_of(index: EvidenceIndex, question: Question) -> Scores | None:
    """Each passage's cosine with the question, when both have a vector of one model's size
    and every passage has one; else None (the ranking is then BM25's and its features')."""
    vectors, vector = index.vectors, question.vector
    if vectors is None or vector is None or len(vectors) != index.n_passages:
        return None
    return vectors.cosine(vector) if vector.shape == (vectors.dim,) else None
