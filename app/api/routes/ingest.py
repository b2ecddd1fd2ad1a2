"""Ingestion routes: ingest, plan, jobs (retry), reprocess, compact, client facts, versions."""

from __future__ import annotations

import uuid
from typing import Annotated

from fastapi import APIRouter, Header, Query, Response, status

from app.api.deps import SettingsDep, TenantDep, UowsDep, UserKey
from app.api.problems import COMMON, CONFLICT, NOT_FOUND
from app.api.schemas.jobs import (
    Accepted,
    FactsIn,
    FactsOut,
    JobOut,
    JobPage,
    PlanOut,
    VersionPage,
    job_out,
    version_out,
)
from app.domain.ingest_input import IngestPayload
from app.services import compact, facts, ingest, reprocess, versions
from app.services.errors import Unprocessable
from app.services.views import JobView
from app.settings import Settings

router = APIRouter(responses={**COMMON, **NOT_FOUND})

Wait = Annotated[float, Query(ge=0, description="Seconds to wait for the job to finish (capped).")]
QUEUED = {
    status.HTTP_200_OK: {"model": JobOut, "description": "The job finished within ?wait."},
    **CONFLICT,
}


async def _queued(
    job: JobView,
    wait: float,
    tenant: uuid.UUID,
    uows: UowsDep,
    settings: Settings,
    response: Response,
) -> JobOut:
    """The job as queued, or as it ended within ?wait: 202, or 200 once it ended; Location set."""
    if wait > 0:
        job = await ingest.wait_for_job(
            job, uows, tenant, min(wait, settings.ingest_wait_max_seconds)
        )
    out = job_out(job)
    response.headers["Location"] = out.status_url
    if job.finished:
        response.status_code = status.HTTP_200_OK
    return out


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
    uows: UowsDep,
    settings: SettingsDep,
    response: Response,
    idempotency_key: Annotated[str | None, Header(max_length=256)] = None,
    wait: Wait = 0,
) -> Accepted:
    """Store the input durably and queue it; 202 with the job, or its end state with ?wait."""
    accepted = await ingest.accept(
        uows, tenant, key, payload, settings, idempotency_key=idempotency_key
    )
    out = await _queued(accepted.job, wait, tenant, uows, settings, response)
    return Accepted(
        job_id=out.job_id,
        status=out.status,
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
async def get_job(job_id: uuid.UUID, tenant: TenantDep, uows: UowsDep) -> JobOut:
    """One ingest job: status, progress, usage, error, the version it produced."""
    return job_out(await ingest.get_job(uows, tenant, job_id))


@router.get("/users/{key}/jobs", tags=["jobs"], name="list_jobs")
async def list_jobs(
    key: UserKey,
    tenant: TenantDep,
    uows: UowsDep,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    cursor: Annotated[str | None, Query(max_length=64)] = None,
) -> JobPage:
    """A user's jobs, newest first."""
    before = versions.parse_time_cursor(cursor) if cursor else None
    jobs = await ingest.list_jobs(uows, tenant, key, limit + 1, before)
    items = [job_out(j) for j in jobs[:limit]]
    next_cursor = versions.time_cursor(jobs[limit - 1].created_at) if len(jobs) > limit else None
    return JobPage(items=items, next_cursor=next_cursor)


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
    uows: UowsDep,
    settings: SettingsDep,
    response: Response,
    wait: Wait = 0,
) -> JobOut:
    """Run a failed job, or a done one with failed segments, again; 409 if it cannot be."""
    job = await ingest.retry_job(uows, tenant, job_id)
    return await _queued(job, wait, tenant, uows, settings, response)


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
    uows: UowsDep,
    settings: SettingsDep,
    response: Response,
    wait: Wait = 0,
) -> JobOut:
    """Rebuild the passport from its stored transcripts with the current extractor."""
    job = await reprocess.accept(uows, tenant, key)
    return await _queued(job, wait, tenant, uows, settings, response)


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
    uows: UowsDep,
    settings: SettingsDep,
    response: Response,
    wait: Wait = 0,
) -> JobOut:
    """Merge keys that mean the same thing, with one model pass over all keys (LLM only)."""
    job = await compact.accept(uows, tenant, key, settings)
    return await _queued(job, wait, tenant, uows, settings, response)


@router.post("/users/{key}/facts", tags=["ingest"], name="write_facts")
async def write_facts(
    key: UserKey, body: FactsIn, tenant: TenantDep, uows: UowsDep, settings: SettingsDep
) -> FactsOut:
    """Merge facts and preferences the client already knows (same merge and versioning)."""
    if not body.facts and not body.prefs:
        raise Unprocessable("give at least one fact or preference")
    result = await facts.write_facts(
        uows, tenant, key, body.facts, body.prefs, snapshot_every=settings.version_snapshot_every
    )
    return FactsOut(
        user_key=key, version=result.version, changed=result.changed, summary=result.summary
    )


@router.get("/users/{key}/versions", tags=["users"], name="list_versions")
async def list_versions(
    key: UserKey,
    tenant: TenantDep,
    uows: UowsDep,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    cursor: Annotated[
        int | None, Query(ge=0, description="next_cursor of the previous page")
    ] = None,
) -> VersionPage:
    """The passport's versions, newest first: when, why, and what changed."""
    rows = await versions.list_versions(uows, tenant, key, limit + 1, cursor)
    items = [version_out(r) for r in rows[:limit]]
    next_cursor = str(rows[limit - 1].version) if len(rows) > limit else None
    return VersionPage(items=items, next_cursor=next_cursor)
