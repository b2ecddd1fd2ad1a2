"""Passport use cases: read and export (now or any version), import/replace, delete, list users.

The document users see is the head (``passport.doc``) joined with the live rows of the log.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, NamedTuple, TypeVar

from app.db.models import PassportVersion
from app.db.repository import PassportStamp, TenantRepository
from app.db.uow import Uow, UowFactory
from app.domain.context.vectors import Embedding
from app.domain.ids import canonical_bytes
from app.domain.integrity.canonical import GENESIS, digest, row_hash
from app.domain.integrity.chain import Erased, Link, link_hash
from app.domain.integrity.seal import INTEGRITY, SealBroken, SectionDigest, unsealed
from app.domain.memory import delta
from app.domain.memory.log import (
    HEAD_CAPS,
    KIND_OF,
    ROW_SECTIONS,
    SECTION_OF,
    LogChange,
    StoredRow,
    join,
    plan_import,
    with_sections,
)
from app.domain.passport import Passport, PassportError
from app.domain.sozograph import sozograph_document, sozograph_row, turns_of_observations
from app.domain.storable import json_problem, storable
from app.services import quotas, receipts, stored_index
from app.services.cache import ContextCaches, forget_cached
from app.services.errors import LimitExceeded, NotFound, PreconditionFailed, Unprocessable
from app.services.origin import ANONYMOUS, Origin
from app.settings import Settings

T = TypeVar("T")
# The head's sections: what is believed now, without the log of what was said and happened.
HEAD = (
    "facts",
    "prefs",
    "entities",
    "open_loops",
    "contradictions",
    "instructions",
    "values",
    "meta",
)
# Top-level fields every section selection still returns: what a reader needs to place it.
ENVELOPE = ("version", "user_key", "updated_at")
# Items sent per chunk of an export.
STREAM_ITEMS = 500
# Rows read per unit of work while exporting: one short read, then the connection goes back.
EXPORT_BATCH = 2000
# A version adding fewer rows has their hashes computed on the event loop.
HASH_HERE = 200


@dataclass(frozen=True)
class WriteResult:
    """Outcome of a write: the version now current and whether the passport is new."""

    user_key: str
    version: int
    created: bool
    changed: bool


@dataclass(frozen=True)
class UserSummary:
    """One row of the user listing."""

    user_key: str
    version: int
    created_at: datetime
    updated_at: datetime


def etag(version: int) -> str:
    """The ETag of a passport version."""
    return f'"{version}"'


def etag_matches(header: str | None, version: int) -> bool:
    """Whether an If-Match / If-None-Match header names this version (or ``*``)."""
    if header is None:
        return False
    for part in header.split(","):
        tag = part.strip()
        if tag == "*":
            return True
        tag = tag.removeprefix("W/").strip('"')
        if tag == str(version):
            return True
    return False


async def require_user(repo: TenantRepository, user_key: str) -> int:
    """The user's current version number, or NotFound."""
    version = await repo.passport_version(user_key)
    if version is None:
        raise NotFound(f"no user {user_key!r}")
    return version


async def read_of_user(
    uows: UowFactory,
    tenant_id: uuid.UUID,
    user_key: str,
    read: Callable[[TenantRepository], Awaitable[T]],
) -> T:
    """What ``read`` finds in the tenant's rows once the user is known; else NotFound."""
    async with uows() as uow:
        repo = uow.tenant(tenant_id)
        await require_user(repo, user_key)
        return await read(repo)


async def fresh_stamp(uows: UowFactory, tenant_id: uuid.UUID, user_key: str) -> PassportStamp:
    """The current version and creation time (what caches are keyed by), or NotFound."""
    async with uows() as uow:
        stamp = await uow.tenant(tenant_id).passport_stamp(user_key)
    if stamp is None:
        raise NotFound(f"no user {user_key!r}")
    return stamp


@dataclass(frozen=True)
class Export:
    """A passport being read: its version, and its canonical JSON bytes as they are produced."""

    version: int
    chunks: AsyncIterator[bytes]
    root: str

    async def body(self) -> bytes:
        """The whole document at once."""
        return b"".join([chunk async for chunk in self.chunks])


