"""What every kind of job does once a worker claimed it: progress, fail, defer, finish.

A job extracts with no transaction open (``extract``), then ``settle`` says what that means for
it: stop (fail it, or defer it to the tenant's next budget window, ``stop``), or apply what was
extracted. The caller builds its ``Edit`` from what ``settle`` kept, and ``finish`` applies it
under the passport's row lock with the job's ``Ending``.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from app.db.engine import DatabaseError
from app.db.models import IngestJob, PassportRow
from app.db.repository import PassportState, TenantRepository
from app.db.uow import Uow, UowFactory
from app.domain.dates import iso_utc
from app.domain.extraction import Extraction
from app.domain.memory import LogDraft, LogRow, MergeReport, delta, merge_extraction
from app.domain.memory.log import (
    DERIVED_KINDS,
    HEAD_CAPS,
    LogChange,
    StoredRow,
    merge_candidates,
    source_of,
    with_sections,
)
from app.domain.passport import Passport, Source
from app.services import passports
from app.services.claimed import ClaimedJob
from app.services.extraction import Extracted, Work, add_usage, extract_all, new_usage
from app.services.quotas import hour_of

log = logging.getLogger(__name__)
T = TypeVar("T")

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
    jobs: int = 1  # jobs run by this message: more than one when run together


async def passport_then(
    claimed: ClaimedJob, read: Callable[[TenantRepository], Awaitable[T]]
) -> tuple[PassportRow | None, T]:
    """The user's passport row, then what ``read`` reads, in that order.

    A job reads its input after the log's epoch: a forget that lands in between shows as a new
    epoch when the job finishes (``finish``), and the job starts over on what the forget left.
    Each read sees what was committed when it ran, in a transaction or not, so they run as
    autocommit reads.
    """
    async with claimed.reads() as uow:
        repo = uow.tenant(claimed.tenant_id)
        row = await repo.passport(claimed.user_key)
        return row, await read(repo)


async def progress(
    uows: UowFactory, tenant_id: uuid.UUID, job_id: uuid.UUID, done: int, total: int | None = None
) -> None:
    """Record progress; also the heartbeat that keeps the sweeper off a running job."""
    values: dict[str, Any] = {"progress_done": done, "updated_at": datetime.now(UTC)}
    if total is not None:
        values["progress_total"] = total
    async with uows() as uow:
        await uow.tenant(tenant_id).update_job(job_id, **values)
        await uow.commit()


@contextlib.asynccontextmanager
async def kept_alive(*jobs: ClaimedJob) -> AsyncIterator[None]:
    """While the block runs, the jobs' rows move every third of the stale time, so no sweeper
    takes them back however long a step without progress (preparing a big payload) takes."""
    lead = jobs[0]

    async def beat() -> None:
        while True:
            await asyncio.sleep(lead.settings.job_stale_seconds / 3)
            try:
                async with lead.uows() as uow:
                    repo = uow.tenant(lead.tenant_id)
                    for claimed in jobs:
                        await repo.update_job(claimed.job.id, updated_at=datetime.now(UTC))
                    await uow.commit()
            except DatabaseError as exc:
                log.warning("heartbeat of job %s failed: %s", lead.job.id, exc)

    beating = asyncio.create_task(beat())
    try:
        yield
    finally:
        beating.cancel()


async def extract(
    claimed: ClaimedJob, works: list[Work], known_keys: Sequence[str], *, done_before: int = 0
) -> Extracted:
    """Extract a job's segments, recording progress (after ``done_before`` done) as it goes."""

    async def heartbeat(done: int) -> None:
        await progress(claimed.uows, claimed.tenant_id, claimed.job.id, done_before + done)

    return await extract_all(claimed, works, known_keys, heartbeat)


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
        await repo.add_usage(hour_of(now), {**spent, "jobs": 1})
        await uow.system.signal_job_done(job_id, tenant_id, job.user_key)
        await uow.commit()
    return Outcome(status="failed", usage=spent)


