"""The arq worker: thin jobs that carry ids only and call app.services."""

from __future__ import annotations

import logging
import uuid
from typing import Any

from arq import Retry, cron
from arq.worker import Function, Worker, func

from app.db.engine import create_engine, session_factory
from app.db.queue import PROCESS_JOB, enqueuer, redis_settings
from app.domain.rules import RuleExtractor
from app.services import ingest
from app.settings import Settings

log = logging.getLogger("tessera.worker")


async def startup(ctx: dict[str, Any]) -> None:
    """Open the database engine once per worker process."""
    settings: Settings = ctx["settings"]
    ctx["engine"] = create_engine(
        settings.require_database_url(), pool_size=settings.worker_max_jobs
    )
    ctx["sessions"] = session_factory(ctx["engine"])
    ctx["enqueue"] = enqueuer(ctx["redis"], settings.queue_name)
    ctx["extractor"] = RuleExtractor()


async def shutdown(ctx: dict[str, Any]) -> None:
    """Close the engine."""
    engine = ctx.get("engine")
    if engine is not None:
        await engine.dispose()


async def process_ingest_job(ctx: dict[str, Any], tenant_id: str, job_id: str) -> str:
    """Process one ingest job; an unexpected error puts it back for a later attempt."""
    settings: Settings = ctx["settings"]
    tenant, job = uuid.UUID(tenant_id), uuid.UUID(job_id)
    try:
        outcome = await ingest.process_job(ctx["sessions"], tenant, job, settings, ctx["extractor"])
    except Exception as exc:
        log.exception("job %s: unexpected error", job_id)
        await ingest.release_for_retry(ctx["sessions"], tenant, job, f"{type(exc).__name__}: {exc}")
        raise Retry(defer=min(60, 2 ** ctx.get("job_try", 1))) from exc
    log.info("job %s: %s (version %s)", job_id, outcome.status, outcome.version)
    return outcome.status


async def sweep_outbox(ctx: dict[str, Any]) -> int:
    """Re-enqueue jobs that Redis lost or whose worker died."""
    count = await ingest.sweep(ctx["sessions"], ctx["enqueue"], ctx["settings"])
    if count:
        log.info("sweeper re-enqueued %d jobs", count)
    return count


def build_worker(settings: Settings) -> Worker:
    """An arq Worker wired to our settings."""
    every = max(1, min(59, settings.sweep_interval_seconds))
    functions: list[Function] = [
        func(process_ingest_job, name=PROCESS_JOB, max_tries=settings.job_max_attempts + 1)
    ]
    return Worker(
        functions=functions,
        cron_jobs=[
            cron(sweep_outbox, second=set(range(0, 60, every)), run_at_startup=True, unique=True)
        ],
        redis_settings=redis_settings(settings.require_redis_url()),
        queue_name=settings.queue_name,
        ctx={"settings": settings},
        on_startup=startup,
        on_shutdown=shutdown,
        max_jobs=settings.worker_max_jobs,
        job_timeout=3600,
        keep_result=0,
        health_check_interval=10,
        handle_signals=True,
    )


def run_worker(settings: Settings) -> None:
    """Run the worker until SIGINT/SIGTERM."""
    logging.basicConfig(level=settings.log_level.upper(), format="%(asctime)s %(name)s %(message)s")
    build_worker(settings).run()
