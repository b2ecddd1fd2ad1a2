"""The stored index: a process that starts reads a user from stored segments, not the whole log,
and answers as a warm process does; forgets and deletions take the segments with them."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import psycopg
import pytest
from sqlalchemy import event

from app.domain.context.segment_checks import segment_digest
from app.domain.context.segments import decode, encode
from app.services.stored_index import FANOUT
from tests.conftest import _libpq

pytestmark = pytest.mark.integration

QUESTIONS = ("Which dog did I adopt?", "what port does the build server use", "coverage", None)


def session(n: int) -> dict[str, Any]:
    day = f"2024-04-{n % 28 + 1:02d}T09:00:00Z"
    return {
        "subject": "Kim",
        "session_ts": day,
        "turns": [
            {
                "id": f"u{n}",
                "role": "user",
                "speaker": "Kim",
                "text": f"Note {n}: the build server now listens on port {8000 + n}.",
            },
            {
                "id": f"a{n}",
                "role": "assistant",
                "speaker": "assistant",
                "text": f"Noted, port {8000 + n}. Coverage of the billing module was {60 + n}%.",
            },
        ],
    }


@asynccontextmanager
async def api_starter(settings: Any) -> AsyncIterator[Any]:
    """Start API processes on ``settings``, each with its own empty caches, as a restart does;
    every one is stopped when the block ends."""
    from app.main import create_app

    lifespans: list[Any] = []

    async def start() -> tuple[httpx.AsyncClient, Any]:
        application = create_app(settings)
        lifespan = application.router.lifespan_context(application)
        await lifespan.__aenter__()
        lifespans.append(lifespan)
        transport = httpx.ASGITransport(app=application)
        return httpx.AsyncClient(transport=transport, base_url="http://fresh.test"), application

    try:
        yield start
    finally:
        for lifespan in reversed(lifespans):
            await lifespan.__aexit__(None, None, None)


@pytest.fixture
async def fresh(settings) -> AsyncIterator[Any]:  # type: ignore[no-untyped-def]
    """Start a new API process on the same databases, as a restart does."""
    async with api_starter(settings) as start:
        yield start


def segments(database_url: str, user_key: str) -> list[tuple[int, int, int, bytes]]:
    with psycopg.connect(_libpq(database_url)) as db:
        return [
            (r[0], r[1], r[2], bytes(r[3]))
            for r in db.execute(
                "SELECT from_version, to_version, records, body FROM index_segment"
                " WHERE user_key = %s ORDER BY to_version",
                (user_key,),
            )
        ]


def whole_log_reads(application: Any) -> list[str]:
    """Statements that stream a user's whole log, as a cold build does (recorded from now)."""
    seen: list[str] = []

    def record(conn, cursor, statement, *args) -> None:  # type: ignore[no-untyped-def]
        if "FROM memory" in statement and "ORDER BY memory.id DESC" in statement:
            seen.append(statement)

    event.listen(application.state.runtime.engine.sync_engine, "before_cursor_execute", record)
    return seen


async def contexts(api: httpx.AsyncClient, user: str, headers: dict[str, str]) -> list[str]:
    out = []
    for q in QUESTIONS:
        params = {"budget_chars": 1500, **({"q": q} if q else {})}
        resp = await api.get(f"/users/{user}/context", params=params, headers=headers)
        assert resp.status_code == 200, resp.text
        out.append(resp.text)
    return out


async def write(api: httpx.AsyncClient, user: str, n: int, headers: dict[str, str]) -> int:
    done = await api.post(f"/users/{user}/ingest?wait=30", json=session(n), headers=headers)
    assert done.status_code == 200, done.text
    return int(done.json()["job"]["version_after"])


