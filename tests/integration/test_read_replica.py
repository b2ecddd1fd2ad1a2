"""Read replicas: context, search and export reads go to TESSERA_DATABASE_READ_URL; a read whose
``min_version`` the replica does not have yet goes to the primary.

No streaming replica runs here: the "replica" is a copy of the primary taken at one moment (a
replica that stopped replaying), which is what a lagging one looks like to a reader.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx
import psycopg
import pytest

from app.db import engine
from tests.conftest import _libpq, make_tenant

pytestmark = pytest.mark.integration

# Parents before children, so the copy's foreign keys hold row by row.
TABLES = (
    "tenant",
    "api_key",
    "passport",
    "passport_version",
    "memory",
    "ingest_job",
    "extraction_cache",
    "tenant_usage",
    "erasure_receipt",
)


def copy_database(source: str, target: str) -> None:
    """Every row of the primary's tables into the (migrated, empty) copy, as they are now."""
    with psycopg.connect(_libpq(source)) as src, psycopg.connect(_libpq(target)) as dst:
        for table in reversed(TABLES):
            dst.execute(f"DELETE FROM {table}")
        for table in TABLES:
            with (
                src.cursor().copy(f"COPY {table} TO STDOUT (FORMAT BINARY)") as out,
                dst.cursor().copy(f"COPY {table} FROM STDIN (FORMAT BINARY)") as into,
            ):
                for block in out:
                    into.write(block)
        dst.commit()


@pytest.fixture
async def replicated(settings, test_servers) -> AsyncIterator[tuple[Any, str]]:  # type: ignore[no-untyped-def]
    """An API whose reads go to a copy of the primary; the copy's URL."""
    from app.main import create_app

    copy_url = test_servers.create_database(f"tessera_replica_{uuid.uuid4().hex[:8]}")
    engine.upgrade(copy_url)
    own = settings.model_copy(update={"database_read_url": copy_url})
    application = create_app(own)
    async with application.router.lifespan_context(application):
        transport = httpx.ASGITransport(app=application)
        async with httpx.AsyncClient(transport=transport, base_url="http://replica.test") as api:
            yield api, copy_url


def session(n: int, word: str) -> dict[str, Any]:
    return {
        "subject": "Ana",
        "session_ts": f"2024-03-{n + 1:02d}T10:00:00Z",
        "turns": [{"id": f"u{n}", "speaker": "Ana", "text": f"I keep a {word} at home."}],
    }


async def test_reads_go_to_the_replica_and_min_version_to_the_primary(  # type: ignore[no-untyped-def]
    replicated, worker, settings
):
    api, copy_url = replicated
    t = await make_tenant(api, "replica")
    first = await api.post(
        "/users/ana/ingest?wait=20", json=session(0, "kettle"), headers=t.headers
    )
    assert first.json()["job"]["version_after"] == 1
    # The replica has everything up to here, then stops replaying.
    copy_database(settings.database_url, copy_url)
    second = await api.post(
        "/users/ana/ingest?wait=20", json=session(1, "tortoise"), headers=t.headers
    )
    version = second.json()["job"]["version_after"]
    assert version == 2

    # Without min_version: what the replica has (version 1, no tortoise).
    lagging = await api.get("/users/ana/context", params={"q": "tortoise"}, headers=t.headers)
    assert lagging.headers["X-Passport-Version"] == "1"
    assert (
        "tortoise" not in lagging.text
        and "kettle"
        in (await api.get("/users/ana/context", params={"q": "kettle"}, headers=t.headers)).text
    )
    found = await api.get("/users/ana/search", params={"q": "tortoise"}, headers=t.headers)
    assert found.json()["version"] == 1 and found.json()["items"] == []
    exported = await api.get("/users/ana/passport", headers=t.headers)
    assert exported.headers["ETag"] == '"1"' and "tortoise" not in exported.text

    # With the write's version: the replica does not have it, the primary answers.
    fresh = await api.get(
        "/users/ana/context", params={"q": "tortoise", "min_version": version}, headers=t.headers
    )
    assert fresh.status_code == 200 and fresh.headers["X-Passport-Version"] == "2"
    assert "tortoise" in fresh.text
    hits = await api.get(
        "/users/ana/search", params={"q": "tortoise", "min_version": version}, headers=t.headers
    )
    assert hits.json()["version"] == 2 and hits.json()["items"]
    doc = await api.get("/users/ana/passport", params={"min_version": version}, headers=t.headers)
    assert doc.headers["ETag"] == '"2"' and "tortoise" in doc.text

    # Once the replica catches up, it serves the new version itself.
    copy_database(settings.database_url, copy_url)
    caught = await api.get("/users/ana/search", params={"q": "tortoise"}, headers=t.headers)
    assert caught.json()["version"] == 2 and caught.json()["items"]


async def test_a_user_the_replica_has_not_seen_yet_is_read_from_the_primary(  # type: ignore[no-untyped-def]
    replicated, worker, settings
):
    api, copy_url = replicated
    t = await make_tenant(api, "new-user")
    copy_database(settings.database_url, copy_url)  # the replica stops before the user exists
    made = await api.post("/users/bo/ingest?wait=20", json=session(0, "banjo"), headers=t.headers)
    version = made.json()["job"]["version_after"]

    fresh = await api.get(
        "/users/bo/context", params={"q": "banjo", "min_version": version}, headers=t.headers
    )
    assert fresh.status_code == 200 and "banjo" in fresh.text
    doc = await api.get("/users/bo/passport", params={"min_version": version}, headers=t.headers)
    assert doc.status_code == 200 and "banjo" in doc.text
    # Without a version to wait for, the replica answers for itself: no such user there yet.
    lagging = await api.get("/users/bo/context", params={"q": "banjo"}, headers=t.headers)
    assert lagging.status_code == 404
