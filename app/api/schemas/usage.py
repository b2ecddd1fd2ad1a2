"""Wire schemas of the usage route."""

from __future__ import annotations

from datetime import date

from pydantic import BaseModel, Field


class UsageCounts(BaseModel):
    """What was spent."""

    jobs: int = Field(description="Job runs that finished (done or failed).")
    calls: int = Field(description="Model calls, repairs included.")
    input_tokens: int
    output_tokens: int
    cache_hits: int = Field(description="Segments answered from the extraction cache.")
    ingest_bytes: int = Field(
        description="Bytes of ingest bodies accepted (counted against TESSERA_TENANT_INGEST_BYTES"
        "_PER_DAY)."
    )


class DayOut(UsageCounts):
    """One UTC day."""

    day: date


class UsageOut(BaseModel):
    """Sums over the period and one row per UTC day that had any usage."""

    since: date
    until: date
    totals: UsageCounts
    days: list[DayOut]
