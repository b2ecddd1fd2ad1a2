"""Usage: a tenant's jobs, model calls, tokens and cache hits over a period."""

from __future__ import annotations

from datetime import date
from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from app.api.deps import TenantDep, UowDep
from app.api.problems import COMMON
from app.services import usage

router = APIRouter(tags=["usage"], responses=COMMON)


class UsageCounts(BaseModel):
    """What was spent."""

    jobs: int = Field(description="Job runs that finished (done or failed).")
    calls: int = Field(description="Model calls, repairs included.")
    input_tokens: int
    output_tokens: int
    cache_hits: int = Field(description="Segments answered from the extraction cache.")


class DayOut(UsageCounts):
    """One UTC day."""

    day: date


class UsageOut(BaseModel):
    """Sums over the period and one row per UTC day that had any usage."""

    since: date
    until: date
    totals: UsageCounts
    days: list[DayOut]


@router.get("/usage", name="get_usage")
async def get_usage(
    tenant: TenantDep,
    uow: UowDep,
    since: Annotated[
        date | None, Query(description="First UTC day (YYYY-MM-DD); default 29 days before until.")
    ] = None,
    until: Annotated[
        date | None, Query(description="Last UTC day, included (YYYY-MM-DD); default today.")
    ] = None,
) -> UsageOut:
    """This tenant's usage per UTC day and in total; the last 30 days by default."""
    report = await usage.usage(uow, tenant, since, until)
    return UsageOut(
        since=report.since,
        until=report.until,
        totals=UsageCounts(**report.totals),
        days=[DayOut(day=d.day, **d.counts) for d in report.days],
    )
