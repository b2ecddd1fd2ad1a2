"""Ingestion routes: ingest, plan, jobs (retry), reprocess, compact, client facts, versions."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Depends, Header, Query, Response, status

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
from app.api.schemas.params import MAX_TIME_CURSOR, MAX_VERSION, MIN_TIME_CURSOR
from app.api.schemas.records import reply_of
from app.domain.ingest_input import IngestPayload
from app.services import compact, facts, ingest, reprocess, versions
from app.services.errors import Unprocessable
from app.services.views import JobView
from app.settings import Settings

router = APIRouter(responses={**COMMON, **NOT_FOUND})
Route = TypeVar("Route", bound=Callable[..., Any])

PageSize = Annotated[int, Query(ge=1, le=500, description="Most items on one page.")]
JobCursor = Annotated[
    int | None,
    Query(ge=MIN_TIME_CURSOR, le=MAX_TIME_CURSOR, description="next_cursor of the previous page"),
]
VersionCursor = Annotated[
    int | None, Query(ge=0, le=MAX_VERSION, description="next_cursor of the previous page")
]
Wait = Annotated[float, Query(ge=0, description="Seconds to wait for the job to finish (capped).")]
QUEUED = {
    status.HTTP_200_OK: {"model": JobOut, "description": "The job finished within ?wait."},
    **CONFLICT,
}


@dataclass(frozen=True)
class Queue:
    """What a route that queues a job needs: the tenant, its units of work, and how to answer."""

    tenant: uuid.UUID
    uows: UowsDep
    settings: Settings
    response: Response
    wait: float

    async def reply(self, job: JobView) -> JobOut:
        """The job as queued, or as it ended within ?wait: 202, or 200 once it ended; Location."""
        if self.wait > 0:
            seconds = min(self.wait, self.settings.ingest_wait_max_seconds)
            job = await ingest.wait_for_job(job, self.uows, self.tenant, seconds)
        out = job_out(job)
        self.response.headers["Location"] = out.status_url
        if job.finished:
            self.response.status_code = status.HTTP_200_OK
        return out


async def get_queue(
    tenant: TenantDep, uows: UowsDep, settings: SettingsDep, response: Response, wait: Wait = 0
) -> Queue:
    """The tenant's queue as a route that accepts a job sees it, with the ?wait it was given."""
    return Queue(tenant, uows, settings, response, wait)


QueueDep = Annotated[Queue, Depends(get_queue)]


def _queues(path: str, *, tag: str, name: str) -> Callable[[Route], Route]:
    """A POST route that queues a job: 202 with it, or 200 once it ended within ?wait."""
    return router.post(
        path, tags=[tag], name=name, status_code=status.HTTP_202_ACCEPTED, responses=QUEUED
    )


@router.post(
    "/users/{key}/ingest",
    tags=["ingest"],
    name="ingest",
    status_code=status.HTTP_202_ACCEPTED,
    responses={
        200: {"model": Accepted, "description": "The job finished within ?wait."},
        **CONFLICT,
    },
)
async def ingest_route(
    key: UserKey,
    payload: IngestPayload,
    queue: QueueDep,
    idempotency_key: Annotated[str | None, Header(max_length=256)] = None,
) -> Accepted:
    """Store the input durably and queue it; 202 with the job, or its end state with ?wait."""
    accepted = await ingest.accept(
        queue.uows, queue.tenant, key, payload, queue.settings, idempotency_key=idempotency_key
    )
    out = await queue.reply(accepted.job)
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
    limit: PageSize = 50,
    cursor: JobCursor = None,
) -> JobPage:
    """A user's jobs, newest first."""
    page = await ingest.list_jobs(uows, tenant, key, limit, cursor)
    return JobPage(items=[job_out(j) for j in page.items], next_cursor=page.next_cursor)


@_queues("/jobs/{job_id}/retry", tag="jobs", name="retry_job")
async def retry_job(job_id: uuid.UUID, queue: QueueDep) -> JobOut:
    """Run a failed job, or a done one with failed segments, again; 409 if it cannot be."""
    return await queue.reply(await ingest.retry_job(queue.uows, queue.tenant, job_id))


@_queues("/users/{key}/reprocess", tag="users", name="reprocess")
async def reprocess_route(key: UserKey, queue: QueueDep) -> JobOut:
    """Rebuild the passport from its stored transcripts with the current extractor."""
    return await queue.reply(await reprocess.accept(queue.uows, queue.tenant, key))


@_queues("/users/{key}/compact", tag="users", name="compact")
async def compact_route(key: UserKey, queue: QueueDep) -> JobOut:
    """Merge keys that mean the same thing, with one model pass over all keys (LLM only)."""
    return await queue.reply(await compact.accept(queue.uows, queue.tenant, key, queue.settings))


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
    return reply_of(FactsOut, result, user_key=key)


@router.get("/users/{key}/versions", tags=["users"], name="list_versions")
async def list_versions(
    *,
    limit: PageSize = 50,
    cursor: VersionCursor = None,
    key: UserKey,
    tenant: TenantDep,
    uows: UowsDep,
) -> VersionPage:
    """The passport's versions, newest first: when, why, and what changed."""
    page = await versions.list_versions(uows, tenant, key, limit, cursor)
    return VersionPage(items=[version_out(r) for r in page.items], next_cursor=page.next_cursor)
