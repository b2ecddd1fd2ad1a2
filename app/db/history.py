"""A tenant's version history, its hash chain's reads, and its erasure receipts."""

from __future__ import annotations

import uuid
from collections.abc import Collection, Sequence
from typing import Any

from sqlalchemy import func, select, update

from app.db.models import (
    ErasureReceipt,
    ExtractionCache,
    IndexSegment,
    IngestJob,
    MemoryRow,
    PassportVersion,
)
from app.db.scoped import ScopedRepository


class HistoryRepository(ScopedRepository):
    """Versions (the chain), what they changed in the log, and receipts of what was forgotten."""

    async def add_version(self, row: PassportVersion) -> None:
        """Append a version row (tenant id forced to this repository's)."""
        row.tenant_id = self.tenant_id
        self.session.add(row)
        await self.session.flush()

    async def list_versions(
        self, user_key: str, limit: int, before: int | None
    ) -> Sequence[PassportVersion]:
        """Version rows newest first, below an optional cursor."""
        below = None if before is None else PassportVersion.version < before
        order = [PassportVersion.version.desc()]
        return await self._newest_first(PassportVersion, user_key, limit, order, below)

    async def version_hashes(self, user_key: str, versions: Collection[int]) -> dict[int, str]:
        """The hash (the root then) of each of these versions the user has."""
        if not versions:
            return {}
        result = await self.session.execute(
            self._scoped(select(PassportVersion.version, PassportVersion.hash), PassportVersion)
            .where(PassportVersion.user_key == user_key)
            .where(PassportVersion.version.in_(sorted(versions)))
        )
        return {int(v): str(h) for v, h in result.all()}

    async def versions_to_rebuild(self, user_key: str, version: int) -> Sequence[PassportVersion]:
        """The rows from the newest snapshot at or below version up to version, in order."""
        base = await self.session.execute(
            self._scoped(select(func.max(PassportVersion.version)), PassportVersion).where(
                PassportVersion.user_key == user_key,
                PassportVersion.version <= version,
                PassportVersion.snapshot.is_not(None),
            )
        )
        start = base.scalar_one_or_none()
        if start is None:
            return []
        result = await self.session.execute(
            self._scoped(select(PassportVersion), PassportVersion)
            .where(
                PassportVersion.user_key == user_key,
                PassportVersion.version >= start,
                PassportVersion.version <= version,
            )
            .order_by(PassportVersion.version)
        )
        return result.scalars().all()

    async def versions_from(self, user_key: str, version: int) -> Sequence[PassportVersion]:
        """Every version row from ``version`` on, in order (forgetting rewrites them)."""
        result = await self.session.execute(
            self._scoped(select(PassportVersion), PassportVersion)
            .where(PassportVersion.user_key == user_key, PassportVersion.version >= version)
            .order_by(PassportVersion.version)
        )
        return result.scalars().all()

    async def versions_after(
        self, user_key: str, after: int, limit: int
    ) -> Sequence[PassportVersion]:
        """Up to ``limit`` version rows after ``after``, in order (the integrity check's pages)."""
        result = await self.session.execute(
            self._scoped(select(PassportVersion), PassportVersion)
            .where(PassportVersion.user_key == user_key, PassportVersion.version > after)
            .order_by(PassportVersion.version)
            .limit(limit)
        )
        return result.scalars().all()

    async def versions_numbered(
        self, user_key: str, versions: Collection[int]
    ) -> Sequence[PassportVersion]:
        """The version rows with these numbers, in order."""
        if not versions:
            return []
        result = await self.session.execute(
            self._scoped(select(PassportVersion), PassportVersion)
            .where(
                PassportVersion.user_key == user_key,
                PassportVersion.version.in_(sorted(versions)),
            )
            .order_by(PassportVersion.version)
        )
        return result.scalars().all()

    async def rows_added_between(
        self, user_key: str, low: int, high: int
    ) -> list[tuple[int, int | None, str, dict[str, Any]]]:
        """(version added, version removed, kind, item) of the rows versions ``low``..``high``
        added, in log order (an index range)."""
        added = MemoryRow.version_added
        result = await self.session.execute(
            self._rows(user_key, added, MemoryRow.version_removed, MemoryRow.kind, MemoryRow.item)
            .where(added >= low, added <= high)
            .order_by(added, MemoryRow.id)
        )
        return [(int(r[0]), r[1], str(r[2]), r[3]) for r in result.all()]

    async def rows_removed_across(
        self, user_key: str, version: int
    ) -> list[tuple[int, str, dict[str, Any]]]:
        """(version removed, kind, item) of the rows added before ``version`` and removed at or
        after it (a tail check's start; it reads the user's older rows)."""
        removed = MemoryRow.version_removed
        result = await self.session.execute(
            self._rows(user_key, removed, MemoryRow.kind, MemoryRow.item).where(
                MemoryRow.version_added < version, removed >= version
            )
        )
        return [(int(r[0]), str(r[1]), r[2]) for r in result.all()]

    async def row_versions(
        self, user_key: str, ids: Collection[int]
    ) -> dict[int, tuple[int, int | None]]:
        """Row id -> (the version that added it, the one that removed it or None)."""
        if not ids:
            return {}
        result = await self.session.execute(
            self._rows(
                user_key, MemoryRow.id, MemoryRow.version_added, MemoryRow.version_removed
            ).where(MemoryRow.id.in_(sorted(ids)))
        )
        return {int(r[0]): (int(r[1]), r[2]) for r in result.all()}

    async def rewrite_version(self, user_key: str, version: int, **values: Any) -> None:
        """Replace columns of one version row (forgetting scrubs history)."""
        await self.session.execute(
            self._scoped(update(PassportVersion), PassportVersion)
            .where(PassportVersion.user_key == user_key, PassportVersion.version == version)
            .values(**values)
        )

    # -- erasure receipts --------------------------------------------------------------------

    async def add_receipt(self, row: ErasureReceipt) -> None:
        """Store a receipt (tenant id forced to this repository's)."""
        row.tenant_id = self.tenant_id
        self.session.add(row)
        await self.session.flush()

    async def receipt(self, user_key: str, receipt_id: uuid.UUID) -> ErasureReceipt | None:
        """One of a user's receipts (the user may be gone)."""
        return await self._one(
            ErasureReceipt, ErasureReceipt.user_key == user_key, ErasureReceipt.id == receipt_id
        )

    async def user_holdings(self, user_key: str) -> dict[str, int]:
        """How many rows of each kind a user's deletion removes (log, versions, jobs, cache)."""
        counts: dict[str, int] = {}
        for name, model in (
            ("log_rows", MemoryRow),
            ("versions", PassportVersion),
            ("jobs", IngestJob),
            ("extraction_cache", ExtractionCache),
            ("stored_index_segments", IndexSegment),
        ):
            result = await self.session.execute(
                self._scoped(select(func.count()).select_from(model), model).where(
                    model.user_key == user_key
                )
            )
            counts[name] = int(result.scalar_one())
        return counts
