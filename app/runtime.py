"""What a process builds once from its settings: one typed ``Runtime`` every entry point receives.

The API (its routes, MCP and the inspector), the worker and the CLI's admin commands each open
a runtime when they start and close it when they stop; nothing is created at import time.
``app.main`` is where they are wired together.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import time
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass

from arq.connections import ArqRedis

from app.adapters.budget import TenantBudget
from app.adapters.embeddings import local_embedding, make_embedder
from app.adapters.queue import enqueuer, later_enqueuer, open_pool
from app.adapters.rate import RequestRate
from app.adapters.signals import JobSignals
from app.db.engine import (
    Engine,
    create_engine,
    listen_dsn,
    read_session_factory,
    session_factory,
)
from app.db.uow import Enqueue, UowFactory, uow_factory
from app.llm.factory import make_client, make_extractor
from app.services.cache import ContextCaches, KeyCache, forget_cached
from app.services.claimed import WorkerResources
from app.services.extraction import RULES, extractor_name, uses_model
from app.services.heavy import HeavySlots
from app.services.offload import CpuPool, PooledRules
from app.services.reading import IndexRefresher
from app.services.stored_index import IndexStore
from app.settings import Settings

# What a worker's pool processes run: the rules, and the preparing and merging of a job.
POOL_MODULES = ("app.domain.extraction.rules", "app.services.ingest", "app.services.running")


async def _no_enqueue(tenant_id: object, job_id: object) -> None:
    raise RuntimeError("this process queues no jobs")


@dataclass
class Runtime:
    """Everything a process built from its settings: databases, queue, caches, worker tools."""

    settings: Settings
    engine: Engine
    uows: UowFactory  # read-write units of work; a job is enqueued after its commit
    read_uows: UowFactory  # autocommit reads: one statement, no BEGIN/ROLLBACK (a replica's)
    primary_reads: UowFactory  # autocommit reads on the primary, whatever read_uows is
    enqueue: Enqueue
    key_cache: KeyCache
    caches: ContextCaches
    redis: ArqRedis | None = None
    signals: JobSignals | None = None  # the API's: a worker committed a job's end
    rate: RequestRate | None = None  # the API's: each tenant's requests per second
    heavy: HeavySlots | None = None  # the API's: each tenant's heavy requests running now
    resources: WorkerResources | None = None  # the worker's: extractor, slots, budget
    read_engine: Engine | None = None  # the API's read replica (TESSERA_DATABASE_READ_URL)

    def worker_resources(self) -> WorkerResources:
        """The worker's resources; only a worker's runtime has them."""
        if self.resources is None:
            raise RuntimeError("this runtime was not opened for a worker")
        return self.resources


def _database(
    settings: Settings,
    enqueue: Enqueue,
    pool_size: int,
    max_overflow: int | None = None,
    name: str = "tessera",
) -> Runtime:
    url = settings.require_database_url()
    engine = create_engine(url, pool_size=pool_size, max_overflow=max_overflow, name=name)
    reads = uow_factory(read_session_factory(engine))
    writes = uow_factory(session_factory(engine), enqueue)
    return Runtime(
        settings=settings,
        engine=engine,
        uows=writes,
        read_uows=reads,
        primary_reads=reads,
        enqueue=enqueue,
        key_cache=KeyCache(settings.auth_cache_seconds),
        caches=ContextCaches.of_size(settings.context_cache_bytes, IndexStore(reads, writes)),
    )


@asynccontextmanager
async def api_runtime(settings: Settings) -> AsyncIterator[Runtime]:
    """The API's runtime: the database, the queue, the caches, and job-end signals."""
    redis = await open_pool(settings.require_redis_url())
    # No overflow: past the pool, a request waits for a connection. An overflow connection is
    # closed as soon as it is given back, so under steady concurrency above the pool every read
    # would open (and Postgres fork) a connection of its own.
    enqueue = enqueuer(redis, settings.queue_name)
    runtime = _database(
        settings, enqueue, settings.db_pool_size, max_overflow=0, name="tessera-api"
    )
    runtime.redis = redis
    runtime.rate = RequestRate(redis, settings.tenant_requests_per_second)
    runtime.heavy = HeavySlots(settings.tenant_heavy_requests)
    if settings.database_read_url:
        runtime.read_engine = create_engine(
            settings.database_read_url,
            pool_size=settings.db_pool_size,
            max_overflow=0,
            name="tessera-api-read",
        )
        runtime.read_uows = uow_factory(read_session_factory(runtime.read_engine))
    # ?wait wakes when a worker commits the job's end, instead of polling for it; and the
    # index of the user it wrote catches up before the next read asks.
    key = settings.embeddings_api_key
    embedder = make_embedder(
        settings.embeddings,
        base_url=settings.embeddings_base_url,
        api_key=key.get_secret_value() if key is not None else None,
        timeout=settings.embeddings_timeout_seconds,
    )
    runtime.caches = dataclasses.replace(runtime.caches, embedder=embedder)
    refresher = IndexRefresher(runtime.read_uows, runtime.caches)
    runtime.caches = dataclasses.replace(runtime.caches, index_again=refresher.index_again)
    caches = runtime.caches

    def forgotten(tenant_id: uuid.UUID, user_key: str) -> None:
        forget_cached(caches, tenant_id, user_key)

    dsn = listen_dsn(settings.require_database_url())
    runtime.signals = JobSignals(dsn, refresher.note, forgotten)
    await runtime.signals.start()
    refresher.start()
    try:
        yield runtime
    finally:
        await refresher.stop()
        if embedder is not None:
            await embedder.aclose()
        await runtime.signals.stop()
        await redis.aclose()
        await runtime.engine.dispose()
        if runtime.read_engine is not None:
            await runtime.read_engine.dispose()


