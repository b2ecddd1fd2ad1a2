"""Refuse request bodies over the limit before they are read whole."""

from __future__ import annotations

import orjson
from starlette.types import ASGIApp, Message, Receive, Scope, Send


class BodySizeLimit:
    """ASGI middleware: 413 problem+json from Content-Length, or as soon as streaming passes it."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        framed = scope.get("http_version") in ("1.0", "1.1")
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared, framed = 0, False
                if declared > self.max_bytes:
                    await self._reject(send)
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
                if seen > self.max_bytes and not started:
                    # Answer now and tell the app the client is gone; whatever it sends later
                    # is dropped (frameworks may swallow exceptions raised from receive).
                    rejected = True
                    await self._reject(send)
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

    async def _reject(self, send: Send) -> None:
        body = orjson.dumps(
            {
                "type": "about:blank",
                "title": "Content too large",
                "status": 413,
                "detail": f"the request body exceeds the limit of {self.max_bytes} bytes",
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