async def defer(claimed: ClaimedJob, usage: dict[str, int], seconds: float) -> Outcome:
    """Put a job back to queued until the tenant's next budget window; the attempt is not counted.

    Nothing is merged: the extractions made so far are in the cache, so the next run gets them
    back without a call.
    """
    now = datetime.now(UTC)
    job_id, tenant_id = claimed.job.id, claimed.tenant_id
    async with claimed.uows() as uow:
        repo = uow.tenant(tenant_id)
        locked = await repo.job(job_id, lock=True)
        if locked is None or locked.status != "running":
            return Outcome(status="skipped")
        result = dict(locked.result or {})
        result["note"] = DEFER_NOTE
        due = now + timedelta(seconds=seconds)
        result["deferred_until"] = iso_utc(due)
        await repo.update_job(
            job_id,
            status="queued",
            not_before=due,
            attempts=max(0, locked.attempts - 1),
            usage=add_usage(locked.usage or {}, usage),
            result=result,
            updated_at=now,
        )
        await repo.add_usage(hour_of(now), usage)
        await uow.commit()
    enqueue_later = claimed.resources.enqueue_later
    if enqueue_later is not None:
        try:
            await enqueue_later(tenant_id, job_id, seconds)
        except Exception:
            log.warning("deferred enqueue of job %s failed; the sweeper will retry it", job_id)
    return Outcome(status="deferred", usage=usage)


def _content(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k != "updated_at"}


Apply = Callable[[Passport, str, LogDraft], MergeReport]


@dataclass(frozen=True)
class Edit:
    """How a job changes a passport, and which existing log rows it may meet.

    ``apply`` runs in a pool process, so it is picklable: a module-level function, a partial of
    one, or a dataclass instance with ``__call__``. ``hashes`` are the identities of rows the
    change may match (found through an index); ``sources`` the sources whose observations,
    episodes and source rows it replaces.
    """

    apply: Apply
    hashes: frozenset[str] = frozenset()
    sources: frozenset[str] = frozenset()
    # The log's epoch the job read its input at: a rewrite since (a forget) starts it over.
    epoch: int | None = None
    # The segments its extractions came from: what it cached of them goes if it starts over.
    segments: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Ending:
    """How a job that writes ends: its cause, what it spent, what failed, what it reports."""

    cause: str
    usage: dict[str, int]
    failures: list[dict[str, str]] = field(default_factory=list)
    failed: bool = False
    error: str | None = None
    result: dict[str, Any] = field(default_factory=dict)
    # A job done in slices: the segments done once this write lands, when more are to come.
    resume_at: int | None = None


def _result_of(prior: dict[str, Any] | None, ending: Ending, changed: bool, summary: Any) -> dict:
    body = dict(prior or {})
    body.pop("note", None)
    body.pop("deferred_until", None)
    if "segments_done" in body:
        # An earlier slice of this job wrote already: its counts and failures stay counted.
        summary = _summed(body.get("summary"), summary)
        changed = changed or bool(body.get("changed"))
        failures = [*body.get("segments_failed", []), *ending.failures][:MAX_RULE_FAILURES]
        applied = int(body.get("segments_applied", 0))
        applied += int(ending.result.get("segments_applied", 0))
        result = {**ending.result, "segments_applied": applied}
        ending = dataclasses.replace(ending, failures=failures, result=result)
    body.update(ending.result)
    body.update({"changed": changed, "summary": summary, "segments_failed": ending.failures})
    if ending.resume_at is not None:
        body["segments_done"] = ending.resume_at
    else:
        body.pop("segments_done", None)
    return body


def _summed(before: Any, now: Any) -> Any:
    """Two count summaries added up; ``now`` alone when the earlier one is not counts."""
    if not isinstance(before, dict) or not isinstance(now, dict):
        return now
    out = {k: v for k, v in before.items() if isinstance(v, int)}
    for name, count in now.items():
        out[name] = out.get(name, 0) + count
    return out


@dataclass(frozen=True)
class Merged:
    """An edit applied to a head: the new head, what it changes in the log, and its report."""

    head: dict[str, Any]
    change: LogChange
    kinds: dict[int, str]
    summary: dict[str, int]
    changed: bool
    head_delta: dict[str, Any] | None
    # Each job's counts and whether it changed anything, when jobs were merged together.
    parts: tuple[tuple[dict[str, int], bool], ...] = ()


def merged(doc: dict[str, Any], existing: list[StoredRow], apply: Apply, now: str) -> Merged:
    """Apply an edit to the head ``doc`` and the rows it may meet (run in a pool process)."""
    draft = LogDraft(existing)
    passport = Passport.from_dict(doc)
    draft.seed(passport)
    report = apply(passport, now, draft)
    change = draft.collect(passport, spill=HEAD_CAPS)
    head = passport.to_dict()
    changed = bool(change) or _content(head) != _content(doc)
    head_delta = delta.diff(doc, with_sections(head, change)) if changed else None
    parts = tuple(report.parts) if isinstance(report, PartsReport) else ()
    return Merged(head, change, draft.kinds, report.summary(), changed, head_delta, parts)