@asynccontextmanager
async def admin_runtime(settings: Settings) -> AsyncIterator[Runtime]:
    """The CLI's runtime for admin commands: the database only (two connections)."""
    runtime = _database(settings, _no_enqueue, 2, name="tessera-cli")
    try:
        yield runtime
    finally:
        await runtime.engine.dispose()


async def open_worker_runtime(
    settings: Settings,
    redis: ArqRedis,
    *,
    llm_http_client: object | None = None,
    budget_clock: Callable[[], float] | None = None,
) -> Runtime:
    """A worker's runtime on the Redis arq gave it: the extractor is built once, here.

    ``llm_http_client`` (a fake provider) and ``budget_clock`` are seams for tests.
    """
    enqueue = enqueuer(redis, settings.queue_name)
    runtime = _database(settings, enqueue, settings.worker_max_jobs, name="tessera-worker")
    runtime.redis = redis
    # Jobs are not enqueued from a worker's units of work: the sweeper enqueues after commit.
    runtime.uows = uow_factory(session_factory(runtime.engine))
    extractor = make_extractor(
        settings.extractor,
        base_url=settings.llm_base_url,
        timeout=settings.llm_timeout_seconds,
        max_retries=settings.llm_max_retries,
        http_client=llm_http_client,
    )
    # Compaction (dedupe tier 3) talks to the same provider through a bare client.
    client = None
    if uses_model(extractor_name(settings.extractor)):
        client = make_client(
            settings.extractor,
            base_url=settings.llm_base_url,
            timeout=settings.llm_timeout_seconds,
            max_retries=settings.llm_max_retries,
            http_client=llm_http_client,
        )
    # The rule extractor is pure Python: it runs in the pool, off this process's event loop.
    # 0 follows the machine: one process per core, so `make dev`'s one worker uses them all.
    pool = CpuPool(
        settings.cpu_processes or os.cpu_count() or 1, settings.cpu_seconds, preload=POOL_MODULES
    )
    await pool.start()  # the first jobs do not wait for the processes to start
    if extractor.name == RULES:
        extractor = PooledRules(pool)
    runtime.resources = WorkerResources(
        extractor=extractor,
        pool=pool,
        # Shared by every job of this process: at most this many model calls at once.
        slots=asyncio.Semaphore(settings.llm_max_concurrency),
        budget=TenantBudget(
            redis,
            calls_per_minute=settings.tenant_calls_per_minute,
            tokens_per_minute=settings.tenant_tokens_per_minute,
            clock=budget_clock or time.time,
        ),
        enqueue_later=later_enqueuer(redis, settings.queue_name),
        llm_client=client,
        reads=runtime.primary_reads,
        embedding=local_embedding(settings.embeddings),
    )
    return runtime


async def close_worker_runtime(runtime: Runtime) -> None:
    """Close the LLM clients and the engine of a worker's runtime."""
    resources = runtime.resources
    for closable in (resources.extractor, resources.llm_client) if resources else ():
        close = getattr(closable, "aclose", None)
        if close is not None:
            await close()
    if resources is not None and resources.pool is not None:
        resources.pool.close()
    await runtime.engine.dispose()
