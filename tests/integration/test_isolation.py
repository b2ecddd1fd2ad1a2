"""Tenant isolation: tenant B can never see or touch tenant A's users."""

from __future__ import annotations

import uuid

import pytest

from tests.conftest import make_tenant, without_witness
from tests.integration.test_passport_api import SOZO_FILE

pytestmark = pytest.mark.integration


# Every route of the spec that names a user or a job, and how another tenant's call to it on
# tenant A's user ends: 404, or (for writes) a user of its own under the same key.
READS_AND_DELETES = {
    ("GET", "/users/{key}/passport"): "/users/alice/passport",
    ("GET", "/users/{key}/context"): "/users/alice/context?q=Lisbon",
    ("GET", "/users/{key}/search"): "/users/alice/search?q=Lisbon",
    ("GET", "/users/{key}/versions"): "/users/alice/versions",
    ("GET", "/users/{key}/versions/{version}"): "/users/alice/versions/1",
    ("GET", "/users/{key}/jobs"): "/users/alice/jobs",
    ("GET", "/users/{key}/integrity"): "/users/alice/integrity",
    ("GET", "/users/{key}/receipts/{receipt_id}"): f"/users/alice/receipts/{uuid.uuid4()}",
    ("DELETE", "/users/{key}"): "/users/alice",
    ("DELETE", "/users/{key}/turns/{turn_id}"): "/users/alice/turns/a1",
    ("DELETE", "/users/{key}/sources/{source_id}"): "/users/alice/sources/seg_1",
    ("DELETE", "/users/{key}/sessions/{session}"): "/users/alice/sessions/s1",
    ("GET", "/users/{key}/turns"): "/users/alice/turns",
    ("GET", "/users/{key}/turns/{turn_id}"): "/users/alice/turns/a1",
    ("GET", "/users/{key}/sessions"): "/users/alice/sessions",
    ("POST", "/users/{key}/reprocess"): "/users/alice/reprocess",
    ("POST", "/users/{key}/compact"): "/users/alice/compact",
}
# Writes under tenant A's user key by tenant B: B's own user, never A's.
OWN_WRITES = {
    ("PUT", "/users/{key}/passport"),
    ("POST", "/users/{key}/facts"),
    ("POST", "/users/{key}/ingest"),
    ("POST", "/users/{key}/import"),
    ("POST", "/users/{key}/plan"),
}
JOB_ROUTES = {("GET", "/jobs/{job_id}"), ("POST", "/jobs/{job_id}/retry")}


def scoped_routes(app) -> set[tuple[str, str]]:  # type: ignore[no-untyped-def]
    """(method, path) of every route of the spec that names a user or a job."""
    return {
        (method.upper(), path)
        for path, operations in app.openapi()["paths"].items()
        if "{key}" in path or "{job_id}" in path
        for method in operations
    }


async def test_every_route_that_names_a_user_or_a_job_is_in_the_table(app):  # type: ignore[no-untyped-def]
    table = set(READS_AND_DELETES) | OWN_WRITES | JOB_ROUTES
    assert scoped_routes(app) == table


async def test_every_user_route_is_404_for_another_tenant(client, app):
    a = await make_tenant(client, "A")
    b = await make_tenant(client, "B")
    assert (
        await client.put("/users/alice/passport", json=SOZO_FILE, headers=a.headers)
    ).status_code == 201
    ingest = {"turns": [{"speaker": "alice", "text": "I moved to Lisbon."}]}
    for (method, _), path in READS_AND_DELETES.items():
        resp = await client.request(method, path, headers=b.headers)
        assert resp.status_code == 404, (method, path, resp.status_code)
    # Writes by B under the same user key create B's own user, never touch A's.
    await client.put(
        "/users/alice/passport", json={"version": "2.1", "facts": []}, headers=b.headers
    )
    await client.post(
        "/users/alice/facts", json={"facts": [{"key": "x", "value": 1}]}, headers=b.headers
    )
    assert (await client.post("/users/alice/plan", json=ingest, headers=b.headers)).is_success
    imported = [{"memory": "Moved to Lisbon", "created_at": "2024-03-20"}]
    assert (await client.post("/users/alice/import", json=imported, headers=b.headers)).is_success
    job = await client.post("/users/alice/ingest", json=ingest, headers=b.headers)
    job_id = job.json()["job_id"]
    assert (await client.get(f"/jobs/{job_id}", headers=a.headers)).status_code == 404
    assert (await client.post(f"/jobs/{job_id}/retry", headers=a.headers)).status_code == 404
    mine = await client.get("/users/alice/passport", headers=a.headers)
    assert without_witness(mine.json()) == SOZO_FILE


async def test_listing_shows_only_own_users(client):
    a = await make_tenant(client, "A2")
    b = await make_tenant(client, "B2")
    await client.put("/users/only-a/passport", json=SOZO_FILE, headers=a.headers)
    listed = (await client.get("/users", headers=b.headers)).json()
    assert listed["items"] == []
    listed_a = (await client.get("/users", headers=a.headers)).json()
    assert [u["user_key"] for u in listed_a["items"]] == ["only-a"]


async def test_users_page_on_and_a_cursor_no_key_could_be_is_refused(client):
    a = await make_tenant(client, "A3")
    for key in ("ann", "bob", "cy"):
        await client.put(f"/users/{key}/passport", json=SOZO_FILE, headers=a.headers)
    first = (await client.get("/users?limit=2", headers=a.headers)).json()
    assert [u["user_key"] for u in first["items"]] == ["ann", "bob"]
    cursor = first["next_cursor"]
    rest = (await client.get("/users", params={"cursor": cursor}, headers=a.headers)).json()
    assert [u["user_key"] for u in rest["items"]] == ["cy"]
    # A NUL or another control character is in no user key: refused, never sent to Postgres.
    for bad in ("a\x00b", "\x1f", " lead"):
        resp = await client.get("/users", params={"cursor": bad}, headers=a.headers)
        assert resp.status_code == 422, (bad, resp.text)
        assert resp.headers["content-type"].startswith("application/problem+json")
