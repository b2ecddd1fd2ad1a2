"""Authenticate before reading: a request with a body is refused before a byte of it is read.

FastAPI reads and parses a body before a route's dependencies run, so a request with a bad key
would cost the server the whole body (up to the import limit) before its 401. This middleware
checks the key from the headers alone for every request that may carry a body, and puts the
tenant it found on the request's state, where ``TenantKey`` takes it without a second lookup.
The admin routes are checked against the admin token the same way. A tenant's requests are
counted against its rate limit here too, before any route runs.
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
RATE = "tenant_requests_per_second; retry after the Retry-After header's seconds"


def bearer(headers: Iterable[tuple[bytes, bytes]]) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header, or None."""
    for name, value in headers:
        if name == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            return token.strip() or None if scheme.lower() == "bearer" else None
    return None


class AuthenticateFirst:
    """ASGI middleware: 401/403/429 problem+json from the headers, before the body is read.

    Every request that presents a tenant key is counted against the tenant's request rate
    here, so one check covers REST, MCP and the UI's calls alike. A request without a body
    and without a valid key passes on: its route decides (the docs need no key).
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in _OPEN:
            await self.app(scope, receive, send)
            return
        runtime: Runtime = scope["app"].state.runtime
        token = bearer(scope.get("headers", ()))
        with_body = scope["method"] not in _BODILESS
        if scope["path"].startswith("/admin"):
            refusal = _admin_refusal(runtime, token) if with_body else None
            if refusal is not None:
                await _refuse(send, *refusal, closing=True)
                return
        elif token is not None or with_body:
            refusal = await _tenant_refusal(runtime, token, scope)
            if refusal is not None and (with_body or refusal[0] == 429):
                await _refuse(send, *refusal, closing=with_body)
                return
        await self.app(scope, receive, send)


async def _tenant_refusal(
    runtime: Runtime, token: str | None, scope: Scope
) -> tuple[int, str, str] | None:
    """Why a tenant request is refused, or None with the tenant put on the request's state."""
    if token is None:
        return 401, "Unauthorized", NO_KEY
    tenant = await tenants.authenticate(runtime.uows, token, runtime.key_cache)
    if tenant is None:
        return 401, "Unauthorized", "unknown or revoked API key"
    scope.setdefault("state", {})[TENANT_STATE] = tenant
    if runtime.rate is not None and await runtime.rate.admit(tenant) is not None:
        limit = runtime.rate.per_second
        return 429, "Too many requests", f"more than {limit} requests this second: " + RATE
    return None


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


async def _refuse(send: Send, status: int, title: str, detail: str, *, closing: bool) -> None:
    problem = {"type": "about:blank", "title": title, "status": status, "detail": detail}
    if status == 429:
        problem["limit"] = "tenant_requests_per_second"
    body = orjson.dumps(problem)
    headers = [
        (b"content-type", b"application/problem+json"),
        (b"content-length", str(len(body)).encode()),
    ]
    if closing:  # the body was never read: the connection cannot carry another request
        headers.append((b"connection", b"close"))
    if status == 401:
        headers.append((b"www-authenticate", b"Bearer"))
    if status == 429:  # windows are one second long
        headers.append((b"retry-after", b"1"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
