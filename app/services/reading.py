"""Reading: the budgeted context and search, over a passport index cached per version."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from dataclasses import dataclass
from typing import Any

import orjson

from app.adapters.embeddings import EmbeddingError
from app.db.repository import PassportStamp
from app.db.uow import UowFactory
from app.domain.context import Context, Hit, MemoryIndex, build_context, records_of, search
from app.domain.context.records import INDEXED_KINDS
from app.domain.context.vectors import Vectors
from app.domain.dates import DateWindow
from app.domain.ids import sha256_hex
from app.domain.memory.log import StoredRow
from app.domain.passport import Passport
from app.services import passports
from app.services.cache import ContextCaches
from app.services.embedding import catch_up, question_vector
from app.services.errors import Behind, NotFound, Unprocessable
from app.services.held_index import HeldIndex
from app.services.stored_index import HeldAt

log = logging.getLogger(__name__)


def date_window(since: str | None, until: str | None) -> DateWindow:
    """The window ``since`` .. ``until`` name (see ``app.domain.dates.periods``); Unprocessable."""
    try:
        return DateWindow.parse(since, until)
    except ValueError as exc:
        raise Unprocessable(str(exc)) from exc


async def current_stamp(uows: UowFactory, tenant_id: uuid.UUID, user_key: str) -> PassportStamp:
    """The user's current passport stamp (one small query), or NotFound."""
    return await passports.fresh_stamp(uows, tenant_id, user_key)


@dataclass(frozen=True)
class AtLeast:
    """A read's ``min_version`` (the ``version_after`` a write reported), how long to wait for
    it, and the primary to read from when the reads go to a replica that lags behind it."""

    version: int | None = None
    wait_seconds: float = 0.0
    primary: UowFactory | None = None


ANY_VERSION = AtLeast()
# The first pause between two looks at a version a read waits for; it doubles up to the last.
FIRST_LOOK, LAST_LOOK = 0.02, 0.25


async def source_at_least(
    uows: UowFactory, tenant_id: uuid.UUID, user_key: str, at_least: AtLeast
) -> tuple[UowFactory, PassportStamp]:
    """Where to read the user at ``at_least.version`` or newer, and its stamp there: ``uows``
    (a replica, or the primary) when it has that version; else the primary when it is another;
    else the one that gets it within ``at_least.wait_seconds`` (a job still running). Behind
    when none does."""
    wanted, primary = at_least.version, at_least.primary
    to_primary = primary if primary is not None and primary is not uows else None
    try:
        stamp = await current_stamp(uows, tenant_id, user_key)
    except NotFound:
        # A replica that has not replayed the user's first write yet does not know the user.
        if wanted is None or to_primary is None:
            raise
    else:
        if wanted is None or stamp.version >= wanted:
            return uows, stamp
    if to_primary is not None:
        uows = to_primary
        stamp = await current_stamp(uows, tenant_id, user_key)
        if stamp.version >= wanted:
            return uows, stamp
    deadline = time.monotonic() + at_least.wait_seconds
    pause = FIRST_LOOK
    while time.monotonic() + pause <= deadline:
        await asyncio.sleep(pause)
        stamp = await current_stamp(uows, tenant_id, user_key)
        if stamp.version >= wanted:
            return uows, stamp
        pause = min(pause * 2, LAST_LOOK)
    raise Behind(
        f"user {user_key!r} is at version {stamp.version} here, {wanted - stamp.version} behind "
        f"the version {wanted} asked for; retry shortly",
        served=stamp.version,
        asked=wanted,
    )


# One catch-up or build per user at a time in this process.
_locks: dict[tuple[uuid.UUID, str], tuple[asyncio.Lock, int]] = {}
# Indexes (by id) a thread is adding rows to now. Readers use an index on the event loop, between
# two awaits; one that is growing is not handed out until it is done.
_growing: set[int] = set()


async def index_for(
    uows: UowFactory,
    caches: ContextCaches,
    tenant_id: uuid.UUID,
    user_key: str,
    at_least: AtLeast = ANY_VERSION,
) -> tuple[MemoryIndex, PassportStamp]:
    """The user's index as it is now (at ``at_least.version`` or newer): one small query when
    warm, NotFound if no user, Behind if the version does not come in time."""
    source, stamp = await source_at_least(uows, tenant_id, user_key, at_least)
    return await index_at(source, caches, tenant_id, user_key, stamp)


