"""Checks behind the context speed figures that a load test cannot give.

- ``--digest``: one SHA-256 over many reads' text, JSON and search scores (165 questions x 5
  budgets x 3 date windows, at 100 and 1,000 episodes). Run it at two commits: a change meant
  for speed alone must print the same digest.
- ``--calls N``: N reads with a new question each on a built 1,000-episode index, nothing else;
  run under ``valgrind --tool=callgrind`` with N and with 0, the difference over N is the
  instructions per read (a count that a shared machine does not disturb).
- ``--memory``: what an index holds once built and read (tracemalloc), beside the estimate the
  cache counts, and how long a full garbage collection over those indexes takes.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import itertools
import json
import random
import time
import tracemalloc

from app.domain import context
from app.domain.dates import DateWindow
from app.domain.passport import Passport
from bench.context_speed import QUESTIONS, make_passport

BUDGETS = (400, 1500, 3000, 6000, 20000)
WINDOWS = ((None, None), (1.65e9, None), (None, 1.62e9))


def _index(episodes: int) -> context.MemoryIndex:
    return context.MemoryIndex.of_document(Passport.from_dict(make_passport(episodes)).to_dict())


def digest() -> str:
    """The SHA-256 of every read's outputs, and how many reads went into it."""
    out = hashlib.sha256()
    reads = 0
    rng = random.Random(5)
    for episodes in (100, 1000):
        index = _index(episodes)
        vocab = sorted(index.evidence.vocabulary())
        questions: list[str | None] = [*QUESTIONS, None, "", "Melanie", "Caroline Melanie"]
        questions += ["when", "2022", "March 2022 Lisbon"]
        tails = ["", " Melanie", " when?", " in 2022", " Caroline"]
        for _ in range(150):
            words = " ".join(rng.choice(vocab) for _ in range(rng.randint(1, 6)))
            questions.append(words + rng.choice(tails))
        for q in questions:
            for budget in BUDGETS:
                for since, until in WINDOWS:
                    read = context.build_context(index, q, budget, DateWindow(since, until))
                    out.update(json.dumps(read.to_json(), sort_keys=True, default=str).encode())
                    out.update(read.text.encode())
                    reads += 1
            hits = context.search(index, q or "", 30)
            out.update(repr([(h.record.position, h.score, h.rank) for h in hits]).encode())
    return f"{reads} reads: {out.hexdigest()}"


def calls(n: int) -> None:
    """Build the index, warm it with 400 reads, then make ``n`` more (each a new question)."""
    index = _index(1000)
    questions = (f"{q} n{i}" for i, q in zip(itertools.count(), itertools.cycle(QUESTIONS)))
    for q in itertools.islice(questions, 400 + n):
        context.build_context(index, q, 3000)


def _collect_ms() -> float:
    started = time.perf_counter()
    gc.collect()
    return (time.perf_counter() - started) * 1e3


def memory() -> list[str]:
    """Each index's retained bytes and estimate; full collections before and after them."""
    from app.main import create_app
    from app.settings import Settings

    create_app(Settings())  # what an API process has imported and made before it serves
    lines = [f"full collection, start-up objects only: {_collect_ms():.0f} ms"]
    gc.freeze()  # as `tessera api` does before serving
    kept = []
    for episodes in (1000, 10_000):
        doc = make_passport(episodes)
        gc.collect()
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        index = context.MemoryIndex.of_document(Passport.from_dict(doc).to_dict())
        for q in ("Melanie pottery", "Caroline Lisbon", "May 2023", None):
            context.build_context(index, q, 3000)
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - before
        tracemalloc.stop()
        estimate = index.approx_bytes() / 1e6
        lines.append(f"{episodes:>6} episodes: {held / 1e6:.1f} MB held, {estimate:.1f} MB est.")
        kept.append(index)
        del doc, index  # only the indexes stay, as in an API process's cache
    lines.append(f"full collection after gc.freeze, with both indexes: {_collect_ms():.0f} ms")
    return lines


def main(argv: list[str] | None = None) -> int:
    """Run the check asked for."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--digest", action="store_true", help="hash many reads' outputs")
    group.add_argument("--calls", type=int, metavar="N", help="N reads, for callgrind")
    group.add_argument("--memory", action="store_true", help="index memory and a full GC")
    args = parser.parse_args(argv)
    if args.digest:
        print(digest())
    elif args.calls is not None:
        calls(args.calls)
    else:
        print("\n".join(memory()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