async def export(
    uows: UowFactory,
    tenant_id: uuid.UUID,
    user_key: str,
    version: int | None = None,
    sections: Collection[str] | None = None,
    *,
    for_sozograph: bool = False,
) -> Export:
    """The passport (or some of its sections) now or at ``version``, streamed from the log.

    NotFound is raised here, before the first byte; the rows are read a batch at a time while
    the body is sent, so a passport of any length is exported in bounded memory. With
    ``for_sozograph``, each item holds only the fields the SozoGraph library reads.
    """
    async with uows() as uow:
        repo = uow.tenant(tenant_id)
        at, head, root = await _head(repo, user_key, version)
    head = _only(head, sections)
    items, home = None, SECTION_OF
    if for_sozograph:
        # The library has no section for turns: each is written as an observation.
        said = "turns" in head or "observations" in head
        head = sozograph_document(head)  # without updated_at when none: the library stamps one
        if said:
            head.setdefault("observations", [])
        items, home = sozograph_row, {**SECTION_OF, "turn": "observations"}
    shape = _Shape(at, head, _kinds(sections), sections is not None, home, items, root)
    return Export(at, _stream(uows, tenant_id, user_key, shape), root)


@dataclass(frozen=True)
class PassportPage:
    """Some sections of a passport with one page of its log, and the cursor of the next page."""

    body: bytes
    version: int
    next_cursor: int | None
    root: str


@dataclass(frozen=True)
class PageQuery:
    """Which page a reader asks for: of which version and sections, after which row."""

    version: int | None
    sections: Collection[str] | None
    after: int | None
    limit: int
    since: datetime | None = None
    until: datetime | None = None
    for_sozograph: bool = False


async def page(
    uows: UowFactory, tenant_id: uuid.UUID, user_key: str, query: PageQuery
) -> PassportPage:
    """A document of the chosen sections whose log sections hold one page of rows.

    The log sections (turns, observations, episodes, sources) hold up to ``limit`` rows in log
    order after the cursor (a row id), optionally only those dated within [since, until]; the
    head's sections come whole with every page.
    """
    sections, limit = query.sections, query.limit
    kinds = [k for k in _kinds(sections) if SECTION_OF[k] in ROW_SECTIONS]
    async with uows() as uow:
        repo = uow.tenant(tenant_id)
        at, head, root = await _head(repo, user_key, query.version)
        rows = await repo.page_rows(
            user_key,
            version=at,
            kinds=kinds,
            after=query.after,
            limit=limit + 1,
            since=query.since,
            until=query.until,
        )
        spilled = [
            (r.kind, r.item)
            async for r in repo.stream_rows(
                user_key,
                version=at,
                kinds=[k for k in _kinds(sections) if SECTION_OF[k] not in ROW_SECTIONS],
            )
        ]
    more = len(rows) > limit
    rows = rows[:limit]
    doc = join(_only(head, sections), [*((r.kind, r.item) for r in rows), *spilled])
    doc = {k: v for k, v in doc.items() if sections is None or k in sections or k in ENVELOPE}
    for section in sections or ():
        if section in ROW_SECTIONS:
            doc.setdefault(section, [])
    if query.for_sozograph:
        doc = sozograph_document(doc)
    return PassportPage(canonical_bytes(doc), at, rows[-1].id if more and rows else None, root)


def _only(head: dict[str, Any], sections: Collection[str] | None) -> dict[str, Any]:
    if sections is None:
        return head
    return {k: v for k, v in head.items() if k in sections or k in ENVELOPE}


def _kinds(sections: Collection[str] | None) -> list[str]:
    wanted = KIND_OF if sections is None else [s for s in KIND_OF if s in sections]
    return [KIND_OF[s] for s in wanted]


async def _head(repo: TenantRepository, user_key: str, version: int | None) -> tuple[int, Any, str]:
    """The version read, its head and its hash (the root it had as the newest)."""
    row = await repo.passport(user_key)
    if row is None:
        raise NotFound(f"no user {user_key!r}")
    if version is None or version == row.version:
        return row.version, row.doc, row.root
    if version < 0 or version > row.version:
        raise NotFound(f"user {user_key!r} has no version {version} (current: {row.version})")
    stored = await repo.versions_numbered(user_key, [version])
    return version, await head_at(repo, user_key, version), stored[0].hash if stored else ""


