"""Integrity: recompute a user's hash chain from the stored rows."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass
from typing import Any

from app.db.models import PassportVersion
from app.db.repository import TenantRepository
from app.db.uow import UowFactory
from app.domain.integrity.canonical import GENESIS
from app.domain.integrity.check import ChainCheck, Flaw, StoredVersion
from app.services import passports
from app.services.errors import NotFound

# Versions read per unit of work: the check holds one page of versions and their rows at a time.
CHECK_PAGE = 200


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


async def check(
    uows: UowFactory,
    tenant_id: uuid.UUID,
    user_key: str,
    from_version: int = 0,
    root: str | None = None,
) -> Integrity:
    """Recompute the chain from ``from_version`` (its predecessor's hash trusted) to the newest;
    with ``root`` (one kept elsewhere), also which checked version has that hash.

    Each page of versions is read with the rows they added and removed in a short unit of work
    of its own and checked in a worker thread; nothing else of the history is held.
    """
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
    if flaw is None:
        async with uows() as uow:
            now = await uow.tenant(tenant_id).passport(user_key)
        if now is None:
            raise NotFound(f"no user {user_key!r}")
        # Versions written while the check ran are not checked: the passport is read as of the
        # newest version checked only when nothing was written since.
        if now.version == state.next - 1:
            flaw = await asyncio.to_thread(state.finish, now.version, now.root, now.doc)
        root = now.root
    else:
        root = row.root
    return Integrity(
        valid=flaw is None,
        root=root,
        versions=state.versions,
        rows=state.rows,
        from_version=from_version,
        first_bad_version=None if flaw is None else flaw.version,
        reason=None if flaw is None else flaw.reason,
        root_version=state.sought_at,
    )


Page = list[tuple[StoredVersion, list[tuple[str, Any]], list[tuple[str, Any]]]]


async def _start(repo: TenantRepository, user_key: str, version: int) -> ChainCheck:
    """The check's state before ``version``: genesis, or the version before's hash and head."""
    if version == 0:
        return ChainCheck(GENESIS, None)
    before = await repo.versions_numbered(user_key, [version - 1])
    prev = before[0].hash if before else GENESIS
    return ChainCheck(prev, await passports.head_at(repo, user_key, version - 1), start=version)


async def _page(repo: TenantRepository, user_key: str, after: int) -> Page:
    versions = await repo.versions_after(user_key, after, CHECK_PAGE)
    if not versions:
        return []
    low, high = versions[0].version, versions[-1].version
    added: dict[int, list[tuple[str, Any]]] = {}
    removed: dict[int, list[tuple[str, Any]]] = {}
    for into, is_removed in ((added, False), (removed, True)):
        for version, kind, item in await repo.rows_changed_by(
            user_key, low, high, removed=is_removed
        ):
            into.setdefault(version, []).append((kind, item))
    return [(_stored(v), added.get(v.version, []), removed.get(v.version, [])) for v in versions]


def _stored(row: PassportVersion) -> StoredVersion:
    return StoredVersion(
        row.version, row.cause, row.hash, row.chain, row.redactions, row.delta, row.snapshot
    )


def _feed(state: ChainCheck, page: Page) -> Flaw | None:
    for stored, added, removed in page:
        flaw = state.feed(stored, added, removed)
        if flaw is not None:
            return flaw
    return None
