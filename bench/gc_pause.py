"""What a cached index adds to every full garbage collection, as the log grows.

``python -m bench.gc_pause [--sizes 10,1000,10000] [--json OUT]``

An API process keeps each active user's ``EvidenceIndex`` in memory, and every full collection
of the process walks whatever the collector tracks. Per size (``bench.agent_loop``'s synthetic
chat, sessions of 20 turns, indexed at once in process, the records then dropped), side by side:

- ``nothing``: a full collection with no index held;
- ``index``: with the index held (its strings in sealed chunks, its postings in byte arrays);
- ``as lists``: with the same index and its strings also held in plain lists, the layout the
  index had before (each string is then a reference every full collection follows).

The process's own objects (modules, classes, the app's imports) are frozen first, as the API
and the worker freeze theirs once started (``app.startup``), so each figure is what the index
adds; a full collection before the freeze is printed beside the table. Each time is the fastest
of five collections. ``walked`` is the references a full collection
follows through the index (``bench.ranking.collector_walk``). No servers.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from pathlib import Path

from app.domain.context import EvidenceIndex
from app.startup import freeze_startup, thaw
from bench.agent_loop import SEED, SIZES, TURNS, USER, sizes_of
from bench.ingest import log, table, user_sessions
from bench.ranking import collector_walk, records

REPEATS = 5


def full_collection_ms() -> float:
    """The fastest of a few full collections, in milliseconds."""
    gc.collect()  # what is untracked after one collection is left out of the timed ones
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        gc.collect()
        times.append((time.perf_counter() - start) * 1000)
    return min(times)


def as_lists(index: EvidenceIndex) -> list[list[str | None]]:
    """The index's per-record strings as plain lists, as the index kept them before."""
    made = [index.record(i) for i in range(len(index))]
    return [
        list(index.texts),
        [r.id for r in made],
        [r.turn_id for r in made],
        [r.ts for r in made],
        [r.source for r in made],
    ]


def measure(sessions: int) -> dict[str, float]:
    """One size's pauses: nothing held, the index held, the index and its strings as lists."""
    log(f"indexing {sessions:,} sessions")
    index = EvidenceIndex(records(user_sessions(SEED, USER, sessions, TURNS)))
    out = {"records": float(len(index)), "walked": float(collector_walk(index))}
    out["index"] = full_collection_ms()
    lists = as_lists(index)  # held while the next collections run
    out["as_lists"] = full_collection_ms()
    del lists, index
    out["nothing"] = full_collection_ms()
    return out


def report(figures: dict[int, dict[str, float]]) -> str:
    """The table: per size, the pause with nothing, the index, the index and lists."""
    rows = [
        [
            f"{size:,}",
            f"{cell['records']:,.0f}",
            f"{cell['walked']:,.0f}",
            f"{cell['nothing']:.1f}",
            f"{cell['index']:.1f}",
            f"{cell['as_lists']:.1f}",
        ]
        for size, cell in figures.items()
    ]
    headers = ["sessions", "records", "walked", "nothing ms", "index ms", "as lists ms"]
    return "A full garbage collection with a user's index cached\n" + table(headers, rows)


def main(argv: list[str] | None = None) -> int:
    """CLI: index each size, time full collections, print the table, optionally the JSON."""
    parser = argparse.ArgumentParser(prog="python -m bench.gc_pause", description=__doc__)
    parser.add_argument("--sizes", type=sizes_of, default=SIZES, help="sessions, comma-separated")
    parser.add_argument("--json", type=Path, help="write every figure here")
    args = parser.parse_args(argv)
    unfrozen = full_collection_ms()
    freeze_startup()  # as a started API or worker process does
    try:
        figures = {size: measure(size) for size in args.sizes}
    finally:
        thaw()
    print(report(figures))
    print(f"A full collection before this process's own objects were frozen: {unfrozen:.1f} ms")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