@dataclass(frozen=True)
class _Shape:
    """What an export holds: the head at a version, the log's kinds, and how items are shown."""

    version: int
    head: dict[str, Any]
    kinds: Sequence[str]
    selected: bool  # the reader chose sections: each chosen log section comes, even empty
    home: Mapping[str, str]  # a row's kind -> the section it is written in
    # A row as the export shows it, given the section it is of (None: as stored).
    items: Callable[[str, Any], dict[str, Any] | None] | None = None
    root: str = ""


async def _stream(
    uows: UowFactory, tenant_id: uuid.UUID, user_key: str, shape: _Shape
) -> AsyncIterator[bytes]:
    """Canonical JSON (sorted keys) of head and rows: the bytes ``canonical_bytes`` would give."""
    version, head, kinds, selected, items = (
        shape.version,
        shape.head,
        shape.kinds,
        shape.selected,
        shape.items,
    )
    section_kinds: dict[str, list[str]] = {}
    for kind in kinds:
        section_kinds.setdefault(shape.home[kind], []).append(kind)
    log_sections = set(section_kinds)
    # A log section is in the document when its head names it (every one, unless a document
    # imported without it had no rows added since), or when a reader asks for it.
    keys = sorted(set(head) | (log_sections & set(ROW_SECTIONS) if selected else set()))
    keys = sorted({*keys, INTEGRITY})
    # The seal sorts after every log section: when it is written, all their digests are known,
    # and those of the head's sections (a key after it included) are known from the start.
    digests = {k: digest(head[k]) for k in keys if k not in log_sections and k != INTEGRITY}
    yield b"{"
    for n, key in enumerate(keys):
        yield (b"," if n else b"") + canonical_bytes(key) + b":"
        if key == INTEGRITY:
            seal = {"root": shape.root, "version": version, "digests": digests}
            yield canonical_bytes(seal)
            continue
        if key not in log_sections:
            yield canonical_bytes(head[key])
            continue
        # A section is its rows in log order, then any items the head still holds.
        first = True
        batch: list[bytes] = []
        section = SectionDigest()
        for kind in section_kinds[key]:
            async for row in _rows_in_batches(uows, tenant_id, user_key, version, kind):
                item = row.item if items is None else items(SECTION_OF[kind], row.item)
                if item is not None:
                    batch.append(section.add(item, canonical_bytes(item)))
                if len(batch) >= STREAM_ITEMS:
                    yield (b"[" if first else b",") + b",".join(batch)
                    first, batch = False, []
        held = head.get(key)
        for i in held if isinstance(held, list) else []:
            batch.append(section.add(i, canonical_bytes(i)))
        if batch:
            yield (b"[" if first else b",") + b",".join(batch)
            first = False
        yield b"[]" if first else b"]"
        digests[key] = section.hexdigest()
    yield b"}"


async def _rows_in_batches(
    uows: UowFactory, tenant_id: uuid.UUID, user_key: str, version: int, kind: str
) -> AsyncIterator[StoredRow]:
    """The rows of one kind at ``version``, each batch read in a unit of work of its own.

    No connection is held while the client reads what was sent: a slow reader costs the pool
    nothing. A version's rows do not change, so the batches join up; rows forgotten meanwhile
    are simply not sent.
    """
    after: int | None = None
    while True:
        async with uows() as uow:
            rows = await uow.tenant(tenant_id).page_rows(
                user_key, version=version, kinds=[kind], after=after, limit=EXPORT_BATCH
            )
        for row in rows:
            yield row
        if len(rows) < EXPORT_BATCH:
            return
        after = rows[-1].id


async def turns_by_id(
    uows: UowFactory,
    tenant_id: uuid.UUID,
    user_key: str,
    turn_ids: Collection[str],
    version: int | None = None,
) -> dict[str, dict[str, Any]]:
    """The turns with these client ids in the passport now (or at ``version``), by id."""
    async with uows() as uow:
        rows = await uow.tenant(tenant_id).turns_with_ids(user_key, turn_ids, version)
    return {str(row.item.get("id")): row.item for row in rows}


