"""Wire schemas of ingest, jobs, client facts and versions."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from app.api.schemas.records import reply_of
from app.domain.ingest.segmentation import Plan
from app.domain.passport import Belief
from app.services.versions import VersionChanges
from app.services.views import JobView, VersionView


class PlanOut(BaseModel):
    """What processing a payload takes: segments and extraction calls."""

    interactions: int
    segments: int
    extraction_calls: int
    estimated_input_tokens: int
    mean_segment_tokens: float
    max_segment_tokens: int
    extractor: str = Field(description="The configured extractor: rules or provider:model.")
    model_calls: int = Field(
        description="Paid model calls at most (a repaired answer adds one; cached segments "
        "cost none): 0 with the rule extractor, else one per segment."
    )


class Progress(BaseModel):
    """Segments processed of the total."""

    done: int
    total: int


class Usage(BaseModel):
    """Model usage of a job, over all its runs."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_hits: int = Field(default=0, description="Segments answered from the cache, no call.")


class JobOut(BaseModel):
    """An ingest job and where it stands."""

    job_id: uuid.UUID
    user_key: str
    kind: str = Field(description="ingest, reprocess or compact")
    status: str = Field(description="queued, running, done or failed")
    progress: Progress
    usage: Usage
    error: str | None = Field(description="Why the job (or some of its segments) failed.")
    result: dict[str, Any] = Field(
        description="What the job changed (summary), which segments failed, the plan."
    )
    version_after: int | None = Field(description="The passport version this job produced.")
    attempts: int
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    status_url: str


class Accepted(BaseModel):
    """The ingest was stored and queued."""

    job_id: uuid.UUID
    status: str
    status_url: str
    plan: PlanOut
    job: JobOut


class JobPage(BaseModel):
    """A page of jobs, newest first."""

    items: list[JobOut]
    next_cursor: str | None


class FactsIn(BaseModel):
    """Facts and preferences the client already knows; merged without extraction."""

    model_config = ConfigDict(
        extra="forbid",
        # Declared as the route enforces it: at least one fact or one preference.
        json_schema_extra={
            "anyOf": [
                {"required": ["facts"], "properties": {"facts": {"minItems": 1}}},
                {"required": ["prefs"], "properties": {"prefs": {"minItems": 1}}},
            ]
        },
    )
    facts: list[Belief] = Field(default_factory=list, max_length=1000)
    prefs: list[Belief] = Field(default_factory=list, max_length=1000)


class FactsOut(BaseModel):
    """The version after the write and what changed."""

    user_key: str
    version: int
    changed: bool
    summary: dict[str, int]


class VersionOut(BaseModel):
    """One version of a passport."""

    version: int
    created_at: datetime
    cause: str = Field(description="create, import, ingest, facts, reprocess, compact or forget")
    job_id: uuid.UUID | None
    changes: dict[str, Any] = Field(description="Items added/removed per section.")
    hash: str = Field(
        description="This version's hash in the user's chain (the newest one is the root)."
    )


class SectionChange(BaseModel):
    """The items of one section that a version added and removed."""

    added: list[Any] = Field(description="Items the version added, in document order.")
    removed: list[Any] = Field(description="Items the version took out.")


class VersionChangesOut(VersionOut):
    """One version and what it changed, item by item (an edited item: one removed, one added)."""

    items: dict[str, SectionChange] = Field(
        description="Per section, the items added and removed (at most ``limit`` of each; "
        "``changes`` counts them all). Forgotten turns and what came of them are not shown."
    )


class VersionPage(BaseModel):
    """A page of versions, newest first."""

    items: list[VersionOut]
    next_cursor: str | None


def job_out(job: JobView) -> JobOut:
    """The reply for a job."""
    return reply_of(
        JobOut,
        job,
        job_id=job.id,
        progress=Progress(done=job.progress_done, total=job.progress_total),
        usage=Usage(**{k: int(v) for k, v in job.usage.items() if k in Usage.model_fields}),
        status_url=f"/jobs/{job.id}",
    )


def accepted_out(job: JobOut, plan: Plan) -> Accepted:
    """The reply for an accepted ingest: the job as it stands, and the plan it was given."""
    return Accepted(
        job_id=job.job_id,
        status=job.status,
        status_url=job.status_url,
        plan=PlanOut(**plan.to_dict()),
        job=job,
    )


def version_out(row: VersionView) -> VersionOut:
    """The reply for one version."""
    return reply_of(VersionOut, row, changes=row.summary)


def version_changes_out(found: VersionChanges) -> VersionChangesOut:
    """The reply for one version with the items it changed."""
    items = {section: SectionChange(**change) for section, change in found.items.items()}
    return reply_of(VersionChangesOut, found.view, changes=found.view.summary, items=items)
