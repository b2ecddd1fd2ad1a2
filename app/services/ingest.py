"""Ingest: accept a transcript durably (the job row is the outbox), and run its job.

``accept`` writes the job row and its plan in one transaction and enqueues it after commit;
``run`` is the ingest kind of job as a worker runs it: the turns kept, each new segment
extracted with no transaction open, then merged in one short transaction.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from app.db.models import IngestJob, PassportRow
from app.db.uow import UowFactory
from app.domain.ids import canonical_bytes, sha256_hex
from app.domain.ingest import IngestLimits, IngestPayload, InputError, Plan, Segment, prepare
from app.domain.ingest.imports import MemoryImport
from app.domain.ingest.segmentation import plan_segments, refiled, untimed_ids
from app.domain.memory.log import LogRow, segment_keys, turn_rows
from app.domain.passport import known_keys_of
from app.domain.storable import json_problem, storable
from app.services import passports, quotas, running
from app.services.claimed import ClaimedJob, in_process
from app.services.errors import Conflict, Unprocessable
from app.services.extraction import Work, extractor_name, new_usage, uses_model
from app.services.offload import TimeLimitExceeded
from app.services.origin import ANONYMOUS, Origin
from app.services.running import Ending, Outcome
from app.services.views import JobView, job_view
from app.settings import Settings

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Accepted:
    """An accepted ingest: the job, its plan, and whether it was accepted earlier (idempotent)."""

    job: JobView
    plan: Plan
    replayed: bool


def limits(settings: Settings) -> IngestLimits:
    """The size limits of one ingest request."""
    return IngestLimits(max_items=settings.max_items, max_turn_chars=settings.max_turn_chars)


def segments_of(payload: IngestPayload, settings: Settings) -> list[Segment]:
    """Normalise, prune and segment a payload exactly as the worker will."""
    try:
        return prepare(payload, **_cutting(settings))
    except InputError as exc:
        raise Unprocessable(str(exc)) from exc


def _cutting(settings: Settings) -> dict[str, Any]:
    """How a payload is cut into segments: the size limits, a segment's tokens and gap."""
    return {
        "limits": limits(settings),
        "max_tokens": settings.segment_max_tokens,
        "max_gap": timedelta(seconds=settings.segment_max_gap_seconds),
    }


def prepared(stored: dict[str, Any], cutting: dict[str, Any]) -> list[Segment]:
    """A stored payload's segments (run in a pool process); InputError for one that is not one."""
    try:
        payload = IngestPayload.model_validate(stored)
    except ValueError as exc:  # a pydantic error does not cross a process whole: its words do
        raise InputError(str(exc)) from None
    return prepare(payload, **cutting)


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
    return _stored(payload)[0]


def _stored(payload: IngestPayload) -> tuple[dict[str, Any], bool]:
    """The stored body, and whether storing changed it (a NUL dropped, a huge integer)."""
    # NUL is dropped by normalisation anyway, and JSONB cannot store it.
    given = payload.model_dump(mode="json", exclude_unset=True)
    body: dict[str, Any] = storable(given)
    problem = json_problem(body)
    if problem:
        raise Unprocessable(problem)
    return body, body != given


