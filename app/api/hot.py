"""The hottest reads served in front of FastAPI's middleware stack; all else goes through it.

On a warm context read, FastAPI's own layers (its telemetry check, its error, body-limit,
exception and exit-stack middlewares, the router, the per-request wrapper) cost about a tenth of
the API's CPU (`python -m bench.context_speed`, bench/README.md). `HotPath` matches a GET to a
`LeanRoute` (the context read) with the route's own matcher and runs the route's handler inside
the same request-id, access-log and metrics middleware (`RequestContext`), turning exceptions
into responses with the app's own handlers, as the full stack would: tests send the same
requests both ways and compare statuses, headers and bodies.

Everything else goes to the app: other routes and methods, a root path, and the hot routes too
while tracing is on (TESSERA_OTEL_ENABLED, or FastAPI's native telemetry), so no span is lost.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import FastAPI, Request, Response
from starlette._utils import is_async_callable
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.routing import Match
from starlette.types import ASGIApp, Receive, Scope, Send

from app.api.lean import LeanRoute
from app.api.request_id import RequestContext

Handler = Callable[[Request, Exception], Awaitable[Response] | Response]


class HotPath:
    """The ASGI app to serve: the app, its `LeanRoute` GETs taken straight to their handlers."""

    def __init__(self, app: FastAPI) -> None:
        self.app = app
        self.fallback: ASGIApp = app  # what serves every request the hot path does not
        self._routes = [
            (route, RequestContext(self._handler_app(route)))
            for route in app.router.routes
            if isinstance(route, LeanRoute)
        ]
        # FastAPI's native telemetry decides per request whether anything observes it.
        self._telemetry = getattr(app, "_native_telemetry", None)
        settings = getattr(app.state, "settings", None)
        self._never = bool(
            # Our OpenTelemetry tracing wraps the app's middleware stack: spans need the full path.
            (settings is not None and settings.otel_enabled)
            # A FastAPI with native telemetry this cannot ask about (a rename): spans come first.
            or (self._telemetry is None and _has_native_telemetry())
            or app.root_path
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "GET" and self._direct():
            for route, served in self._routes:
                match, child = route.matches(scope)
                if match is Match.FULL:
                    scope.update(child)
                    # What Starlette's app and router record on their way in.
                    scope["app"] = self.app
                    scope.setdefault("router", self.app.router)
                    await served(scope, receive, send)
                    return
        await self.fallback(scope, receive, send)

    def _direct(self) -> bool:
        if self._never:
            return False
        return self._telemetry is None or not self._telemetry.enabled()

    def _handler_app(self, route: LeanRoute) -> ASGIApp:
        handler = route.get_route_handler()

        async def serve(scope: Scope, receive: Receive, send: Send) -> None:
            request = Request(scope, receive, send)
            try:
                response = await handler(request)
            except Exception as exc:
                answer = self._handler_for(exc)
                if answer is None:
                    # As ServerErrorMiddleware does: the 500 answer, then the error goes on up
                    # to the server, which logs it.
                    await (await self._server_error(request, exc))(scope, receive, send)
                    raise
                response = await _call(answer, request, exc)
                # As Starlette does: a reused exception must not carry old tracebacks along.
                exc.__traceback__ = None
            await response(scope, receive, send)

        return serve

    def _handler_for(self, exc: Exception) -> Handler | None:
        """The app's handler for ``exc``, looked up as Starlette's ExceptionMiddleware does."""
        handlers: dict[Any, Handler] = self.app.exception_handlers
        if (
            isinstance(exc, HTTPException)
            and exc.status_code != 500
            and exc.status_code in handlers
        ):
            return handlers[exc.status_code]
        for cls in type(exc).__mro__:
            # 500 and Exception belong to the outermost error middleware (_server_error).
            if cls is not Exception and cls in handlers:
                return handlers[cls]
        return None

    async def _server_error(self, request: Request, exc: Exception) -> Response:
        handlers: dict[Any, Handler] = self.app.exception_handlers
        handler = handlers.get(500) or handlers.get(Exception)
        if handler is None:
            return Response("Internal Server Error", status_code=500, media_type="text/plain")
        return await _call(handler, request, exc)


def _has_native_telemetry() -> bool:
    return importlib.util.find_spec("fastapi.telemetry") is not None


async def _call(handler: Handler, request: Request, exc: Exception) -> Response:
    # An exception handler may be a plain function: Starlette runs those in its thread pool.
    if is_async_callable(handler):
        answer = await handler(request, exc)
    else:
        answer = await run_in_threadpool(handler, request, exc)
    assert isinstance(answer, Response)
    return answer
