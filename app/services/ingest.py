"""Ingestion: accept durably, plan, process a job (extract outside, merge under the row lock)."""

from __future__ import annotations

import asyncio
import logging
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.models import IngestJob
from app.db.uow import Enqueue, UnitOfWork
from app.domain.extract import Extraction, ExtractionInput, Extractor
from app.domain.ids import sha256_hex
from app.domain.ingest_input import IngestLimits, IngestPayload, InputError
from app.domain.jsoncheck import json_problem, without_nul
from app.domain.merge import MergeReport, merge_extraction
from app.domain.passport import Passport, Source
from app.domain.segment import Plan, plan_segments, prepare
from app.domain.turns import Segment
from app.services import passports
from app.services.errors import NotFound, Unprocessable
from app.settings import Settings

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Accepted:
    """An accepted ingest: the job, its plan, and whether it was accepted earlier (idempotent)."""

    job: IngestJob
    plan: Plan
    replayed: bool


def limits(settings: Settings) -> IngestLimits:
    """The size limits of one ingest request."""
    return IngestLimits(max_items=settings.max_items, max_turn_chars=settings.max_turn_chars)


def segments_of(payload: IngestPayload, settings: Settings) -> list[Segment]:
    """Normalise, prune and segment a payload exactly as the worker will."""
    try:
        return prepare(
            payload,
            limits=limits(settings),
            max_tokens=settings.segment_max_tokens,
            max_gap=timedelta(seconds=settings.segment_max_gap_seconds),
        )
    except InputError as exc:
        raise Unprocessable(str(exc)) from exc


def plan(payload: IngestPayload, settings: Settings) -> Plan:
    """What processing this payload would take; nothing is stored or called."""
    return plan_segments(segments_of(payload, settings))


def stored_payload(payload: IngestPayload) -> dict[str, Any]:
    """The payload as stored in the job row (and hashed for Idempotency-Key)."""
    # NUL is dropped by normalisation anyway, and JSONB cannot store it.
    body: dict[str, Any] = without_nul(payload.model_dump(mode="json", exclude_unset=True))
    problem = json_problem(body)
    if problem:
        raise Unprocessable(problem)
    return body


async def accept(
    uow: UnitOfWork,
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
    job_plan = plan_segments(segments)
    request_hash = sha256_hex(body)
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
        status="queued",
        idempotency_key=idempotency_key,
        request_hash=request_hash,
        payload=body,
        progress_done=0,
        progress_total=len(segments),
        usage={"calls": 0, "input_tokens": 0, "output_tokens": 0},
        result={"plan": job_plan.to_dict()},
        attempts=0,
        created_at=now,
        updated_at=now,
    )
    try:
        await repo.add_job(job)
    except IntegrityError:
        # A concurrent request with the same Idempotency-Key won the insert.
        await uow.session.rollback()
        earlier = await repo.job_by_idempotency_key(idempotency_key or "")
        if earlier is None:
            raise
        return _replay(earlier, user_key, request_hash, job_plan)
    uow.enqueue_after_commit(tenant_id, job.id)
    await uow.commit()
    return Accepted(job=job, plan=job_plan, replayed=False)


def _replay(earlier: IngestJob, user_key: str, request_hash: str, job_plan: Plan) -> Accepted:
    if earlier.request_hash != request_hash or earlier.user_key != user_key:
        raise Unprocessable("this Idempotency-Key was used with a different request; use a new key")
    return Accepted(job=earlier, plan=job_plan, replayed=True)


async def get_job(uow: UnitOfWork, tenant_id: uuid.UUID, job_id: uuid.UUID) -> IngestJob:
    """A job of this tenant, or NotFound."""
    job = await uow.tenant(tenant_id).job(job_id)
    if job is None:
        raise NotFound(f"no job {job_id}")
    return job


async def list_jobs(
    uow: UnitOfWork, tenant_id: uuid.UUID, user_key: str, limit: int, before: datetime | None
) -> list[IngestJob]:
    """A user's jobs, newest first; NotFound for an unknown user."""
    await passports.current_version(uow, tenant_id, user_key)
    return list(await uow.tenant(tenant_id).list_jobs(user_key, limit, before))


