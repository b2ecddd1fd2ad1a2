"""The stored index: segments every write appends and merges, and a first read loads at once.

An API process that does not hold a user's index (after a start, or once the cache let it go)
would otherwise read and index the whole log. Instead each write that adds log rows stores a
segment of them (``app.domain.context.segments``) in the same transaction, and merges the newest
segments when ``FANOUT`` of a size have gathered, so a user has a few segments per power of
``FANOUT`` and a write rewrites each row a logarithmic number of times. A first read loads the
segments in one query, merges them, and catches up with the rows written since.

The chain starts with a base: the index an API process built from the log (all of it, or the
newest rows that fit its cache, as it serves them), stored by that process after a first read
that found nothing usable stored: a new or migrated user, a log rewritten by a forget, an import
or a reprocess (which drop the user's segments in their transaction), or a stored index grown
past what the cache holds. Until a base exists writes store nothing, and a gap (versions that
added no rows) is filled by the next write that adds some.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any

from app.db.repository import TenantRepository
from app.db.segments import SegmentInfo, StoredSegment
from app.db.uow import UowFactory
from app.domain.context import MemoryIndex, records_of
from app.domain.context.index import segment_of
from app.domain.context.records import INDEXED_KINDS
from app.domain.context.segment_checks import segment_digest
from app.domain.context.segments import Segment, decode, encode, merged
from app.domain.context.vectors import Embedding
from app.domain.passport import Passport
from app.services.held_index import HeldIndex

log = logging.getLogger(__name__)

# Segments of one size that are merged into one of the next.
FANOUT = 8
# Records a write indexes on the event loop; more (an import, a large merge) go to a thread.
INDEX_HERE = 200
# With an embedding model, this many characters of text count as one more record.
CHARS_PER_RECORD = 100

Row = tuple[int, str, Any]


def level_of(records: int) -> int:
    """A segment's size class: the power of ``FANOUT`` its record count reaches."""
    level, size = 0, FANOUT
    while size <= records:
        level, size = level + 1, size * FANOUT
    return level


def chain(infos: Sequence[SegmentInfo], epoch: int, version: int) -> list[SegmentInfo]:
    """The segments that index the log from its start, each from where the one before ends,
    of this epoch and at most this version; empty when there is no such start."""
    out: list[SegmentInfo] = []
    end = 0
    for info in infos:
        if info.from_version != end or info.epoch != epoch or info.to_version > version:
            break
        out.append(info)
        end = info.to_version
    return out


