"""The worker's ingest path in process, on an in-memory log: for benchmarks that need no database.

Each session is one job, as the worker runs it: ``prepare`` (normalise, prune, segment), the
turns as log rows (``turn_rows``), segments already merged skipped by their source's identity,
each new segment extracted, then ``app.services.running.merge_all`` applied through a ``LogDraft``
seeded with the rows it may meet, exactly as ``app.services.running.finish`` does against Postgres.
Only the storage differs: rows live in a list here. ``tests/integration/test_bench_pipeline.py``
checks that both give the same passport.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from app.domain.context import MemoryIndex, records_of
from app.domain.extraction.extractor import Extraction, ExtractionInput
from app.domain.ingest.payload import IngestLimits, IngestPayload
from app.domain.ingest.segmentation import prepare
from app.domain.memory.log import (
    HEAD_CAPS,
    LogDraft,
    StoredRow,
    join,
    segment_keys,
    turn_rows,
    with_sections,
)
from app.domain.passport import Passport
from app.services.extraction import Work
from app.services.running import merge_all

ExtractFn = Callable[[ExtractionInput], Awaitable[Extraction | None]]


@dataclass
class InMemoryUser:
    """One user's head and log, written the way the worker writes them."""

    user_key: str
    head: dict[str, Any] = field(default_factory=dict)
    version: int = 0
    rows: list[StoredRow] = field(default_factory=list)
    removed: dict[int, int] = field(default_factory=dict)  # row id -> version that removed it
    # identity -> live rows with it: the index a merge's duplicate checks go through
    hashes: dict[str, list[StoredRow]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.head:
            self.head = Passport.empty(self.user_key).to_dict()

    def live(self) -> list[StoredRow]:
        """The rows in the passport now, in log order."""
        return [r for r in self.rows if r.id not in self.removed]

    def by_hash(self, hashes: set[str]) -> list[StoredRow]:
        """The live rows with these identities."""
        found = [r for h in hashes for r in self.hashes.get(h, ())]
        return sorted(found, key=lambda r: r.id)

    def document(self) -> dict[str, Any]:
        """The whole passport: head and live rows."""
        return join(self.head, [(r.kind, r.item) for r in self.live()])

    def index(self) -> MemoryIndex:
        """The context index of the passport now."""
        records = records_of((r.id, r.kind, r.item) for r in self.live())
        return MemoryIndex.of(Passport.from_dict(self.head), records)

    async def ingest(
        self,
        payload: IngestPayload,
        received: datetime,
        extract: ExtractFn,
        limits: IngestLimits = IngestLimits(),
    ) -> int:
        """One request as one job; returns how many segments it made."""
        segments = prepare(payload, limits=limits)
        turns = [row for _, row in turn_rows(segments, received)]
        merged = {r.hash for r in self.by_hash({k for s in segments for k in segment_keys(s)})}
        known = tuple(Passport.from_dict(self.head).known_keys())
        done: list[tuple[Work, Extraction]] = []
        for segment in segments:
            if not merged.isdisjoint(segment_keys(segment)):
                continue
            request = ExtractionInput(
                segment=segment, subject=payload.subject, known_keys=known, reference_ts=received
            )
            extraction = await extract(request)
            if extraction is not None:  # a failed segment: the worker applies the others
                done.append((Work(segment, payload.subject, received), extraction))
        edit = merge_all(done, turns)
        draft = LogDraft(self.by_hash(set(edit.hashes)))
        passport = Passport.from_dict(self.head)
        draft.seed(passport)
        edit.apply(passport, f"{received.astimezone(UTC):%Y-%m-%dT%H:%M:%SZ}", draft)
        change = draft.collect(passport, spill=HEAD_CAPS)
        if not change and _content(passport.to_dict()) == _content(self.head):
            return len(segments)
        self.version += 1
        self.head = with_sections(passport.to_dict(), change)
        next_id = self.rows[-1].id + 1 if self.rows else 1
        for n, row in enumerate(change.added):
            stored = StoredRow(next_id + n, row.kind, row.item, row.hash, self.version)
            self.rows.append(stored)
            self.hashes.setdefault(row.hash, []).append(stored)
        for row_id in change.removed:
            self.removed[row_id] = self.version
        gone = set(change.removed)
        for old in draft.existing:
            if old.id in gone:
                self.hashes[old.hash] = [r for r in self.hashes[old.hash] if r.id != old.id]
        return len(segments)


def _content(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k != "updated_at"}