# Merges made before the row lock that a concurrent write made stale; the next one holds it.
MERGE_TRIES = 3

# A job in a batch and how it ends.
Ended = tuple[ClaimedJob, Ending]


async def finish(
    claimed: ClaimedJob, edit: Edit, ending: Ending, read: PassportRow | None = None
) -> Outcome:
    """Apply ``edit`` and version it, then finish the job (or queue its next slice)."""
    return (await finish_together([(claimed, ending)], edit, read))[0]


async def finish_together(
    together: Sequence[Ended], edit: Edit, read: PassportRow | None = None
) -> list[Outcome]:
    """Apply ``edit`` (the jobs' changes, in their order) as one version; finish each job.

    The merge runs in the worker's pool, within its time limit, on the head and the rows the
    edit may meet as read without a lock; the passport's row lock is then held only to check
    that no other write came between and to write: the head, the new log rows, the version row,
    the jobs' rows and the tenant's usage. A write that came between makes the merge run again,
    and the last try merges under the lock. A job another worker finished first is left as it
    is; an edit that changes no row and leaves the head as it was (``updated_at`` aside) makes
    no version. Every job gets the one version as its ``version_after``: it holds its turns.
    ``read``, the passport row the jobs read their input after, is the first try's head: the
    lock finds out whether a write came since, as it does for a head read here.
    """
    lead = together[0][0]
    tries = MERGE_TRIES + (read is not None)  # the jobs' own read is one try more
    for attempt in range(tries):
        held = attempt == tries - 1
        unlocked: tuple[PassportRow, Merged] | None = None
        if not held:
            async with lead.reads() as uow:
                repo = uow.tenant(lead.tenant_id)
                row = read if read is not None else await repo.passport(lead.user_key)
                if row is None:
                    return [Outcome(status="skipped") for _ in together]  # the user is gone
                existing = await _existing(repo, lead.user_key, edit)
            read = None  # a second try reads the head again
            stamp = iso_utc(datetime.now(UTC)) or ""
            unlocked = (row, await _merge(lead, row.doc, existing, edit, stamp))
        outcomes = await _write(together, edit, unlocked)
        if outcomes is not None:
            return outcomes
    raise AssertionError("the last try holds the lock and always writes")


async def _existing(repo: TenantRepository, user_key: str, edit: Edit) -> list[StoredRow]:
    """The live rows the edit may meet, each once."""
    existing = await repo.rows_by_hash(user_key, edit.hashes)
    if edit.sources:
        existing += await repo.rows_of_sources(user_key, edit.sources, DERIVED_KINDS)
    return list({r.id: r for r in existing}.values())


async def _merge(
    claimed: ClaimedJob, doc: dict[str, Any], existing: list[StoredRow], edit: Edit, now: str
) -> Merged:
    return await claimed.resources.cpu(merged, doc, existing, edit.apply, now)


