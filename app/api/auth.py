"""Authenticate before reading: a request with a body is refused before a byte of it is read.

FastAPI reads and parses a body before a route's dependencies run, so a request with a bad key
would cost the server the whole body (up to the import limit) before its 401. This middleware
checks the key from the headers alone for every request that may carry a body, and puts the
tenant it found on the request's state, where ``TenantKey`` takes it without a second lookup.
The admin routes are checked against the admin token the same way.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable

import orjson
from starlette.types import ASGIApp, Receive, Scope, Send

from app.runtime import Runtime
from app.services import tenants

# What the state of a request authenticated here holds, under this name.
TENANT_STATE = "tenant_id"
_BODILESS = frozenset({"GET", "HEAD", "OPTIONS"})
# Paths anyone may send to; nothing with a body lives there.
_OPEN = ("/livez", "/readyz")
NO_KEY = "send the key as 'Authorization: Bearer <key>'"


def bearer(headers: Iterable[tuple[bytes, bytes]]) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header, or None."""
    for name, value in headers:
        if name == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            return token.strip() or None if scheme.lower() == "bearer" else None
    return None


class AuthenticateFirst:
    """ASGI middleware: 401/403 problem+json from the headers, before the body is read."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in _BODILESS or scope["path"] in _OPEN:
            await self.app(scope, receive, send)
            return
        runtime: Runtime = scope["app"].state.runtime
        token = bearer(scope.get("headers", ()))
        if scope["path"].startswith("/admin"):
            refusal = _admin_refusal(runtime, token)
            if refusal is not None:
                await _refuse(send, *refusal)
                return
        else:
            if token is None:
                await _refuse(send, 401, "Unauthorized", NO_KEY)
                return
            tenant = await tenants.authenticate(runtime.uows, token, runtime.key_cache)
            if tenant is None:
                await _refuse(send, 401, "Unauthorized", "unknown or revoked API key")
                return
            scope.setdefault("state", {})[TENANT_STATE] = tenant
        await self.app(scope, receive, send)


def _admin_refusal(runtime: Runtime, token: str | None) -> tuple[int, str, str] | None:
    admin = runtime.settings.admin_token
    if admin is None:
        detail = "the admin API is disabled: set TESSERA_ADMIN_TOKEN to enable it"
        return 403, "Forbidden", detail
    if token is None:
        return 401, "Unauthorized", NO_KEY
    if not hmac.compare_digest(token.encode(), admin.get_secret_value().encode()):
        return 401, "Unauthorized", "invalid admin token"
    return None


async def _refuse(send: Send, status: int, title: str, detail: str) -> None:
    body = orjson.dumps({"type": "about:blank", "title": title, "status": status, "detail": detail})
    headers = [
        (b"content-type", b"application/problem+json"),
        (b"content-length", str(len(body)).encode()),
        # The body was never read: the connection cannot carry another request after it.
        (b"connection", b"close"),
    ]
    if status == 401:
        headers.append((b"www-authenticate", b"Bearer"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
