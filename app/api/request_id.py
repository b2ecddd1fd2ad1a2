"""Request ids, the access log and request metrics: one middleware, one pass per request."""

from __future__ import annotations

import itertools
import os
import re
import secrets
import time

import structlog
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api.metrics import observe, route_label

HEADER = "X-Request-ID"
MAX_LENGTH = 128
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")

access_log = structlog.stdlib.get_logger("tessera.access")


class _RequestIds:
    """Unique ids without a system call each: a random prefix per process, then a counter."""

    def __init__(self) -> None:
        self._restart()
        # A forked worker must not repeat its parent's ids.
        os.register_at_fork(after_in_child=self._restart)

    def _restart(self) -> None:
        self._prefix = secrets.token_hex(8)
        self._counter = itertools.count(1)

    def next(self) -> str:
        """32 hex characters, like a UUID's, unique across processes and restarts."""
        return f"{self._prefix}{next(self._counter):016x}"


_new_id = _RequestIds()


def clean_request_id(raw: str | None) -> str | None:
    """The client's request id reduced to at most 128 of [A-Za-z0-9._-]; None if nothing is left."""
    if not raw:
        return None
    # Sanitised, not refused: the client keeps its correlation id, and nothing it sends can
    # forge a log field or a response header.
    cleaned = _UNSAFE.sub("", raw)[:MAX_LENGTH]
    return cleaned or None


def _incoming(scope: Scope) -> str | None:
    for name, value in scope.get("headers", []):
        if name == b"x-request-id":
            return clean_request_id(value.decode("latin-1"))
    return None


def _route(scope: Scope) -> str | None:
    # The router records the matched route in the scope; a path that matched nothing (or a
    # request refused before routing) has none, and the raw path is not logged in its place.
    route = scope.get("route")
    path = getattr(route, "path", None)
    return path if isinstance(path, str) else None


class RequestContext:
    """ASGI middleware: X-Request-ID in and out, bound to the logs, an access line, the timing."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = _incoming(scope) or _new_id.next()
        # For the error handlers that answer outside this middleware (unhandled exceptions).
        scope.setdefault("state", {})["request_id"] = request_id
        # Cleared rather than reset afterwards, so the handler that logs an unhandled exception
        # (which runs after this returns) still sees the id. Each server request runs in its own
        # task and context, so nothing leaks into the next request.
        structlog.contextvars.clear_contextvars()
        structlog.contextvars.bind_contextvars(request_id=request_id)
        started = time.perf_counter()
        status = 500

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                MutableHeaders(scope=message)[HEADER] = request_id
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            elapsed = time.perf_counter() - started
            method = scope["method"]
            # One place times every request (413s included), so no second middleware re-matches
            # the route to label it.
            observe(method, route_label(scope), status, elapsed)
            # Method, route template, status and time only: never headers, query or body.
            access_log.info(
                "request",
                method=method,
                route=_route(scope),
                status=status,
                duration_ms=round(elapsed * 1000, 2),
            )
