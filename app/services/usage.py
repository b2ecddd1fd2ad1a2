"""A tenant's usage over a period: jobs, model calls, tokens and cache hits, per UTC day."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta

from app.db.uow import UowFactory
from app.db.usage import USAGE_FIELDS

DEFAULT_DAYS = 30


@dataclass(frozen=True)
class DayUsage:
    """One UTC day's sums."""

    day: date
    counts: dict[str, int]


@dataclass(frozen=True)
class UsageReport:
    """Sums over [since, until] (whole UTC days, both included) and the days that had any."""

    since: date
    until: date
    totals: dict[str, int]
    days: list[DayUsage] = field(default_factory=list)


def period(since: date | None, until: date | None, today: date) -> tuple[date, date]:
    """The days asked for; by default the last 30 days up to today (empty when since > until)."""
    end = until or today
    start = since or max(date.min, end - timedelta(days=DEFAULT_DAYS - 1))
    return start, end


def _day_end(day: date) -> datetime:
    """The instant after ``day`` ends (the newest datetime there is, for the last day)."""
    if day == date.max:
        return datetime.max.replace(tzinfo=UTC)
    return datetime.combine(day + timedelta(days=1), time(), UTC)


async def usage(
    uows: UowFactory, tenant_id: uuid.UUID, since: date | None, until: date | None
) -> UsageReport:
    """The tenant's usage summed over the period and per day."""
    start, end = period(since, until, datetime.now(UTC).date())
    if start > end:
        return UsageReport(since=start, until=end, totals=dict.fromkeys(USAGE_FIELDS, 0))
    async with uows() as uow:
        rows = await uow.tenant(tenant_id).usage_by_day(
            datetime.combine(start, time(), UTC), _day_end(end)
        )
    days = [
        DayUsage(row[0].astimezone(UTC).date(), dict(zip(USAGE_FIELDS, row[1:], strict=True)))
        for row in rows
    ]
    totals = {name: sum(d.counts[name] for d in days) for name in USAGE_FIELDS}
    return UsageReport(since=start, until=end, totals=totals, days=days)
