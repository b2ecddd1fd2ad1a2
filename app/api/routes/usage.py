"""Usage: a tenant's jobs, model calls, tokens and cache hits over a period."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from app.api.bodies import BodyRoute
from app.api.deps import TenantDep, UowsDep
from app.api.problems import COMMON
from app.api.schemas.params import Day
from app.api.schemas.usage import DayOut, UsageCounts, UsageOut
from app.services import usage

router = APIRouter(route_class=BodyRoute, tags=["usage"], responses=COMMON)


@router.get("/usage", name="get_usage")
async def get_usage(
    tenant: TenantDep,
    uows: UowsDep,
    since: Annotated[
        Day | None,
        Query(
            description="First UTC day (YYYY-MM-DD); default 29 days before until. After until, "
            "the period is empty."
        ),
    ] = None,
    until: Annotated[
        Day | None, Query(description="Last UTC day, included (YYYY-MM-DD); default today.")
    ] = None,
) -> UsageOut:
    """This tenant's usage per UTC day and in total; the last 30 days by default."""
    report = await usage.usage(uows, tenant, since, until)
    return UsageOut(
        since=report.since,
        until=report.until,
        totals=UsageCounts(**report.totals),
        days=[DayOut(day=d.day, **d.counts) for d in report.days],
    )
