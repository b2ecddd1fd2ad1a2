"""Refuse request bodies over the limit before they are read whole."""

from __future__ import annotations

import re
from collections.abc import Sequence

import orjson
from starlette.types import ASGIApp, Message, Receive, Scope, Send


class BodySizeLimit:
    """ASGI middleware: 413 problem+json from Content-Length, or as soon as streaming passes it.

    ``larger`` gives some routes (method, path pattern) a limit of their own: a passport import
    is a whole document, however long the history it holds.
    """

    def __init__(
        self,
        app: ASGIApp,
        max_bytes: int,
        larger: Sequence[tuple[str, re.Pattern[str], int]] = (),
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.larger = tuple(larger)

    def _limit(self, scope: Scope) -> int:
        method, path = scope.get("method"), scope.get("path", "")
        for wanted, pattern, limit in self.larger:
            if method == wanted and pattern.fullmatch(path):
                return limit
        return self.max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        max_bytes = self._limit(scope)
        framed = scope.get("http_version") in ("1.0", "1.1")
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared, framed = 0, False
                if declared > max_bytes:
                    await self._reject(send, max_bytes)
                    return
            elif name == b"transfer-encoding":
                framed = False
        if framed:
            # HTTP/1 without chunking: the server reads exactly Content-Length bytes (none without
            # it), already checked above, so most requests skip the counting wrappers.
            await self.app(scope, receive, send)
            return
        seen = 0
        started = False
        rejected = False

        async def limited_receive() -> Message:
            nonlocal seen, rejected
            if rejected:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > max_bytes and not started:
                    # Answer now and tell the app the client is gone; whatever it sends later
                    # is dropped (frameworks may swallow exceptions raised from receive).
                    rejected = True
                    await self._reject(send, max_bytes)
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if rejected:
                return
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        await self.app(scope, limited_receive, guarded_send)

    async def _reject(self, send: Send, max_bytes: int) -> None:
        body = orjson.dumps(
            {
                "type": "about:blank",
                "title": "Content too large",
                "status": 413,
                "detail": f"the request body exceeds the limit of {max_bytes} bytes",
            }
        )
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"application/problem+json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
