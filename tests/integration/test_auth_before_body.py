"""A request with a bad key is refused before its body is read, on every route that takes one."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from starlette.routing import Route

pytestmark = pytest.mark.integration

BODY_METHODS = ("POST", "PUT", "PATCH", "DELETE")
CHUNK = 16 * 1024
BODY = 4 * 1024 * 1024  # more than any limit but the import's
MOST_READ = 64 * 1024


def body_routes(app: Any) -> list[tuple[str, str]]:
    """(method, a concrete path) of every route that takes a body: the spec's, and MCP's."""
    found = [
        (method.upper(), _concrete(path))
        for path, operations in app.openapi()["paths"].items()
        for method in operations
        if method.upper() in BODY_METHODS
    ]
    # Outside the spec, which describes the REST API: MCP takes its messages by POST.
    found += [
        (method, route.path)
        for route in app.routes
        if isinstance(route, Route) and route.path == "/mcp"
        for method in sorted((route.methods or set()) & set(BODY_METHODS))
    ]
    return found


def _concrete(path: str) -> str:
    for name, value in (
        ("key", "ana"),
        ("turn_id", "m1"),
        ("job_id", "00000000-0000-0000-0000-000000000001"),
        ("source_id", "seg_1"),
        ("session", "chat-1"),
        ("tenant_id", "00000000-0000-0000-0000-000000000002"),
        ("prefix", "abc"),
        ("version", "1"),
    ):
        path = path.replace("{" + name + "}", value)
    assert "{" not in path, path
    return path


async def pulled_for(app: Any, method: str, path: str, authorization: bytes) -> tuple[int, int]:
    """(status, bytes the app pulled from ``receive``) for a big body with this Authorization."""
    sent = 0
    status = 0

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if sent >= BODY:
            return {"type": "http.disconnect"}
        sent += CHUNK
        return {"type": "http.request", "body": b"x" * CHUNK, "more_body": sent < BODY}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [
            (b"host", b"tessera.test"),
            (b"content-type", b"application/json"),
            (b"transfer-encoding", b"chunked"),
            (b"authorization", authorization),
        ],
        "client": ("127.0.0.1", 5000),
        "server": ("tessera.test", 80),
    }
    await app(scope, receive, send)
    return status, sent


async def test_a_bad_key_costs_no_body_on_any_route_that_takes_one(app):  # type: ignore[no-untyped-def]
    routes = body_routes(app)
    # The routes agents write through, the admin API and MCP are all there.
    paths = {p for _, p in routes}
    assert {"/users/ana/ingest", "/users/ana/passport", "/mcp"} <= paths
    assert any(p.startswith("/admin") for p in paths)
    for method, path in routes:
        for authorization in (b"Bearer nope", b"Bearer tsr_nobodyhere_" + b"x" * 40, b"Basic a"):
            status, pulled = await pulled_for(app, method, path, authorization)
            assert status in (401, 403), (method, path, status)
            assert pulled < MOST_READ, (method, path, authorization, pulled)


async def test_a_refusal_before_the_body_is_problem_json(client):  # type: ignore[no-untyped-def]
    reply = await client.put(
        "/users/x/passport", content=b"{" * 100_000, headers={"Authorization": "Bearer nope"}
    )
    assert reply.status_code == 401
    assert reply.headers["content-type"] == "application/problem+json"
    assert reply.headers["www-authenticate"] == "Bearer"
    assert orjson.loads(reply.content)["detail"] == "unknown or revoked API key"
    admin = await client.post(
        "/admin/tenants", json={"name": "x"}, headers={"Authorization": "Bearer no"}
    )
    assert admin.status_code == 401 and admin.json()["detail"] == "invalid admin token"