async def turns_of_sources(
    uows: UowFactory, tenant_id: uuid.UUID, user_key: str, sources: Collection[str]
) -> dict[str, list[dict[str, Any]]]:
    """The live turns of these sources (ingested segments), in log order, by source id."""
    async with uows() as uow:
        rows = await uow.tenant(tenant_id).rows_of_sources(user_key, sources, ["turn"])
    found: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        found.setdefault(str(row.item.get("source")), []).append(row.item)
    return found


async def head_at(repo: TenantRepository, user_key: str, version: int) -> dict[str, Any]:
    """The head as it was at ``version``: the newest snapshot before it and the deltas after."""
    rows = await repo.versions_to_rebuild(user_key, version)
    if not rows or rows[-1].version != version:
        raise NotFound(f"version {version} of user {user_key!r} is not recorded")
    doc: Any = rows[0].snapshot
    for row in rows[1:]:
        doc = row.snapshot if row.snapshot is not None else delta.apply(doc, row.delta)
    return dict(doc)


async def rebuild(repo: TenantRepository, user_key: str, version: int) -> dict[str, Any]:
    """The whole document as it was at ``version``: its head and the rows alive then."""
    head = await head_at(repo, user_key, version)
    rows = [(r.kind, r.item) async for r in repo.stream_rows(user_key, version=version)]
    return join(head, rows)


def belief_count(head: dict[str, Any]) -> int:
    """How many beliefs a head holds: the items of its sections but ``meta``."""
    return sum(len(v) for k, v in head.items() if k in HEAD and k != "meta" and isinstance(v, list))


def summary_of(
    old_head: dict[str, Any], change_delta: Any, change: LogChange, removed_kinds: dict[int, str]
) -> dict[str, Any]:
    """What a version changed, per section: the head's delta and the log's rows together."""
    out = delta.summarize_delta(old_head, change_delta)
    for section, counts in change.counts(removed_kinds).items():
        before = out.get(section, {"added": 0, "removed": 0})
        out[section] = {k: before[k] + counts[k] for k in ("added", "removed")}
    return out


@dataclass(frozen=True)
class NewVersion:
    """One change to a passport, to be written as its next version."""

    old_head: dict[str, Any]
    new_head: dict[str, Any]
    old_version: int
    cause: str  # job kind, import, facts, forget
    now: datetime
    change: LogChange = field(default_factory=LogChange)
    removed_kinds: dict[int, str] = field(default_factory=dict)  # removed row id -> its kind
    job_id: uuid.UUID | None = None
    new_epoch: bool = False  # rows were rewritten: caches of this user start over
    extra_summary: dict[str, Any] = field(default_factory=dict)
    turns_deleted: int = 0  # turns taken out of the log before (a forget deletes them itself)
    old_root: str = GENESIS  # the hash of ``old_version``
    actor: str = ""  # the prefix of the API key that asked for the change
    erased: Erased | None = None  # a forget: what it deleted and rewrote in the history
    # The head's delta when the caller computed it already (off the event loop, before the lock).
    head_delta: dict[str, Any] | None = None

    def turns_gained(self) -> int:
        """How many turns the log holds more after this version (fewer when negative)."""
        added = sum(1 for row in self.change.added if row.kind == "turn")
        removed = sum(1 for i in self.change.removed if self.removed_kinds.get(i) == "turn")
        return added - removed - self.turns_deleted


class Recorded(NamedTuple):
    """A version just written: its number, its hash (the user's root now), and how many stored
    index segments it dropped (a write that rewrote the log drops them all)."""

    version: int
    root: str
    segments_dropped: int = 0


