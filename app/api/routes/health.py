"""Liveness and readiness probes."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable

from fastapi import APIRouter, Response

from app.api.bodies import BodyRoute
from app.api.deps import RuntimeDep
from app.api.problems import READY, problem_response
from app.api.schemas.health import Health
from app.services import health

router = APIRouter(route_class=BodyRoute, tags=["health"])


@router.get("/livez", name="live")
async def live() -> Health:
    """The process is up."""
    return Health(status="ok")


@router.get("/readyz", name="ready", response_model=Health, responses=READY)
async def ready(runtime: RuntimeDep) -> Response:
    """Postgres and Redis both answer; 503 otherwise."""
    checks = {
        "postgres": await _check(health.ping_database(runtime.uows)),
        "redis": await _check(health.ping_redis(runtime.redis)),
    }
    if all(v == "ok" for v in checks.values()):
        return Response(
            Health(status="ok", checks=checks).model_dump_json(), media_type="application/json"
        )
    failing = ", ".join(f"{k} ({v})" for k, v in checks.items() if v != "ok")
    return problem_response(503, "Not ready", f"not answering: {failing}")


async def _check(ping: Awaitable[None]) -> str:
    """ "ok", or what went wrong, within two seconds."""
    try:
        async with asyncio.timeout(2):
            await ping
    except Exception as exc:
        return f"error: {type(exc).__name__}"
    return "ok"
