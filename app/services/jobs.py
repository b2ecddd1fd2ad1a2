"""Jobs as clients see them: queue one that needs no payload, look one up, wait for it, retry it.

Each kind of job (ingest, reprocess, compact) is accepted by its own module and run by its
``run``; ``app.services.processing`` is where a worker claims a job and runs it by its kind.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from datetime import UTC, datetime

from app.adapters.signals import JobSignals
from app.db.models import IngestJob
from app.db.uow import Uow, UowFactory
from app.domain.ids import sha256_hex
from app.services import paging
from app.services.errors import Conflict, NotFound
from app.services.extraction import new_usage
from app.services.views import JobView, job_view


async def queue_job(
    uow: Uow, tenant_id: uuid.UUID, user_key: str, kind: str, queue: str
) -> JobView:
    """Queue a job that needs no payload (reprocess, compact); one of a kind per user at a time."""
    repo = uow.tenant(tenant_id)
    if await repo.passport_version(user_key) is None:
        raise NotFound(f"no user {user_key!r}")
    running = await repo.unfinished_job_of_kind(user_key, kind)
    if running is not None:
        raise Conflict(f"a {kind} job of this user is already {running.status}: {running.id}")
    now = datetime.now(UTC)
    job = IngestJob(
        id=uuid.uuid4(),
        user_key=user_key,
        kind=kind,
        queue=queue,
        status="queued",
        request_hash=sha256_hex({"kind": kind, "user_key": user_key}),
        payload=None,
        progress_done=0,
        progress_total=0,
        usage=new_usage(),
        result={},
        attempts=0,
        created_at=now,
        updated_at=now,
    )
    await repo.add_job(job)
    uow.enqueue_after_commit(tenant_id, job.id)
    await uow.commit()
    return job_view(job)


async def get_job(uows: UowFactory, tenant_id: uuid.UUID, job_id: uuid.UUID) -> JobView:
    """A job of this tenant, or NotFound."""
    async with uows() as uow:
        job = await uow.tenant(tenant_id).job(job_id)
    if job is None:
        raise NotFound(f"no job {job_id}")
    return job_view(job)


async def list_jobs(
    uows: UowFactory, tenant_id: uuid.UUID, user_key: str, limit: int, cursor: int | None
) -> paging.Page[JobView]:
    """A page of a user's jobs, newest first, older than the cursor; NotFound if no such user."""
    before = None if cursor is None else paging.cursor_time(cursor)
    listing = paging.Listing(
        lambda repo, n: repo.list_jobs(user_key, n, before),
        job_view,
        lambda row: paging.time_cursor(row.created_at),
    )
    return await paging.page_of_user(uows, tenant_id, user_key, limit, listing)


# While job signals are received, a waiting request reads its job's row this often besides.
SIGNALLED_RECHECK_SECONDS = 1.0


async def wait_for_job(
    job: JobView,
    uows: UowFactory,
    tenant_id: uuid.UUID,
    seconds: float,
    signals: JobSignals | None = None,
) -> JobView:
    """Wait until the job is done or failed, or the wait ends; return its last state.

    While signals are received, the job row is read when the wait starts and when a worker
    signals that the job ended (a lost listening connection wakes every wait, ``JobSignals``);
    without them, on a short back-off. A rare re-read guards against a signal that never comes,
    so that costs time, not the answer.
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
            heard = woken is not None and signals is not None and signals.listening
            pause = min(
                SIGNALLED_RECHECK_SECONDS if heard else delay, max(deadline - loop.time(), 0)
            )
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
