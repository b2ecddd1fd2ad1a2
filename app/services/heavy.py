"""Heavy requests a tenant may have running at once in one API process.

An integrity check, a whole export, an import or a rebuilt old version reads or writes a user's
whole history: a few of them at once take the process's cores and connections from every other
tenant's reads. A request rate cannot see that (ten such calls are ten requests), so each tenant
gets a few slots for them per process; a heavy request past its tenant's slots is refused at once
(429, ``limit: tenant_heavy_requests``) and another tenant's requests do not wait behind them.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager

from app.services.errors import LimitExceeded

# How long a refused client waits before it tries again.
RETRY_SECONDS = 1


class HeavySlots:
    """Per tenant, how many heavy requests run now in this process, and how many may."""

    def __init__(self, per_tenant: int) -> None:
        self.per_tenant = per_tenant
        self._running: dict[uuid.UUID, int] = {}

    def running(self, tenant_id: uuid.UUID) -> int:
        """How many heavy requests of the tenant run now."""
        return self._running.get(tenant_id, 0)

    @contextmanager
    def taken(self, tenant_id: uuid.UUID) -> Iterator[None]:
        """Hold one of the tenant's slots while the block runs; LimitExceeded when none is free."""
        self.take(tenant_id)
        try:
            yield
        finally:
            self.give_back(tenant_id)

    def take(self, tenant_id: uuid.UUID) -> None:
        """Take one of the tenant's slots (``give_back`` returns it); LimitExceeded when none is
        free."""
        if self.per_tenant <= 0:
            return
        if self.running(tenant_id) >= self.per_tenant:
            raise LimitExceeded(
                f"this tenant already runs {self.per_tenant} heavy requests (integrity checks, "
                "exports, imports, old versions) on this server; retry when one has ended",
                limit="tenant_heavy_requests",
                retry_after=RETRY_SECONDS,
            )
        self._running[tenant_id] = self.running(tenant_id) + 1

    def give_back(self, tenant_id: uuid.UUID) -> None:
        """Return a slot ``take`` took."""
        if self.per_tenant <= 0:
            return
        left = self._running[tenant_id] - 1
        if left:
            self._running[tenant_id] = left
        else:
            del self._running[tenant_id]

    async def held_while(
        self, tenant_id: uuid.UUID, chunks: AsyncIterator[bytes]
    ) -> AsyncIterator[bytes]:
        """``chunks``, with a slot ``take`` took given back once they end (or stop early)."""
        try:
            async for chunk in chunks:
                yield chunk
        finally:
            self.give_back(tenant_id)
