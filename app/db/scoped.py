"""The tenant filter, in one place: every repository of a tenant's data builds on it."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any, Protocol, Self, TypeVar

from sqlalchemy import ColumnElement, Select, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import (
    ErasureReceipt,
    ExtractionCache,
    IndexSegment,
    IngestJob,
    MemoryRow,
    PassportRow,
    PassportVersion,
    TenantUsage,
)

# The per-tenant tables: every one has a tenant_id column that starts its primary key.
TenantModel = (
    type[PassportRow]
    | type[MemoryRow]
    | type[PassportVersion]
    | type[IngestJob]
    | type[ExtractionCache]
    | type[TenantUsage]
    | type[ErasureReceipt]
    | type[IndexSegment]
)


class _Filterable(Protocol):
    def where(self, *whereclause: Any) -> Self: ...


Stmt = TypeVar("Stmt", bound=_Filterable)
# One row type of the per-tenant tables, and of those whose rows belong to one user.
Row = TypeVar(
    "Row", PassportRow, PassportVersion, IngestJob, ExtractionCache, TenantUsage, ErasureReceipt
)
UserRow = TypeVar("UserRow", PassportVersion, IngestJob)


class ScopedRepository:
    """The tenant filter, in one helper (``_scoped``), and the reads built on it."""

    def __init__(self, session: AsyncSession, tenant_id: uuid.UUID) -> None:
        self.session = session
        self.tenant_id = tenant_id

    def _scoped(self, stmt: Stmt, model: TenantModel) -> Stmt:
        """The one place a tenant filter is added to a SELECT, UPDATE or DELETE."""
        return stmt.where(model.tenant_id == self.tenant_id)

    async def _one(self, model: type[Row], *where: Any, lock: bool = False) -> Row | None:
        """The row of ``model`` that ``where`` picks, if any; with lock=True held FOR UPDATE."""
        stmt = self._scoped(select(model), model).where(*where)
        if lock:
            stmt = stmt.with_for_update()
        result = await self.session.execute(stmt)
        return result.scalar_one_or_none()

    async def _newest_first(
        self,
        model: type[UserRow],
        user_key: str,
        limit: int,
        order: Sequence[ColumnElement[Any]],
        below: ColumnElement[bool] | None,
    ) -> Sequence[UserRow]:
        """Up to ``limit`` of a user's rows in ``order``, only those ``below`` a cursor if given."""
        stmt = (
            self._scoped(select(model), model)
            .where(model.user_key == user_key)
            .order_by(*order)
            .limit(limit)
        )
        if below is not None:
            stmt = stmt.where(below)
        result = await self.session.execute(stmt)
        return result.scalars().all()

    def _rows(self, user_key: str, *columns: Any) -> Select[Any]:
        picked = columns or (
            MemoryRow.id,
            MemoryRow.kind,
            MemoryRow.item,
            MemoryRow.hash,
            MemoryRow.version_added,
        )
        return self._scoped(select(*picked), MemoryRow).where(MemoryRow.user_key == user_key)
