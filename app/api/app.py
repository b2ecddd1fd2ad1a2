"""The FastAPI application factory."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI

from app.api.limits import BodySizeLimit
from app.api.metrics import install_metrics
from app.api.naming import operation_id
from app.api.problems import add_problem_schema, install_handlers
from app.api.request_id import RequestContext
from app.api.routes import admin, context, health, ingest, usage, users
from app.db.engine import create_engine, read_session_factory, session_factory
from app.db.queue import enqueuer, open_pool
from app.db.signals import JobSignals
from app.db.uow import uow_factory
from app.mcp import endpoint as mcp
from app.services.cache import KeyCache, ResultLRU
from app.services.context import IndexCache, IndexRefresher
from app.settings import Settings
from app.startup import startup_frozen
from app.ui import routes as ui


def create_app(settings: Settings) -> FastAPI:
    """Build the app; connections open in the lifespan, not at import."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # No overflow: past the pool, a request waits for a connection. An overflow connection
        # is closed as soon as it is given back, so under steady concurrency above the pool
        # every read would open (and Postgres fork) a connection of its own.
        engine = create_engine(
            settings.require_database_url(), pool_size=settings.db_pool_size, max_overflow=0
        )
        redis = await open_pool(settings.require_redis_url())
        app.state.engine = engine
        app.state.sessions = session_factory(engine)
        # Autocommit sessions on the same pool: a read is one statement, no BEGIN/ROLLBACK.
        app.state.read_sessions = read_session_factory(engine)
        app.state.read_uows = uow_factory(app.state.read_sessions)
        app.state.redis = redis
        app.state.enqueue = enqueuer(redis, settings.queue_name)
        # What every use case runs in: the app's sessions, jobs enqueued after commit.
        app.state.uows = uow_factory(app.state.sessions, app.state.enqueue)
        # ?wait wakes when a worker commits the job's end, instead of polling for it; and the
        # index of the user it wrote catches up before the next read asks.
        refresher = IndexRefresher(app.state.read_uows, app.state.context_cache)
        app.state.job_signals = JobSignals(settings.require_database_url(), refresher.note)
        await app.state.job_signals.start()
        refresher.start()
        try:
            # Started: what startup built stays out of the garbage collector's full passes.
            async with mcp.serving(app):
                with startup_frozen():
                    yield
        finally:
            await refresher.stop()
            await app.state.job_signals.stop()
            await redis.aclose()
            await engine.dispose()

    app = FastAPI(
        title="Tessera",
        version="0.1.0",
        summary="Memory for LLM agents: a JSON passport per user, BM25 context, durable ingest.",
        lifespan=lifespan,
        generate_unique_id_function=operation_id,
    )
    app.state.settings = settings
    app.state.key_cache = KeyCache(settings.auth_cache_seconds)
    app.state.context_cache = IndexCache(settings.context_cache_bytes)
    app.state.context_results = ResultLRU(settings.context_cache_bytes // 8)
    install_handlers(app)
    # Routes are matched in this order: the probes, then the reads agents make most.
    app.include_router(health.router)
    app.include_router(context.router)
    app.include_router(users.router)
    app.include_router(ingest.router)
    app.include_router(usage.router)
    app.include_router(admin.router)
    mcp.mount(app)
    ui.mount(app)
    imports = ("PUT", re.compile(r"/users/[^/]+/passport"), settings.max_import_bytes)
    app.add_middleware(BodySizeLimit, max_bytes=settings.max_body_bytes, larger=[imports])
    install_metrics(app)
    # Added after the body-size limit, so it wraps it: its 413s are timed and carry the id.
    app.add_middleware(RequestContext)
    if settings.otel_enabled:
        from app.api.tracing import install_tracing

        install_tracing(app)
    build_spec = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = add_problem_schema(build_spec())
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    return app