async def test_a_started_process_reads_the_stored_index_and_answers_as_a_warm_one(  # type: ignore[no-untyped-def]
    client, worker, tenant, fresh, database_url
):
    h = tenant.headers
    await write(client, "kim", 0, h)
    assert segments(database_url, "kim") == []  # no base yet: nothing stored by the write
    await contexts(client, "kim", h)  # the first read builds from the log and stores a base
    base = segments(database_url, "kim")
    assert [(s[0], s[1]) for s in base] == [(0, 1)]
    writes = 2 * FANOUT + 3
    for n in range(1, writes + 1):
        version = await write(client, "kim", n, h)
    stored = segments(database_url, "kim")
    # Every write is in a segment, chained from the base; merging keeps them few.
    assert stored[0][0] == 0 and stored[-1][1] == version
    assert all(a[1] == b[0] for a, b in itertools.pairwise(stored))
    assert len(stored) < FANOUT
    warm = await contexts(client, "kim", h)
    started, application = await fresh()
    cold_builds = whole_log_reads(application)
    assert await contexts(started, "kim", h) == warm
    assert cold_builds == []
    # It grows by what is written next, as the warm one does.
    await write(client, "kim", writes + 1, h)
    assert await contexts(started, "kim", h) == await contexts(client, "kim", h)


async def test_a_damaged_segment_is_read_from_the_log_instead(  # type: ignore[no-untyped-def]
    client, worker, tenant, fresh, database_url
):
    h = tenant.headers
    await write(client, "lee", 0, h)
    await contexts(client, "lee", h)
    await write(client, "lee", 1, h)
    warm = await contexts(client, "lee", h)
    with psycopg.connect(_libpq(database_url)) as db:
        db.execute("UPDATE index_segment SET body = 'TSI-junk' WHERE user_key = 'lee'")
    started, application = await fresh()
    cold_builds = whole_log_reads(application)
    assert await contexts(started, "lee", h) == warm
    assert len(cold_builds) == 1


async def test_forget_and_delete_take_the_segments_and_say_so(  # type: ignore[no-untyped-def]
    client, worker, tenant, fresh, database_url
):
    h = tenant.headers
    await write(client, "max", 0, h)
    await contexts(client, "max", h)
    await write(client, "max", 1, h)
    held = len(segments(database_url, "max"))
    assert held == 2
    gone = await client.delete("/users/max/turns/u1", headers=h)
    assert gone.status_code == 200, gone.text
    assert gone.json()["receipt"]["removed"]["stored_index_segments"] == held
    assert segments(database_url, "max") == []
    # The next first read stores a base of the log as it is now, without the forgotten turn.
    await contexts(client, "max", h)
    rebuilt = segments(database_url, "max")
    assert len(rebuilt) == 1
    assert b"Note 1:" not in rebuilt[0][3] and b"Note 0:" in rebuilt[0][3]
    deleted = await client.delete("/users/max", headers=h)
    assert deleted.status_code == 200
    assert deleted.json()["removed"]["stored_index_segments"] == 1
    assert segments(database_url, "max") == []


async def test_a_process_that_held_a_user_indexes_it_again_after_a_forget_unasked(  # type: ignore[no-untyped-def]
    client, worker, tenant, fresh, database_url
):
    h = tenant.headers
    for n in range(3):
        await write(client, "ora", n, h)
        await contexts(client, "ora", h)  # this process holds ora's index, and a base is stored
    gone = await client.delete("/users/ora/turns/u1", headers=h)
    assert gone.status_code == 200, gone.text
    # No read comes; the process that served the forget held the user's index: it indexes the
    # log again and stores it, so the next read anywhere loads it instead of the whole log.
    for _ in range(100):
        stored = segments(database_url, "ora")
        if stored:
            break
        await asyncio.sleep(0.05)
    assert len(stored) == 1
    assert b"Note 1:" not in stored[0][3] and b"Note 2:" in stored[0][3]
    started, application = await fresh()
    cold_builds = whole_log_reads(application)
    assert await contexts(started, "ora", h) == await contexts(client, "ora", h)
    assert cold_builds == []
    assert "listens on port 8001" not in "".join(await contexts(started, "ora", h))


