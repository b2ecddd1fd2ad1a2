"""Paginated listings of a user's rows (versions, jobs), and the cursors that page them."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Generic, TypeVar

from app.db.repository import TenantRepository
from app.db.uow import UowFactory
from app.services import passports

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
Row = TypeVar("Row")
Record = TypeVar("Record")


@dataclass(frozen=True)
class Page(Generic[Record]):
    """One page of a listing, and the cursor of the next page (None on the last)."""

    items: list[Record]
    next_cursor: str | None


@dataclass(frozen=True)
class Listing(Generic[Row, Record]):
    """How a listing reads its rows (``read(repo, n)``), shows one, and names its cursor."""

    read: Callable[[TenantRepository, int], Awaitable[Sequence[Row]]]
    record: Callable[[Row], Record]
    cursor: Callable[[Row], int]


async def page_of_user(
    uows: UowFactory,
    tenant_id: uuid.UUID,
    user_key: str,
    limit: int,
    listing: Listing[Row, Record],
) -> Page[Record]:
    """Up to ``limit`` of what ``listing`` reads for a known user; NotFound for an unknown one."""
    # One row more than the page says whether a next page exists, without counting.
    rows = await passports.read_of_user(
        uows, tenant_id, user_key, lambda repo: listing.read(repo, limit + 1)
    )
    last = str(listing.cursor(rows[limit - 1])) if len(rows) > limit else None
    return Page([listing.record(row) for row in rows[:limit]], last)


def time_cursor(when: datetime) -> int:
    """A page cursor for a timestamp: whole microseconds since the Unix epoch."""
    return (when - EPOCH) // timedelta(microseconds=1)


def cursor_time(cursor: int) -> datetime:
    """The timestamp a cursor names (the spec bounds it to the years a datetime holds)."""
    return EPOCH + timedelta(microseconds=cursor)
