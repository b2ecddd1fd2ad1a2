"""Processing jobs, as a worker does: claim one and run it by its kind, release it for a retry,
and sweep the outbox (jobs Redis lost, payloads past retention)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from app.db.uow import Enqueue, UowFactory
from app.services import compact, ingest, reprocess, running
from app.services.claimed import ClaimedJob, WorkerResources
from app.services.running import Outcome
from app.settings import Settings

# The one place a job's kind decides what runs it.
RUNS = {"ingest": ingest.run, "reprocess": reprocess.run, "compact": compact.run}


async def run_job(
    uows: UowFactory,
    tenant_id: uuid.UUID,
    job_id: uuid.UUID,
    settings: Settings,
    resources: WorkerResources,
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
        reason = f"gave up after {job.attempts - 1} attempts"
        return await running.fail(uows, tenant_id, job_id, reason)
    claimed = ClaimedJob(uows, tenant_id, job, settings, resources)
    async with running.kept_alive(claimed):
        return await RUNS[job.kind](claimed)


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
