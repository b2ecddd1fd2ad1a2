"""The arq worker: thin jobs that carry ids only and call app.services, on the process's runtime."""

from __future__ import annotations

import asyncio
import logging
import sys
import time
import uuid
from collections.abc import Callable
from typing import Any

import structlog
from arq import Retry, cron
from arq.worker import Function, Worker, check_health, func
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError, WatchError

from app.adapters.queue import LEGACY_PROCESS_JOB, PROCESS_JOB, redis_settings
from app.logging import configure_logging
from app.runtime import Runtime, close_worker_runtime, open_worker_runtime
from app.services import processing
from app.settings import Settings
from app.startup import freeze_startup, thaw
from workers import metrics

log = logging.getLogger("tessera.worker")

# How long a stopping worker lets running jobs finish before cancelling them (the sweeper
# re-runs cancelled ones). Below docker-compose's stop_grace_period (30 s) and Kubernetes'
# default termination grace period, so the process exits before it is killed.
STOP_WAIT_SECONDS = 20
# Pause before the worker's loop starts again after Redis dropped its connection.
RESTART_SECONDS = 1.0
# What ends arq's loop when Redis drops a connection mid-claim: the loop is started again.
RESTARTED_ON = (RedisConnectionError, WatchError)


async def startup(ctx: dict[str, Any]) -> None:
    """Open this worker process's runtime (database, extractor, budget) once."""
    ctx["runtime"] = await open_worker_runtime(
        ctx["settings"],
        ctx["redis"],
        llm_http_client=ctx.get("llm_http_client"),
        budget_clock=ctx.get("budget_clock"),
    )
    # Started: what startup built stays out of the garbage collector's full passes.
    freeze_startup()


async def shutdown(ctx: dict[str, Any]) -> None:
    """Close the runtime: the LLM clients and the engine."""
    thaw()
    runtime = ctx.get("runtime")
    if runtime is not None:
        await close_worker_runtime(runtime)


async def process_job(ctx: dict[str, Any], tenant_id: str, job_id: str) -> str:
    """Run the next job, fairly across tenants; an unexpected error puts it back for later."""
    runtime: Runtime = ctx["runtime"]
    tenant, job = uuid.UUID(tenant_id), uuid.UUID(job_id)
    started = time.perf_counter()
    # Every log line of this job, ours and the services', carries its ids.
    with structlog.contextvars.bound_contextvars(job_id=job_id, tenant_id=tenant_id):
        try:
            outcome = await processing.run_next(
                runtime.uows, (tenant, job), runtime.settings, runtime.worker_resources()
            )
        except Exception as exc:  # the job is queued again (``processing``): try it later
            log.exception("job run after message %s: unexpected error", job_id)
            metrics.record_job("retried", time.perf_counter() - started)
            raise Retry(defer=min(60, 2 ** ctx.get("job_try", 1))) from exc
        metrics.record_job(
            outcome.status, time.perf_counter() - started, outcome.usage, outcome.jobs
        )
        log.info("job %s: %s (version %s)", job_id, outcome.status, outcome.version)
        return outcome.status


async def sweep_outbox(ctx: dict[str, Any]) -> int:
    """Re-enqueue jobs that Redis lost or whose worker died; forget payloads past retention."""
    runtime: Runtime = ctx["runtime"]
    count = await processing.sweep(runtime.uows, runtime.enqueue, runtime.settings)
    if count:
        log.info("sweeper re-enqueued %d jobs", count)
    expired = await processing.expire_payloads(runtime.uows, runtime.settings)
    if expired:
        log.info("sweeper dropped the payloads of %d jobs past retention", expired)
    return count


def build_worker(
    settings: Settings,
    *,
    llm_http_client: object | None = None,
    budget_clock: Callable[[], float] | None = None,
) -> Worker:
    """An arq Worker wired to our settings; the keyword arguments are seams for tests."""
    every = max(1, min(59, settings.sweep_interval_seconds))
    tries = settings.job_max_attempts + 1
    functions: list[Function] = [
        func(process_job, name=name, max_tries=tries) for name in (PROCESS_JOB, LEGACY_PROCESS_JOB)
    ]
    return Worker(
        functions=functions,
        cron_jobs=[
            cron(sweep_outbox, second=set(range(0, 60, every)), run_at_startup=True, unique=True)
        ],
        redis_settings=redis_settings(settings.require_redis_url()),
        queue_name=settings.queue_name,
        ctx={
            "settings": settings,
            "llm_http_client": llm_http_client,
            "budget_clock": budget_clock,
        },
        on_startup=startup,
        on_shutdown=shutdown,
        max_jobs=settings.worker_max_jobs,
        job_timeout=3600,
        keep_result=0,
        health_check_interval=10,
        # arq's default 0.5 s between queue polls was most of a lone job's latency.
        poll_delay=settings.worker_poll_seconds,
        handle_signals=True,
        job_completion_wait=STOP_WAIT_SECONDS,
    )


def use_uvloop() -> bool:
    """Make new event loops uvloop's where it is installed (as uvicorn does for the API)."""
    try:
        import uvloop
    except ImportError:  # not built for every platform: the standard loop then
        return False
    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    return True


def run_worker(settings: Settings) -> None:
    """Run the worker until SIGINT/SIGTERM, logging JSON and serving its metrics."""
    configure_logging(settings)
    # arq takes the current loop: a job's socket round trips and task switches cost less on it.
    use_uvloop()
    # Per process, not in the arq startup hook: in-process workers (tests, bench) bind no port.
    server = metrics.serve_metrics(
        settings.worker_metrics_port, settings.require_redis_url(), settings.queue_name
    )
    try:
        while True:
            try:
                build_worker(settings).run()
                return
            except RESTARTED_ON as exc:
                # arq's loop does not retry a WATCHed claim whose connection Redis dropped (a
                # restart, a failover): the error ends its loop. The worker starts it again; the
                # jobs it held are in Postgres, and the sweeper requeues any left behind.
                log.warning("the worker lost its Redis connection (%s); starting again", exc)
                time.sleep(RESTART_SECONDS)
    finally:
        if server is not None:
            server.close()


def check_worker(settings: Settings) -> int:
    """0 when a worker of this queue is alive (arq's health-check key in Redis), else 1."""
    connection = redis_settings(settings.require_redis_url())
    connection.conn_retries = 0  # a health check answers within its timeout, it does not wait
    try:
        code = check_health({"redis_settings": connection, "queue_name": settings.queue_name})
    except (RedisError, OSError) as exc:
        print(f"worker check: Redis does not answer: {exc}", file=sys.stderr)
        return 1
    print(
        "worker check: " + ("ok" if code == 0 else f"no live worker on {settings.queue_name}"),
        file=sys.stderr,
    )
    return code