async def record_version(
    repo: TenantRepository,
    user_key: str,
    new: NewVersion,
    snapshot_every: int,
    embedding: Embedding | None = None,
) -> Recorded:
    """Write a new version: the head, its log rows, and the version row (caller holds the lock).

    The cost is what changed: the head (the size of what is believed now) and the new rows,
    never the history. ``embedding``: the local model that embeds the new rows' passages for
    the stored index.
    """
    old_head, change, now = new.old_head, new.change, new.now
    version = new.old_version + 1
    new_head = with_sections(new.new_head, change)
    added = await repo.add_rows(user_key, change.added, version, new.job_id)
    removed = await repo.remove_rows(user_key, change.removed, version)
    head_delta = new.head_delta if new.head_delta is not None else delta.diff(old_head, new_head)
    snapshot = new_head if snapshot_every > 0 and version % snapshot_every == 0 else None
    added_hashes = await _hashes([(row.kind, row.item) for row in change.added])
    link = Link.of(
        [head_delta, snapshot], added_hashes, await _hashes(removed), new.actor, new.erased
    )
    root = link_hash(new.old_root, version, new.cause, link)
    epoch = new.new_epoch or bool(change.removed)
    log_epoch = await repo.save_passport(
        user_key, new_head, version, now, root=root, new_epoch=epoch, turns=new.turns_gained()
    )
    rows = [(row_id, row.kind, row.item) for row_id, row in zip(added, change.added, strict=True)]
    written = stored_index.Written(version, log_epoch, root)
    dropped = await stored_index.after_write(repo, user_key, written, rows, embedding)
    await repo.add_version(
        PassportVersion(
            user_key=user_key,
            version=version,
            delta=head_delta,
            snapshot=snapshot,
            summary={
                **summary_of(old_head, head_delta, change, new.removed_kinds),
                **new.extra_summary,
            },
            rows_added=added,
            rows_removed=list(change.removed),
            cause=new.cause,
            job_id=new.job_id,
            created_at=now,
            hash=root,
            chain=link.to_json(),
        )
    )
    return Recorded(version, root, dropped)


async def _hashes(rows: list[tuple[str, Any]]) -> list[str]:
    """The rows' content hashes: a job's few here, an import's many off the event loop."""
    if len(rows) < HASH_HERE:
        return [row_hash(kind, item) for kind, item in rows]
    return await asyncio.to_thread(lambda: [row_hash(kind, item) for kind, item in rows])


async def create_if_missing(
    repo: TenantRepository, user_key: str, now: datetime, cause: str = "create", actor: str = ""
) -> bool:
    """Create an empty version-0 passport (with its snapshot row) unless the user exists."""
    doc = Passport.empty(user_key).to_dict()
    link = Link.of([None, doc], [], [], actor)
    root = link_hash(GENESIS, 0, cause, link)
    created = await repo.create_passport_if_missing(user_key, doc, now, root)
    if created:
        await repo.add_version(
            PassportVersion(
                user_key=user_key,
                version=0,
                delta=None,
                snapshot=doc,
                summary={},
                cause=cause,
                created_at=now,
                hash=root,
                chain=link.to_json(),
            )
        )
    return created


def parse_document(doc: Any) -> dict[str, Any]:
    """Validate an imported document and return it in canonical 2.x form (1.x migrates).

    A document that carries an export's seal is checked against it first: one edited since it
    was exported is refused, naming the section that differs.
    """
    if isinstance(doc, dict):
        try:
            doc = unsealed(doc)
        except SealBroken as exc:
            raise Unprocessable(f"the document's integrity seal does not match: {exc}") from None
    # JSONB cannot hold NUL; the character carries nothing a reader could see.
    doc = storable(doc)
    problem = json_problem(doc)
    if problem:
        raise Unprocessable(problem)
    try:
        # A SozoGraph file's observations of what someone said come back as turns.
        return Passport.from_dict(turns_of_observations(doc)).to_dict()
    except PassportError as exc:
        raise Unprocessable(f"not a passport: {exc}") from exc


async def put_passport(
    uows: UowFactory,
    tenant_id: uuid.UUID,
    user_key: str,
    doc: Any,
    *,
    settings: Settings,
    origin: Origin = ANONYMOUS,
) -> WriteResult:
    """Import or replace a whole passport; If-Match guards against lost updates.

    A document with more turns than ``user_max_turns`` is refused (413) before anything is read.
    """
    # Every item is read, checked and rebuilt: CPU work, off the event loop.
    new_doc, size = await asyncio.to_thread(_parsed_and_sized, doc)
    turns = sum(1 for t in new_doc.get("turns") or () if isinstance(t, dict))
    most = settings.user_max_turns
    if 0 < most < turns:
        raise LimitExceeded(
            f"the document holds {turns} turns, past user_max_turns ({most})",
            limit="user_max_turns",
            status=413,
        )
    async with uows() as uow:
        await quotas.check_bytes(uow.tenant(tenant_id), size, datetime.now(UTC), settings)
        return await _put(uow, tenant_id, user_key, (new_doc, size), settings, origin)


