"""The scorer's fitted weights, one per feature of ``features.FEATURES`` and the bias.

Written by ``python -m bench.fit_ranker --half tune --write`` (a logistic regression
on the relevance labels of both development sets); do not edit by hand.
"""

WEIGHTS: dict[str, float] = {
    "bm25": 1.7113,
    "assistant": -1.5800,
    "assistant_bm25": -1.0441,
    "neighbours": 1.1574,
    "speaker": 1.2285,
    "coverage": 2.5381,
    "pairs": 0.6317,
    "amount": 0.8618,
    "date": 1.0187,
    "first": 0.4263,
}
BIAS = -2.0474
