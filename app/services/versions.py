"""Version history: listing the versions, and what one changed."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from app.db.uow import UowFactory
from app.domain.memory import delta
from app.domain.memory.log import SECTION_OF
from app.services import passports
from app.services.errors import NotFound
from app.services.paging import Listing, Page, page_of_user
from app.services.views import VersionView, version_view


async def list_versions(
    uows: UowFactory, tenant_id: uuid.UUID, user_key: str, limit: int, before: int | None
) -> Page[VersionView]:
    """A page of a user's versions, newest first, below an optional version cursor."""
    listing = Listing(
        lambda repo, n: repo.list_versions(user_key, n, before),
        version_view,
        lambda row: row.version,
    )
    return await page_of_user(uows, tenant_id, user_key, limit, listing)


@dataclass(frozen=True)
class VersionChanges:
    """One version, and the items it added and removed per section (``view.summary`` counts all)."""

    view: VersionView
    items: dict[str, dict[str, list[Any]]]


async def version_changes(
    uows: UowFactory, tenant_id: uuid.UUID, user_key: str, version: int, limit: int
) -> VersionChanges:
    """What one version changed, item by item: beliefs of the head and rows of the log.

    The head is rebuilt to the version before and moved on by this version's delta; the log
    rows are the ones the version row names. Each list holds at most ``limit`` items.
    """
    async with uows() as uow:
        repo = uow.tenant(tenant_id)
        current = await passports.require_user(repo, user_key)
        missing = NotFound(f"user {user_key!r} has no version {version} (current: {current})")
        if version > current:  # asked before any query: a version past the column never is
            raise missing
        found = await repo.list_versions(user_key, 1, version + 1)
        if not found or found[0].version != version:
            raise missing
        row = found[0]
        old = await passports.head_at(repo, user_key, version - 1) if version > 0 else {}
        new = row.snapshot if row.snapshot is not None else delta.apply(old, row.delta)
        added = await repo.rows_with_ids(user_key, (row.rows_added or [])[:limit])
        removed = await repo.rows_with_ids(user_key, (row.rows_removed or [])[:limit])
    items = delta.itemize(old, new, limit)
    for side, rows in (("added", added), ("removed", removed)):
        for stored in rows:
            change = items.setdefault(SECTION_OF[stored.kind], {"added": [], "removed": []})
            if len(change[side]) < limit:
                change[side].append(stored.item)
    return VersionChanges(version_view(row), items)