def _parsed_and_sized(doc: Any) -> tuple[dict[str, Any], int]:
    """The document as stored, and its size in bytes: what it counts against the daily quota."""
    new_doc = parse_document(doc)
    return new_doc, len(canonical_bytes(new_doc))


async def _put(
    uow: Uow,
    tenant_id: uuid.UUID,
    user_key: str,
    sized: tuple[dict[str, Any], int],
    settings: Settings,
    origin: Origin,
) -> WriteResult:
    """Write the document (and charge its size to the tenant's usage) under the row lock."""
    new_doc, size = sized
    repo = uow.tenant(tenant_id)
    if_match, actor = origin.if_match, origin.actor
    now = datetime.now(UTC)
    if if_match is not None and await repo.passport_version(user_key) is None:
        raise PreconditionFailed(f"If-Match {if_match} given, but user {user_key!r} does not exist")
    created = await create_if_missing(repo, user_key, now, cause="import", actor=actor)
    row = await repo.passport(user_key, lock=True)
    assert row is not None  # created above or already there; we hold its lock now
    if if_match is not None and not etag_matches(if_match, row.version):
        raise PreconditionFailed(
            f"If-Match {if_match} does not match the current version {etag(row.version)}"
        )
    # An import is a whole document: it is compared with the whole live log (its cost is the
    # document's size, which the request already paid to send).
    live = [r async for r in repo.stream_rows(user_key, version=None)]
    new_head, change = plan_import(new_doc, live, spill=HEAD_CAPS)
    if new_head == row.doc and not change:
        await quotas.charge_bytes(repo, size, now, settings)
        await uow.commit()
        return WriteResult(user_key, row.version, created, changed=created)
    kinds = {r.id: r.kind for r in live}
    new = NewVersion(
        row.doc, new_head, row.version, "import", now, change, kinds, old_root=row.root, actor=actor
    )
    every = settings.version_snapshot_every
    version = (await record_version(repo, user_key, new, every)).version
    await quotas.charge_bytes(repo, size, now, settings)
    await uow.commit()
    return WriteResult(user_key, version, created, changed=True)


async def delete_user(
    uows: UowFactory,
    caches: ContextCaches,
    tenant_id: uuid.UUID,
    user_key: str,
    *,
    secret: bytes | None = None,
    actor: str = "",
) -> dict[str, Any]:
    """Hard-delete a user's passport, log, versions, jobs and payloads, and what is cached of it;
    the signed erasure receipt, which the tenant keeps after the user is gone."""
    async with uows() as uow:
        repo = uow.tenant(tenant_id)
        row = await repo.passport(user_key, lock=True)
        if row is None:
            raise NotFound(f"no user {user_key!r}")
        removed = await repo.user_holdings(user_key)
        removed["head_beliefs"] = belief_count(row.doc)
        await repo.delete_user(user_key)
        dropped = forget_cached(caches, tenant_id, user_key)
        what: dict[str, Any] = {
            "scope": "user",
            "target": None,
            "version": None,
            "root": row.root,
            "actor": actor,
            "removed": {**removed, "cached_contexts": dropped.contexts, "indexes": dropped.indexes},
            "redacted": [],
        }
        receipt = await receipts.issue(repo, user_key, what, datetime.now(UTC), secret)
        await uow.system.signal_forgotten(tenant_id, user_key)
        await uow.commit()
    # Frees the memory here at once (again: a read may have cached it meanwhile), and in the
    # other processes on the signal sent at commit.
    forget_cached(caches, tenant_id, user_key)
    return receipt


async def list_users(
    uows: UowFactory,
    tenant_id: uuid.UUID,
    limit: int,
    cursor: str | None,
    containing: str | None = None,
) -> tuple[list[UserSummary], str | None]:
    """A page of the tenant's users (whose key holds ``containing``, any case) and the cursor
    of the next page (None at the end)."""
    # The cursor is the last key of the previous page: any key is a valid place to start after.
    async with uows() as uow:
        rows = await uow.tenant(tenant_id).list_users(limit + 1, cursor or None, containing)
    items = [UserSummary(*row) for row in rows[:limit]]
    next_cursor = items[-1].user_key if len(rows) > limit else None
    return items, next_cursor
