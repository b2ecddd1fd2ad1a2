"""Reading: the budgeted context and search, over a passport index cached per version."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass
from typing import Any

from app.db.repository import PassportStamp
from app.db.uow import UowFactory
from app.domain.context import Context, ContextIndex, ScoredMemory, build_context, parse_when
from app.domain.ids import sha256_hex
from app.domain.passport import Passport
from app.services import passports
from app.services.cache import VersionedLRU
from app.services.errors import NotFound, Unprocessable

IndexCache = VersionedLRU[ContextIndex]


@dataclass(frozen=True)
class Window:
    """Optional date limits of a read, as given and as epoch seconds."""

    since: float | None = None
    until: float | None = None

    @classmethod
    def parse(cls, since: str | None, until: str | None) -> Window:
        """Parse ISO dates (or datetimes, or YYYY-MM, YYYY); a bad date is Unprocessable."""
        return cls(_bound(since, "since", start=True), _bound(until, "until", start=False))


def _bound(value: str | None, name: str, *, start: bool) -> float | None:
    if value is None or value == "":
        return None
    when = parse_when(value)
    if when is None:
        raise Unprocessable(f"{name}: {value!r} is not a date (use e.g. 2023-05-08)")
    if start:
        return when.epoch
    # An "until" names a whole period: until=2023-05 includes all of May.
    return _period_end(when.year, when.month, when.label, when.epoch)


def _period_end(year: int, month: int, label: str, epoch: float) -> float:
    from datetime import UTC, datetime, timedelta

    try:
        if len(label) == 4:  # a year
            return datetime(year + 1, 1, 1, tzinfo=UTC).timestamp() - 1
        if len(label) == 7:  # a month
            nxt = datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=UTC)
            return nxt.timestamp() - 1
    except ValueError:  # the period ends with the last year a datetime holds
        return datetime.max.replace(tzinfo=UTC).timestamp()
    if len(label) == 10:  # a day
        return epoch + timedelta(days=1).total_seconds() - 1
    return epoch


async def current_stamp(uows: UowFactory, tenant_id: uuid.UUID, user_key: str) -> PassportStamp:
    """The user's current passport stamp (one small query), or NotFound."""
    return await passports.fresh_stamp(uows, tenant_id, user_key)


async def index_for(
    uows: UowFactory, cache: IndexCache, tenant_id: uuid.UUID, user_key: str
) -> tuple[ContextIndex, PassportStamp]:
    """The user's index as it is now: one small query when warm, NotFound if no user."""
    stamp = await current_stamp(uows, tenant_id, user_key)
    return await index_at(uows, cache, tenant_id, user_key, stamp)


async def index_at(
    uows: UowFactory,
    cache: IndexCache,
    tenant_id: uuid.UUID,
    user_key: str,
    stamp: PassportStamp,
) -> tuple[ContextIndex, PassportStamp]:
    """The index at a stamp just read; on a miss, built from the row (maybe a newer one)."""
    index = cache.get(tenant_id, user_key, stamp)
    if index is not None:
        return index, stamp
    key = (tenant_id, user_key, stamp)
    pending = _building.get(key)
    if pending is None:
        # One build per (tenant, user, stamp), however many reads miss at once.
        pending = asyncio.ensure_future(_build(uows, cache, tenant_id, user_key))
        _building[key] = pending
        pending.add_done_callback(lambda _: _building.pop(key, None))
    return await asyncio.shield(pending)


_building: dict[
    tuple[uuid.UUID, str, PassportStamp], asyncio.Future[tuple[ContextIndex, PassportStamp]]
] = {}


async def _build(
    uows: UowFactory, cache: IndexCache, tenant_id: uuid.UUID, user_key: str
) -> tuple[ContextIndex, PassportStamp]:
    # Its own unit of work: the build is shared by every waiting request and outlives any one.
    async with uows() as uow:
        row = await uow.tenant(tenant_id).passport(user_key)
    if row is None:
        raise NotFound(f"no user {user_key!r}")
    stamp = PassportStamp(row.version, row.created_at)
    # Parsing and indexing a large passport takes a while: off the event loop, so other
    # requests are served meanwhile.
    index = await asyncio.to_thread(_index_of, row.doc)
    cache.put(tenant_id, user_key, stamp, index, index.approx_bytes())
    return index, stamp


def _index_of(doc: dict[str, Any]) -> ContextIndex:
    return ContextIndex.from_passport(Passport.from_dict(doc))


def context_etag(stamp: PassportStamp, params: tuple[object, ...]) -> str:
    """An ETag for a context read: the passport's version and creation, and the parameters."""
    # The creation time goes into the hash: a re-created user's version 3 is another text.
    # repr of a tuple of str, int and None is unambiguous, and cheaper than canonical JSON.
    salted = repr((*params, stamp.created_at.isoformat()))
    return f'"{stamp.version}-{sha256_hex(salted)[:16]}"'


def render(index: ContextIndex, q: str | None, budget_chars: int, window: Window) -> Context:
    """The budgeted context for a query (pure; the index is already loaded)."""
    return build_context(index, q or None, budget_chars, since=window.since, until=window.until)


def search_memories(index: ContextIndex, q: str, limit: int, window: Window) -> list[ScoredMemory]:
    """Ranked observations and episodes for a query."""
    from app.domain.context import search

    return search(index, q, limit, since=window.since, until=window.until)
