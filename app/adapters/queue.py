"""The work queue: arq on Redis. Redis only carries work; Postgres holds the truth."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable

from arq.connections import ArqRedis, RedisSettings, create_pool
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from app.db.uow import Enqueue

# The arq function that runs a job of any kind; jobs queued before it had this name carry the
# legacy one, which workers still answer to.
PROCESS_JOB = "process_job"
LEGACY_PROCESS_JOB = "process_ingest_job"

# (tenant id, job id, seconds from now): queue a job to run later, e.g. in the next budget window.
EnqueueLater = Callable[[uuid.UUID, uuid.UUID, float], Awaitable[None]]


def redis_settings(url: str) -> RedisSettings:
    """arq settings from a redis:// or unix:// URL."""
    settings = RedisSettings.from_dsn(url)
    settings.conn_timeout = 2
    settings.conn_retries = 2
    # A connection Redis dropped (a restart, a failover, a killed client) is opened again and
    # the command sent again, so a worker polling the queue rides over it instead of exiting.
    settings.retry_on_error = [RedisConnectionError, RedisTimeoutError]
    settings.retry = Retry(ExponentialBackoff(cap=2.0, base=0.1), retries=6)
    return settings


async def open_pool(url: str) -> ArqRedis:
    """Connect an arq pool."""
    return await create_pool(redis_settings(url))


def enqueuer(pool: ArqRedis, queue_name: str) -> Enqueue:
    """An enqueue function for the unit of work. Job ids carry only (tenant, job) ids."""

    async def enqueue(tenant_id: uuid.UUID, job_id: uuid.UUID) -> None:
        # No fixed arq job id: a re-enqueue (sweeper, retry) must never be refused; the
        # worker's claim on the job row makes duplicates harmless.
        await pool.enqueue_job(PROCESS_JOB, str(tenant_id), str(job_id), _queue_name=queue_name)

    return enqueue


def later_enqueuer(pool: ArqRedis, queue_name: str) -> EnqueueLater:
    """An enqueue function that holds the job back for a number of seconds (arq _defer_by)."""

    async def enqueue_later(tenant_id: uuid.UUID, job_id: uuid.UUID, seconds: float) -> None:
        await pool.enqueue_job(
            PROCESS_JOB, str(tenant_id), str(job_id), _queue_name=queue_name, _defer_by=seconds
        )

    return enqueue_later
