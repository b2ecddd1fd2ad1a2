"""The ranker's fit: it learns the feature that tells relevant candidates apart, by chat."""

from __future__ import annotations

import numpy as np

from app.domain.context.ranking.features import FEATURES
from bench.fit_ranker import Sample, fit, folds, recall


def _samples(n: int, seed: int = 7) -> list[Sample]:
    """Questions whose one relevant candidate of twenty has the highest ``coverage``; every other
    feature is noise."""
    rng = np.random.default_rng(seed)
    out = []
    for q in range(n):
        rows = rng.random((20, len(FEATURES)))
        relevant = np.zeros(20, dtype=np.bool_)
        relevant[int(np.argmax(rows[:, FEATURES.index("coverage")]))] = True
        records = np.arange(20, dtype=np.int64) + 100 * q
        out.append(Sample("toy", f"chat{q % 5}", rows, relevant, records, 1))
    return out


def test_the_fit_weighs_the_telling_feature_most_and_ranks_the_relevant_first() -> None:
    samples = _samples(60)
    beta = fit(samples)
    weights = dict(zip(FEATURES, beta[:-1], strict=True))
    assert max(weights, key=lambda name: weights[name]) == "coverage"
    assert recall(samples, beta, 3) > 0.9
    plain_bm25 = np.zeros(len(FEATURES) + 1)
    plain_bm25[FEATURES.index("bm25")] = 1.0
    assert recall(samples, plain_bm25, 3) < 0.4


def test_a_feature_held_out_keeps_weight_zero_and_folds_split_by_chat() -> None:
    samples = _samples(30)
    beta = fit(samples, without=["coverage"])
    assert beta[FEATURES.index("coverage")] == 0.0
    for train, test in folds(samples, 5):
        assert {s.chat for s in train}.isdisjoint({s.chat for s in test})
        assert len(train) + len(test) == len(samples)
