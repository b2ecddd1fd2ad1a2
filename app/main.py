"""The composition root: the HTTP app (REST, MCP at /mcp, the inspector at /ui) and the worker,
each on the one ``Runtime`` its process opens (``app.runtime``)."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from app.api.app import build_api, install_middleware
from app.logging import configure_logging
from app.mcp import endpoint as mcp
from app.runtime import api_runtime
from app.settings import Settings
from app.startup import startup_frozen
from app.ui import routes as ui


def create_app(settings: Settings) -> FastAPI:
    """The HTTP app; its runtime (databases, queue, caches) opens in its lifespan, not here."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with api_runtime(settings) as runtime, mcp.serving(app, settings):
            app.state.runtime = runtime
            # Started: what startup built stays out of the garbage collector's full passes.
            with startup_frozen():
                yield

    app = build_api(settings, lifespan)
    mcp.mount(app)
    ui.mount(app)
    install_middleware(app, settings)
    return app


def app_from_environment() -> FastAPI:
    """The HTTP app on settings read from the environment: what each of several API processes
    builds for itself (uvicorn imports it by name in every process it starts)."""
    settings = Settings()
    configure_logging(settings)
    return create_app(settings)


def api_processes(settings: Settings) -> int:
    """How many API processes ``tessera api`` runs: the setting, 0 meaning one per core."""
    return settings.api_workers or os.cpu_count() or 1


def run_api(settings: Settings, host: str, port: int, workers: int = 1) -> None:
    """Serve the HTTP app with uvicorn until SIGINT/SIGTERM, logging JSON; with ``workers`` > 1,
    that many processes share the port (each with its own caches, all on one database)."""
    import uvicorn

    configure_logging(settings)
    several = workers > 1
    uvicorn.run(
        "app.main:app_from_environment" if several else create_app(settings),
        factory=several,
        workers=workers if several else None,
        host=host,
        port=port,
        log_level=settings.log_level,
        proxy_headers=True,
        log_config=None,  # keep configure_logging's JSON handler
        access_log=False,  # the app logs one access line per request, with its request id
    )


def run_worker(settings: Settings) -> None:
    """Run an arq worker until SIGINT/SIGTERM (``workers.main``)."""
    from workers.main import run_worker as run

    run(settings)


def check_worker(settings: Settings) -> int:
    """0 when a worker of this queue is alive, else 1."""
    from workers.main import check_worker as check

    return check(settings)
