"""/mcp: the API key checked as REST checks it, then the SDK's Streamable HTTP transport."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from starlette.requests import Request
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from app.api.deps import get_tenant
from app.mcp.server import TENANT, build_server
from app.settings import Settings

PATH = "/mcp"


class Endpoint:
    """The ASGI app of /mcp: the key's tenant on the request, then the SDK's transport."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one MCP request for the tenant whose key it carries; 401 without one."""
        request = Request(scope, receive)
        # The REST dependency itself: same keys, same cache, same 401 (raised here, before any
        # byte is sent, it reaches the app's problem+json handler like a route's error).
        setattr(request.state, TENANT, await get_tenant(request))
        await request.app.state.mcp.session_manager.handle_request(scope, receive, send)


def mount(app: FastAPI) -> None:
    """Serve MCP at /mcp (POST for messages; GET and DELETE as the transport answers them)."""
    # Outside the OpenAPI spec, which describes the REST API only.
    route = Route(PATH, Endpoint(), methods=["GET", "POST", "DELETE"], include_in_schema=False)
    app.router.routes.append(route)


@asynccontextmanager
async def serving(app: FastAPI, settings: Settings) -> AsyncIterator[None]:
    """Run the MCP server's session manager for as long as the app runs (in its lifespan)."""
    # Built here, not with the app: a session manager runs once, and an app's lifespan may run
    # more than once (tests start one per app they build).
    app.state.mcp = build_server(settings)
    started, stop = asyncio.Event(), asyncio.Event()

    async def run() -> None:
        async with app.state.mcp.session_manager.run():
            started.set()
            await stop.wait()

    # The manager's task group lives in a task of its own: an anyio task group must be left in
    # the task that entered it, and whoever drives the lifespan (a test fixture, say) may start
    # and stop it from different tasks.
    runner = asyncio.create_task(run(), name="mcp-session-manager")
    ready = asyncio.create_task(started.wait())
    await asyncio.wait({runner, ready}, return_when=asyncio.FIRST_COMPLETED)
    if runner.done():
        ready.cancel()
        runner.result()  # it failed to start: raise why
    try:
        yield
    finally:
        stop.set()
        await runner
