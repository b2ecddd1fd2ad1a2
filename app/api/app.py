"""The REST API: its routes, problem+json, middleware and spec, on a lifespan it is given.

``app.main.create_app`` builds it, mounts MCP and the inspector beside it, and gives it the
lifespan that opens the process's runtime.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

from fastapi import FastAPI

from app.api.auth import AuthenticateFirst
from app.api.limits import BodySizeLimit
from app.api.metrics import install_metrics
from app.api.naming import operation_id
from app.api.problems import add_problem_schema, install_handlers
from app.api.request_id import RequestContext
from app.api.routes import admin, health, ingest, reading, usage, users
from app.settings import Settings

Lifespan = Callable[[FastAPI], AbstractAsyncContextManager[None]]


def build_api(settings: Settings, lifespan: Lifespan | None = None) -> FastAPI:
    """The REST app; nothing connects until its lifespan runs."""
    app = FastAPI(
        title="Tessera",
        version="0.1.0",
        summary="Memory for LLM agents: a JSON passport per user, BM25 context, durable ingest.",
        lifespan=lifespan,
        generate_unique_id_function=operation_id,
    )
    install_handlers(app)
    # Routes are matched in this order: the probes, then the reads agents make most.
    app.include_router(health.router)
    app.include_router(reading.router)
    app.include_router(users.router)
    app.include_router(ingest.router)
    app.include_router(usage.router)
    app.include_router(admin.router)
    return app


def install_middleware(app: FastAPI, settings: Settings) -> None:
    """Body limits, metrics, request ids and (when enabled) tracing, around every route."""
    imports = ("PUT", re.compile(r"/users/[^/]+/passport"), settings.max_import_bytes)
    app.add_middleware(BodySizeLimit, max_bytes=settings.max_body_bytes, larger=[imports])
    # Added after the body-size limit, so it runs first: a bad key costs no byte of the body.
    app.add_middleware(AuthenticateFirst)
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
