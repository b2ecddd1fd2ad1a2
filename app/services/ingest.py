"""Ingestion: accept durably, plan, process a job (extract outside, merge under the row lock)."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from app.db.models import IngestJob
from app.db.signals import JobSignals
from app.db.uow import Enqueue, Uow, UowFactory
from app.domain.ids import sha256_hex
from app.domain.ingest.payload import IngestPayload
from app.domain.ingest.segmentation import Plan, plan_segments, refiled, untimed_ids
from app.domain.ingest.turns import Segment
from app.domain.memory.log import segment_keys, turn_rows
from app.domain.passport import known_keys_of
from app.domain.storable import json_problem, storable
from app.services import compact, jobs, passports, reprocess, versions
from app.services.errors import Conflict, NotFound, Unprocessable
from app.services.extraction import (
    Pipeline,
    Work,
    extractor_name,
    new_usage,
    uses_model,
)
from app.services.jobs import Outcome, limits, segments_of, source_of
from app.services.views import JobView, job_view
from app.settings import Settings

__all__ = ["Outcome", "limits", "segments_of", "source_of"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Accepted:
    """An accepted ingest: the job, its plan, and whether it was accepted earlier (idempotent)."""

    job: JobView
    plan: Plan
    replayed: bool


def costed_plan(segments: list[Segment], settings: Settings) -> Plan:
    """The plan of these segments with the configured extractor: which, and its model calls."""
    name = extractor_name(settings.extractor)
    base = plan_segments(segments)
    calls = base.segments if uses_model(name) else 0
    return dataclasses.replace(base, extractor=name, model_calls=calls)


def plan(payload: IngestPayload, settings: Settings) -> Plan:
    """What processing this payload would take; nothing is stored or called."""
    return costed_plan(segments_of(payload, settings), settings)


def stored_payload(payload: IngestPayload) -> dict[str, Any]:
    """The payload as stored in the job row (and hashed for Idempotency-Key)."""
    # NUL is dropped by normalisation anyway, and JSONB cannot store it.
    body: dict[str, Any] = storable(payload.model_dump(mode="json", exclude_unset=True))
    problem = json_problem(body)
    if problem:
        raise Unprocessable(problem)
    return body


async def accept(
    uows: UowFactory,
    tenant_id: uuid.UUID,
    user_key: str,
    payload: IngestPayload,
    settings: Settings,
    *,
    idempotency_key: str | None = None,
) -> Accepted:
    """Write the job row (the outbox) in one transaction, then enqueue it after commit."""
    body = stored_payload(payload)
    segments = segments_of(payload, settings)
    job_plan = costed_plan(segments, settings)
    request_hash = sha256_hex(body)
    async with uows() as uow:
        repo = uow.tenant(tenant_id)
        if idempotency_key is not None:
            earlier = await repo.job_by_idempotency_key(idempotency_key)
            if earlier is not None:
                return _replay(earlier, user_key, request_hash, job_plan)
        now = datetime.now(UTC)
        await passports.create_if_missing(repo, user_key, now)
        job = IngestJob(
            id=uuid.uuid4(),
            user_key=user_key,
            kind="ingest",
            status="queued",
            idempotency_key=idempotency_key,
            request_hash=request_hash,
            payload=body,
            progress_done=0,
            progress_total=len(segments),
            usage=new_usage(),
            result={"plan": job_plan.to_dict()},
            attempts=0,
            created_at=now,
            updated_at=now,
        )
        if idempotency_key is None:
            await repo.add_job(job)
        else:
            # A concurrent request with the same key may have won the insert since the read.
            job, created = await repo.add_job_once(job)
            if not created:
                return _replay(job, user_key, request_hash, job_plan)
        uow.enqueue_after_commit(tenant_id, job.id)
        await uow.commit()
    return Accepted(job=job_view(job), plan=job_plan, replayed=False)


def _replay(earlier: IngestJob, user_key: str, request_hash: str, job_plan: Plan) -> Accepted:
    if earlier.request_hash != request_hash or earlier.user_key != user_key:
        raise Conflict("this Idempotency-Key was used with a different request; use a new key")
    return Accepted(job=job_view(earlier), plan=job_plan, replayed=True)


async def get_job(uows: UowFactory, tenant_id: uuid.UUID, job_id: uuid.UUID) -> JobView:
    """A job of this tenant, or NotFound."""
    async with uows() as uow:
        job = await uow.tenant(tenant_id).job(job_id)
    if job is None:
        raise NotFound(f"no job {job_id}")
    return job_view(job)


async def list_jobs(
    uows: UowFactory, tenant_id: uuid.UUID, user_key: str, limit: int, cursor: int | None
) -> versions.Page[JobView]:
    """A page of a user's jobs, newest first, older than the cursor; NotFound if no such user."""
    before = None if cursor is None else versions.cursor_time(cursor)
    return await versions.page_of_user(
        uows,
        tenant_id,
        user_key,
        limit,
        lambda repo, n: repo.list_jobs(user_key, n, before),
        job_view,
        lambda row: versions.time_cursor(row.created_at),
    )


