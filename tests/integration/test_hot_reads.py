"""The warm read path: one session-free version query, no ORM session, dead connections dropped."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from sqlalchemy import text

from app.api.app import create_app
from app.db.engine import create_engine
from app.db.reads import HotReads
from tests.conftest import _libpq, make_tenant

pytestmark = pytest.mark.integration

PASSPORT = {
    "version": "2.1",
    "facts": [{"key": "location", "value": "Lisbon", "ts": "2024-02-01T00:00:00Z"}],
    "observations": [
        {"text": "Ana moved to Lisbon for a new job.", "when": "2024-01-20", "source": "s1"}
    ],
    "sources": [{"id": "s1", "kind": "chat", "hash": "sha256:a", "turn_ids": ["t1"]}],
}


async def test_version_is_tenant_scoped_and_none_for_unknown_users(client, settings):
    a, b = await make_tenant(client, "hot-a"), await make_tenant(client, "hot-b")
    put = await client.put("/users/ana/passport", json=PASSPORT, headers=a.headers)
    assert put.status_code == 201
    engine = create_engine(settings.database_url, pool_size=1)
    reads = HotReads(engine)
    try:
        assert await reads.passport_version(uuid.UUID(a.id), "ana") == put.json()["version"]
        assert await reads.passport_version(uuid.UUID(b.id), "ana") is None
        assert await reads.passport_version(uuid.UUID(a.id), "nobody") is None
    finally:
        await engine.dispose()


async def test_a_dead_connection_fails_at_most_one_read(client, settings):
    import psycopg

    a = await make_tenant(client, "hot-dead")
    put = await client.put("/users/ana/passport", json=PASSPORT, headers=a.headers)
    version, tenant_id = put.json()["version"], uuid.UUID(a.id)
    engine = create_engine(settings.database_url, pool_size=1)
    reads = HotReads(engine)
    try:
        assert await reads.passport_version(tenant_id, "ana") == version
        async with engine.connect() as conn:  # the pool's one connection, the reads' too
            pid = (await conn.execute(text("SELECT pg_backend_pid()"))).scalar_one()
        with psycopg.connect(_libpq(settings.database_url), autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s, 5000)", (pid,))
        with pytest.raises(Exception):  # noqa: B017 - whatever the driver calls a lost server
            await reads.passport_version(tenant_id, "ana")
        assert await reads.passport_version(tenant_id, "ana") == version
    finally:
        await engine.dispose()


def _counting(factory: Callable[[], Any], name: str, opened: list[str]) -> Callable[[], Any]:
    def make() -> Any:
        opened.append(name)
        return factory()

    return make


async def test_a_warm_context_read_opens_no_session(settings):
    application = create_app(settings)
    async with application.router.lifespan_context(application):
        state = application.state
        opened: list[str] = []
        state.sessions = _counting(state.sessions, "sessions", opened)
        state.read_sessions = _counting(state.read_sessions, "read_sessions", opened)
        transport = httpx.ASGITransport(app=application)
        async with httpx.AsyncClient(transport=transport, base_url="http://t.test") as c:
            t = await make_tenant(c, "hot-warm")
            put = await c.put("/users/ana/passport", json=PASSPORT, headers=t.headers)
            assert put.status_code == 201
            cold = await c.get("/users/ana/context", params={"q": "Lisbon"}, headers=t.headers)
            assert cold.status_code == 200 and "Lisbon" in cold.text
            assert "read_sessions" in opened  # the first read builds the index
            opened.clear()
            for q in ("Lisbon", "job", "Lisbon"):
                warm = await c.get("/users/ana/context", params={"q": q}, headers=t.headers)
                assert warm.status_code == 200
            same = await c.get(
                "/users/ana/context",
                params={"q": "Lisbon"},
                headers={**t.headers, "If-None-Match": cold.headers["etag"]},
            )
            assert same.status_code == 304
            passport = await c.get(
                "/users/ana/passport",
                headers={**t.headers, "If-None-Match": put.headers["etag"]},
            )
            assert passport.status_code == 304
            assert opened == []  # key cache, one driver-level query, cached index and bodies
            missing = await c.get("/users/nobody/context", headers=t.headers)
            assert missing.status_code == 404
            assert missing.headers["content-type"] == "application/problem+json"
