"""Processing jobs, as a worker does: claim one and run it by its kind, release it for a retry,
and sweep the outbox (jobs Redis lost, payloads past retention)."""

from __future__ import annotations

import dataclasses
import logging
import uuid
from datetime import UTC, datetime, timedelta

from app.db.models import IngestJob
from app.db.uow import Enqueue, Uow, UowFactory
from app.services import compact, ingest, reprocess, running
from app.services.claimed import ClaimedJob, WorkerResources, in_process
from app.services.extraction import add_usage, new_usage
from app.services.failures import described
from app.services.running import Outcome
from app.settings import Settings

# The one place a job's kind decides what runs it.
log = logging.getLogger(__name__)

RUNS = {"ingest": ingest.run, "reprocess": reprocess.run, "compact": compact.run}


# A pick finds no job left when other workers took all of its tenant's queued jobs between the
# choice of the tenant and the claim: it picks again.
PICKS = 5


async def run_next(
    uows: UowFactory,
    message: tuple[uuid.UUID, uuid.UUID],
    settings: Settings,
    resources: WorkerResources,
) -> Outcome:
    """Take the next job fairly across tenants and run it; a queue message only says one waits.

    The job is the oldest of the tenant with the fewest jobs running, then of the one served
    longest ago: one tenant's backlog does not hold up another's job. Every accepted job sends
    one message, so a message whose pick was another job picks again while its own is still
    queued: a job left without a message would wait for the next job's, and from then on the
    queue would stay a job behind. Workers claiming at once each take a different job, so a
    message never gives up while a job it could run is still queued.
    """
    tenant_id, job_id = message
    outcomes: list[Outcome] = []
    for _ in range(PICKS):
        async with resources.reads_or(uows)() as uow:
            fair = await uow.system.next_fair_tenant(settings.queue_name, datetime.now(UTC))
        if fair is None:
            break
        jobs = await _claim_next(uows, fair, settings)
        if not jobs:
            continue
        batch = [
            ClaimedJob(uows, fair, job, settings, resources, in_process([job], settings))
            for job in jobs
        ]
        outcomes.append(await (_run_together(batch) if len(batch) > 1 else _run(batch[0])))
        if job_id in (job.id for job in jobs) or not await _waits(uows, tenant_id, job_id):
            return _summed_outcome(outcomes)
    own = await run_job(uows, tenant_id, job_id, settings, resources)
    if own.status == "skipped" and outcomes:
        return _summed_outcome(outcomes)
    return _summed_outcome([*outcomes, own])


async def _waits(uows: UowFactory, tenant_id: uuid.UUID, job_id: uuid.UUID) -> bool:
    async with uows() as uow:
        return await uow.tenant(tenant_id).job_waits(job_id, datetime.now(UTC))


async def run_job(
    uows: UowFactory,
    tenant_id: uuid.UUID,
    job_id: uuid.UUID,
    settings: Settings,
    resources: WorkerResources,
) -> Outcome:
    """Claim this job and run it by its kind: ingest, reprocess or compact."""
    job = await _claim(uows, tenant_id, job_id, settings)
    if job is None:
        return Outcome(status="skipped")  # done, failed, gone, not due, or a live worker has it
    light = in_process([job], settings)
    return await _run(ClaimedJob(uows, tenant_id, job, settings, resources, light))


async def _claim(
    uows: UowFactory, tenant_id: uuid.UUID, job_id: uuid.UUID, settings: Settings
) -> IngestJob | None:
    now = datetime.now(UTC)
    stale_before = now - timedelta(seconds=settings.job_stale_seconds)
    async with uows() as uow:
        job = await uow.tenant(tenant_id).claim_job(job_id, now, stale_before)
        return await _served(uow, tenant_id, job, now)


async def _claim_next(
    uows: UowFactory, tenant_id: uuid.UUID, settings: Settings
) -> list[IngestJob]:
    """The tenant's oldest due job; with it, when it is a small ingest, its user's next ones."""
    now = datetime.now(UTC)
    async with uows() as uow:
        repo = uow.tenant(tenant_id)
        job = await repo.claim_next_job(settings.queue_name, now)
        jobs = [job] if job is not None else []
        if job is not None and _batches(job, settings):
            more = settings.job_batch_max - 1
            jobs += await repo.claim_user_jobs(job, now, more, settings.job_slice_segments)
        await _served(uow, tenant_id, job, now)
    return jobs


def _batches(job: IngestJob, settings: Settings) -> bool:
    """Whether a claimed job may take its user's next jobs with it: an ingest of one slice
    never tried before (one that raised runs alone, so it fails alone)."""
    return (
        settings.job_batch_max > 1
        and job.kind == "ingest"
        and job.attempts == 1
        and job.progress_total <= settings.job_slice_segments
        and "segments_done" not in (job.result or {})
    )


async def _served(
    uow: Uow, tenant_id: uuid.UUID, job: IngestJob | None, now: datetime
) -> IngestJob | None:
    """Commit a claim, noting the tenant served when it took a job."""
    if job is not None:
        await uow.system.mark_served(tenant_id, now)
    await uow.commit()
    return job


async def _run(claimed: ClaimedJob) -> Outcome:
    """Run a claimed job; one that raises is put back to queued (and the error raised on)."""
    job = claimed.job
    if job.attempts > claimed.settings.job_max_attempts:
        return await _give_up(claimed, f"gave up after {job.attempts - 1} attempts")
    try:
        async with running.kept_alive(claimed):
            return await RUNS[job.kind](claimed)
    except Exception as exc:
        reason = described(exc, f"job {job.id}")
        await release_for_retry(claimed.uows, claimed.tenant_id, job.id, reason)
        raise


async def _run_together(batch: list[ClaimedJob]) -> Outcome:
    """Run a user's small ingest jobs together; when that raises, run each alone at once.

    Run alone, a job that raises is put back for a retry, where it runs alone again: one job
    that always raises fails by itself, its turns kept, and the others are written.
    """
    try:
        async with running.kept_alive(*batch):
            outcomes = await ingest.run_together(batch)
        return _summed_outcome(outcomes)
    except Exception as exc:
        log.warning("a batch of %d jobs raised (%s): each runs alone", len(batch), exc)
    outcomes, raised = [], None
    for claimed in batch:
        try:
            outcomes.append(await _run(claimed))
        except Exception as exc:
            raised = raised or exc
    if raised is not None:
        raise raised
    return _summed_outcome(outcomes)


def _summed_outcome(outcomes: list[Outcome]) -> Outcome:
    """The first outcome, with what all of them spent and how many jobs they ran."""
    usage = new_usage()
    for outcome in outcomes:
        usage = add_usage(usage, outcome.usage)
    jobs = sum(outcome.jobs for outcome in outcomes)
    return dataclasses.replace(outcomes[0], usage=usage, jobs=jobs)


async def _give_up(claimed: ClaimedJob, reason: str) -> Outcome:
    """Fail a job that raised on every attempt; an ingest's turns are written first."""
    job = claimed.job
    if job.kind == "ingest":
        try:
            async with running.kept_alive(claimed):
                return await ingest.keep_turns(claimed, reason)
        except Exception:
            log.exception("job %s: its turns could not be kept either", job.id)
    return await running.fail(claimed.uows, claimed.tenant_id, job.id, reason)


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
        ids = await uow.system.requeue_stale_jobs(settings.queue_name, older_than, now)
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
