"""A tenant's usage by hour: what its jobs spent and its ingests sent, kept and summed."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.dialects.postgresql import Insert, insert

from app.db.models import TenantUsage
from app.db.scoped import ScopedRepository

USAGE_FIELDS = ("jobs", "calls", "input_tokens", "output_tokens", "cache_hits", "ingest_bytes")


class UsageRepository(ScopedRepository):
    """The tenant's usage rows, one per hour."""

    async def add_usage(self, hour: datetime, counts: dict[str, int]) -> None:
        """Add a job's counts to the tenant's row for this hour."""
        if any(counts.get(name, 0) for name in USAGE_FIELDS):
            await self.session.execute(self._added(hour, counts))

    def _added(self, hour: datetime, counts: dict[str, int]) -> Insert:
        """The upsert that adds ``counts`` to the tenant's row for ``hour``."""
        values = {name: int(counts.get(name, 0)) for name in USAGE_FIELDS}
        stmt = insert(TenantUsage).values(tenant_id=self.tenant_id, hour=hour, **values)
        return stmt.on_conflict_do_update(
            index_elements=["tenant_id", "hour"],
            set_={name: getattr(TenantUsage, name) + stmt.excluded[name] for name in values},
        )

    async def charge_ingest_bytes(self, hour: datetime, size: int, since: datetime) -> int:
        """Add ``size`` ingest bytes to this hour's usage; the bytes since ``since`` with them.

        One statement: this hour's row as the upsert left it, the other hours' as they were.
        """
        added = self._added(hour, {"ingest_bytes": size})
        charged = added.returning(TenantUsage.ingest_bytes).cte("charged")
        before = self._scoped(
            select(func.coalesce(func.sum(TenantUsage.ingest_bytes), 0)), TenantUsage
        ).where(TenantUsage.hour >= since, TenantUsage.hour != hour)
        result = await self.session.execute(
            select(charged.c.ingest_bytes + before.scalar_subquery())
        )
        return int(result.scalar_one())

    async def ingest_bytes_since(self, since: datetime) -> int:
        """Bytes of ingest bodies the tenant had accepted since ``since`` (an hour's start)."""
        result = await self.session.execute(
            self._scoped(select(func.sum(TenantUsage.ingest_bytes)), TenantUsage).where(
                TenantUsage.hour >= since
            )
        )
        return int(result.scalar_one() or 0)

    async def usage_by_day(self, since: datetime, until: datetime) -> Sequence[tuple[Any, ...]]:
        """Per UTC day in [since, until): the day, then each of ``USAGE_FIELDS`` summed."""
        day = func.date_trunc("day", TenantUsage.hour, "UTC")
        result = await self.session.execute(
            self._scoped(
                select(day, *(func.sum(getattr(TenantUsage, name)) for name in USAGE_FIELDS)),
                TenantUsage,
            )
            .where(TenantUsage.hour >= since, TenantUsage.hour < until)
            .group_by(day)
            .order_by(day)
        )
        return [(row[0], *(int(n or 0) for n in row[1:])) for row in result.all()]
