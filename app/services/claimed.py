"""A job a worker claimed, and what the worker lends every job it runs."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from app.adapters.budget import TenantBudget
from app.adapters.queue import EnqueueLater
from app.db.models import IngestJob
from app.db.uow import UowFactory
from app.domain.context.vectors import Embedding
from app.domain.extraction import Extractor
from app.llm.structured import StructuredClient
from app.services.offload import CpuPool, PooledRules
from app.settings import Settings

T = TypeVar("T")


@dataclass
class WorkerResources:
    """What a worker process lends every job: built once at start-up, closed at shutdown."""

    extractor: Extractor
    pool: CpuPool | None = None  # processes for CPU work: rules, payload preparation
    slots: asyncio.Semaphore | None = None  # model calls at once, shared by all jobs
    budget: TenantBudget | None = None
    enqueue_later: EnqueueLater | None = None
    llm_client: StructuredClient | None = None  # for compaction; None with the rule extractor
    # Autocommit reads on the primary for what a job reads outside its writes: no BEGIN and
    # ROLLBACK round trips. None: the job's own units of work.
    reads: UowFactory | None = None
    # The local embedding model (TESSERA_EMBEDDINGS=local): the stored index's segments then carry
    # the vectors of the passages a job adds. None: off, or a remote model (a transaction does
    # not wait on a network call; an API process embeds what a segment lacks when it loads it).
    embedding: Embedding | None = None

    def reads_or(self, uows: UowFactory) -> UowFactory:
        """Units of work for reads that need no transaction: autocommit ones, else ``uows``."""
        return self.reads or uows

    async def cpu(self, function: Callable[..., T], *args: Any, here: bool = False) -> T:
        """``function(*args)`` in the pool, off the event loop; here when there is no pool, or
        when the caller says the work is small (``here``)."""
        if self.pool is None or here:
            return function(*args)
        return await self.pool.run(function, *args)

    def extractor_for(self, here: bool) -> Extractor:
        """The extractor a job uses: the rules in this process for small work (``here``)."""
        if here and isinstance(self.extractor, PooledRules):
            return self.extractor.here
        return self.extractor


@dataclass(frozen=True)
class ClaimedJob:
    """A job a worker claimed, with what every kind of job runs with."""

    uows: UowFactory
    tenant_id: uuid.UUID
    job: IngestJob
    settings: Settings
    resources: WorkerResources
    # Small enough for its CPU work to run in the worker's own process (``in_process``).
    light: bool = False

    async def cpu(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` as this job runs its CPU work: here if light, else in the pool."""
        return await self.resources.cpu(function, *args, here=self.light)

    @property
    def extractor(self) -> Extractor:
        """The extractor this job runs: the rules in this process if the job is light."""
        return self.resources.extractor_for(self.light)

    @property
    def reads(self) -> UowFactory:
        """Units of work for reads that need no transaction (autocommit where the worker has it)."""
        return self.resources.reads_or(self.uows)

    @property
    def user_key(self) -> str:
        """The user whose passport the job writes."""
        return self.job.user_key


def in_process(jobs: list[IngestJob], settings: Settings) -> bool:
    """Whether these jobs' CPU work runs in the worker's own process: ingests never tried
    before, of at most ``cpu_inline_tokens`` of text together (a retry goes to the pool, where
    a time limit holds)."""
    tokens = 0.0
    for job in jobs:
        plan = (job.result or {}).get("plan") or {}
        if job.kind != "ingest" or job.attempts != 1 or not isinstance(plan, dict):
            return False
        tokens += int(plan.get("segments", 0)) * float(plan.get("mean_segment_tokens", 0))
    return bool(jobs) and settings.cpu_inline_tokens > 0 and tokens <= settings.cpu_inline_tokens
