"""A user's conversations as an agent reads them back: a session's newest turns, the sessions."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select

from app.db.models import MemoryRow
from app.db.scoped import ScopedRepository
from app.domain.memory.log import StoredRow


@dataclass(frozen=True)
class SessionInfo:
    """One session of a user: its name, its live turns, its newest row and time."""

    name: str
    turns: int
    last_row: int
    last_ts: datetime | None


class ConversationRepository(ScopedRepository):
    """Reads of live turns by session, each scoped to the tenant by ``_rows``/``_scoped``."""

    async def recent_turns(
        self, user_key: str, session: str | None, before: int | None, limit: int
    ) -> list[StoredRow]:
        """Up to ``limit`` live turns (of ``session`` if given), newest first, below a row id."""
        stmt = (
            self._rows(user_key)
            .where(MemoryRow.kind == "turn", MemoryRow.version_removed.is_(None))
            .order_by(MemoryRow.id.desc())
            .limit(limit)
        )
        if session is not None:
            stmt = stmt.where(MemoryRow.session == session)
        if before is not None:
            stmt = stmt.where(MemoryRow.id < before)
        result = await self.session.execute(stmt)
        return [StoredRow(r.id, r.kind, r.item, r.hash, r.version_added) for r in result.all()]

    async def sessions(
        self, user_key: str, prefix: str | None, before: int | None, limit: int
    ) -> list[SessionInfo]:
        """Up to ``limit`` sessions with live turns (named from ``prefix``), the one spoken in
        last first, below a cursor (the newest row of the last session of the page before)."""
        last = func.max(MemoryRow.id)
        stmt = (
            self._scoped(
                select(MemoryRow.session, func.count(), last, func.max(MemoryRow.ts)), MemoryRow
            )
            .where(
                MemoryRow.user_key == user_key,
                MemoryRow.kind == "turn",
                MemoryRow.version_removed.is_(None),
                MemoryRow.session.is_not(None),
            )
            .group_by(MemoryRow.session)
            .order_by(last.desc())
            .limit(limit)
        )
        if prefix:
            stmt = stmt.where(MemoryRow.session.startswith(prefix, autoescape=True))
        if before is not None:
            stmt = stmt.having(last < before)
        result = await self.session.execute(stmt)
        return [SessionInfo(str(name), int(n), int(row), ts) for name, n, row, ts in result.all()]
