"""Reprocess: rebuild a passport from its stored transcripts with the current extractor.

The new version is the current passport minus what came from the segments extracted again,
plus the fresh extractions merged in their original order. Everything else is carried over:
client facts, imports, and items whose transcript is past payload retention.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from app.db.models import IngestJob
from app.db.uow import UowFactory
from app.domain.extraction.extractor import Extraction
from app.domain.ingest.payload import IngestPayload
from app.domain.ingest.segmentation import refiled, untimed_ids
from app.domain.memory.log import LogDraft
from app.domain.memory.merge import MergeReport, remove_sources
from app.domain.passport import Passport
from app.services import ingest, jobs, running
from app.services.claimed import ClaimedJob
from app.services.errors import Unprocessable
from app.services.extraction import Work
from app.services.running import Outcome
from app.services.views import JobView
from app.settings import Settings

KIND = "reprocess"


async def accept(uows: UowFactory, tenant_id: uuid.UUID, user_key: str, queue: str) -> JobView:
    """Queue a reprocess job for a user on ``queue`` (Conflict while one is queued or running)."""
    async with uows() as uow:
        return await jobs.queue_job(uow, tenant_id, user_key, KIND, queue)


def works_of(sources: Sequence[IngestJob], settings: Settings) -> tuple[list[Work], int]:
    """Every distinct segment of these jobs' payloads in order, and how many payloads were unusable.

    Each segment keeps its own job's subject and acceptance time, so undated turns get the
    same time as when they were first ingested.
    """
    works: list[Work] = []
    seen: set[str] = set()
    unusable = 0
    for source in sources:
        try:
            payload = IngestPayload.model_validate(source.payload)
            segments = ingest.segments_of(payload, settings)
        except (Unprocessable, ValueError):
            unusable += 1  # its items stay as they are
            continue
        for segment in segments:
            if segment.hash not in seen:
                seen.add(segment.hash)
                works.append(Work(segment, payload.subject, source.created_at))
    return works, unusable


async def run(claimed: ClaimedJob) -> Outcome:
    """Extract every stored segment again (the cache applies), then rebuild under the row lock."""
    uows, tenant_id, job = claimed.uows, claimed.tenant_id, claimed.job
    row, sources = await running.passport_then(
        claimed, lambda repo: repo.stored_ingest_jobs(job.user_key)
    )
    if row is None:
        return Outcome(status="skipped")  # the user was deleted meanwhile
    works, unusable = works_of(sources, claimed.settings)
    async with claimed.reads() as uow:
        filed = await uow.tenant(tenant_id).sources_of_turns(
            job.user_key, untimed_ids([w.segment for w in works])
        )
    moved = refiled([w.segment for w in works], filed)
    works = [dataclasses.replace(w, segment=s) for w, s in zip(works, moved, strict=True)]
    await running.progress(uows, tenant_id, job.id, 0, total=len(works))
    # The current keys, so the fresh extractions reuse them (dedupe tier 0) and keys stay stable.
    known = Passport.from_dict(row.doc).known_keys()
    extracted = await running.extract(claimed, works, known)
    result = {"jobs_reprocessed": len(sources) - unusable, "jobs_unusable": unusable}
    settled = running.settle(extracted, cause=KIND, total=len(works), result=result)
    if settled is None:
        return await running.stop(claimed, extracted)
    return await running.finish(claimed, rebuild(settled.done, row.log_epoch), settled.ending)


@dataclass(frozen=True)
class Redo:
    """What the redone segments gave before is removed, then the fresh extractions merged."""

    redone: frozenset[str]
    merge: running.Apply

    def __call__(self, passport: Passport, now: str, draft: LogDraft) -> MergeReport:
        """Apply it to ``passport`` and ``draft``."""
        removed = remove_sources(passport, set(self.redone))
        report = self.merge(passport, now, draft)
        report.bump("items_removed", removed)
        report.changed |= removed > 0
        return report


def rebuild(done: Sequence[tuple[Work, Extraction]], epoch: int | None = None) -> running.Edit:
    """The fresh extractions merged in order, after what their segments gave before is removed.

    Only segments extracted again lose their old items: a failed one keeps what it had.
    """
    merge = running.merge_all(done, epoch=epoch)
    redone = frozenset(work.segment.id for work, _ in done)
    apply = Redo(redone, merge.apply)
    return running.Edit(apply, merge.hashes, redone, epoch=epoch, segments=merge.segments)
