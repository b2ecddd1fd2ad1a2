"""Unit of work: one session, an explicit commit, and jobs enqueued only after the commit."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import Protocol

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.repository import TenantRepository
from app.db.system import SystemRepository

log = logging.getLogger(__name__)

Enqueue = Callable[[uuid.UUID, uuid.UUID], Awaitable[None]]
# The session factory, named here so use cases can take one without importing SQLAlchemy.
Sessions = async_sessionmaker[AsyncSession]


class Uow(Protocol):
    """What a use case needs of a unit of work; a test may hand it an in-memory one."""

    async def __aenter__(self) -> Uow: ...

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...

    def tenant(self, tenant_id: uuid.UUID) -> TenantRepository:
        """The repository scoped to one tenant."""
        ...

    @property
    def system(self) -> SystemRepository:
        """The repository for cross-tenant queries."""
        ...

    def enqueue_after_commit(self, tenant_id: uuid.UUID, job_id: uuid.UUID) -> None:
        """Queue a job once the row that describes it is committed."""
        ...

    async def commit(self) -> None:
        """Commit, then enqueue what was queued."""
        ...


# Use cases take one of these and open a unit of work per transaction they need.
UowFactory = Callable[[], Uow]


class UnitOfWork:
    """Use as ``async with UnitOfWork(...) as uow: ...; await uow.commit()``."""

    def __init__(
        self, sessions: async_sessionmaker[AsyncSession], enqueue: Enqueue | None = None
    ) -> None:
        self._sessions = sessions
        self._enqueue = enqueue
        self._pending: list[tuple[uuid.UUID, uuid.UUID]] = []
        self._session: AsyncSession | None = None

    @property
    def session(self) -> AsyncSession:
        """The session, made on first use: a request that needs none does not pay for one."""
        if self._session is None:
            self._session = self._sessions()
        return self._session

    async def __aenter__(self) -> UnitOfWork:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        # close() rolls back anything not committed explicitly; unlike rollback() it leaves the
        # loaded objects readable (detached), which callers use after the unit of work ends.
        if self._session is not None:
            await self._session.close()

    def tenant(self, tenant_id: uuid.UUID) -> TenantRepository:
        """The repository scoped to one tenant."""
        return TenantRepository(self.session, tenant_id)

    @property
    def system(self) -> SystemRepository:
        """The repository for cross-tenant queries."""
        return SystemRepository(self.session)

    def enqueue_after_commit(self, tenant_id: uuid.UUID, job_id: uuid.UUID) -> None:
        """Queue a job once the row that describes it is committed."""
        self._pending.append((tenant_id, job_id))

    async def commit(self) -> None:
        """Commit, then enqueue; a failed enqueue is left to the sweeper, never lost."""
        await self.session.commit()
        pending, self._pending = self._pending, []
        if self._enqueue is None:
            return
        for tenant_id, job_id in pending:
            try:
                await self._enqueue(tenant_id, job_id)
            except Exception:
                log.warning("enqueue of job %s failed; the sweeper will retry it", job_id)


def uow_factory(sessions: Sessions, enqueue: Enqueue | None = None) -> UowFactory:
    """A factory of units of work on these sessions, enqueueing with ``enqueue`` after commit."""

    def make() -> Uow:
        return UnitOfWork(sessions, enqueue)

    return make
