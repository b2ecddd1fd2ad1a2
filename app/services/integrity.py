"""Integrity: recompute a user's hash chain from the stored rows."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
import uuid
from dataclasses import dataclass

from app.db.models import PassportVersion
from app.db.repository import TenantRepository
from app.db.uow import UowFactory
from app.domain.context.records import INDEXED_KINDS
from app.domain.context.segment_checks import records_differ, segment_digest
from app.domain.context.vectors import Embedding
from app.domain.integrity.canonical import GENESIS
from app.domain.integrity.check import ChainCheck, Flaw, LoggedRow, StoredVersion
from app.services import passports
from app.services.errors import NotFound

# Versions read per unit of work: the check holds one page of versions and their rows at a time.
CHECK_PAGE = 200
# Passes of a check whose flaw may come from writes made while it ran.
ATTEMPTS = 3
_CHECKING = threading.Lock()


@dataclass(frozen=True)
class Integrity:
    """What the check found."""

    valid: bool
    root: str
    versions: int
    rows: int
    from_version: int
    first_bad_version: int | None
    reason: str | None
    root_version: int | None = None
    index_segments: int = 0


async def check(
    uows: UowFactory,
    tenant_id: uuid.UUID,
    user_key: str,
    from_version: int = 0,
    root: str | None = None,
    model: Embedding | None = None,
) -> Integrity:
    """Recompute the chain from ``from_version`` (its predecessor's hash trusted) to the newest;
    with ``root`` (one kept elsewhere), also which checked version has that hash.

    Each page of versions is read with the rows they added and removed in a short unit of work
    of its own and checked in a worker thread; nothing else of the history is held. A flaw found
    while the user was written to (a forget rewrites what pages already read or not yet read)
    is checked again on the history as it is now. With ``model`` (the local embedding model),
    the vectors it made in the stored index are checked too.
    """
    for _ in range(ATTEMPTS - 1):
        found, written = await _once(uows, tenant_id, user_key, from_version, root)
        if found.valid or not written:
            return await _with_derived(uows, tenant_id, user_key, found, model)
    found, _ = await _once(uows, tenant_id, user_key, from_version, root)
    return await _with_derived(uows, tenant_id, user_key, found, model)


async def _with_derived(
    uows: UowFactory,
    tenant_id: uuid.UUID,
    user_key: str,
    found: Integrity,
    model: Embedding | None,
) -> Integrity:
    """``found``, with the user's stored index segments checked too, when the chain holds.

    Each segment of the current history must carry the digest of its bytes under its newest
    version's hash, and say of each record what the log row it names says. A segment that does
    not is reported (reads do not use it: they build the index from the log).
    """
    if not found.valid:
        return found
    async with uows() as uow:
        repo = uow.tenant(tenant_id)
        row = await repo.passport(user_key)
        stored = await repo.segments(user_key)
        roots = await repo.version_hashes(user_key, {s.info.to_version for s in stored})
    if row is None:
        return found
    current = [s for s in stored if s.info.epoch == row.log_epoch]
    for segment in current:
        info = segment.info
        why = None
        at = roots.get(info.to_version)
        if at is None or segment_digest(at, segment.body) != segment.digest:
            why = "its digest is not that of its bytes under its version's hash"
        else:
            async with uows() as uow:
                rows = await uow.tenant(tenant_id).live_rows_between(
                    user_key, info.from_version, info.to_version, INDEXED_KINDS
                )
            plain = [(r.id, r.kind, r.item) for r in rows]
            why = await asyncio.to_thread(records_differ, segment.body, plain, model)
        if why is not None:
            reason = (
                f"the stored index segment of versions {info.from_version + 1}-"
                f"{info.to_version} does not match the log: {why}"
            )
            return dataclasses.replace(
                found, valid=False, first_bad_version=info.to_version, reason=reason
            )
    return dataclasses.replace(found, index_segments=len(current))


async def _once(
    uows: UowFactory, tenant_id: uuid.UUID, user_key: str, from_version: int, root: str | None
) -> tuple[Integrity, bool]:
    """One pass of the check, and whether the user was written to while it ran."""
    async with uows() as uow:
        repo = uow.tenant(tenant_id)
        row = await repo.passport(user_key)
        if row is None:
            raise NotFound(f"no user {user_key!r}")
        if not 0 <= from_version <= row.version:
            raise NotFound(
                f"user {user_key!r} has no version {from_version} (current: {row.version})"
            )
        state = await _start(repo, user_key, from_version)
        state.seek = root
    flaw: Flaw | None = None
    after = from_version - 1
    while flaw is None:
        async with uows() as uow:
            page = await _page(uow.tenant(tenant_id), user_key, after)
        if not page:
            break
        flaw = await asyncio.to_thread(_feed, state, page)
        after = page[-1][0].version
    async with uows() as uow:
        now = await uow.tenant(tenant_id).passport(user_key)
    if now is None:
        raise NotFound(f"no user {user_key!r}")
    # The passport is compared as of the newest version checked, so only when nothing was
    # written since; versions written while the check ran are left to the next check.
    if flaw is None and now.version == state.next - 1:
        flaw = await asyncio.to_thread(state.finish, now.version, now.root, now.doc)
    written = (now.version, now.log_epoch) != (row.version, row.log_epoch)
    reason = None if flaw is None else flaw.reason
    if reason is None and root is not None and state.sought_at is None:
        # A root kept elsewhere that no checked version has: this history is not the one kept.
        reason = f"the root {root} is none of the hashes of versions {from_version} on"
    found = Integrity(
        valid=reason is None,
        root=now.root,
        versions=state.versions,
        rows=state.rows,
        from_version=from_version,
        first_bad_version=None if flaw is None else flaw.version,
        reason=reason,
        root_version=state.sought_at,
    )
    return found, written


Page = list[tuple[StoredVersion, list[LoggedRow]]]


async def _start(repo: TenantRepository, user_key: str, version: int) -> ChainCheck:
    """The check's state before ``version``: genesis, or the version before's hash and head,
    and the older rows that versions from ``version`` on take out."""
    if version == 0:
        return ChainCheck(GENESIS, None)
    before = await repo.versions_numbered(user_key, [version - 1])
    prev = before[0].hash if before else GENESIS
    state = ChainCheck(prev, await passports.head_at(repo, user_key, version - 1), start=version)
    for removed_by, kind, item in await repo.rows_removed_across(user_key, version):
        state.expect_removal(removed_by, kind, item)
    return state


async def _page(repo: TenantRepository, user_key: str, after: int) -> Page:
    versions = await repo.versions_after(user_key, after, CHECK_PAGE)
    if not versions:
        return []
    low, high = versions[0].version, versions[-1].version
    added: dict[int, list[LoggedRow]] = {}
    for version, removed_by, kind, item in await repo.rows_added_between(user_key, low, high):
        added.setdefault(version, []).append((kind, item, removed_by))
    return [(_stored(v), added.get(v.version, [])) for v in versions]


def _stored(row: PassportVersion) -> StoredVersion:
    return StoredVersion(
        row.version, row.cause, row.hash, row.chain, row.redactions, row.delta, row.snapshot
    )


def _feed(state: ChainCheck, page: Page) -> Flaw | None:
    # One page checked at a time in this process: checks of several users take turns a page at
    # a time instead of holding every core (and the interpreter) at once.
    with _CHECKING:
        for stored, added in page:
            flaw = state.feed(stored, added)
            if flaw is not None:
                return flaw
    return None
