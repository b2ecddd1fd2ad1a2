"""The warm read path: one session-free version query, no ORM session, dead connections dropped."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from app.api.app import create_app
from app.db.engine import create_engine
from app.db.reads import DatabaseUnavailable, HotReads
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


async def test_stamp_is_tenant_scoped_and_none_for_unknown_users(client, settings):
    a, b = await make_tenant(client, "hot-a"), await make_tenant(client, "hot-b")
    put = await client.put("/users/ana/passport", json=PASSPORT, headers=a.headers)
    assert put.status_code == 201
    engine = create_engine(settings.database_url)
    reads = HotReads(engine, pool_size=1)
    try:
        stamp = await reads.passport_stamp(uuid.UUID(a.id), "ana")
        assert stamp is not None and stamp.version == put.json()["version"]
        assert await reads.passport_stamp(uuid.UUID(b.id), "ana") is None
        assert await reads.passport_stamp(uuid.UUID(a.id), "nobody") is None
    finally:
        await reads.close()
        await engine.dispose()


def _backend_pids(settings: Any, application_name: str = "") -> list[int]:
    import psycopg

    with psycopg.connect(_libpq(settings.database_url), autocommit=True) as admin:
        rows = admin.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
            " AND pid <> pg_backend_pid() AND query LIKE %s",
            ("%FROM passport WHERE tenant_id%",),
        ).fetchall()
    return [r[0] for r in rows]


async def test_a_dead_connection_fails_at_most_one_read(client, settings):
    import psycopg

    a = await make_tenant(client, "hot-dead")
    put = await client.put("/users/ana/passport", json=PASSPORT, headers=a.headers)
    version, tenant_id = put.json()["version"], uuid.UUID(a.id)
    engine = create_engine(settings.database_url)
    reads = HotReads(engine, pool_size=1)
    try:
        assert (await reads.passport_stamp(tenant_id, "ana")).version == version
        pids = _backend_pids(settings)  # the pool's one connection ran the stamp query last
        assert pids
        with psycopg.connect(_libpq(settings.database_url), autocommit=True) as admin:
            for pid in pids:
                admin.execute("SELECT pg_terminate_backend(%s, 5000)", (pid,))
        with pytest.raises(DatabaseUnavailable):
            await reads.passport_stamp(tenant_id, "ana")
        assert (await reads.passport_stamp(tenant_id, "ana")).version == version
    finally:
        await reads.close()
        await engine.dispose()


async def test_no_more_connections_than_the_pool_size_and_none_leak(client, settings):
    a = await make_tenant(client, "hot-many")
    await client.put("/users/ana/passport", json=PASSPORT, headers=a.headers)
    engine = create_engine(settings.database_url)
    reads = HotReads(engine, pool_size=2)
    pool = reads._pool
    tenant_id = uuid.UUID(a.id)
    try:
        stamps = await asyncio.gather(*(reads.passport_stamp(tenant_id, "ana") for _ in range(50)))
        assert {s.version for s in stamps if s} == {1} and len(stamps) == 50
        assert pool.open_connections == 2
        # Requests cancelled while waiting for (or holding) a connection give it back.
        tasks = [asyncio.ensure_future(reads.passport_stamp(tenant_id, "ana")) for _ in range(20)]
        await asyncio.sleep(0)
        for task in tasks[::2]:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        assert pool.open_connections <= 2
        assert (await reads.passport_stamp(tenant_id, "ana")).version == 1
    finally:
        await reads.close()
        await engine.dispose()


async def test_an_unreachable_database_is_a_503_problem(settings):
    from app.settings import Settings

    port = _free_port()
    down = Settings(
        **{**settings.model_dump(), "database_url": f"postgresql://x@127.0.0.1:{port}/x"}
    )
    application = create_app(down)
    async with application.router.lifespan_context(application):
        from app.domain.apikeys import format_key, hash_key

        # A key the cache already trusts: the read goes straight to the version query.
        token = format_key("abcdefgh", "s" * 32)
        application.state.key_cache.put(hash_key(token), uuid.uuid4(), "abcdefgh")
        transport = httpx.ASGITransport(app=application)
        async with httpx.AsyncClient(transport=transport, base_url="http://t.test") as c:
            resp = await c.get("/users/ana/context", headers={"Authorization": f"Bearer {token}"})
    assert resp.status_code == 503
    assert resp.headers["content-type"] == "application/problem+json"
    assert resp.headers["retry-after"]
    assert "Traceback" not in resp.text


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


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
