"""Tenant isolation: tenant B can never see or touch tenant A's users."""

from __future__ import annotations

import pytest

from tests.conftest import make_tenant
from tests.integration.test_passport_api import SOZO_FILE

pytestmark = pytest.mark.integration


async def test_every_user_route_is_404_for_another_tenant(client, app):
    a = await make_tenant(client, "A")
    b = await make_tenant(client, "B")
    assert (
        await client.put("/users/alice/passport", json=SOZO_FILE, headers=a.headers)
    ).status_code == 201
    ingest = {"turns": [{"speaker": "alice", "text": "I moved to Lisbon."}]}
    calls = {
        ("GET", "/users/alice/passport"): None,
        ("PUT", "/users/alice/passport"): None,  # handled below: would create B's own user
        ("DELETE", "/users/alice"): None,
        ("GET", "/users/alice/versions"): None,
        ("GET", "/users/alice/jobs"): None,
        ("GET", "/users/alice/passport?version=1"): None,
        ("GET", "/users/alice/context?q=Lisbon"): None,
        ("GET", "/users/alice/search?q=Lisbon"): None,
        ("POST", "/users/alice/reprocess"): None,
        ("POST", "/users/alice/compact"): None,
    }
    for method, path in calls:
        if method == "PUT":
            continue
        resp = await client.request(method, path, headers=b.headers)
        assert resp.status_code == 404, (method, path, resp.status_code)
    # Writes by B under the same user key create B's own user, never touch A's.
    await client.put(
        "/users/alice/passport", json={"version": "2.1", "facts": []}, headers=b.headers
    )
    await client.post(
        "/users/alice/facts", json={"facts": [{"key": "x", "value": 1}]}, headers=b.headers
    )
    job = await client.post("/users/alice/ingest", json=ingest, headers=b.headers)
    job_id = job.json()["job_id"]
    assert (await client.get(f"/jobs/{job_id}", headers=a.headers)).status_code == 404
    assert (await client.post(f"/jobs/{job_id}/retry", headers=a.headers)).status_code == 404
    mine = await client.get("/users/alice/passport", headers=a.headers)
    assert mine.json() == SOZO_FILE
    # Every route of the app that takes a user key was tried above.
    user_routes = {
        (m, r.path)
        for r in app.routes
        if "{key}" in getattr(r, "path", "")
        for m in getattr(r, "methods", ())
    }
    tried = {
        ("GET", "/users/{key}/passport"),
        ("PUT", "/users/{key}/passport"),
        ("DELETE", "/users/{key}"),
        ("GET", "/users/{key}/versions"),
        ("GET", "/users/{key}/jobs"),
        ("POST", "/users/{key}/facts"),
        ("POST", "/users/{key}/ingest"),
        ("POST", "/users/{key}/plan"),
        ("GET", "/users/{key}/context"),
        ("GET", "/users/{key}/search"),
        ("POST", "/users/{key}/reprocess"),
        ("POST", "/users/{key}/compact"),
    }
    assert user_routes <= tried, user_routes - tried


async def test_listing_shows_only_own_users(client):
    a = await make_tenant(client, "A2")
    b = await make_tenant(client, "B2")
    await client.put("/users/only-a/passport", json=SOZO_FILE, headers=a.headers)
    listed = (await client.get("/users", headers=b.headers)).json()
    assert listed["items"] == []
    listed_a = (await client.get("/users", headers=a.headers)).json()
    assert [u["user_key"] for u in listed_a["items"]] == ["only-a"]
