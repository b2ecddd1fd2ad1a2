"""The scorer's fitted weights, one per feature of ``features.FEATURES`` and the bias.

Written by ``python -m bench.fit_ranker --half tune --write`` (a logistic regression
on the relevance labels of both development sets); do not edit by hand.
"""

# Per feature: its weight without an embedding model (similarity is then 0), and with
# one.
WEIGHTS: dict[str, tuple[float, float]] = {
    "bm25": (1.7113, 0.7281),
    "assistant": (-1.5800, -1.7532),
    "assistant_bm25": (-1.0441, -1.0042),
    "neighbours": (1.1574, 1.2153),
    "speaker": (1.2285, 1.4447),
    "coverage": (2.5381, 2.6387),
    "similarity": (0.0000, 1.9392),
    "pairs": (0.6317, 0.5690),
    "amount": (0.8618, 0.8781),
    "date": (1.0187, 1.0194),
    "first": (0.4263, 0.5856),
}
BIAS = (-2.0474, -2.5743)
