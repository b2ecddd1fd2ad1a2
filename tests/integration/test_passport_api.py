"""Passport endpoints over HTTP on a real Postgres and Redis."""

from __future__ import annotations

import json

import pytest

from tests.conftest import ADMIN, make_tenant, without_witness

pytestmark = pytest.mark.integration

SOZO_FILE = {
    "version": "2.1",
    "updated_at": "2024-03-01T10:00:00Z",
    "user_key": "u_123",
    "facts": [
        {
            "key": "location",
            "value": "Kwekwe",
            "ts": "2024-02-01T00:00:00Z",
            "confidence": 0.95,
            "source": "seg_a1b2",
        }
    ],
    "prefs": [
        {
            "key": "tone",
            "value": "direct",
            "ts": "2024-02-01T00:00:00Z",
            "confidence": 0.9,
            "source": "seg_a1b2",
        }
    ],
    "entities": [{"name": "SozoGraph", "type": "project", "aliases": ["Sozo Graph"]}],
    "open_loops": [{"item": "Book the flight", "ts": "2024-02-01T00:00:00Z", "source": "seg_a1b2"}],
    "contradictions": [
        {
            "key": "location",
            "old": "Harare",
            "new": "Kwekwe",
            "ts_old": "2023-01-01T00:00:00Z",
            "ts_new": "2024-02-01T00:00:00Z",
            "source_old": "seg_9f",
            "source_new": "seg_a1b2",
        }
    ],
    "observations": [
        {
            "text": "Melanie ran a charity race.",
            "when": "2023-05-20",
            "ts": "2023-05-21T00:00:00Z",
            "source": "seg_a1b2",
            "participants": ["Melanie"],
        }
    ],
    "episodes": [
        {
            "id": "seg_a1b2",
            "ts": "2024-02-01T00:00:00Z",
            "summary": "Melanie moved to Kwekwe for a new job.",
            "salience": 0.8,
            "source": "seg_a1b2",
            "participants": ["Melanie"],
            "keywords": ["kwekwe", "job"],
        }
    ],
    "sources": [
        {
            "id": "seg_a1b2",
            "kind": "chat",
            "ts": "2024-02-01T00:00:00Z",
            "hash": "sha256:" + "ab" * 32,
        }
    ],
    "meta": {"dedupe": {}, "sozograph": {"exported_by": "0.9.1"}},
    "x_future_section": [{"anything": True}],
}


def canonical(doc: dict) -> bytes:
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


async def test_put_then_get_returns_the_same_document(client, tenant):
    resp = await client.put("/users/u_123/passport", json=SOZO_FILE, headers=tenant.headers)
    assert resp.status_code == 201, resp.text
    assert resp.json()["version"] == 1
    got = await client.get("/users/u_123/passport", headers=tenant.headers)
    assert got.status_code == 200
    assert without_witness(got.json()) == SOZO_FILE
    assert got.content == canonical({**SOZO_FILE, "witness": got.json()["witness"]})
    assert got.headers["etag"] == '"1"'


async def test_etag_and_if_none_match(client, tenant):
    await client.put("/users/e1/passport", json=SOZO_FILE, headers=tenant.headers)
    first = await client.get("/users/e1/passport", headers=tenant.headers)
    etag = first.headers["etag"]
    again = await client.get(
        "/users/e1/passport", headers={**tenant.headers, "If-None-Match": etag}
    )
    assert again.status_code == 304
    assert again.content == b""
    stale = await client.get(
        "/users/e1/passport", headers={**tenant.headers, "If-None-Match": '"0"'}
    )
    assert stale.status_code == 200


async def test_if_match_guards_replacement(client, tenant):
    await client.put("/users/m1/passport", json=SOZO_FILE, headers=tenant.headers)
    changed = {**SOZO_FILE, "prefs": []}
    wrong = await client.put(
        "/users/m1/passport", json=changed, headers={**tenant.headers, "If-Match": '"7"'}
    )
    assert wrong.status_code == 412
    assert wrong.headers["content-type"] == "application/problem+json"
    right = await client.put(
        "/users/m1/passport", json=changed, headers={**tenant.headers, "If-Match": '"1"'}
    )
    assert right.status_code == 200
    assert right.json()["version"] == 2
    assert right.headers["etag"] == '"2"'
    old = await client.get("/users/m1/passport?version=1", headers=tenant.headers)
    assert without_witness(old.json()) == SOZO_FILE
    versions = await client.get("/users/m1/versions", headers=tenant.headers)
    assert [v["version"] for v in versions.json()["items"]] == [2, 1, 0]
    assert versions.json()["items"][0]["cause"] == "import"