async def index_at(
    uows: UowFactory,
    caches: ContextCaches,
    tenant_id: uuid.UUID,
    user_key: str,
    stamp: PassportStamp,
) -> tuple[MemoryIndex, PassportStamp]:
    """The index at a stamp just read (or newer): grown by the rows added since it was held.

    Warm, nothing is read. After a write, the head and the rows added since the version held
    are read (two small queries) and the index grows by them. A user created again, or whose
    log was rewritten (forget, reprocess, an import), is indexed from scratch, and the answers
    built from the old log are dropped.
    """
    cache = caches.indexes
    held = cache.latest(tenant_id, user_key)
    if held is not None and held.stamp == stamp and id(held.index) not in _growing:
        return held.index, stamp
    key = (tenant_id, user_key)
    # One catch-up or build per user at a time; the lock lives while someone holds or awaits it.
    lock, users = _locks.get(key, (asyncio.Lock(), 0))
    _locks[key] = (lock, users + 1)
    try:
        async with lock:
            held = cache.latest(tenant_id, user_key)
            if held is not None and held.created_at == stamp.created_at:
                if held.version >= stamp.version:
                    return held.index, held.stamp
                grown = await _catch_up(uows, tenant_id, user_key, held)
                if grown is not None:
                    await _embedded(caches, tenant_id, user_key, grown.index)
                    cache.put(tenant_id, user_key, grown, grown, grown.index.approx_bytes())
                    return grown.index, grown.stamp
                caches.forget_answers(tenant_id, user_key)
            built = await _build(uows, caches, tenant_id, user_key)
            await _embedded(caches, tenant_id, user_key, built.index)
            cache.put(tenant_id, user_key, built, built, built.index.approx_bytes())
            return built.index, built.stamp
    finally:
        lock, users = _locks[key]
        if users > 1:
            _locks[key] = (lock, users - 1)
        else:
            del _locks[key]


def lacking_vectors(caches: ContextCaches, index: MemoryIndex) -> int:
    """How many of the index's passages hold no vector of the model on (0 when none is on)."""
    model, evidence = caches.embedder, index.evidence
    if model is None:
        return 0
    held = evidence.vectors
    have = len(held) if held is not None and held.model == model.model else 0
    return evidence.n_passages - have


async def _embedded(
    caches: ContextCaches, tenant_id: uuid.UUID, user_key: str, index: MemoryIndex
) -> None:
    """Embed the passages the index holds no vector for, when an embedding model is on: here
    when they are few (a write's), else in the background, with the index stored again (a model
    just turned on or changed); until then reads rank without similarity. A model that fails
    leaves them so."""
    lacking = lacking_vectors(caches, index)
    if not lacking or caches.embedder is None:
        return
    if lacking > READ_EMBEDS and caches.index_again is not None:
        caches.index_again(tenant_id, user_key)
        return
    try:
        await catch_up(index.evidence, caches.embedder)
    except EmbeddingError as exc:
        log.warning("embedding passages failed; ranking without similarity: %s", exc)


async def embed_and_store(caches: ContextCaches, tenant_id: uuid.UUID, user_key: str) -> None:
    """Embed every passage of the held index that lacks a vector, and store the index as the
    user's base, so a process that loads it next embeds nothing (the background's part)."""
    held = caches.indexes.peek(tenant_id, user_key)
    if held is None or caches.embedder is None or not lacking_vectors(caches, held.index):
        return
    await catch_up(held.index.evidence, caches.embedder)
    if caches.stored is not None:
        await caches.stored.keep_base(tenant_id, user_key, held)


async def _catch_up(
    uows: UowFactory, tenant_id: uuid.UUID, user_key: str, held: HeldIndex
) -> HeldIndex | None:
    """``held`` grown to the current version; None when its log was rewritten meanwhile."""
    async with uows() as uow:
        repo = uow.tenant(tenant_id)
        row = await repo.passport(user_key)
        if row is None:
            raise NotFound(f"no user {user_key!r}")
        if row.log_epoch != held.epoch or row.created_at != held.created_at:
            return None
        rows = await repo.rows_added_after(user_key, held.version)
    added = [r for r in rows if r.version <= row.version]
    # Indexing what a write added is CPU work: in a thread, while readers wait for this index.
    _growing.add(id(held.index))
    try:
        await asyncio.to_thread(_grow, held.index, added, row.doc)
    finally:
        _growing.discard(id(held.index))
    return HeldIndex(held.index, row.version, row.log_epoch, row.created_at)


