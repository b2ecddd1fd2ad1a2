"""What the local embedding model costs beside BM25 alone, in one run, on the user–assistant set.

``python -m bench.embeddings [--half accept] [--chats N]``

Per chat of the half, ingested in process as the worker would: the seconds the local model takes
to embed every passage (MB/s of the chat's text, one core); the index's size with and without
the vectors, per 1,000 passages; and the read (``build_context`` at 3,000 characters, every
question of the chat, the index warm) with and without similarity: p50 and p99 in ms, and the
question's own embedding. Also the model's load time and the memory it takes. Answer quality
with and without is ``bench.conversations`` / ``bench.realtalk`` ``--embeddings local``.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import statistics
import sys
import time
from collections.abc import Sequence

from app.adapters.embeddings.static import StaticEmbedder
from app.domain.context import build_context
from app.services.embedding import catch_up
from bench.conversations.data import DEFAULT_DATA, load
from bench.conversations.run import ingest
from bench.splits import HALVES, of_half

BUDGET = 3000


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _pct(values: Sequence[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


async def run(half: str, chats: int | None) -> str:
    """Every figure, as the table printed."""
    before = _rss_mb()
    started = time.perf_counter()
    model = StaticEmbedder()
    load_s, model_mb = time.perf_counter() - started, _rss_mb() - before
    chosen = of_half(load(DEFAULT_DATA, chats), lambda c: c.id, "beam500k", half)
    chars = passages = 0
    embed_s = 0.0
    plain_bytes = vector_bytes = 0
    off: list[float] = []
    on: list[float] = []
    asked: list[float] = []
    for chat in chosen:
        index = (await ingest(chat)).user.index()
        evidence = index.evidence
        chars += sum(len(evidence.passage_text(d)) for d in range(evidence.n_passages))
        passages += evidence.n_passages
        plain_bytes += index.approx_bytes()
        started = time.perf_counter()
        await catch_up(evidence, model)
        embed_s += time.perf_counter() - started
        vector_bytes += index.approx_bytes()
        for question in chat.questions:
            q = question.question
            started = time.perf_counter()
            vector = model.vectors([q])[0]
            asked.append(time.perf_counter() - started)
            for vec, into in ((None, off), (vector, on)):
                started = time.perf_counter()
                build_context(index, q, BUDGET, vector=vec)
                into.append(time.perf_counter() - started)
    per_k = 1000 / max(passages, 1)
    ms = 1000.0
    lines = [
        f"{len(chosen)} BEAM chats ({half} half), {passages:,} passages, {chars / 1e6:.1f} MB of "
        f"passage text, {len(off)} questions; python {sys.version.split()[0]}",
        f"local model: loaded in {load_s:.2f} s, {model_mb:.0f} MB resident",
        f"embedding every passage: {embed_s:.1f} s = {chars / 1e6 / embed_s:.2f} MB/s (one core)",
        "",
        "                              BM25 alone   with the local model",
        f"index KB per 1,000 passages   {plain_bytes * per_k / 1024:10.0f}   "
        f"{vector_bytes * per_k / 1024:20.0f}",
        f"read p50 ms ({BUDGET:,} chars)       {statistics.median(off) * ms:10.2f}   "
        f"{statistics.median(on) * ms:20.2f}",
        f"read p99 ms                   {_pct(off, 0.99) * ms:10.2f}   {_pct(on, 0.99) * ms:20.2f}",
        f"question embedding p50 ms     {'-':>10}   {statistics.median(asked) * ms:20.3f}",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """CLI: print the table."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.embeddings", description=(__doc__ or "").splitlines()[0]
    )
    parser.add_argument("--half", choices=HALVES, default="accept", help="the chats measured")
    parser.add_argument("--chats", type=int, default=None, help="only the first N chats")
    args = parser.parse_args(argv)
    print(asyncio.run(run(args.half, args.chats)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
