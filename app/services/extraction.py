"""Extract segments for a job: cache first, then model calls under the worker's and tenant's limits.

Segments are extracted concurrently, at most ``TESSERA_LLM_MAX_CONCURRENCY`` model calls at once
per worker process (one semaphore shared by all its jobs); results keep segment order. A model
extraction is cached in Postgres under the SHA-256 of everything its prompt depends on, so a
retried, deferred or reprocessed job, or the same transcript again, makes no second call. The
rule extractor is neither cached (it is cheaper than the lookup) nor budgeted (it calls nothing).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from app.db.engine import DatabaseError
from app.db.models import ExtractionCache
from app.domain.dates import iso_utc
from app.domain.extraction.extractor import Extraction, ExtractionInput
from app.domain.ids import sha256_hex
from app.domain.ingest import segment_time
from app.domain.ingest.turns import Segment
from app.llm.errors import FatalProviderError, SegmentOutputError
from app.llm.factory import parse_spec
from app.llm.prompt import PROMPT_VERSION
from app.services.claimed import ClaimedJob, WorkerResources
from app.services.failures import described

log = logging.getLogger(__name__)

RULES = "rules"
USAGE_KEYS = ("calls", "input_tokens", "output_tokens", "cache_hits")


def extractor_name(spec: str) -> str:
    """The name an extractor spec runs under: "rules" or "<provider>:<model>"."""
    provider, model = parse_spec(spec)
    return RULES if provider == RULES else f"{provider}:{model}"


def uses_model(extractor_name: str) -> bool:
    """Whether this extractor calls a model (and so is cached and budgeted)."""
    return extractor_name != RULES


def new_usage() -> dict[str, int]:
    """Usage counters, all zero."""
    return dict.fromkeys(USAGE_KEYS, 0)


def add_usage(total: dict[str, int], more: dict[str, int]) -> dict[str, int]:
    """The sum of two usage dicts (missing counters count as zero)."""
    return {k: int(total.get(k, 0)) + int(more.get(k, 0)) for k in USAGE_KEYS}


@dataclass(frozen=True)
class Work:
    """One segment to extract, with what its prompt depends on besides the known keys."""

    segment: Segment
    subject: str | None
    reference_ts: datetime  # stands in for the time of undated turns


@dataclass
class Extracted:
    """What extracting a job's segments gave: results in order, failures, and why it stopped."""

    done: list[tuple[Work, Extraction]] = field(default_factory=list)
    failures: list[dict[str, str]] = field(default_factory=list)
    usage: dict[str, int] = field(default_factory=new_usage)
    fatal: str | None = None  # a provider error no retry can fix: the job fails
    defer_seconds: float | None = None  # the tenant's budget is spent: try again this much later


def cache_key(work: Work, known_keys: Sequence[str], extractor: str) -> str:
    """SHA-256 of everything the extraction prompt depends on."""
    # The prompt states the segment's time; for undated turns that is the job's reference time.
    when = iso_utc(segment_time(work.segment, work.reference_ts))
    parts = [work.segment.hash, work.subject, list(known_keys), extractor, PROMPT_VERSION, when]
    return sha256_hex(parts)