async def test_version_one_zero_passport_is_migrated(client, tenant):
    legacy = {"version": "1.0", "user_key": "old", "facts": {"city": "Harare"}, "prefs": []}
    resp = await client.put("/users/old/passport", json=legacy, headers=tenant.headers)
    assert resp.status_code == 201
    doc = (await client.get("/users/old/passport", headers=tenant.headers)).json()
    assert doc["version"] == "2.1"
    assert doc["episodes"] == [] and doc["observations"] == []
    assert doc["facts"] == [{"key": "city", "value": "Harare"}]


async def test_delete_removes_everything_and_second_delete_is_404(client, tenant):
    await client.put("/users/gone/passport", json=SOZO_FILE, headers=tenant.headers)
    gone = await client.delete("/users/gone", headers=tenant.headers)
    assert gone.status_code == 200 and gone.json()["scope"] == "user"
    assert (await client.get("/users/gone/passport", headers=tenant.headers)).status_code == 404
    assert (await client.get("/users/gone/versions", headers=tenant.headers)).status_code == 404
    second = await client.delete("/users/gone", headers=tenant.headers)
    assert second.status_code == 404
    assert second.json()["status"] == 404


async def test_unknown_user_is_404(client, tenant):
    resp = await client.get("/users/nobody/passport", headers=tenant.headers)
    assert resp.status_code == 404
    assert resp.headers["content-type"] == "application/problem+json"


async def test_users_are_listed_with_a_cursor(client):
    t = await make_tenant(client, "lister")
    for i in range(5):
        await client.put(f"/users/user-{i}/passport", json=SOZO_FILE, headers=t.headers)
    seen: list[str] = []
    cursor = None
    while True:
        params = {"limit": 2, **({"cursor": cursor} if cursor else {})}
        page = (await client.get("/users", params=params, headers=t.headers)).json()
        seen += [item["user_key"] for item in page["items"]]
        assert all(item["version"] == 1 for item in page["items"])
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == [f"user-{i}" for i in range(5)]


async def test_revoked_key_gets_401(client):
    t = await make_tenant(client, "revoker")
    assert (await client.get("/users", headers=t.headers)).status_code == 200
    prefix = t.key.split("_")[1]
    assert (await client.delete(f"/admin/keys/{prefix}", headers=ADMIN)).status_code == 204
    resp = await client.get("/users", headers=t.headers)
    assert resp.status_code == 401
    assert resp.headers["www-authenticate"] == "Bearer"


async def test_second_key_works_and_keys_are_stored_hashed(client, settings):
    t = await make_tenant(client, "keys")
    resp = await client.post(f"/admin/tenants/{t.id}/keys", json={"name": "ci"}, headers=ADMIN)
    assert resp.status_code == 201
    key = resp.json()["key"]
    assert key.startswith("tsr_")
    assert (
        await client.get("/users", headers={"Authorization": f"Bearer {key}"})
    ).status_code == 200

    import psycopg

    from tests.conftest import _libpq

    with psycopg.connect(_libpq(settings.database_url)) as conn:
        rows = conn.execute("SELECT key_sha256, prefix FROM api_key").fetchall()
    stored = " ".join(f"{h} {p}" for h, p in rows)
    assert key not in stored and key.split("_")[2] not in stored


async def test_tenant_key_never_reaches_admin(client, tenant):
    resp = await client.post("/admin/tenants", json={"name": "x"}, headers=tenant.headers)
    assert resp.status_code == 401
    assert (await client.get("/admin/tenants")).status_code == 401


async def test_probes(client):
    assert (await client.get("/livez")).json()["status"] == "ok"
    ready = await client.get("/readyz")
    assert ready.status_code == 200
    assert ready.json()["checks"] == {"postgres": "ok", "redis": "ok"}