async def wait_for_job(
    sessions: async_sessionmaker[AsyncSession],
    tenant_id: uuid.UUID,
    job_id: uuid.UUID,
    seconds: float,
) -> IngestJob:
    """Poll the job row until it is done or failed, or the wait ends; return its last state."""
    deadline = asyncio.get_running_loop().time() + seconds
    delay = 0.02
    while True:
        async with UnitOfWork(sessions) as uow:
            job = await get_job(uow, tenant_id, job_id)
        if job.status in ("done", "failed") or asyncio.get_running_loop().time() >= deadline:
            return job
        await asyncio.sleep(delay)
        delay = min(delay * 2, 0.25)


# -- processing (the worker calls these) ----------------------------------------------------


@dataclass
class Outcome:
    """What processing a job did, for logs and tests."""

    status: str
    version: int | None = None
    changed: bool = False
    failed_segments: list[dict[str, str]] = field(default_factory=list)


def _iso(when: datetime | None) -> str | None:
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if when else None


def source_of(segment: Segment, reference: datetime) -> Source:
    """The passport source for a segment: its id, hash, time and client turn ids."""
    return Source(
        id=segment.id,
        kind=segment.kind,
        ts=_iso(segment.end_ts or segment.start_ts or reference),
        hash=segment.hash,
        turn_ids=list(segment.turn_ids),
    )


async def process_job(
    sessions: async_sessionmaker[AsyncSession],
    tenant_id: uuid.UUID,
    job_id: uuid.UUID,
    settings: Settings,
    extractor: Extractor,
) -> Outcome:
    """Claim, extract each segment (no transaction open), then merge in one short transaction."""
    now = datetime.now(UTC)
    stale_before = now - timedelta(seconds=settings.job_stale_seconds)
    async with UnitOfWork(sessions) as uow:
        job = await uow.tenant(tenant_id).claim_job(job_id, now, stale_before)
        await uow.commit()
    if job is None:
        return Outcome(status="skipped")  # done, failed, gone, or a live worker has it
    if job.attempts > settings.job_max_attempts:
        return await _fail(
            sessions, tenant_id, job_id, f"gave up after {job.attempts - 1} attempts"
        )
    if job.payload is None:
        return await _fail(sessions, tenant_id, job_id, "the job's payload is no longer stored")
    try:
        payload = IngestPayload.model_validate(job.payload)
        segments = segments_of(payload, settings)
    except (Unprocessable, ValueError) as exc:
        return await _fail(sessions, tenant_id, job_id, f"invalid payload: {exc}")

    async with UnitOfWork(sessions) as uow:
        row = await uow.tenant(tenant_id).passport(job.user_key)
    if row is None:
        return Outcome(status="skipped")  # the user was deleted meanwhile
    current = Passport.from_dict(row.doc)
    known = tuple(current.known_keys())
    seen = {s.hash for s in current.sources}

    extractions: list[tuple[Segment, Extraction]] = []
    failures: list[dict[str, str]] = []
    usage = {"calls": 0, "input_tokens": 0, "output_tokens": 0}
    loop = asyncio.get_running_loop()
    last_beat = loop.time()
    for index, segment in enumerate(segments):
        if segment.hash in seen:
            continue  # already merged by an earlier run: at-least-once made idempotent
        request = ExtractionInput(
            segment=segment,
            subject=payload.subject,
            known_keys=known,
            reference_ts=job.created_at,
        )
        try:
            extraction = await extractor.extract(request)
        except Exception as exc:
            log.warning("job %s segment %s failed: %s", job_id, segment.id, exc)
            failures.append({"segment": segment.id, "error": f"{type(exc).__name__}: {exc}"})
            continue
        usage["calls"] += extraction.calls
        usage["input_tokens"] += extraction.input_tokens
        usage["output_tokens"] += extraction.output_tokens
        extractions.append((segment, extraction))
        # Heartbeat well inside the stale deadline, however slow each extraction is.
        if loop.time() - last_beat > settings.job_stale_seconds / 3:
            await _progress(sessions, tenant_id, job_id, index + 1)
            last_beat = loop.time()
    return await _merge(
        sessions, tenant_id, job, extractions, failures, usage, len(segments), settings
    )


