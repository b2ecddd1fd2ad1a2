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

from app.db.budget import TenantBudget
from app.db.engine import DatabaseError
from app.db.queue import EnqueueLater
from app.db.uow import UowFactory
from app.domain.dates import iso_utc
from app.domain.extraction.extractor import Extraction, ExtractionInput, Extractor
from app.domain.ids import sha256_hex
from app.domain.ingest import segment_time
from app.domain.ingest.turns import Segment
from app.llm.errors import FatalProviderError, SegmentOutputError
from app.llm.factory import parse_spec
from app.llm.prompt import PROMPT_VERSION
from app.llm.structured import StructuredClient

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


@dataclass
class Pipeline:
    """What a worker process lends every job: built once at start-up, closed at shutdown."""

    extractor: Extractor
    slots: asyncio.Semaphore | None = None  # model calls at once, shared by all jobs
    budget: TenantBudget | None = None
    enqueue_later: EnqueueLater | None = None
    llm_client: StructuredClient | None = None  # for compaction; None with the rule extractor


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


async def extract_all(
    uows: UowFactory,
    tenant_id: uuid.UUID,
    user_key: str,
    works: Sequence[Work],
    known_keys: Sequence[str],
    pipeline: Pipeline,
    *,
    max_concurrency: int,
    heartbeat: Callable[[int], Awaitable[None]],
    heartbeat_seconds: float,
) -> Extracted:
    """Extract every segment (cache, budget, bounded concurrency); never raises provider errors."""
    extractor = pipeline.extractor
    model = uses_model(extractor.name)
    out = Extracted()
    results: list[Extraction | None] = [None] * len(works)
    failed: dict[int, dict[str, str]] = {}
    keys = [cache_key(w, known_keys, extractor.name) for w in works] if model else []
    if keys:
        async with uows() as uow:
            cached = await uow.tenant(tenant_id).cached_extractions(keys)
        for index, key in enumerate(keys):
            if key in cached:
                results[index] = Extraction.from_items_dict(cached[key].output)
                out.usage["cache_hits"] += 1
    # The rule extractor goes one segment at a time: it never awaits, and taking turns on the
    # semaphore is what lets the heartbeat run between segments.
    slots = (
        (pipeline.slots or asyncio.Semaphore(max_concurrency)) if model else asyncio.Semaphore(1)
    )
    finished = sum(r is not None for r in results)

    def count(calls: int, input_tokens: int, output_tokens: int) -> None:
        out.usage["calls"] += calls
        out.usage["input_tokens"] += input_tokens
        out.usage["output_tokens"] += output_tokens

    async def one(index: int) -> None:
        nonlocal finished
        work = works[index]
        request = ExtractionInput(
            segment=work.segment,
            subject=work.subject,
            known_keys=tuple(known_keys),
            reference_ts=work.reference_ts,
        )
        async with slots:
            if out.fatal is not None or out.defer_seconds is not None:
                return  # the job stops: make no more calls
            if model and pipeline.budget is not None:
                wait = await pipeline.budget.reserve_call(tenant_id)
                if wait is not None:
                    out.defer_seconds = wait
                    return
            try:
                extraction = await extractor.extract(request)
            except FatalProviderError as exc:
                out.fatal = out.fatal or exc.reason
                return
            except SegmentOutputError as exc:
                count(exc.calls, exc.input_tokens, exc.output_tokens)
                await _charge(pipeline, tenant_id, exc.input_tokens + exc.output_tokens)
                failed[index] = {"segment": work.segment.id, "error": exc.reason}
                finished += 1
                return
            except Exception as exc:  # retries used up (TransientProviderError), or a bug
                log.warning("segment %s failed: %s", work.segment.id, exc)
                reason = f"{type(exc).__name__}: {exc}"
                failed[index] = {"segment": work.segment.id, "error": reason}
                finished += 1
                return
        count(extraction.calls, extraction.input_tokens, extraction.output_tokens)
        await _charge(pipeline, tenant_id, extraction.input_tokens + extraction.output_tokens)
        if model:
            await _store(uows, tenant_id, user_key, keys[index], work, extractor.name, extraction)
        results[index] = extraction
        finished += 1

    async def beat() -> None:
        while True:
            await asyncio.sleep(heartbeat_seconds)
            try:
                await heartbeat(finished)
            except DatabaseError as exc:
                log.warning("heartbeat failed: %s", exc)

    beating = asyncio.create_task(beat())
    try:
        async with asyncio.TaskGroup() as group:
            for index, result in enumerate(results):
                if result is None:
                    group.create_task(one(index))
    except ExceptionGroup as group_error:
        # Unexpected (Redis or the database went away): the caller's retry path takes over.
        raise group_error.exceptions[0] from group_error
    finally:
        beating.cancel()
    out.done = [(works[i], r) for i, r in enumerate(results) if r is not None]
    out.failures = [failed[i] for i in sorted(failed)]
    return out


async def _charge(pipeline: Pipeline, tenant_id: uuid.UUID, tokens: int) -> None:
    if pipeline.budget is not None:
        await pipeline.budget.charge_tokens(tenant_id, tokens)


async def _store(
    uows: UowFactory,
    tenant_id: uuid.UUID,
    user_key: str,
    key: str,
    work: Work,
    extractor: str,
    extraction: Extraction,
) -> None:
    # Its own short transaction, right after the call: a job that is deferred, crashes or is
    # cancelled later still keeps what it paid for.
    try:
        async with uows() as uow:
            await uow.tenant(tenant_id).cache_extraction(
                key,
                user_key,
                work.segment.id,
                extractor,
                extraction.items_dict(),
                extraction.input_tokens,
                extraction.output_tokens,
                datetime.now(UTC),
            )
            await uow.commit()
    except DatabaseError as exc:
        log.warning("extraction not cached: %s", exc)
