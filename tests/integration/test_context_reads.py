"""The context read as users see it: statuses, headers, errors, and one query when warm."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest
from sqlalchemy import event

from app.main import create_app
from app.services import reading as context_service
from tests.conftest import _libpq, make_tenant
from tests.integration.test_context_api import PASSPORT

pytestmark = pytest.mark.integration

CONTEXT = "/users/mel/context"


@pytest.fixture
async def mel(client, tenant):  # type: ignore[no-untyped-def]
    resp = await client.put("/users/mel/passport", json=PASSPORT, headers=tenant.headers)
    assert resp.status_code == 201
    return tenant


@pytest.mark.parametrize(
    ("url", "status"),
    [
        (f"{CONTEXT}?q=camping", 200),
        (f"{CONTEXT}?q=camping&format=json&budget_chars=800", 200),
        (f"{CONTEXT}?q=Lisbon+trip&since=2023-06&until=2023-12", 200),
        (f"{CONTEXT}?q=caf%C3%A9%20%E2%82%AC&q=race", 200),
        (f"{CONTEXT}", 200),
        (f"{CONTEXT}?budget_chars=10", 422),
        (f"{CONTEXT}?budget_chars=lots&format=xml", 422),
        (f"{CONTEXT}?since=last%20tuesday", 422),
        (f"{CONTEXT}?q={'x' * 2001}", 422),
        ("/users/nobody/context?q=camping", 404),
        ("/users/a%01b/context", 422),
    ],
)
async def test_statuses_and_headers(client, mel, url: str, status: int) -> None:  # type: ignore[no-untyped-def]
    resp = await client.get(url, headers=mel.headers)
    assert resp.status_code == status, resp.text
    assert resp.headers["x-request-id"]
    if status == 200:
        assert resp.headers["etag"].startswith('"')
        assert resp.headers["x-passport-version"] == "1"
    else:
        assert resp.headers["content-type"] == "application/problem+json"
        assert resp.json()["status"] == status and resp.json()["detail"]


async def test_keys_and_etag_lists(client, mel) -> None:  # type: ignore[no-untyped-def]
    for headers in ({}, {"Authorization": "Bearer tsk_nope"}, {"Authorization": "Basic abc"}):
        resp = await client.get(CONTEXT, headers=headers)
        assert resp.status_code == 401
        assert resp.headers["www-authenticate"] == "Bearer"
    first = await client.get(f"{CONTEXT}?q=camping", headers=mel.headers)
    etag = first.headers["etag"]
    again = await client.get(
        f"{CONTEXT}?q=camping", headers={**mel.headers, "If-None-Match": f'"other", {etag}'}
    )
    assert (again.status_code, again.content) == (304, b"")
    assert again.headers["etag"] == etag and again.headers["x-passport-version"] == "1"


async def test_an_unexpected_error_is_a_500_without_internals(settings, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    def broken(*_: object) -> None:
        raise RuntimeError("a bug with a secret")

    monkeypatch.setattr(context_service, "render", broken)
    application = create_app(settings)
    async with application.router.lifespan_context(application):
        transport = httpx.ASGITransport(app=application, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://t.test") as c:
            t = await make_tenant(c, "ctx-500")
            await c.put("/users/mel/passport", json=PASSPORT, headers=t.headers)
            resp = await c.get(f"{CONTEXT}?q=a", headers=t.headers)
    assert resp.status_code == 500
    assert resp.headers["content-type"] == "application/problem+json"
    assert resp.headers["x-request-id"]
    assert "secret" not in resp.text and "Traceback" not in resp.text


async def test_an_unreachable_database_is_a_503_problem(settings):  # type: ignore[no-untyped-def]
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
        application.state.runtime.key_cache.put(hash_key(token), uuid.uuid4(), "abcdefgh")
        transport = httpx.ASGITransport(app=application)
        async with httpx.AsyncClient(transport=transport, base_url="http://t.test") as c:
            resp = await c.get("/users/ana/context", headers={"Authorization": f"Bearer {token}"})
    assert resp.status_code == 503
    assert resp.headers["content-type"] == "application/problem+json"
    assert int(resp.headers["retry-after"]) > 0
    assert "retry shortly" in resp.text and "Traceback" not in resp.text


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_a_warm_read_is_one_statement_and_a_dead_connection_fails_one_read(settings):  # type: ignore[no-untyped-def]
    import psycopg

    application = create_app(settings)
    async with application.router.lifespan_context(application):
        statements: list[str] = []
        backends: list[int] = []  # this app's connections, and no other test's

        def record(conn: Any, cursor: Any, statement: str, *_: Any) -> None:
            statements.append(statement)

        def opened(dbapi_connection: Any, _: Any) -> None:
            backends.append(dbapi_connection.driver_connection.get_server_pid())

        sync_engine = application.state.runtime.engine.sync_engine
        event.listen(sync_engine, "before_cursor_execute", record)
        event.listen(sync_engine, "connect", opened)
        transport = httpx.ASGITransport(app=application)
        async with httpx.AsyncClient(transport=transport, base_url="http://t.test") as c:
            t = await make_tenant(c, "ctx-warm")
            put = await c.put("/users/ana/passport", json=PASSPORT, headers=t.headers)
            assert put.status_code == 201
            cold = await c.get("/users/ana/context", params={"q": "Lisbon"}, headers=t.headers)
            assert cold.status_code == 200 and "Lisbon" in cold.text
            statements.clear()
            warm = await c.get("/users/ana/context", params={"q": "race"}, headers=t.headers)
            assert warm.status_code == 200 and "race" in warm.text
            # The key is cached, so is the index: only the passport's version and creation.
            assert len(statements) == 1 and "FROM passport" in statements[0], statements
            # A server that drops the pool's connections costs at most one read a 503.
            assert backends
            with psycopg.connect(_libpq(settings.database_url), autocommit=True) as admin:
                for pid in backends:
                    admin.execute("SELECT pg_terminate_backend(%s, 5000)", (pid,))
            answers = [
                (await c.get("/users/ana/context", params={"q": q}, headers=t.headers)).status_code
                for q in ("race", "Lisbon", "camping")
            ]
    assert answers in ([200, 200, 200], [503, 200, 200]), answers


async def test_concurrent_reads_wait_for_the_pool_rather_than_open_more(settings):  # type: ignore[no-untyped-def]
    import asyncio

    application = create_app(settings.model_copy(update={"db_pool_size": 2}))
    async with application.router.lifespan_context(application):
        opened: list[object] = []
        sync_engine = application.state.runtime.engine.sync_engine
        event.listen(sync_engine, "connect", lambda conn, _: opened.append(conn))
        transport = httpx.ASGITransport(app=application)
        async with httpx.AsyncClient(transport=transport, base_url="http://t.test") as c:
            t = await make_tenant(c, "ctx-pool")
            await c.put("/users/ana/passport", json=PASSPORT, headers=t.headers)
            answers = await asyncio.gather(
                *(
                    c.get("/users/ana/context", params={"q": f"race {i}"}, headers=t.headers)
                    for i in range(40)
                )
            )
    assert [a.status_code for a in answers] == [200] * 40
    # The process's one pool, never more: Postgres sees at most TESSERA_DB_POOL_SIZE of them.
    assert 1 <= len(opened) <= 2


async def test_a_user_too_big_for_the_cache_is_indexed_from_the_newest_rows_and_kept(
    client, tenant, app
):  # type: ignore[no-untyped-def]
    from app.services.cache import ContextCaches

    turns = [
        {"id": f"m{i}", "speaker": "Ana", "text": f"entry {i} " + "words " * 80} for i in range(300)
    ]
    doc = {"turns": turns}
    put = await client.put("/users/big/passport", json=doc, headers=tenant.headers)
    assert put.status_code == 201, put.text
    runtime = app.state.runtime
    # Room for about a third of this user's index.
    caches = ContextCaches.of_size(500_000)
    index, _ = await context_service.index_for(
        runtime.read_uows, caches, uuid.UUID(tenant.id), "big"
    )
    held = len(index.evidence)
    assert 0 < held < len(turns)
    assert index.evidence.texts[held - 1].startswith("entry 299 ")  # the newest are there
    # It is kept: the next read is served from the cache, not indexed again.
    again, _ = await context_service.index_for(
        runtime.read_uows, caches, uuid.UUID(tenant.id), "big"
    )
    assert again is index