async def _write(
    together: Sequence[Ended], edit: Edit, unlocked: tuple[PassportRow, Merged] | None
) -> list[Outcome] | None:
    """Write a merge under the row lock; None when a write came between (merge again).

    ``unlocked`` is a merge made without the lock, with the row it read; None merges here.
    """
    lead = together[0][0]
    skipped = [Outcome(status="skipped") for _ in together]
    async with lead.uows() as uow:
        repo = uow.tenant(lead.tenant_id)
        # With a merge made already, the lock needs the row's state, not its head again.
        row: PassportRow | PassportState | None = (
            await repo.passport(lead.user_key, lock=True)
            if unlocked is None
            else await repo.passport_state(lead.user_key, lock=True)
        )
        locked = await repo.jobs_by_id([claimed.job.id for claimed, _ in together], lock=True)
        live = {i for i, (c, _) in enumerate(together) if _unfinished(locked.get(c.job.id))}
        if row is None or not live:
            return skipped  # the user is gone, or other workers finished the jobs
        if edit.epoch is not None and row.log_epoch != edit.epoch:
            # Rewritten while the jobs ran (a forget): what they read may hold what went.
            await repo.drop_cached_segments(lead.user_key, edit.segments)
            for i in sorted(live):
                await _start_over(repo, together[i][0], datetime.now(UTC))
            await uow.commit()
            for i in sorted(live):
                await _enqueue_soon(together[i][0])
            return [Outcome(status="restarted") if i in live else o for i, o in enumerate(skipped)]
        if unlocked is None:
            assert isinstance(row, PassportRow)
            head = row.doc
            existing = await _existing(repo, lead.user_key, edit)
            stamp = iso_utc(datetime.now(UTC)) or ""
            merge = await _merge(lead, head, existing, edit, stamp)
        elif unlocked[0].version != row.version:
            return None
        else:
            head, merge = unlocked[0].doc, unlocked[1]
        now = datetime.now(UTC)
        version = row.version
        if merge.changed:
            new = passports.NewVersion(
                head,
                merge.head,
                row.version,
                together[0][1].cause,
                now,
                merge.change,
                merge.kinds,
                lead.job.id,
                old_root=row.root,
                actor=lead.job.actor or "",
                head_delta=merge.head_delta,
            )
            every = lead.settings.version_snapshot_every
            embedding = lead.resources.embedding
            recorded = await passports.record_version(repo, lead.user_key, new, every, embedding)
            version = recorded.version
        outcomes = list(skipped)
        spent, jobs = new_usage(), 0
        for i in sorted(live):
            claimed, ending = together[i]
            summary, changed = merge.parts[i] if merge.parts else (merge.summary, merge.changed)
            done = (changed, summary, version, now)
            outcomes[i] = await _end(uow, claimed, ending, locked[claimed.job.id], done)
            spent = add_usage(spent, ending.usage)
            jobs += ending.resume_at is None
        await repo.add_usage(hour_of(now), {**spent, "jobs": jobs} if jobs else spent)
        await uow.commit()
    for i in sorted(live):
        if together[i][1].resume_at is not None:
            await _enqueue_soon(together[i][0])
    return outcomes


def _unfinished(job: IngestJob | None) -> bool:
    return job is not None and job.status not in ("done", "failed")


async def _end(
    uow: Uow,
    claimed: ClaimedJob,
    ending: Ending,
    locked: IngestJob,
    done: tuple[bool, dict[str, int], int, datetime],
) -> Outcome:
    """Finish a written job (or queue its next slice): its result, usage and version."""
    changed, summary, version, now = done
    job, repo = claimed.job, uow.tenant(claimed.tenant_id)
    result = _result_of(locked.result, ending, changed, summary)
    usage = add_usage(locked.usage or {}, ending.usage)
    if ending.resume_at is not None:
        # The next slice goes back in the queue: other tenants' jobs are taken in between.
        await repo.update_job(
            job.id,
            status="queued",
            attempts=max(0, locked.attempts - 1),
            progress_done=ending.resume_at,
            usage=usage,
            result=result,
            version_after=version,
            updated_at=now,
        )
        return Outcome("sliced", version, changed, ending.failures, ending.usage)
    status = "failed" if ending.failed else "done"
    await repo.update_job(
        job.id,
        status=status,
        error=ending.error,
        progress_done=locked.progress_total,
        usage=usage,
        result=result,
        version_after=version,
        finished_at=now,
        updated_at=now,
    )
    await uow.system.signal_job_done(job.id, claimed.tenant_id, job.user_key)
    return Outcome(status, version, changed, ending.failures, ending.usage)


STARTED_OVER = "started over: the passport was rewritten (a forget) while the job ran"


async def _start_over(repo: TenantRepository, claimed: ClaimedJob, now: datetime) -> None:
    """Queue the job again (the attempt not counted); what it cached meanwhile is dropped first."""
    job = claimed.job
    await repo.update_job(
        job.id,
        status="queued",
        attempts=max(0, job.attempts - 1),
        result={**(job.result or {}), "note": STARTED_OVER},
        updated_at=now,
    )


async def _enqueue_soon(claimed: ClaimedJob) -> None:
    """Put the job back on the queue now; the sweeper does it later if this fails."""
    enqueue_later = claimed.resources.enqueue_later
    if enqueue_later is None:
        return
    try:
        await enqueue_later(claimed.tenant_id, claimed.job.id, 0)
    except Exception:
        log.warning("enqueue of job %s failed; the sweeper will retry it", claimed.job.id)


def failure_text(failures: list[dict[str, str]], total: int) -> str:
    """The job's error when some segments failed and the rest was applied."""
    first = failures[0]["error"]
    return f"{len(failures)} of {total} segments failed (first: {first}); the rest was applied"


