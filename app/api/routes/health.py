"""Liveness and readiness probes."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Request, Response

from app.api.deps import UowsDep
from app.api.problems import READY, problem_response
from app.api.schemas.health import Health
from app.services import health

router = APIRouter(tags=["health"])


@router.get("/livez", name="live")
async def live() -> Health:
    """The process is up."""
    return Health(status="ok")


@router.get("/readyz", name="ready", response_model=Health, responses=READY)
async def ready(request: Request, uows: UowsDep) -> Response:
    """Postgres and Redis both answer; 503 otherwise."""
    state = request.app.state
    checks: dict[str, str] = {}
    try:
        async with asyncio.timeout(2):
            await health.ping_database(uows)
        checks["postgres"] = "ok"
    except Exception as exc:
        checks["postgres"] = f"error: {type(exc).__name__}"
    try:
        async with asyncio.timeout(2):
            await state.redis.ping()
        checks["redis"] = "ok"
    except Exception as exc:
        checks["redis"] = f"error: {type(exc).__name__}"
    if all(v == "ok" for v in checks.values()):
        return Response(
            Health(status="ok", checks=checks).model_dump_json(), media_type="application/json"
        )
    failing = ", ".join(f"{k} ({v})" for k, v in checks.items() if v != "ok")
    return problem_response(503, "Not ready", f"not answering: {failing}")