async def accept(
    uows: UowFactory,
    tenant_id: uuid.UUID,
    user_key: str,
    payload: IngestPayload,
    settings: Settings,
    origin: Origin = ANONYMOUS,
) -> Accepted:
    """Write the job row (the outbox) in one transaction, then enqueue it after commit.

    The user's stored turns are checked first and the tenant's daily ingest bytes charged last:
    a request past either is refused (``LimitExceeded``) and nothing is stored.
    """
    # Serialising, hashing and cutting a large payload is CPU work: off the event loop.
    body, request_hash, size, segments = await asyncio.to_thread(_prepared, payload, settings)
    job_plan = costed_plan(segments, settings)
    idempotency_key, actor = origin.idempotency_key, origin.actor
    async with uows() as uow:
        repo = uow.tenant(tenant_id)
        if idempotency_key is not None:
            earlier = await repo.job_by_idempotency_key(idempotency_key)
            if earlier is not None:
                return _replay(earlier, user_key, request_hash, job_plan)
        now = datetime.now(UTC)
        exists = await quotas.check_turns(repo, user_key, job_plan.interactions, settings)
        if not exists:  # the turn count read the passport row: most writes need no insert
            await passports.create_if_missing(repo, user_key, now, actor=actor)
        job = IngestJob(
            actor=actor or None,
            id=uuid.uuid4(),
            user_key=user_key,
            kind="ingest",
            queue=settings.queue_name,
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
        await quotas.charge_bytes(repo, size, now, settings)
        uow.enqueue_after_commit(tenant_id, job.id)
        await uow.commit()
    return Accepted(job=job_view(job), plan=job_plan, replayed=False)


def _prepared(
    payload: IngestPayload, settings: Settings
) -> tuple[dict[str, Any], str, int, list[Segment]]:
    body, changed = _stored(payload)
    raw = canonical_bytes(body)
    # The worker reads the stored body: one that storing changed is segmented as it will be, so
    # what the worker would refuse is a 422 here.
    stored = payload
    if changed:
        try:
            stored = IngestPayload.model_validate(body)
        except ValueError as exc:
            raise Unprocessable(f"once NUL characters are dropped, {exc}") from None
    return body, sha256_hex(raw), len(raw), segments_of(stored, settings)


async def accept_import(
    uows: UowFactory,
    tenant_id: uuid.UUID,
    user_key: str,
    body: MemoryImport,
    settings: Settings,
    origin: Origin = ANONYMOUS,
) -> Accepted:
    """Another service's memories, or a message list, accepted as the ingest they amount to."""
    try:
        payload = await asyncio.to_thread(body.to_payload)
    except ValueError as exc:
        raise Unprocessable(f"cannot import: {exc}") from exc
    return await accept(uows, tenant_id, user_key, payload, settings, origin)


def _replay(earlier: IngestJob, user_key: str, request_hash: str, job_plan: Plan) -> Accepted:
    if earlier.request_hash != request_hash or earlier.user_key != user_key:
        raise Conflict("this Idempotency-Key was used with a different request; use a new key")
    return Accepted(job=job_view(earlier), plan=job_plan, replayed=True)


async def _input_of(claimed: ClaimedJob, missing: str) -> tuple[PassportRow, Any] | Outcome:
    """The passport row and the job's stored payload; or how the job ends without them."""
    job = claimed.job
    passport, current = await running.passport_then(claimed, lambda repo: repo.job(job.id))
    if passport is None or current is None:
        return Outcome(status="skipped")  # the user was deleted meanwhile
    if current.payload is None:
        return await running.fail(claimed.uows, claimed.tenant_id, job.id, missing)
    return passport, current.payload


async def keep_turns(claimed: ClaimedJob, reason: str) -> Outcome:
    """End a job that cannot run: its turns are written as they were said, then it is failed.

    What is acknowledged is never lost: a job that raised on every attempt still leaves the
    words in the log, where the ranking finds them; only the extraction is given up.
    """
    found = await _input_of(claimed, reason)
    if isinstance(found, Outcome):
        return found
    passport, payload = found
    segments = await claimed.resources.cpu(prepared, payload, _cutting(claimed.settings))
    rows = turn_rows(segments, claimed.job.created_at, resolve_dates=False)
    edit = running.merge_all([], [turn for _, turn in rows], epoch=passport.log_epoch)
    ending = Ending(
        "ingest", new_usage(), failed=True, error=reason, result={"segments_applied": 0}
    )
    return await running.finish(claimed, edit, ending)


async def run(claimed: ClaimedJob) -> Outcome:
    """Extract the job's next slice of segments (no transaction open), then write it.

    A job of more than ``job_slice_segments`` segments is done slice by slice: each slice's
    turns and extractions are written as a version of their own, with the job's place, and the
    job goes back in the queue for the next one, so other tenants' jobs run in between and a
    crash loses nothing written and repeats nothing.
    """
    uows, tenant_id, job = claimed.uows, claimed.tenant_id, claimed.job
    found = await _input_of(claimed, "the job's payload is no longer stored")
    if isinstance(found, Outcome):
        return found
    passport, payload = found
    try:
        segments = await claimed.cpu(prepared, payload, _cutting(claimed.settings))
    except (InputError, ValueError) as exc:
        return await running.fail(uows, tenant_id, job.id, f"invalid payload: {exc}")
    except TimeLimitExceeded as exc:
        return await running.fail(uows, tenant_id, job.id, f"the payload took too long: {exc}")
    start = int((job.result or {}).get("segments_done", 0))
    end = min(len(segments), start + claimed.settings.job_slice_segments)
    async with claimed.reads() as uow:
        repo = uow.tenant(tenant_id)
        segments = refiled(
            segments, await repo.sources_of_turns(job.user_key, untimed_ids(segments[start:]))
        )
        by_keys = {segment_keys(s): s for s in segments[start:end]}
        merged = await repo.rows_by_hash(job.user_key, {k for keys in by_keys for k in keys})
    turns = await _turns(claimed, segments[start:end])
    # Segments already merged by an earlier run are skipped: at-least-once made idempotent.
    seen = {r.hash for r in merged}
    subject = payload.get("subject")
    works = [
        Work(s, subject if isinstance(subject, str) else None, job.created_at)
        for keys, s in by_keys.items()
        if seen.isdisjoint(keys)
    ]
    known = known_keys_of(passport.doc)
    extracted = await running.extract(claimed, works, known, done_before=end - len(works))
    settled = running.settle(extracted, cause="ingest", total=len(segments), keep_on_failure=True)
    if settled is None:
        return await running.stop(claimed, extracted)
    ending = settled.ending
    if start and extracted.fatal is None and ending.failed:
        # Every segment of this slice failed, but earlier slices were applied.
        error = running.failure_text(ending.failures, len(segments))
        ending = dataclasses.replace(ending, failed=False, error=error)
    if end < len(segments):
        if extracted.fatal is not None:
            # The job stops here (a provider error no retry fixes): every word is kept still.
            turns += await _turns(claimed, segments[end:])
        else:
            ending = dataclasses.replace(ending, resume_at=end)
    edit = running.merge_all(settled.done, turns, epoch=passport.log_epoch)
    return await running.finish(claimed, edit, ending, passport)


async def _turns(claimed: ClaimedJob, segments: list[Segment]) -> list[LogRow]:
    """The segments' turns as log rows, their dates resolved in the pool when time allows."""
    received = claimed.job.created_at
    try:
        rows = await claimed.cpu(turn_rows, segments, received)
    except TimeLimitExceeded:
        # The words are kept whatever happens: without the days their dates name, if need be.
        rows = turn_rows(segments, received, resolve_dates=False)
    return [turn for _, turn in rows]


def prepared_each(
    stored: list[dict[str, Any]], cutting: dict[str, Any]
) -> list[list[Segment] | str]:
    """Each stored payload's segments, or why it is not a payload (run in a pool process)."""
    out: list[list[Segment] | str] = []
    for payload in stored:
        try:
            out.append(prepared(payload, cutting))
        except (InputError, ValueError) as exc:
            out.append(str(exc))
    return out


def turn_rows_each(
    requests: list[tuple[list[Segment], datetime]], resolve_dates: bool = True
) -> list[list[LogRow]]:
    """Each request's turns as log rows (``turn_rows`` of each; run in a pool process)."""
    return [
        [turn for _, turn in turn_rows(segments, received, resolve_dates=resolve_dates)]
        for segments, received in requests
    ]


@dataclass
class _Batch:
    """A user's small ingest jobs run together: each one's segments, and how each ended."""

    jobs: Sequence[ClaimedJob]
    segments: dict[int, list[Segment]] = dataclasses.field(default_factory=dict)
    outcomes: dict[int, Outcome] = dataclasses.field(default_factory=dict)

    @property
    def lead(self) -> ClaimedJob:
        """The job the batch was claimed for: it lends the batch its worker and settings."""
        return self.jobs[0]

    @property
    def going(self) -> list[int]:
        """The jobs still to be written, by place in the batch."""
        return [i for i in range(len(self.jobs)) if i not in self.outcomes]

    async def fail(self, i: int, reason: str) -> None:
        """End one job of the batch as failed; the others go on."""
        claimed = self.jobs[i]
        self.outcomes[i] = await running.fail(
            claimed.uows, claimed.tenant_id, claimed.job.id, reason
        )


async def run_together(jobs: Sequence[ClaimedJob]) -> list[Outcome]:
    """Run a user's small ingest jobs (one slice each) as one: one version holds them all.

    Their payloads are prepared in one call to the pool and their rows looked up in one read;
    each job's segments are extracted as they would be alone, then merged in the jobs' order
    and written together (``running.finish_together``). Each job still ends on its own: an
    invalid payload fails that job only, and each reports its own result and usage.
    """
    batch = _Batch(jobs)
    lead = batch.lead
    ids = [claimed.job.id for claimed in jobs]
    passport, rows = await running.passport_then(lead, lambda repo: repo.jobs_by_id(ids))
    if passport is None:
        return [Outcome(status="skipped") for _ in jobs]  # the user was deleted meanwhile
    payloads = {i: rows[c.job.id].payload for i, c in enumerate(jobs) if c.job.id in rows}
    batch.outcomes = {i: Outcome(status="skipped") for i in range(len(jobs)) if i not in payloads}
    for i in [i for i, payload in payloads.items() if payload is None]:
        await batch.fail(i, "the job's payload is no longer stored")
    going = batch.going
    # The batch's preparation runs here when the batch is small as a whole.
    here = in_process([claimed.job for claimed in jobs], lead.settings)
    cut = await lead.resources.cpu(
        prepared_each, [payloads[i] for i in going], _cutting(lead.settings), here=here
    )
    for i, segments in zip(going, cut, strict=True):
        if isinstance(segments, str):
            await batch.fail(i, f"invalid payload: {segments}")
        else:
            batch.segments[i] = segments
    known = known_keys_of(passport.doc)
    works = await _works(batch, payloads)
    turns = await _turns_each(batch, here)
    going = batch.going
    extracted = await asyncio.gather(
        *(
            running.extract(
                jobs[i], works[i], known, done_before=len(batch.segments[i]) - len(works[i])
            )
            for i in going
        )
    )
    edits: list[running.Edit] = []
    ended: list[tuple[int, running.Ended]] = []
    for i, done in zip(going, extracted, strict=True):
        settled = running.settle(
            done, cause="ingest", total=len(batch.segments[i]), keep_on_failure=True
        )
        if settled is None:
            batch.outcomes[i] = await running.stop(jobs[i], done)
            continue
        edits.append(running.merge_all(settled.done, turns[i], epoch=passport.log_epoch))
        ended.append((i, (jobs[i], settled.ending)))
    if edits:
        written = await running.finish_together(
            [e for _, e in ended], running.joined(edits), passport
        )
        batch.outcomes.update((i, outcome) for (i, _), outcome in zip(ended, written, strict=True))
    return [batch.outcomes[i] for i in range(len(jobs))]


async def _works(batch: _Batch, payloads: dict[int, Any]) -> dict[int, list[Work]]:
    """Each job's segments to extract: those no earlier write or earlier job merged already."""
    lead = batch.lead
    going = batch.going
    async with lead.reads() as uow:
        repo = uow.tenant(lead.tenant_id)
        untimed = set().union(*(untimed_ids(batch.segments[i]) for i in going))
        filed = await repo.sources_of_turns(lead.user_key, untimed)
        for i in going:
            batch.segments[i] = refiled(batch.segments[i], filed)
        keys = {k for i in going for s in batch.segments[i] for k in segment_keys(s)}
        seen = {row.hash for row in await repo.rows_by_hash(lead.user_key, keys)}
    works: dict[int, list[Work]] = {}
    for i in going:
        subject = payloads[i].get("subject")
        received = batch.jobs[i].job.created_at
        by_keys = {segment_keys(s): s for s in batch.segments[i]}
        works[i] = [
            Work(s, subject if isinstance(subject, str) else None, received)
            for keys, s in by_keys.items()
            if seen.isdisjoint(keys)
        ]
        seen.update(k for keys in by_keys for k in keys)
    return works


async def _turns_each(batch: _Batch, here: bool) -> dict[int, list[LogRow]]:
    """Each job's turns as log rows, their dates resolved in the pool when time allows (here
    when the batch is small)."""
    going = batch.going
    requests = [(batch.segments[i], batch.jobs[i].job.created_at) for i in going]
    try:
        rows = await batch.lead.resources.cpu(turn_rows_each, requests, here=here)
    except TimeLimitExceeded:
        # The words are kept whatever happens: without the days their dates name, if need be.
        rows = turn_rows_each(requests, resolve_dates=False)
    return dict(zip(going, rows, strict=True))
