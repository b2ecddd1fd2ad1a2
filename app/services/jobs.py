"""The steps every job kind shares: queue, heartbeat, defer, fail, and finish under the row lock."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, NamedTuple

from app.db.models import IngestJob
from app.db.queue import EnqueueLater
from app.db.uow import Uow, UowFactory
from app.domain.dates import iso_utc
from app.domain.extraction.extractor import Extraction
from app.domain.ids import sha256_hex
from app.domain.ingest.payload import IngestLimits, IngestPayload, InputError
from app.domain.ingest.segmentation import prepare
from app.domain.ingest.turns import Segment
from app.domain.memory.log import (
    DERIVED_KINDS,
    HEAD_CAPS,
    LogDraft,
    LogRow,
    merge_candidates,
)
from app.domain.memory.merge import MergeReport, merge_extraction
from app.domain.passport import Passport, Source
from app.services import passports
from app.services.errors import Conflict, NotFound, Unprocessable
from app.services.extraction import Extracted, Pipeline, Work, add_usage, extract_all, new_usage
from app.services.views import JobView, job_view
from app.settings import Settings

log = logging.getLogger(__name__)

DEFER_NOTE = "deferred: tenant budget"
# A job's result lists at most this many rule failures (each names its rule, turn and error).
MAX_RULE_FAILURES = 50


@dataclass
class Outcome:
    """What processing a job did, for logs and tests."""

    status: str  # done, failed, skipped or deferred
    version: int | None = None
    changed: bool = False
    failed_segments: list[dict[str, str]] = field(default_factory=list)
    usage: dict[str, int] = field(default_factory=dict)  # model calls, tokens and cache hits


class Claimed(NamedTuple):
    """A job a worker claimed, and what every kind of job runs with."""

    uows: UowFactory
    tenant_id: uuid.UUID
    job: IngestJob
    settings: Settings
    pipeline: Pipeline


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


def source_of(segment: Segment, reference: datetime) -> Source:
    """The passport source for a segment: its id, hash, time and client turn ids."""
    return Source(
        id=segment.id,
        kind=segment.kind,
        ts=iso_utc(segment.end_ts or segment.start_ts or reference),
        hash=segment.hash,
        turn_ids=list(segment.turn_ids),
    )


def _hour(now: datetime) -> datetime:
    return now.astimezone(UTC).replace(minute=0, second=0, microsecond=0)


async def queue_job(uow: Uow, tenant_id: uuid.UUID, user_key: str, kind: str) -> JobView:
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


async def progress(
    uows: UowFactory,
    tenant_id: uuid.UUID,
    job_id: uuid.UUID,
    done: int,
    total: int | None = None,
) -> None:
    """Record progress; also the heartbeat that keeps the sweeper off a running job."""
    values: dict[str, Any] = {"progress_done": done, "updated_at": datetime.now(UTC)}
    if total is not None:
        values["progress_total"] = total
    async with uows() as uow:
        await uow.tenant(tenant_id).update_job(job_id, **values)
        await uow.commit()


async def extract(
    uows: UowFactory,
    tenant_id: uuid.UUID,
    job: IngestJob,
    works: list[Work],
    known_keys: list[str],
    settings: Settings,
    pipeline: Pipeline,
    *,
    done_before: int = 0,
) -> Extracted:
    """Extract a job's segments, recording progress (after ``done_before`` done) as it goes."""

    async def heartbeat(done: int) -> None:
        await progress(uows, tenant_id, job.id, done_before + done)

    return await extract_all(
        uows,
        tenant_id,
        job.user_key,
        works,
        known_keys,
        pipeline,
        max_concurrency=settings.llm_max_concurrency,
        heartbeat=heartbeat,
        heartbeat_seconds=settings.job_stale_seconds / 3,
    )


async def fail(
    uows: UowFactory,
    tenant_id: uuid.UUID,
    job_id: uuid.UUID,
    reason: str,
    usage: dict[str, int] | None = None,
) -> Outcome:
    """Mark a job failed with its reason; nothing is applied, what was spent is counted."""
    now = datetime.now(UTC)
    spent = usage or new_usage()
    async with uows() as uow:
        repo = uow.tenant(tenant_id)
        job = await repo.job(job_id, lock=True)
        if job is None:
            return Outcome(status="skipped")
        result = dict(job.result or {})
        result.pop("note", None)
        result.pop("deferred_until", None)
        await repo.update_job(
            job_id,
            status="failed",
            error=reason,
            usage=add_usage(job.usage or {}, spent),
            result=result,
            finished_at=now,
            updated_at=now,
        )
        await repo.add_usage(_hour(now), {**spent, "jobs": 1})
        await uow.system.signal_job_done(job_id, tenant_id, job.user_key)
        await uow.commit()
    return Outcome(status="failed", usage=spent)


