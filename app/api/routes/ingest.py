"""Ingestion routes: ingest, plan, jobs (retry), reprocess, compact, client facts, versions."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Header, Path, Query, status

from app.api.bodies import BodyRoute
from app.api.deps import (
    Accepting,
    AcceptingDep,
    ActorDep,
    HeavyDep,
    RuntimeDep,
    SettingsDep,
    TenantDep,
    UowsDep,
    UserKey,
    Wait,
)
from app.api.problems import COMMON, CONFLICT, NOT_FOUND
from app.api.schemas.jobs import (
    Accepted,
    FactsIn,
    FactsOut,
    JobOut,
    JobPage,
    PlanOut,
    VersionChangesOut,
    VersionPage,
    accepted_out,
    job_out,
    version_changes_out,
    version_out,
)
from app.api.schemas.params import MAX_TIME_CURSOR, MAX_VERSION, MIN_TIME_CURSOR
from app.api.schemas.records import page_of, reply_of
from app.domain.extraction import Extraction
from app.domain.ingest.imports import MemoryImport
from app.domain.ingest.payload import IngestPayload
from app.services import compact, facts, ingest, jobs, reprocess, versions
from app.services.errors import Unprocessable
from app.services.origin import Origin

router = APIRouter(route_class=BodyRoute, responses={**COMMON, **NOT_FOUND})
Route = TypeVar("Route", bound=Callable[..., Any])

PageSize = Annotated[int, Query(ge=1, le=500, description="Most items on one page.")]
JobCursor = Annotated[
    int | None,
    Query(ge=MIN_TIME_CURSOR, le=MAX_TIME_CURSOR, description="next_cursor of the previous page"),
]
VersionCursor = Annotated[
    int | None, Query(ge=0, le=MAX_VERSION, description="next_cursor of the previous page")
]
QUEUED = {
    status.HTTP_200_OK: {"model": JobOut, "description": "The job finished within ?wait."},
    **CONFLICT,
}


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
    accepting: AcceptingDep,
    idempotency_key: Annotated[str | None, Header(max_length=256)] = None,
) -> Accepted:
    """Store the input durably and queue it; 202 with the job, or its end state with ?wait."""
    return await _queued(accepting, ingest.accept, key, payload, idempotency_key)


async def _queued(
    accepting: Accepting,
    accept: Callable[..., Awaitable[ingest.Accepted]],
    key: str,
    body: Any,
    idempotency_key: str | None,
) -> Accepted:
    """``accept`` the body for the key's tenant, as the key asked; the reply for ?wait."""
    origin = Origin(accepting.actor, idempotency_key)
    accepted = await accept(accepting.uows, accepting.tenant, key, body, accepting.settings, origin)
    return accepted_out(await accepting.answer(accepted.job), accepted.plan)


@router.post(
    "/users/{key}/import",
    tags=["ingest"],
    name="import_memories",
    status_code=status.HTTP_202_ACCEPTED,
    responses={
        200: {"model": Accepted, "description": "The job finished within ?wait."},
        **CONFLICT,
    },
)
async def import_route(
    key: UserKey,
    body: MemoryImport,
    accepting: AcceptingDep,
    idempotency_key: Annotated[str | None, Header(max_length=256)] = None,
) -> Accepted:
    """Another memory service's export (a memory list) or a message list, ingested as is."""
    return await _queued(accepting, ingest.accept_import, key, body, idempotency_key)


@router.post("/users/{key}/plan", tags=["ingest"], name="plan")
async def plan_route(
    key: UserKey, payload: IngestPayload, settings: SettingsDep, tenant: TenantDep
) -> PlanOut:
    """What ingesting this payload would take; nothing is stored or called."""
    return PlanOut(**ingest.plan(payload, settings).to_dict())


@router.get("/jobs/{job_id}", tags=["jobs"], name="get_job")
async def get_job(
    job_id: uuid.UUID, tenant: TenantDep, runtime: RuntimeDep, wait: Wait = 0
) -> JobOut:
    """One ingest job: status, progress, usage, error, the version it produced; with ?wait, as
    it is once it ends (or the wait, capped, is over): no polling."""
    job = await jobs.get_job(runtime.uows, tenant, job_id)
    if wait > 0:
        seconds = min(wait, runtime.settings.ingest_wait_max_seconds)
        job = await jobs.wait_for_job(job, runtime.uows, tenant, seconds, runtime.signals)
    return job_out(job)


@router.get("/users/{key}/jobs", tags=["jobs"], name="list_jobs")
async def list_jobs(
    key: UserKey,
    tenant: TenantDep,
    uows: UowsDep,
    limit: PageSize = 50,
    cursor: JobCursor = None,
) -> JobPage:
    """A user's jobs, newest first."""
    return page_of(JobPage, await jobs.list_jobs(uows, tenant, key, limit, cursor), job_out)


@_queues("/jobs/{job_id}/retry", tag="jobs", name="retry_job")
async def retry_job(job_id: uuid.UUID, accepting: AcceptingDep) -> JobOut:
    """Run a failed job, or a done one with failed segments, again; 409 if it cannot be."""
    return await accepting.answer(await jobs.retry_job(accepting.uows, accepting.tenant, job_id))


@_queues("/users/{key}/reprocess", tag="users", name="reprocess")
async def reprocess_route(key: UserKey, accepting: AcceptingDep) -> JobOut:
    """Rebuild the passport from its stored transcripts with the current extractor."""
    return await accepting.answer(
        await reprocess.accept(accepting.uows, accepting.tenant, key, accepting.settings.queue_name)
    )


@_queues("/users/{key}/compact", tag="users", name="compact")
async def compact_route(key: UserKey, accepting: AcceptingDep) -> JobOut:
    """Merge keys that mean the same thing, with one model pass over all keys (LLM only)."""
    return await accepting.answer(
        await compact.accept(accepting.uows, accepting.tenant, key, accepting.settings)
    )


@router.post("/users/{key}/facts", tags=["ingest"], name="write_facts")
async def write_facts(
    key: UserKey,
    body: FactsIn,
    tenant: TenantDep,
    uows: UowsDep,
    settings: SettingsDep,
    actor: ActorDep,
) -> FactsOut:
    """Merge facts and preferences the client already knows (same merge and versioning)."""
    if not body.facts and not body.prefs:
        raise Unprocessable("give at least one fact or preference")
    result = await facts.write_facts(
        uows,
        tenant,
        key,
        Extraction(facts=body.facts, prefs=body.prefs),
        settings=settings,
        origin=Origin(actor),
    )
    return reply_of(FactsOut, result, user_key=key)


@router.get("/users/{key}/versions", tags=["users"], name="list_versions")
async def list_versions(
    key: UserKey,
    tenant: TenantDep,
    uows: UowsDep,
    limit: PageSize = 50,
    cursor: VersionCursor = None,
) -> VersionPage:
    """The passport's versions, newest first: when, why, and what changed."""
    found = await versions.list_versions(uows, tenant, key, limit, cursor)
    return page_of(VersionPage, found, version_out)


@router.get("/users/{key}/versions/{version}", tags=["users"], name="get_version")
async def get_version(
    key: UserKey,
    version: Annotated[int, Path(ge=0, le=MAX_VERSION)],
    tenant: TenantDep,
    heavy: HeavyDep,
    uows: UowsDep,
    limit: Annotated[int, Query(ge=1, le=500, description="Most items shown per list.")] = 100,
) -> VersionChangesOut:
    """One version: when, why, and the items it added and removed in each section."""
    return version_changes_out(await versions.version_changes(uows, tenant, key, version, limit))
