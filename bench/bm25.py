"""BM25 benchmark: ``app.domain.bm25.BM25Index`` against the ``bm25s`` library.

Run ``.venv/bin/python -m bench.bm25`` (``--docs N``, ``--queries N``). Needs ``pip install bm25s``
in the venv; bm25s is a yardstick here, never a dependency of Tessera. Both libraries get the
same synthetic Zipf-distributed corpus (short documents, like observations and episode
summaries) and the same queries; both use Lucene BM25 with k1=1.5, b=0.75, so the script also
checks that they give the same scores. The timed query is ``scores()`` / ``get_scores()`` on an
index already built: the cached case, where the service keeps the index per passport version.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from random import Random

import numpy as np

from app.domain.bm25 import BM25Index


def corpus(n_docs: int, vocab_size: int, seed: int) -> tuple[list[list[str]], list[str]]:
    """Documents of 10-60 tokens drawn from a Zipf(1.1) vocabulary."""
    rng = Random(seed)
    vocab = [f"w{i}" for i in range(vocab_size)]
    weights = [1.0 / (rank + 1) ** 1.1 for rank in range(vocab_size)]
    docs = [rng.choices(vocab, weights, k=rng.randint(10, 60)) for _ in range(n_docs)]
    return docs, vocab


def timed(fn: Callable[[], object], repeat: int) -> float:
    """Median seconds of ``repeat`` calls."""
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def main() -> None:
    """Build both indexes, check they agree, time queries and print the figures."""
    import bm25s  # imported here so the module loads (and documents itself) without it

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--docs", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=500)
    args = parser.parse_args()

    docs, vocab = corpus(args.docs, 20_000, seed=7)
    rng = Random(11)
    # Queries mix common and rare words, 3-8 tokens: what a tokenised question looks like.
    queries = [
        [
            vocab[min(int(rng.paretovariate(0.6)) - 1, len(vocab) - 1)]
            for _ in range(rng.randint(3, 8))
        ]
        for _ in range(args.queries)
    ]

    start = time.perf_counter()
    ours = BM25Index(docs)
    build_ours = time.perf_counter() - start
    start = time.perf_counter()
    theirs = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
    theirs.index(docs, show_progress=False)
    build_theirs = time.perf_counter() - start

    for q in queries[:50]:
        a, b = ours.scores(q), theirs.get_scores(q)
        assert np.allclose(a, b, rtol=1e-4, atol=1e-5), "scores differ from bm25s"

    def run_ours() -> None:
        for q in queries:
            ours.scores(q)

    def run_theirs() -> None:
        for q in queries:
            theirs.get_scores(q)

    run_ours()  # warm both
    run_theirs()
    per_ours = timed(run_ours, 5) / len(queries)
    per_theirs = timed(run_theirs, 5) / len(queries)
    print(f"docs={args.docs} queries={len(queries)} (scores agree with bm25s)")
    print(f"build:  tessera {build_ours * 1e3:8.1f} ms   bm25s {build_theirs * 1e3:8.1f} ms")
    print(f"query:  tessera {per_ours * 1e6:8.1f} us   bm25s {per_theirs * 1e6:8.1f} us")
    print(f"ratio:  tessera/bm25s query time = {per_ours / per_theirs:.2f}")
    print(f"memory: tessera approx_bytes = {ours.approx_bytes() / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