async def after_write(
    repo: TenantRepository,
    user_key: str,
    at: Written,
    rows: Sequence[Row],
    embedding: Embedding | None = None,
) -> int:
    """Keep the user's segments up to a write (the caller holds the user's lock); how many
    segments were dropped.

    ``rows`` are the (id, kind, item) the write added to the log; a write that rewrote the log
    (a new epoch) drops the segments instead: they hold what it took out. Each segment stored
    carries the digest that ties its bytes to the write's root; with ``embedding`` (the local
    model), the vectors of its passages too.
    """
    version, epoch = at.version, at.epoch
    infos = await repo.segment_infos(user_key)
    if not infos:
        return 0
    held = chain(infos, epoch, version)
    if len(held) < len(infos):  # of another epoch, or not joined to a base: useless now
        return await repo.drop_segments(user_key)
    last = held[-1].to_version
    if last != version - 1:  # versions that added no rows came between: take theirs too
        added = await repo.rows_added_after(user_key, last)
        rows = [(r.id, r.kind, r.item) for r in added]
    indexed = [row for row in rows if row[1] in INDEXED_KINDS]
    if not indexed:
        return 0
    # Embedding costs by the character: a few long turns go to a thread as many short ones do.
    weight = len(indexed) + (_text_chars(indexed) // CHARS_PER_RECORD if embedding else 0)
    body, records = await _off_loop(weight, partial(_segment_bytes, model=embedding), indexed)
    info = SegmentInfo(last, version, epoch, level_of(records), records)
    await repo.add_segment(user_key, info, body, segment_digest(at.root, body))
    await _merge(repo, user_key, [*held, info], at.root)
    return 0


def _text_chars(rows: Sequence[Row]) -> int:
    """The characters of the rows' text fields."""
    return sum(
        len(text)
        for _, _, item in rows
        if isinstance(item, dict) and isinstance(text := item.get("text"), str)
    )


def _segment_bytes(rows: Sequence[Row], model: Embedding | None) -> tuple[bytes, int]:
    segment = segment_of(records_of(rows), model)
    return encode(segment), segment.records


def merge_run(infos: Sequence[SegmentInfo]) -> list[SegmentInfo]:
    """The newest segments to merge: those after the last one larger than a size class, once
    ``FANOUT`` of them are of that class. So a segment is rewritten once per class it climbs,
    and a large base is not rewritten until as much again has gathered after it."""
    for level in sorted({info.level for info in infos}):
        run = 0
        while run < len(infos) and infos[-1 - run].level <= level:
            run += 1
        tail = infos[len(infos) - run :]
        if sum(info.level == level for info in tail) >= FANOUT:
            return list(tail)
    return []


async def _merge(
    repo: TenantRepository, user_key: str, infos: list[SegmentInfo], root: str
) -> None:
    """Merge the newest runs; each ends at the version just written, whose hash is ``root``."""
    while run := merge_run(infos):
        ends = [info.to_version for info in run]
        stored = await repo.segments(user_key, ends)
        records = sum(info.records for info in run)
        body = await _off_loop(records, _merged_bytes, [s.body for s in stored])
        await repo.drop_segments(user_key, ends)
        first = run[0]
        info = SegmentInfo(first.from_version, ends[-1], first.epoch, level_of(records), records)
        await repo.add_segment(user_key, info, body, segment_digest(root, body))
        infos = [*infos[: len(infos) - len(run)], info]


def _merged_bytes(bodies: Sequence[bytes]) -> bytes:
    return encode(merged([decode(body) for body in bodies]))


async def _off_loop(records: int, work: Any, arg: Any) -> Any:
    """``work(arg)``: here for a few records, in a thread for many."""
    if records < INDEX_HERE:
        return work(arg)
    return await asyncio.to_thread(work, arg)


@dataclass(frozen=True)
class IndexStore:
    """Where an API process loads users' stored indexes from, and stores a base it built.

    Both on the primary: the segments are not replicated (the table is unlogged).
    """

    reads: UowFactory
    writes: UowFactory

    async def load(
        self, tenant_id: uuid.UUID, user_key: str, head: dict[str, Any], at: HeldAt
    ) -> HeldIndex | None:
        """The user's index as stored, at the version its segments reach (at most ``at``'s);
        None when nothing usable is stored."""
        async with self.reads() as uow:
            repo = uow.tenant(tenant_id)
            stored = await repo.segments(user_key)
            held = chain([s.info for s in stored], at.epoch, at.version)
            if not held:
                return None
            roots = await repo.version_hashes(user_key, {s.to_version for s in held})
        kept = stored[: len(held)]
        bodies = [s.body for s in kept]
        if not await asyncio.to_thread(_digests_hold, kept, roots):
            # Changed in the database, or not of this history: the log is what counts.
            log.warning("stored index of a user does not match its digest: built from the log")
            return None
        try:
            index = await asyncio.to_thread(_index_of, head, bodies)
        # Another format, or damaged past what decoding notices: the log is still there.
        except (ValueError, IndexError, KeyError, TypeError) as exc:
            log.warning("stored index of a user not read: %s", exc)
            return None
        return HeldIndex(index, held[-1].to_version, at.epoch, at.created_at)

    async def keep_base(self, tenant_id: uuid.UUID, user_key: str, built: HeldIndex) -> bool:
        """Store an index built from the log as the user's base, in place of what is stored
        (which could not be used), unless the log changed meanwhile; whether it was stored."""
        segment: Segment = await asyncio.to_thread(built.index.to_segment)
        body = await asyncio.to_thread(encode, segment)
        async with self.writes() as uow:
            repo = uow.tenant(tenant_id)
            row = await repo.passport(user_key, lock=True)
            if row is None or (row.log_epoch, row.created_at) != (built.epoch, built.created_at):
                return False
            root = (await repo.version_hashes(user_key, {built.version})).get(built.version)
            if root is None:
                return False
            await repo.drop_segments(user_key)
            records = segment.records
            info = SegmentInfo(0, built.version, built.epoch, level_of(records), records)
            await repo.add_segment(user_key, info, body, segment_digest(root, body))
            await uow.commit()
        return True


@dataclass(frozen=True)
class Written:
    """A write as the stored index keeps up with it: its version, the log's epoch after it,
    and its hash (the user's root now)."""

    version: int
    epoch: int
    root: str


def _digests_hold(stored: Sequence[StoredSegment], roots: dict[int, str]) -> bool:
    """Whether every segment's digest is that of its bytes under its newest version's hash."""
    for segment in stored:
        root = roots.get(segment.info.to_version)
        if root is None or segment_digest(root, segment.body) != segment.digest:
            return False
    return True


@dataclass(frozen=True)
class HeldAt:
    """The passport a read found: its version, its log's epoch, when the user was created."""

    version: int
    epoch: int
    created_at: datetime


def _index_of(head: dict[str, Any], bodies: Sequence[bytes]) -> MemoryIndex:
    parts = [decode(body) for body in bodies]
    return MemoryIndex.of_segments(Passport.from_dict(head), parts)
