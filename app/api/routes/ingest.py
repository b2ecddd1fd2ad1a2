"""Ingestion routes: ingest, plan, jobs (retry), reprocess, compact, client facts, versions."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Header, Query, Request, Response, status
from pydantic import BaseModel, Field

from app.api.deps import SettingsDep, TenantDep, UowDep, UserKey
from app.api.problems import COMMON, CONFLICT, NOT_FOUND
from app.db.models import IngestJob
from app.domain.ingest_input import IngestPayload
from app.domain.passport import Belief
from app.services import compact, facts, ingest, reprocess, versions

router = APIRouter(responses={**COMMON, **NOT_FOUND})


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

    model_config = {"extra": "forbid"}
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
    cause: str = Field(description="create, import, ingest, facts, reprocess or compact")
    job_id: uuid.UUID | None
    changes: dict[str, Any] = Field(description="Items added/removed per section.")


class VersionPage(BaseModel):
    """A page of versions, newest first."""

    items: list[VersionOut]
    next_cursor: str | None


def _job_out(job: IngestJob, request: Request) -> JobOut:
    return JobOut(
        job_id=job.id,
        user_key=job.user_key,
        kind=job.kind,
        status=job.status,
        progress=Progress(done=job.progress_done, total=job.progress_total),
        usage=Usage(**{k: int(v) for k, v in (job.usage or {}).items() if k in Usage.model_fields}),
        error=job.error,
        result=job.result or {},
        version_after=job.version_after,
        attempts=job.attempts,
        created_at=job.created_at,
        started_at=job.started_at,
        finished_at=job.finished_at,
        status_url=f"/jobs/{job.id}",
    )


@router.post(
    "/users/{key}/ingest",
    tags=["ingest"],
    name="ingest",
    status_code=status.HTTP_202_ACCEPTED,
    responses={200: {"model": Accepted, "description": "The job finished within ?wait."}},
)
async def ingest_route(
    key: UserKey,
    payload: IngestPayload,
    tenant: TenantDep,
    uow: UowDep,
    settings: SettingsDep,
    request: Request,
    response: Response,
    idempotency_key: Annotated[str | None, Header(max_length=256)] = None,
    wait: Annotated[
        float, Query(ge=0, description="Seconds to wait for the job to finish (capped).")
    ] = 0,
) -> Accepted:
    """Store the input durably and queue it; 202 with the job, or its end state with ?wait."""
    accepted = await ingest.accept(
        uow, tenant, key, payload, settings, idempotency_key=idempotency_key
    )
    job = accepted.job
    if wait > 0:
        job = await ingest.wait_for_job(
            request.app.state.sessions, tenant, job.id, min(wait, settings.ingest_wait_max_seconds)
        )
    out = _job_out(job, request)
    response.headers["Location"] = out.status_url
    if job.status in ("done", "failed"):
        response.status_code = status.HTTP_200_OK
    return Accepted(
        job_id=job.id,
        status=job.status,
        status_url=out.status_url,
        plan=PlanOut(**accepted.plan.to_dict()),
        job=out,
    )


@router.post("/users/{key}/plan", tags=["ingest"], name="plan")
async def plan_route(
    key: UserKey, payload: IngestPayload, settings: SettingsDep, tenant: TenantDep
) -> PlanOut:
    """What ingesting this payload would take; nothing is stored or called."""
    return PlanOut(**ingest.plan(payload, settings).to_dict())


@router.get("/jobs/{job_id}", tags=["jobs"], name="get_job")
async def get_job(job_id: uuid.UUID, tenant: TenantDep, uow: UowDep, request: Request) -> JobOut:
    """One ingest job: status, progress, usage, error, the version it produced."""
    return _job_out(await ingest.get_job(uow, tenant, job_id), request)


@router.get("/users/{key}/jobs", tags=["jobs"], name="list_jobs")
async def list_jobs(
    key: UserKey,
    tenant: TenantDep,
    uow: UowDep,
    request: Request,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    cursor: Annotated[str | None, Query(max_length=64)] = None,
) -> JobPage:
    """A user's jobs, newest first."""
    before = versions.parse_time_cursor(cursor) if cursor else None
    jobs = await ingest.list_jobs(uow, tenant, key, limit + 1, before)
    items = [_job_out(j, request) for j in jobs[:limit]]
    next_cursor = versions.time_cursor(jobs[limit - 1].created_at) if len(jobs) > limit else None
    return JobPage(items=items, next_cursor=next_cursor)


