"""Readiness: whether the database answers."""

from __future__ import annotations

from app.db.uow import UowFactory


async def ping_database(uows: UowFactory) -> None:
    """One round trip to the database; raises when it does not answer."""
    async with uows() as uow:
        await uow.system.ping()
