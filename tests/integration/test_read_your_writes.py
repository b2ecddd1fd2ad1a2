"""Reads that see your writes: ?min_version waits for the version a write reported, or says
how far behind this process is."""

from __future__ import annotations

import time

import pytest

pytestmark = pytest.mark.integration

SESSION = {
    "subject": "Ana",
    "session_ts": "2024-03-01T10:00:00Z",
    "turns": [
        {"id": "a1", "speaker": "Ana", "text": "My sister keeps bees in Evora."},
        {"id": "b1", "speaker": "Bo", "text": "Bees! How many hives?"},
    ],
}


async def test_a_read_with_min_version_waits_for_the_write(client, worker, tenant):  # type: ignore[no-untyped-def]
    h = tenant.headers
    queued = await client.post("/users/ana/ingest", json=SESSION, headers=h)
    assert queued.status_code == 202, queued.text
    # The job's version is 1 (the first write of a new user): every read asks for it.
    got = await client.get(
        "/users/ana/context",
        params={"q": "bees", "format": "json", "min_version": 1},
        headers=h,
    )
    assert got.status_code == 200, got.text
    assert int(got.headers["X-Passport-Version"]) >= 1 and got.json()["version"] >= 1
    assert "Evora" in got.text
    found = await client.get(
        "/users/ana/search", params={"q": "hives", "min_version": 1}, headers=h
    )
    assert found.status_code == 200 and found.json()["version"] >= 1
    doc = await client.get("/users/ana/passport", params={"min_version": 1}, headers=h)
    assert doc.status_code == 200 and int(doc.headers["ETag"].strip('"')) >= 1


async def test_a_version_not_written_in_time_is_a_409_saying_how_far_behind(client, worker, tenant):  # type: ignore[no-untyped-def]
    h = tenant.headers
    done = await client.post("/users/bo/ingest?wait=20", json=SESSION, headers=h)
    assert done.json()["job"]["version_after"] == 1
    started = time.monotonic()
    ahead = await client.get("/users/bo/context", params={"min_version": 3}, headers=h)
    waited = time.monotonic() - started
    assert ahead.status_code == 409
    assert ahead.headers["content-type"] == "application/problem+json"
    assert ahead.headers["Retry-After"] == "1"
    problem = ahead.json()
    assert (problem["version"], problem["min_version"]) == (1, 3)
    assert "2 behind" in problem["detail"]
    assert waited >= 1.0  # it waited (TESSERA_MIN_VERSION_WAIT_SECONDS in the test settings)
    for path in ("/users/bo/search?q=bees&min_version=3", "/users/bo/passport?min_version=3"):
        assert (await client.get(path, headers=h)).status_code == 409, path
    # A version it has is served at once; an unknown user is still a 404.
    now = await client.get("/users/bo/context", params={"min_version": 1}, headers=h)
    assert now.status_code == 200
    missing = await client.get("/users/nobody/context", params={"min_version": 1}, headers=h)
    assert missing.status_code == 404
