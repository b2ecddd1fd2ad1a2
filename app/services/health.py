"""Readiness: whether the database and Redis answer."""

from __future__ import annotations

from arq.connections import ArqRedis

from app.db.uow import UowFactory


async def ping_database(uows: UowFactory) -> None:
    """One round trip to the database; raises when it does not answer."""
    async with uows() as uow:
        await uow.system.ping()


async def ping_redis(redis: ArqRedis | None) -> None:
    """One round trip to Redis; raises when it does not answer (or this process has none)."""
    if redis is None:
        raise ConnectionError("no Redis configured for this process")
    await redis.ping()
