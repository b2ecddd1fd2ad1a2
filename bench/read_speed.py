"""How fast a warm context read is on real conversations, in process.

``python -m bench.read_speed [--half accept] [--rounds 3] [--json OUT]``

Both development sets' chats of a half (``../shared/data/splits.json``): each chat ingested as
the conversation benches do (``bench.conversations``, ``bench.realtalk``: the rule extractor, a
job per session), its index built once, then every question of the chat read ``--rounds`` times
at 1,500 / 3,000 / 6,000 characters with ``build_context``, each read timed alone. Prints, per
set and budget, the reads made and their p50 and p99. ``bench.context_speed`` does the same on
synthetic histories of growing length, and through HTTP.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections.abc import Sequence
from pathlib import Path

from app.domain.context import MemoryIndex, build_context
from bench.conversations import data as beam_data
from bench.conversations import run as beam_run
from bench.ingest import percentile
from bench.realtalk import data as realtalk_data
from bench.realtalk import run as realtalk_run
from bench.splits import of_half

BUDGETS = (1500, 3000, 6000)
Reads = list[tuple[MemoryIndex, list[str]]]


async def beam(half: str) -> Reads:
    """BEAM's chats of the half, ingested, with their questions."""
    chats = of_half(beam_data.load(beam_data.DEFAULT_DATA), lambda c: c.id, "beam500k", half)
    return [
        ((await beam_run.ingest(chat)).user.index(), [q.question for q in chat.questions])
        for chat in chats
    ]


async def realtalk(half: str) -> Reads:
    """REALTALK's chats of the half, ingested, with their questions."""
    data = realtalk_data.load(realtalk_data.DEFAULT_DATA)
    chats = of_half(data, lambda c: c.id, "realtalk", half)
    return [
        ((await realtalk_run.ingest(chat)).user.index(), [q.question for q in chat.questions])
        for chat in chats
    ]


def timed(reads: Reads, budget: int, rounds: int) -> list[float]:
    """Milliseconds of each read, every question ``rounds`` times (after one untimed round)."""
    for index, questions in reads:
        for q in questions:
            build_context(index, q, budget)
    ms: list[float] = []
    for _ in range(rounds):
        for index, questions in reads:
            for q in questions:
                started = time.perf_counter()
                build_context(index, q, budget)
                ms.append((time.perf_counter() - started) * 1000)
    return ms


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.read_speed", description=__doc__)
    parser.add_argument("--half", default="accept", choices=("tune", "accept", "all"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    figures: dict[str, dict[str, dict[str, float]]] = {}
    print(f"{'set':9} {'budget':>6} {'reads':>6} {'p50 ms':>7} {'p99 ms':>7}")
    for name, load in (("beam", beam), ("realtalk", realtalk)):
        reads = asyncio.run(load(args.half))
        figures[name] = {}
        for budget in BUDGETS:
            ms = timed(reads, budget, args.rounds)
            p50, p99 = percentile(ms, 50), percentile(ms, 99)
            figures[name][str(budget)] = {"reads": len(ms), "p50_ms": p50, "p99_ms": p99}
            print(f"{name:9} {budget:>6,} {len(ms):>6} {p50:>7.2f} {p99:>7.2f}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
