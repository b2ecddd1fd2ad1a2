"""The stored index in process: a user's index built from the log, against loaded from segments.

``python -m bench.stored_index [--sizes 2000,20000,200000]``

Per size, a synthetic log of that many turns (two people, 5-25 words each from a vocabulary of
30,000 words, Zipf-like, 20 turns a session) stored as a stored index would hold it after writes:
a base of all but the last 700 turns and seven segments of 100. Then, side by side: building the
index from the records (what a first read did before, beside reading and decoding the rows),
decoding the stored bytes, and making the index of them two ways (each segment's postings added
as it loads, as ``app.services.stored_index`` does; merged into one segment first, as the first
version did). Every way gives the same context for the same question (checked).
"""

from __future__ import annotations

import argparse
import time
from random import Random
from typing import Any

from app.domain.context import MemoryIndex, build_context, records_of
from app.domain.context.index import segment_of
from app.domain.context.segments import decode, encode, merged
from app.domain.passport import Passport
from bench.ingest import log, table

VOCABULARY = [f"w{i}" for i in range(30_000)]
TAIL, PIECE = 700, 100


def log_rows(turns: int, seed: int = 7) -> list[tuple[int, str, dict[str, Any]]]:
    """Synthetic turns as log rows (id, kind, item)."""
    rng = Random(seed)
    weights = [1 / (rank + 1) for rank in range(len(VOCABULARY))]
    rows = []
    for i in range(turns):
        words = rng.choices(VOCABULARY, weights, k=rng.randint(5, 25))
        item = {
            "id": f"t{i}",
            "speaker": "Ana" if i % 2 else "Ben",
            "text": " ".join(words),
            "ts": f"2024-{1 + i // 20 % 12:02d}-{1 + i % 28:02d}T10:00:00Z",
            "session": f"s{i // 20}",
        }
        rows.append((i + 1, "turn", item))
    return rows


def timed(work: Any) -> tuple[Any, float]:
    """What ``work()`` returns, and the seconds it took."""
    t0 = time.perf_counter()
    out = work()
    return out, time.perf_counter() - t0


def measure(turns: int) -> list[object]:
    """One row of the table: sizes and seconds for one log."""
    rows = log_rows(turns + TAIL)
    records = records_of(rows)
    head = Passport.empty("u")
    built, build_s = timed(lambda: MemoryIndex.of(head, records))
    base = rows[:turns]
    pieces = [rows[turns + k : turns + k + PIECE] for k in range(0, TAIL, PIECE)]
    bodies = [encode(segment_of(records_of(part))) for part in [base, *pieces]]
    parts, decode_s = timed(lambda: [decode(body) for body in bodies])
    loaded, load_s = timed(lambda: MemoryIndex.of_segments(head, parts))
    merged_first, merged_s = timed(lambda: MemoryIndex.of_segments(head, [merged(parts)]))
    question = " ".join(VOCABULARY[100:104])
    want = build_context(built, question, 3000).text
    same = all(build_context(i, question, 3000).text == want for i in (loaded, merged_first))
    return [
        turns + TAIL,
        round(sum(map(len, bodies)) / 1e6, 1),
        round(build_s, 3),
        round(decode_s, 3),
        round(load_s, 3),
        round(decode_s + load_s, 3),
        round(merged_s, 3),
        "yes" if same else "NO",
    ]


def main(argv: list[str] | None = None) -> int:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2000,20000,200000")
    args = parser.parse_args(argv)
    out = []
    for size in (int(s) for s in args.sizes.split(",")):
        log(f"{size:,} turns")
        out.append(measure(size))
    headers = [
        "turns",
        "stored MB",
        "build s",
        "decode s",
        "index of segments s",
        "load s (decode + index)",
        "merged first s",
        "same context",
    ]
    print(table(headers, out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