async def defer(
    uows: UowFactory,
    tenant_id: uuid.UUID,
    job: IngestJob,
    usage: dict[str, int],
    seconds: float,
    enqueue_later: EnqueueLater | None,
) -> Outcome:
    """Put a job back to queued until the tenant's next budget window; the attempt is not counted.

    Nothing is merged: the extractions made so far are in the cache, so the next run gets them
    back without a call.
    """
    now = datetime.now(UTC)
    async with uows() as uow:
        repo = uow.tenant(tenant_id)
        locked = await repo.job(job.id, lock=True)
        if locked is None or locked.status != "running":
            return Outcome(status="skipped")
        result = dict(locked.result or {})
        result["note"] = DEFER_NOTE
        result["deferred_until"] = iso_utc(now + timedelta(seconds=seconds))
        await repo.update_job(
            job.id,
            status="queued",
            attempts=max(0, locked.attempts - 1),
            usage=add_usage(locked.usage or {}, usage),
            result=result,
            updated_at=now,
        )
        await repo.add_usage(_hour(now), usage)
        await uow.commit()
    if enqueue_later is not None:
        try:
            await enqueue_later(tenant_id, job.id, seconds)
        except Exception:
            log.warning("deferred enqueue of job %s failed; the sweeper will retry it", job.id)
    return Outcome(status="deferred", usage=usage)


def _content(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k != "updated_at"}


Apply = Callable[[Passport, str, LogDraft], MergeReport]


@dataclass(frozen=True)
class Edit:
    """How a job changes a passport, and which existing log rows it may meet.

    ``hashes`` are the identities of rows the change may match (found through an index);
    ``sources`` the sources whose observations, episodes and source rows it replaces.
    """

    apply: Apply
    hashes: frozenset[str] = frozenset()
    sources: frozenset[str] = frozenset()


async def finish(
    uows: UowFactory,
    tenant_id: uuid.UUID,
    job: IngestJob,
    edit: Edit,
    *,
    cause: str,
    usage: dict[str, int],
    settings: Settings,
    failures: list[dict[str, str]] | None = None,
    failed: bool = False,
    error: str | None = None,
    result: dict[str, Any] | None = None,
) -> Outcome:
    """Apply ``edit`` under the passport's row lock, version it, and finish the job.

    One short transaction: the head, the new log rows, the version row, the job row and the
    tenant's usage. Its cost is the change: the head and the rows the edit may meet, looked up
    by identity, never the history. A job another worker finished first is skipped. An edit
    that changes no row and leaves the head as it was (``updated_at`` aside) makes no version.
    """
    failures = failures or []
    async with uows() as uow:
        repo = uow.tenant(tenant_id)
        row = await repo.passport(job.user_key, lock=True)
        locked = await repo.job(job.id, lock=True)
        if row is None or locked is None:
            return Outcome(status="skipped")
        if locked.status in ("done", "failed"):
            return Outcome(status="skipped")  # another worker finished it first
        now = datetime.now(UTC)
        existing = await repo.rows_by_hash(job.user_key, edit.hashes)
        if edit.sources:
            existing += await repo.rows_of_sources(job.user_key, edit.sources, DERIVED_KINDS)
        draft = LogDraft({r.id: r for r in existing}.values())
        passport = Passport.from_dict(row.doc)
        draft.seed(passport)
        report = edit.apply(passport, iso_utc(now) or "", draft)
        change = draft.collect(passport, spill=HEAD_CAPS)
        new_head = passport.to_dict()
        version = row.version
        changed = bool(change) or _content(new_head) != _content(row.doc)
        if changed:
            version = await passports.record_version(
                repo,
                job.user_key,
                old_head=row.doc,
                new_head=new_head,
                old_version=row.version,
                cause=cause,
                now=now,
                snapshot_every=settings.version_snapshot_every,
                change=change,
                removed_kinds=draft.kinds,
                job_id=job.id,
            )
        body = dict(locked.result or {})
        body.pop("note", None)
        body.pop("deferred_until", None)
        body.update(result or {})
        body.update({"changed": changed, "summary": report.summary(), "segments_failed": failures})
        status = "failed" if failed else "done"
        await repo.update_job(
            job.id,
            status=status,
            error=error,
            progress_done=locked.progress_total,
            usage=add_usage(locked.usage or {}, usage),
            result=body,
            version_after=version,
            finished_at=now,
            updated_at=now,
        )
        await repo.add_usage(_hour(now), {**usage, "jobs": 1})
        await uow.system.signal_job_done(job.id, tenant_id, job.user_key)
        await uow.commit()
    return Outcome(
        status=status, version=version, changed=changed, failed_segments=failures, usage=usage
    )


