"""Hot-path reads: one statement on a pooled driver connection, with no session or transaction."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy.engine.interfaces import PoolProxiedConnection
from sqlalchemy.ext.asyncio import AsyncEngine

# asyncpg prepares a statement once per connection and caches it by its text.
_PASSPORT_VERSION = "SELECT version FROM passport WHERE tenant_id = $1 AND user_key = $2"


class HotReads:
    """Reads made on every warm request, where an ORM session costs more than the query."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def passport_version(self, tenant_id: uuid.UUID, user_key: str) -> int | None:
        """The user's current passport version (tenant-scoped), or None if there is no user."""
        pooled = await self._engine.raw_connection()
        driver: Any = pooled.driver_connection  # the asyncpg connection
        try:
            # No BEGIN/ROLLBACK: asyncpg runs a lone statement in its own implicit transaction.
            version: int | None = await driver.fetchval(_PASSPORT_VERSION, tenant_id, user_key)
        except BaseException as exc:
            self._discard(pooled, driver.is_closed(), exc)
            raise
        finally:
            pooled.close()
        return version

    def _discard(self, pooled: PoolProxiedConnection, closed: bool, exc: BaseException) -> None:
        # A failed or cancelled call may leave the protocol mid-way: the connection is never
        # reused. A closed one means the server went away, so, as SQLAlchemy does for its own
        # statements, every connection opened before now is replaced on its next checkout.
        if closed:
            self._engine.sync_engine.pool._invalidate(pooled, exc)
        else:
            pooled.invalidate(exc)