async def _progress(
    sessions: async_sessionmaker[AsyncSession], tenant_id: uuid.UUID, job_id: uuid.UUID, done: int
) -> None:
    # Also the heartbeat: the sweeper leaves a job alone while updated_at moves.
    async with UnitOfWork(sessions) as uow:
        await uow.tenant(tenant_id).update_job(
            job_id, progress_done=done, updated_at=datetime.now(UTC)
        )
        await uow.commit()


async def _merge(
    sessions: async_sessionmaker[AsyncSession],
    tenant_id: uuid.UUID,
    job: IngestJob,
    extractions: list[tuple[Segment, Extraction]],
    failures: list[dict[str, str]],
    usage: dict[str, int],
    total: int,
    settings: Settings,
) -> Outcome:
    async with UnitOfWork(sessions) as uow:
        repo = uow.tenant(tenant_id)
        row = await repo.passport(job.user_key, lock=True)
        locked_job = await repo.job(job.id, lock=True)
        if row is None or locked_job is None:
            return Outcome(status="skipped")
        if locked_job.status in ("done", "failed"):
            return Outcome(status="skipped")  # another worker finished it first
        now = datetime.now(UTC)
        passport = Passport.from_dict(row.doc)
        report = MergeReport(changed=False, counts={}, decisions=[])
        stamp = _iso(now) or ""
        for segment, extraction in extractions:
            step = merge_extraction(
                passport, extraction, source_of(segment, job.created_at), now=stamp
            )
            report.changed |= step.changed
            for name, count in step.counts.items():
                report.counts[name] = report.counts.get(name, 0) + count
            report.decisions.extend(step.decisions)
        version = row.version
        if report.changed:
            version = await passports.record_version(
                repo,
                job.user_key,
                old_doc=row.doc,
                new_doc=passport.to_dict(),
                old_version=row.version,
                cause="ingest",
                now=now,
                snapshot_every=settings.version_snapshot_every,
                job_id=job.id,
            )
        failed_all = bool(failures) and not extractions and total > 0
        result = dict(locked_job.result or {})
        result.update(
            {
                "changed": report.changed,
                "summary": report.summary(),
                "segments_failed": failures,
                "segments_applied": len(extractions),
            }
        )
        await repo.update_job(
            job.id,
            status="failed" if failed_all else "done",
            error=_failure_text(failures, total) if failures else None,
            progress_done=total,
            usage=usage,
            result=result,
            version_after=version,
            finished_at=now,
            updated_at=now,
        )
        await uow.commit()
    return Outcome(
        status="failed" if failed_all else "done",
        version=version,
        changed=report.changed,
        failed_segments=failures,
    )


def _failure_text(failures: list[dict[str, str]], total: int) -> str:
    first = failures[0]["error"]
    return f"{len(failures)} of {total} segments failed (first: {first}); the rest was applied"


async def _fail(
    sessions: async_sessionmaker[AsyncSession],
    tenant_id: uuid.UUID,
    job_id: uuid.UUID,
    reason: str,
) -> Outcome:
    now = datetime.now(UTC)
    async with UnitOfWork(sessions) as uow:
        await uow.tenant(tenant_id).update_job(
            job_id, status="failed", error=reason, finished_at=now, updated_at=now
        )
        await uow.commit()
    return Outcome(status="failed")


async def release_for_retry(
    sessions: async_sessionmaker[AsyncSession],
    tenant_id: uuid.UUID,
    job_id: uuid.UUID,
    reason: str,
) -> None:
    """Put a job that hit an unexpected error back in the queue state for another attempt."""
    async with UnitOfWork(sessions) as uow:
        await uow.tenant(tenant_id).update_job(
            job_id, status="queued", error=reason, updated_at=datetime.now(UTC)
        )
        await uow.commit()


async def sweep(
    sessions: async_sessionmaker[AsyncSession], enqueue: Enqueue, settings: Settings
) -> int:
    """Re-enqueue jobs left queued or running past the deadline; returns how many."""
    now = datetime.now(UTC)
    async with UnitOfWork(sessions) as uow:
        older_than = now - timedelta(seconds=settings.job_stale_seconds)
        ids = await uow.system.requeue_stale_jobs(older_than, now)
        await uow.commit()
    for tenant_id, job_id in ids:
        await enqueue(tenant_id, job_id)
    return len(ids)