async def wait_for_job(
    job: JobView,
    uows: UowFactory,
    tenant_id: uuid.UUID,
    seconds: float,
    signals: JobSignals | None = None,
) -> JobView:
    """Wait until the job is done or failed, or the wait ends; return its last state.

    The job row is read again whenever a worker signals that the job ended, and on a short
    back-off in any case, so a signal that never comes costs time, not the answer.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    delay = 0.02
    while not job.finished and loop.time() < deadline:
        woken = signals.expect(job.id) if signals is not None else None
        try:
            job = await get_job(uows, tenant_id, job.id)
            if job.finished:
                break
            pause = min(delay, max(deadline - loop.time(), 0))
            if woken is None:
                await asyncio.sleep(pause)
            else:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(asyncio.shield(woken), pause)
        finally:
            if signals is not None and woken is not None:
                signals.discard(job.id, woken)
        delay = min(delay * 2, 0.1)
    return job


# -- processing (the worker calls these) ----------------------------------------------------


async def process_job(
    uows: UowFactory,
    tenant_id: uuid.UUID,
    job_id: uuid.UUID,
    settings: Settings,
    pipeline: Pipeline,
) -> Outcome:
    """Claim a job and run it by its kind: ingest, reprocess or compact."""
    now = datetime.now(UTC)
    stale_before = now - timedelta(seconds=settings.job_stale_seconds)
    async with uows() as uow:
        job = await uow.tenant(tenant_id).claim_job(job_id, now, stale_before)
        await uow.commit()
    if job is None:
        return Outcome(status="skipped")  # done, failed, gone, or a live worker has it
    if job.attempts > settings.job_max_attempts:
        return await jobs.fail(
            uows, tenant_id, job_id, f"gave up after {job.attempts - 1} attempts"
        )
    claimed = jobs.Claimed(uows, tenant_id, job, settings, pipeline)
    if job.kind == "reprocess":
        return await reprocess.run(claimed)
    if job.kind == "compact":
        return await compact.run(claimed)
    return await _run_ingest(claimed)


async def _run_ingest(claimed: jobs.Claimed) -> Outcome:
    """Extract each new segment (no transaction open), then merge in one short transaction."""
    uows, tenant_id, job, settings, pipeline = claimed
    if job.payload is None:
        return await jobs.fail(uows, tenant_id, job.id, "the job's payload is no longer stored")
    try:
        payload = IngestPayload.model_validate(job.payload)
        segments = segments_of(payload, settings)
    except (Unprocessable, ValueError) as exc:
        return await jobs.fail(uows, tenant_id, job.id, f"invalid payload: {exc}")

    async with uows() as uow:
        repo = uow.tenant(tenant_id)
        row = await repo.passport(job.user_key)
        segments = refiled(
            segments, await repo.sources_of_turns(job.user_key, untimed_ids(segments))
        )
        by_keys = {segment_keys(s): s for s in segments}
        merged = await repo.rows_by_hash(job.user_key, {k for keys in by_keys for k in keys})
    turns = [turn for _, turn in turn_rows(segments, job.created_at)]
    if row is None:
        return Outcome(status="skipped")  # the user was deleted meanwhile
    # Segments already merged by an earlier run are skipped: at-least-once made idempotent.
    seen = {r.hash for r in merged}
    works = [
        Work(s, payload.subject, job.created_at)
        for keys, s in by_keys.items()
        if seen.isdisjoint(keys)
    ]
    skipped = len(segments) - len(works)
    known = known_keys_of(row.doc)
    extracted = await jobs.extract(
        uows, tenant_id, job, works, known, settings, pipeline, done_before=skipped
    )
    return await jobs.conclude(
        uows,
        tenant_id,
        job,
        extracted,
        lambda done: jobs.merge_all(done, turns),
        cause="ingest",
        total=len(segments),
        settings=settings,
        enqueue_later=pipeline.enqueue_later,
        keep_on_failure=True,
    )


async def release_for_retry(
    uows: UowFactory,
    tenant_id: uuid.UUID,
    job_id: uuid.UUID,
    reason: str,
) -> None:
    """Put a job that hit an unexpected error back in the queue state for another attempt."""
    async with uows() as uow:
        await uow.tenant(tenant_id).update_job(
            job_id, status="queued", error=reason, updated_at=datetime.now(UTC)
        )
        await uow.commit()


async def retry_job(uows: UowFactory, tenant_id: uuid.UUID, job_id: uuid.UUID) -> JobView:
    """Queue a failed job, or a done one with failed segments, again (with fresh attempts).

    Running it again is safe: segments already merged are skipped by their hash, and those
    extracted before are answered from the cache.
    """
    async with uows() as uow:
        return await _retry(uow, tenant_id, job_id)


async def _retry(uow: Uow, tenant_id: uuid.UUID, job_id: uuid.UUID) -> JobView:
    repo = uow.tenant(tenant_id)
    job = await repo.job(job_id, lock=True)
    if job is None:
        raise NotFound(f"no job {job_id}")
    if job.status in ("queued", "running"):
        raise Conflict(f"the job is {job.status}; only a finished job can be retried")
    if job.status == "done" and not (job.result or {}).get("segments_failed"):
        raise Conflict("the job is done and no segment failed: there is nothing to retry")
    if job.kind == "ingest" and job.payload is None:
        raise Conflict(
            "the job's payload is no longer stored (TESSERA_PAYLOAD_RETENTION_DAYS passed); "
            "send the transcript again as a new ingest"
        )
    requeued = await repo.requeue_finished_job(job_id, datetime.now(UTC))
    if requeued is None:  # finished and requeued by a concurrent retry between the two reads
        raise Conflict("the job was retried concurrently")
    uow.enqueue_after_commit(tenant_id, job_id)
    await uow.commit()
    return job_view(requeued)


async def sweep(uows: UowFactory, enqueue: Enqueue, settings: Settings) -> int:
    """Re-enqueue jobs left queued or running past the deadline; returns how many."""
    now = datetime.now(UTC)
    async with uows() as uow:
        older_than = now - timedelta(seconds=settings.job_stale_seconds)
        ids = await uow.system.requeue_stale_jobs(older_than, now)
        await uow.commit()
    for tenant_id, job_id in ids:
        await enqueue(tenant_id, job_id)
    return len(ids)


async def expire_payloads(uows: UowFactory, settings: Settings) -> int:
    """Forget the payloads of jobs finished more than the retention period ago; returns how many.

    Without its payload a job can no longer be retried, and reprocessing carries its items over
    as they are instead of extracting them again.
    """
    if settings.payload_retention_days <= 0:
        return 0
    cutoff = datetime.now(UTC) - timedelta(days=settings.payload_retention_days)
    async with uows() as uow:
        count = await uow.system.expire_payloads(cutoff)
        await uow.commit()
    return count
