"""What one exchange's CPU work costs in process: the figure behind TESSERA_CPU_INLINE_TOKENS.

``python -m bench.small_job [--clients 4] [--exchanges 150]``

The first ``--clients`` BEAM chats of the tuning half, cut into exchanges as ``bench.rhythm``
posts them: for each exchange, preparing its payload, making its turn rows and extracting its
segments with the rules, timed on this thread (what a worker now does for a small job instead of
handing it to the pool), and the stored-index segment of its turn rows (what each write stores
once the user has a stored index). Every 50th exchange, the merge of it onto the head the chat
has grown so far is timed too (the merge stays in the pool: its cost follows the head, not the
job).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from datetime import UTC, datetime, timedelta

from app.domain.context import records_of
from app.domain.context.index import segment_of
from app.domain.context.segments import encode
from app.domain.extraction import ExtractionInput
from app.domain.extraction.rules import RuleExtractor, extract_rules
from app.domain.ingest import IngestPayload
from app.domain.passport import Passport
from app.services import ingest
from app.services.extraction import Work
from app.services.running import merge_all, merged
from app.settings import Settings
from bench.conversations.data import DEFAULT_DATA, load
from bench.conversations.run import payload_of
from bench.pipeline import InMemoryUser
from bench.rhythm import exchanges_of
from bench.splits import of_half

START = datetime(2025, 1, 1, tzinfo=UTC)


async def measure(clients: int, most: int) -> None:
    """Print the per-exchange costs and the merge's, over the chats' first exchanges."""
    settings = Settings()
    rules = RuleExtractor()
    spent = {"prepare": 0.0, "turn rows": 0.0, "extract": 0.0, "segment": 0.0}
    chars: list[int] = []
    merges: list[tuple[int, float]] = []
    for chat in of_half(load(DEFAULT_DATA), lambda c: c.id, "beam500k", "tune")[:clients]:
        user, when = InMemoryUser(f"small-{chat.id}"), START
        for n, exchange in enumerate(exchanges_of(chat)[:most]):
            payload = payload_of(exchange)
            stored = ingest.stored_payload(payload)
            chars.append(sum(len(t["content"]) for t in stored["turns"]))
            t0 = time.perf_counter()
            segments = ingest.segments_of(IngestPayload.model_validate(stored), settings)
            t1 = time.perf_counter()
            turns = ingest.turn_rows_each([(segments, when)])[0]
            t2 = time.perf_counter()
            known = tuple(Passport.from_dict(user.head).known_keys())
            asked = [
                ExtractionInput(segment=s, subject=None, known_keys=known, reference_ts=when)
                for s in segments
            ]
            done = [(Work(a.segment, None, when), extract_rules(a)) for a in asked]
            t3 = time.perf_counter()
            encode(segment_of(records_of((i, r.kind, r.item) for i, r in enumerate(turns))))
            t4 = time.perf_counter()
            spent["prepare"] += t1 - t0
            spent["turn rows"] += t2 - t1
            spent["extract"] += t3 - t2
            spent["segment"] += t4 - t3
            if n % 50 == 49:
                edit = merge_all(done, turns)
                existing = user.by_hash(set(edit.hashes))
                t5 = time.perf_counter()
                merged(user.head, existing, edit.apply, f"{when:%Y-%m-%dT%H:%M:%SZ}")
                merges.append((n + 1, time.perf_counter() - t5))
            await user.ingest(payload, when, rules.extract)
            when += timedelta(minutes=5)
    total = sum(chars)
    print(f"{len(chars)} exchanges, median {statistics.median(chars):,.0f} characters")
    for step, seconds in spent.items():
        each, rate = seconds / len(chars) * 1000, total / seconds / 1e6
        print(f"{step:10} {each:.2f} ms an exchange, {rate:.1f} MB/s")
    for after, seconds in merges:
        print(f"merge onto the head after {after} exchanges: {seconds * 1000:.2f} ms")


def main() -> None:
    """Parse the arguments and measure."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=4, help="chats")
    parser.add_argument("--exchanges", type=int, default=150, help="exchanges per chat")
    args = parser.parse_args()
    asyncio.run(measure(args.clients, args.exchanges))


if __name__ == "__main__":
    main()