Wait = Annotated[float, Query(ge=0, description="Seconds to wait for the job to finish (capped).")]
QUEUED = {
    status.HTTP_200_OK: {"model": JobOut, "description": "The job finished within ?wait."},
    **CONFLICT,
}


async def _queued(
    job: IngestJob,
    wait: float,
    tenant: uuid.UUID,
    settings: SettingsDep,
    request: Request,
    response: Response,
) -> JobOut:
    """The job as queued, or as it ended within ?wait; 202 or 200, Location set."""
    if wait > 0:
        job = await ingest.wait_for_job(
            request.app.state.sessions, tenant, job.id, min(wait, settings.ingest_wait_max_seconds)
        )
    out = _job_out(job, request)
    response.headers["Location"] = out.status_url
    if job.status in ("done", "failed"):
        response.status_code = status.HTTP_200_OK
    return out


@router.post(
    "/jobs/{job_id}/retry",
    tags=["jobs"],
    name="retry_job",
    status_code=status.HTTP_202_ACCEPTED,
    responses=QUEUED,
)
async def retry_job(
    job_id: uuid.UUID,
    tenant: TenantDep,
    uow: UowDep,
    settings: SettingsDep,
    request: Request,
    response: Response,
    wait: Wait = 0,
) -> JobOut:
    """Run a failed job, or a done one with failed segments, again; 409 if it cannot be."""
    job = await ingest.retry_job(uow, tenant, job_id)
    return await _queued(job, wait, tenant, settings, request, response)


@router.post(
    "/users/{key}/reprocess",
    tags=["users"],
    name="reprocess",
    status_code=status.HTTP_202_ACCEPTED,
    responses=QUEUED,
)
async def reprocess_route(
    key: UserKey,
    tenant: TenantDep,
    uow: UowDep,
    settings: SettingsDep,
    request: Request,
    response: Response,
    wait: Wait = 0,
) -> JobOut:
    """Rebuild the passport from its stored transcripts with the current extractor."""
    job = await reprocess.accept(uow, tenant, key)
    return await _queued(job, wait, tenant, settings, request, response)


@router.post(
    "/users/{key}/compact",
    tags=["users"],
    name="compact",
    status_code=status.HTTP_202_ACCEPTED,
    responses=QUEUED,
)
async def compact_route(
    key: UserKey,
    tenant: TenantDep,
    uow: UowDep,
    settings: SettingsDep,
    request: Request,
    response: Response,
    wait: Wait = 0,
) -> JobOut:
    """Merge keys that mean the same thing, with one model pass over all keys (LLM only)."""
    job = await compact.accept(uow, tenant, key, settings)
    return await _queued(job, wait, tenant, settings, request, response)


@router.post("/users/{key}/facts", tags=["ingest"], name="write_facts")
async def write_facts(
    key: UserKey, body: FactsIn, tenant: TenantDep, uow: UowDep, settings: SettingsDep
) -> FactsOut:
    """Merge facts and preferences the client already knows (same merge and versioning)."""
    if not body.facts and not body.prefs:
        from app.services.errors import Unprocessable

        raise Unprocessable("give at least one fact or preference")
    result = await facts.write_facts(
        uow, tenant, key, body.facts, body.prefs, snapshot_every=settings.version_snapshot_every
    )
    return FactsOut(
        user_key=key, version=result.version, changed=result.changed, summary=result.summary
    )


@router.get("/users/{key}/versions", tags=["users"], name="list_versions")
async def list_versions(
    key: UserKey,
    tenant: TenantDep,
    uow: UowDep,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    cursor: Annotated[
        int | None, Query(ge=0, description="next_cursor of the previous page")
    ] = None,
) -> VersionPage:
    """The passport's versions, newest first: when, why, and what changed."""
    rows = await versions.list_versions(uow, tenant, key, limit + 1, cursor)
    items = [
        VersionOut(
            version=r.version,
            created_at=r.created_at,
            cause=r.cause,
            job_id=r.job_id,
            changes=r.summary or {},
        )
        for r in rows[:limit]
    ]
    next_cursor = str(rows[limit - 1].version) if len(rows) > limit else None
    return VersionPage(items=items, next_cursor=next_cursor)