def failure_text(failures: list[dict[str, str]], total: int) -> str:
    """The job's error when some segments failed and the rest was applied."""
    first = failures[0]["error"]
    return f"{len(failures)} of {total} segments failed (first: {first}); the rest was applied"


def merge_all(done: Sequence[tuple[Work, Extraction]], turns: Sequence[LogRow] = ()) -> Edit:
    """The turns said, then each extraction merged in segment order under its segment's source."""
    sources = [source_of(work.segment, work.reference_ts) for work, _ in done]

    subject = next((work.subject for work, _ in done if work.subject), None)

    def apply(passport: Passport, now: str, draft: LogDraft) -> MergeReport:
        report = MergeReport(changed=False, counts={}, decisions=[])
        added = draft.add_turns(turns)
        if added:
            report.bump("turns_added", added)
            report.changed = True
        if subject and not passport.meta.get("subject"):
            # Who the passport is about: beliefs without a person's name are this person's.
            passport.meta["subject"] = subject
        for source, (_, extraction) in zip(sources, done, strict=True):
            step = merge_extraction(passport, extraction, source, now=now)
            report.changed |= step.changed
            for name, count in step.counts.items():
                report.bump(name, count)
            report.decisions.extend(step.decisions)
        return report

    hashes = merge_candidates(sources, [e for _, e in done]) | {t.hash for t in turns}
    return Edit(apply, frozenset(hashes))


async def conclude(
    uows: UowFactory,
    tenant_id: uuid.UUID,
    job: IngestJob,
    extracted: Extracted,
    build: Callable[[Sequence[tuple[Work, Extraction]]], Edit],
    *,
    cause: str,
    total: int,
    settings: Settings,
    enqueue_later: EnqueueLater | None,
    result: dict[str, Any] | None = None,
    keep_on_failure: bool = False,
) -> Outcome:
    """End a job after extraction: fail it, defer it to the next budget window, or merge it.

    With ``keep_on_failure`` (an ingest), a job whose extraction failed outright still writes
    what ``build`` makes of no extraction (its turns) before it is marked failed.
    """
    if extracted.fatal is not None:
        reason = f"extraction failed: {extracted.fatal}"
        if not keep_on_failure:
            return await fail(uows, tenant_id, job.id, reason, extracted.usage)
        return await finish(
            uows,
            tenant_id,
            job,
            build([]),
            cause=cause,
            usage=extracted.usage,
            settings=settings,
            failed=True,
            error=reason,
            result={**(result or {}), "segments_applied": 0},
        )
    if extracted.defer_seconds is not None:
        return await defer(
            uows, tenant_id, job, extracted.usage, extracted.defer_seconds, enqueue_later
        )
    failures = extracted.failures
    failed_all = bool(failures) and not extracted.done
    error = None
    if failed_all:
        error = f"every segment failed ({len(failures)}; first: {failures[0]['error']})"
    elif failures:
        error = failure_text(failures, total)
    # A rule that raised cost only what it would have added for that sentence: recorded, and
    # the job is still done.
    rules = [f for _, extraction in extracted.done for f in extraction.failures]
    result = {**(result or {}), "rules_failed": rules[:MAX_RULE_FAILURES]} if rules else result
    return await finish(
        uows,
        tenant_id,
        job,
        build(extracted.done),
        cause=cause,
        usage=extracted.usage,
        settings=settings,
        failures=failures,
        failed=failed_all,
        error=error,
        result={**(result or {}), "segments_applied": len(extracted.done)},
    )