@dataclass(frozen=True)
class MergeAll:
    """The turns said, then each extraction merged in segment order under its segment's source."""

    turns: tuple[LogRow, ...]
    subject: str | None
    merges: tuple[tuple[Source, Extraction], ...]

    def __call__(self, passport: Passport, now: str, draft: LogDraft) -> MergeReport:
        """Apply it to ``passport`` and ``draft``."""
        report = MergeReport(changed=False, counts={}, decisions=[])
        added = draft.add_turns(self.turns)
        if added:
            report.bump("turns_added", added)
            report.changed = True
        if self.subject and not passport.meta.get("subject"):
            # Who the passport is about: beliefs without a person's name are this person's.
            passport.meta["subject"] = self.subject
        for source, extraction in self.merges:
            _add(report, merge_extraction(passport, extraction, source, now=now))
        return report


def _add(report: MergeReport, step: MergeReport) -> None:
    report.changed |= step.changed
    for name, count in step.counts.items():
        report.bump(name, count)
    report.decisions.extend(step.decisions)


@dataclass
class PartsReport(MergeReport):
    """What several jobs' edits did together, and each one's counts and change, in order."""

    parts: list[tuple[dict[str, int], bool]] = field(default_factory=list)


@dataclass(frozen=True)
class Together:
    """Several jobs' edits applied one after another to one passport, as one version."""

    applies: tuple[Apply, ...]

    def __call__(self, passport: Passport, now: str, draft: LogDraft) -> MergeReport:
        """Apply each in order to ``passport`` and ``draft``; each one's counts are kept."""
        report = PartsReport(counts={})
        for apply in self.applies:
            step = apply(passport, now, draft)
            _add(report, step)
            report.parts.append((step.summary(), step.changed))
        return report


def joined(edits: Sequence[Edit]) -> Edit:
    """One edit that makes these edits, in order (all read at one epoch of the log)."""
    return Edit(
        Together(tuple(edit.apply for edit in edits)),
        frozenset().union(*(edit.hashes for edit in edits)),
        frozenset().union(*(edit.sources for edit in edits)),
        epoch=edits[0].epoch,
        segments=frozenset().union(*(edit.segments for edit in edits)),
    )


def merge_all(
    done: Sequence[tuple[Work, Extraction]], turns: Sequence[LogRow] = (), epoch: int | None = None
) -> Edit:
    """The turns said, then each extraction merged in segment order under its segment's source."""
    sources = [source_of(work.segment, work.reference_ts) for work, _ in done]
    subject = next((work.subject for work, _ in done if work.subject), None)
    extractions = [e for _, e in done]
    apply = MergeAll(tuple(turns), subject, tuple(zip(sources, extractions, strict=True)))
    hashes = merge_candidates(sources, extractions) | {t.hash for t in turns}
    segments = frozenset(source.id for source in sources)
    return Edit(apply, frozenset(hashes), epoch=epoch, segments=segments)


@dataclass(frozen=True)
class Settled:
    """What an extraction means for its job when it goes on to write: what to merge, how it ends."""

    done: Sequence[tuple[Work, Extraction]]
    ending: Ending


def settle(
    extracted: Extracted,
    *,
    cause: str,
    total: int,
    result: dict[str, Any] | None = None,
    keep_on_failure: bool = False,
) -> Settled | None:
    """What to write after extraction, and how the job ends; None when ``stop`` must end it.

    With ``keep_on_failure`` (an ingest), a job whose extraction failed outright still writes
    its turns (nothing is merged) before it is marked failed.
    """
    result = dict(result or {})
    if extracted.fatal is not None:
        if not keep_on_failure:
            return None
        reason = extracted.fatal
        result["segments_applied"] = 0
        return Settled([], Ending(cause, extracted.usage, failed=True, error=reason, result=result))
    if extracted.defer_seconds is not None:
        return None
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
    if rules:
        result["rules_failed"] = rules[:MAX_RULE_FAILURES]
    result["segments_applied"] = len(extracted.done)
    ending = Ending(cause, extracted.usage, failures, failed_all, error, result)
    return Settled(extracted.done, ending)


async def stop(claimed: ClaimedJob, extracted: Extracted) -> Outcome:
    """End a job that writes nothing: failed outright, or deferred to the next budget window."""
    if extracted.fatal is not None:
        reason = extracted.fatal
        return await fail(claimed.uows, claimed.tenant_id, claimed.job.id, reason, extracted.usage)
    return await defer(claimed, extracted.usage, extracted.defer_seconds or 0.0)