async def test_a_passport_without_meta_reads_after_a_forget_and_a_restart(  # type: ignore[no-untyped-def]
    client, tenant, fresh
):
    h = tenant.headers
    turns = [
        {"id": "t1", "speaker": "Nia", "text": "I keep bees."},
        {"id": "t2", "speaker": "Nia", "text": "I also keep goats."},
    ]
    doc = {"version": "2.1", "user_key": "nia", "turns": turns}
    assert (await client.put("/users/nia/passport", json=doc, headers=h)).status_code == 201
    started, _ = await fresh()
    resp = await started.get("/users/nia/context", params={"q": "bees"}, headers=h)
    assert resp.status_code == 200 and "I keep bees." in resp.text
    # A forget once wrote a head whose meta was null, which no read could load again.
    assert (await client.delete("/users/nia/turns/t2", headers=h)).status_code == 200
    for api in (client, started):
        resp = await api.get("/users/nia/context", params={"q": "keep"}, headers=h)
        assert resp.status_code == 200 and "goats" not in resp.text and "bees" in resp.text


def _retold(body: bytes) -> bytes:
    """A segment that reads well but tells its first record otherwise."""
    segment = decode(body)
    segment.texts["texts"][0] = "I was never in Gweru and never owned a bicycle."
    return encode(segment)


async def test_a_segment_edited_in_the_database_is_not_served_and_integrity_says_so(  # type: ignore[no-untyped-def]
    client, worker, tenant, fresh, database_url
):
    h = tenant.headers
    await write(client, "ria", 0, h)
    await contexts(client, "ria", h)  # stores a base
    await write(client, "ria", 1, h)
    warm = await contexts(client, "ria", h)
    clean = (await client.get("/users/ria/integrity", headers=h)).json()
    assert clean["valid"] is True and clean["index_segments"] >= 1, clean["reason"]
    with psycopg.connect(_libpq(database_url)) as db:
        (to_version, body) = db.execute(
            "SELECT to_version, body FROM index_segment WHERE user_key = 'ria'"
            " ORDER BY to_version LIMIT 1"
        ).fetchone()
        db.execute(
            "UPDATE index_segment SET body = %s WHERE user_key = 'ria' AND to_version = %s",
            (_retold(bytes(body)), to_version),
        )
    found = (await client.get("/users/ria/integrity", headers=h)).json()
    assert found["valid"] is False and "stored index segment" in found["reason"], found
    assert found["first_bad_version"] == to_version
    # A process that loads it finds the digest broken and builds from the log instead, then
    # stores what it built in its place.
    started, application = await fresh()
    cold_builds = whole_log_reads(application)
    assert await contexts(started, "ria", h) == warm
    assert len(cold_builds) == 1
    mended = (await client.get("/users/ria/integrity", headers=h)).json()
    assert mended["valid"] is True, mended["reason"]


async def test_integrity_finds_an_edited_segment_even_with_its_digest_recomputed(  # type: ignore[no-untyped-def]
    client, worker, tenant, database_url
):
    h = tenant.headers
    await write(client, "rob", 0, h)
    await contexts(client, "rob", h)
    await write(client, "rob", 1, h)
    with psycopg.connect(_libpq(database_url)) as db:
        rows = db.execute(
            "SELECT s.to_version, s.body, v.hash FROM index_segment s JOIN passport_version v"
            " ON v.tenant_id = s.tenant_id AND v.user_key = s.user_key"
            " AND v.version = s.to_version WHERE s.user_key = 'rob' ORDER BY s.to_version"
        ).fetchall()
        to_version, body, root = rows[0]
        forged = _retold(bytes(body))
        db.execute(
            "UPDATE index_segment SET body = %s, digest = %s"
            " WHERE user_key = 'rob' AND to_version = %s",
            (forged, segment_digest(root, forged), to_version),
        )
    found = (await client.get("/users/rob/integrity", headers=h)).json()
    assert found["valid"] is False, (found["index_segments"], found["reason"])
    assert "texts are not what the log says" in found["reason"], found