def _grow(index: MemoryIndex, rows: list[StoredRow], head: dict[str, Any]) -> None:
    index.extend(records_of((r.id, r.kind, r.item) for r in rows))
    index.with_head(Passport.from_dict(head))


# Passages a read embeds itself (a write's, a small user's): an index that lacks more is embedded
# in the background, and ranked without similarity until then.
READ_EMBEDS = 1000

# A row's share of an index, roughly: its columns, and a few bytes per character of its text.
_ROW_BYTES = 300
_CHAR_BYTES = 6


def _row_bytes(row: StoredRow) -> int:
    item = row.item if isinstance(row.item, dict) else {}
    chars = sum(len(v) for v in item.values() if isinstance(v, str))
    return _ROW_BYTES + _CHAR_BYTES * chars


async def _build(
    uows: UowFactory, caches: ContextCaches, tenant_id: uuid.UUID, user_key: str
) -> HeldIndex:
    """The user's index as stored (then grown by the rows written since), or built from the log
    when nothing usable is stored (then stored, for the next process that starts).

    A stored index is usable when the cache can hold it: it is what a process that kept the user
    all along would hold (a base built as below, grown by every write since).
    """
    async with uows() as uow:
        row = await uow.tenant(tenant_id).passport(user_key)
        if row is None:
            raise NotFound(f"no user {user_key!r}")
        head, at = row.doc, HeldAt(row.version, row.log_epoch, row.created_at)
    if caches.stored is not None:
        held = await caches.stored.load(tenant_id, user_key, head, at)
        if held is not None and held.index.approx_bytes() <= caches.indexes.max_bytes:
            grown = await _catch_up(uows, tenant_id, user_key, held)
            if grown is not None:
                return grown
    built = await _built(uows, tenant_id, user_key, caches.indexes.max_bytes // 2)
    await _embedded(caches, tenant_id, user_key, built.index)  # so the base carries them
    if caches.stored is not None:
        await caches.stored.keep_base(tenant_id, user_key, built)
    return built


async def _built(
    uows: UowFactory, tenant_id: uuid.UUID, user_key: str, most_bytes: int
) -> HeldIndex:
    """The user's index from scratch: the head and the live rows of the log, newest first.

    A log whose index would pass ``most_bytes`` (half the cache) is indexed from its newest
    rows that fit: a read costs the same however long the history, the index stays cacheable,
    and one user cannot push every other out of the cache.
    """
    async with uows() as uow:
        repo = uow.tenant(tenant_id)
        row = await repo.passport(user_key)
        if row is None:
            raise NotFound(f"no user {user_key!r}")
        stored: list[StoredRow] = []
        size = 0
        async for r in repo.stream_rows(
            user_key, version=None, kinds=INDEXED_KINDS, newest_first=True
        ):
            if r.version > row.version:
                continue
            size += _row_bytes(r)
            if size > most_bytes and stored:
                break
            stored.append(r)
    stored.reverse()
    # Indexing a long log takes a while: off the event loop, so other requests are served.
    index = await asyncio.to_thread(_index_of, row.doc, stored)
    return HeldIndex(index, row.version, row.log_epoch, row.created_at)


def _index_of(head: dict[str, Any], rows: list[StoredRow]) -> MemoryIndex:
    records = records_of((r.id, r.kind, r.item) for r in rows)
    return MemoryIndex.of(Passport.from_dict(head), records)


def context_etag(stamp: PassportStamp, params: tuple[object, ...]) -> str:
    """An ETag for a context read: the passport's version and creation, and the parameters."""
    # The creation time goes into the hash: a re-created user's version 3 is another text.
    # repr of a tuple of str, int and None is unambiguous, and cheaper than canonical JSON.
    salted = repr((*params, stamp.created_at.isoformat()))
    return f'"{stamp.version}-{sha256_hex(salted)[:16]}"'


def render(
    index: MemoryIndex,
    q: str | None,
    budget_chars: int,
    window: DateWindow,
    vector: Vectors | None = None,
) -> Context:
    """The budgeted context for a query (pure; the index is already loaded)."""
    return build_context(index, q or None, budget_chars, window, vector)


async def search_memories(
    caches: ContextCaches, index: MemoryIndex, q: str, limit: int, window: DateWindow
) -> list[Hit]:
    """The log's best passages for a query, one per record, with provenance."""
    return search(index, q, limit, window, await question_vector(caches.embedder, q))


@dataclass(frozen=True)
class ContextReply:
    """A context read: its body and media type, or only that the client's copy is current."""

    body: bytes
    media_type: str
    etag: str
    version: int
    not_modified: bool = False


@dataclass(frozen=True)
class ContextQuery:
    """What a context read asks: the question, the budget, the format, the window, the ETag."""

    q: str | None
    budget_chars: int
    fmt: str = "text"
    since: str | None = None
    until: str | None = None
    if_none_match: str | None = None
    at_least: AtLeast = ANY_VERSION


async def read_context(
    uows: UowFactory,
    caches: ContextCaches,
    tenant_id: uuid.UUID,
    user_key: str,
    ask: ContextQuery,
) -> ContextReply:
    """The budgeted context an agent puts in its prompt, as text or JSON (REST and MCP)."""
    window = date_window(ask.since, ask.until)
    # Warm, this one-row read is the only database work.
    uows, stamp = await source_at_least(uows, tenant_id, user_key, ask.at_least)
    params = (ask.q, ask.budget_chars, ask.fmt, ask.since, ask.until)
    etag = context_etag(stamp, params)
    if ask.if_none_match is not None and etag in {t.strip() for t in ask.if_none_match.split(",")}:
        return ContextReply(b"", "", etag, stamp.version, not_modified=True)
    # The same read of the same passport gives the same bytes: agents repeat questions.
    cached = caches.results.get((tenant_id, user_key, etag))
    if cached is not None:
        return ContextReply(cached[0], cached[1], etag, stamp.version)
    index, built = await index_at(uows, caches, tenant_id, user_key, stamp)
    if built != stamp:  # a newer version landed while the index caught up
        stamp = built
        etag = context_etag(stamp, params)
    vector = await question_vector(caches.embedder, ask.q)
    chosen = render(index, ask.q, ask.budget_chars, window, vector)
    if ask.fmt == "json":
        body = {"version": stamp.version, "budget_chars": ask.budget_chars, **chosen.to_json()}
        reply = (orjson.dumps(body), "application/json")
    else:
        reply = (chosen.text.encode(), "text/plain; charset=utf-8")
    if _repeatable(caches, index, ask.q, vector):
        caches.results.put((tenant_id, user_key, etag), *reply)
    return ContextReply(reply[0], reply[1], etag, stamp.version)


def _repeatable(
    caches: ContextCaches, index: MemoryIndex, q: str | None, vector: Vectors | None
) -> bool:
    """Whether a context answer is the one the same read gets next time: not when an embedding
    model is on and the question or passages lacked vectors (being made, or the model failed)."""
    if caches.embedder is None or q is None or not q.strip():
        return True
    return vector is not None and not lacking_vectors(caches, index)


class IndexRefresher:
    """Brings this process's cached index of a user up to date as soon as a write lands.

    A worker's signal names the user whose passport a job wrote; if this process holds that
    user's index, it catches up in the background (one user at a time, each user queued once),
    so the read that usually follows a write finds the index current. A user whose held index
    a forget in this process dropped is indexed again (``index_again``), and the index stored
    for the other processes, so the read that follows does not index the whole log. A user this
    process does not hold is left alone: building an index is the read's business.
    """

    def __init__(self, uows: UowFactory, caches: ContextCaches) -> None:
        self._uows = uows
        self._caches = caches
        self._queue: asyncio.Queue[tuple[uuid.UUID, str]] = asyncio.Queue()
        self._queued: set[tuple[uuid.UUID, str]] = set()
        self._task: asyncio.Task[None] | None = None

    def note(self, tenant_id: uuid.UUID, user_key: str) -> None:
        """A write to this user's passport was committed."""
        if self._caches.indexes.peek(tenant_id, user_key) is not None:
            self.index_again(tenant_id, user_key)

    def index_again(self, tenant_id: uuid.UUID, user_key: str) -> None:
        """Bring the user's index up to date in the background (queued once)."""
        key = (tenant_id, user_key)
        if key not in self._queued:
            self._queued.add(key)
            self._queue.put_nowait(key)

    def start(self) -> None:
        """Start catching up in the background."""
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        """Stop; what is queued is left to the next read."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _run(self) -> None:
        while True:
            key = await self._queue.get()
            self._queued.discard(key)
            try:
                await index_for(self._uows, self._caches, *key)
                await embed_and_store(self._caches, *key)
            except NotFound:
                self._caches.indexes.drop(*key)  # deleted meanwhile
            except Exception as exc:  # the next read catches up itself
                log.warning("index catch-up failed: %s", exc)
