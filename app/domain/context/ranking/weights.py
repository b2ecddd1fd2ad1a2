"""The scorer's fitted weights, one per feature of ``features.FEATURES`` and the bias.

Written by ``python -m bench.fit_ranker --half tune --write`` (a logistic regression
on the relevance labels of both development sets); do not edit by hand.
"""

WEIGHTS: dict[str, float] = {
    "bm25": 1.7106,
    "assistant": -1.5822,
    "assistant_bm25": -1.0625,
    "neighbours": 1.1569,
    "speaker": 1.2324,
    "coverage": 2.5216,
    "pairs": 0.6274,
    "amount": 0.8698,
    "date": 1.0257,
    "first": 0.4305,
}
BIAS = -2.0525