class _Run:
    """One job's extraction: cached results first, then calls under the slots and the budget."""

    def __init__(self, claimed: ClaimedJob, works: Sequence[Work], known_keys: Sequence[str]):
        self.claimed = claimed
        self.works = works
        self.known_keys = tuple(known_keys)
        self.extractor = claimed.extractor
        self.model = uses_model(self.extractor.name)
        self.out = Extracted()
        self.results: list[Extraction | None] = [None] * len(works)
        self.failed: dict[int, dict[str, str]] = {}
        self.keys = (
            [cache_key(w, known_keys, self.extractor.name) for w in works] if self.model else []
        )
        # The rule extractor goes one segment at a time: it never awaits, and taking turns on
        # the semaphore is what lets the heartbeat run between segments.
        resources, limit = claimed.resources, claimed.settings.llm_max_concurrency
        self.slots = (
            (resources.slots or asyncio.Semaphore(limit)) if self.model else asyncio.Semaphore(1)
        )
        self.finished = 0

    async def load_cached(self) -> None:
        """Take what the cache holds for these segments: no call for them."""
        if not self.keys:
            return
        claimed = self.claimed
        async with claimed.uows() as uow:
            cached = await uow.tenant(claimed.tenant_id).cached_extractions(self.keys)
        for index, key in enumerate(self.keys):
            if key in cached:
                self.results[index] = Extraction.from_items_dict(cached[key].output)
                self.out.usage["cache_hits"] += 1
        self.finished = sum(r is not None for r in self.results)

    def count(self, calls: int, input_tokens: int, output_tokens: int) -> None:
        """Add a call's usage to the job's."""
        self.out.usage["calls"] += calls
        self.out.usage["input_tokens"] += input_tokens
        self.out.usage["output_tokens"] += output_tokens

    def fail_segment(self, index: int, reason: str) -> None:
        """Record a segment that gave nothing; the job goes on with the others."""
        self.failed[index] = {"segment": self.works[index].segment.id, "error": reason}
        self.finished += 1

    async def one(self, index: int) -> None:
        """Extract one segment, unless the job has stopped (a fatal error, a spent budget)."""
        work, claimed, out = self.works[index], self.claimed, self.out
        resources, tenant_id = claimed.resources, claimed.tenant_id
        request = ExtractionInput(
            segment=work.segment,
            subject=work.subject,
            known_keys=self.known_keys,
            reference_ts=work.reference_ts,
        )
        async with self.slots:
            if out.fatal is not None or out.defer_seconds is not None:
                return  # the job stops: make no more calls
            if self.model and resources.budget is not None:
                wait = await resources.budget.reserve_call(tenant_id)
                if wait is not None:
                    out.defer_seconds = wait
                    return
            where = f"job {claimed.job.id} segment {work.segment.id}"
            try:
                extraction = await self.extractor.extract(request)
            except FatalProviderError as exc:
                out.fatal = out.fatal or described(exc, where)
                return
            except SegmentOutputError as exc:
                self.count(exc.calls, exc.input_tokens, exc.output_tokens)
                await _charge(resources, tenant_id, exc.input_tokens + exc.output_tokens)
                self.fail_segment(index, described(exc, where))
                return
            except Exception as exc:  # retries used up, past the time limit, or a bug
                self.fail_segment(index, described(exc, where))
                return
        self.count(extraction.calls, extraction.input_tokens, extraction.output_tokens)
        await _charge(resources, tenant_id, extraction.input_tokens + extraction.output_tokens)
        if self.model:
            await _store(claimed, self.keys[index], work, self.extractor.name, extraction)
        self.results[index] = extraction
        self.finished += 1

    async def beat(self, heartbeat: Heartbeat, seconds: float) -> None:
        """Report progress every ``seconds`` until cancelled: the sweeper leaves the job alone."""
        while True:
            await asyncio.sleep(seconds)
            try:
                await heartbeat(self.finished)
            except DatabaseError as exc:
                log.warning("heartbeat failed: %s", exc)

    def extracted(self) -> Extracted:
        """The results in segment order, and the failures."""
        self.out.done = [(self.works[i], r) for i, r in enumerate(self.results) if r is not None]
        self.out.failures = [self.failed[i] for i in sorted(self.failed)]
        return self.out


Heartbeat = Callable[[int], Awaitable[None]]


async def extract_all(
    claimed: ClaimedJob, works: Sequence[Work], known_keys: Sequence[str], heartbeat: Heartbeat
) -> Extracted:
    """Extract every segment (cache, budget, bounded concurrency); never raises provider errors.

    ``heartbeat`` is called with how many segments are done, every third of the stale limit.
    """
    run = _Run(claimed, works, known_keys)
    await run.load_cached()
    beating = asyncio.create_task(run.beat(heartbeat, claimed.settings.job_stale_seconds / 3))
    try:
        async with asyncio.TaskGroup() as group:
            for index, result in enumerate(run.results):
                if result is None:
                    group.create_task(run.one(index))
    except ExceptionGroup as group_error:
        # Unexpected (Redis or the database went away): the caller's retry path takes over.
        raise group_error.exceptions[0] from group_error
    finally:
        beating.cancel()
    return run.extracted()


async def _charge(resources: WorkerResources, tenant_id: uuid.UUID, tokens: int) -> None:
    if resources.budget is not None:
        await resources.budget.charge_tokens(tenant_id, tokens)


async def _store(
    claimed: ClaimedJob, key: str, work: Work, extractor: str, extraction: Extraction
) -> None:
    # Its own short transaction, right after the call: a job that is deferred, crashes or is
    # cancelled later still keeps what it paid for.
    try:
        async with claimed.uows() as uow:
            row = ExtractionCache(
                key=key,
                user_key=claimed.user_key,
                segment=work.segment.id,
                job_id=claimed.job.id,
                extractor=extractor,
                output=extraction.items_dict(),
                input_tokens=extraction.input_tokens,
                output_tokens=extraction.output_tokens,
                created_at=datetime.now(UTC),
            )
            await uow.tenant(claimed.tenant_id).cache_extraction(row)
            await uow.commit()
    except DatabaseError as exc:
        log.warning("extraction not cached: %s", exc)
