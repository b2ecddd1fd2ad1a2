"""GET /users/{key}/versions/{version}: what one version changed, item by item."""

from __future__ import annotations

import pytest

from tests.conftest import make_tenant

pytestmark = pytest.mark.integration

HARARE = {"key": "location", "value": "Harare", "ts": "2023-01-01T00:00:00Z"}
KWEKWE = {"key": "location", "value": "Kwekwe", "ts": "2024-02-01T00:00:00Z"}
RACE = {"text": "Melanie ran a charity race.", "when": "2023-05-20", "ts": "2023-05-21T00:00:00Z"}
DOC = {
    "version": "2.1",
    "user_key": "mel",
    "facts": [HARARE, {"key": "job", "value": "nurse", "ts": "2023-01-01T00:00:00Z"}],
    "observations": [RACE],
}


async def test_each_version_lists_what_it_added_and_removed(client, tenant):
    h = tenant.headers
    assert (await client.put("/users/mel/passport", json=DOC, headers=h)).status_code == 201
    moved = await client.post("/users/mel/facts", json={"facts": [KWEKWE]}, headers=h)
    assert moved.status_code == 200 and moved.json()["version"] == 2

    created = (await client.get("/users/mel/versions/0", headers=h)).json()
    imported = (await client.get("/users/mel/versions/1", headers=h)).json()
    changed = (await client.get("/users/mel/versions/2", headers=h)).json()

    assert created["version"] == 0 and created["items"] == {}
    assert imported["cause"] == "import"
    assert imported["items"]["facts"] == {"added": DOC["facts"], "removed": []}
    # Log rows (an observation) come beside the head's beliefs, in the same shape.
    assert imported["items"]["observations"]["added"] == [RACE]
    assert changed["cause"] == "facts"
    facts = changed["items"]["facts"]
    assert [f["value"] for f in facts["added"]] == ["Kwekwe"]
    assert [f["value"] for f in facts["removed"]] == ["Harare"]
    (contradiction,) = changed["items"]["contradictions"]["added"]
    assert (contradiction["old"], contradiction["new"]) == ("Harare", "Kwekwe")
    # The counts of the listing come along, whole.
    listed = (await client.get("/users/mel/versions", headers=h)).json()["items"]
    assert changed["changes"] == listed[0]["changes"]


async def test_limit_caps_each_list_and_the_counts_stay_whole(client, tenant):
    h = tenant.headers
    await client.put("/users/mel/passport", json=DOC, headers=h)
    found = (await client.get("/users/mel/versions/1?limit=1", headers=h)).json()
    assert found["items"]["facts"]["added"] == [HARARE]
    assert found["changes"]["facts"] == {"added": 2, "removed": 0}


async def test_unknown_versions_users_and_other_tenants_are_404(client, tenant):
    h = tenant.headers
    await client.put("/users/mel/passport", json=DOC, headers=h)
    later = await client.get("/users/mel/versions/7", headers=h)
    assert later.status_code == 404
    assert later.json()["detail"] == "user 'mel' has no version 7 (current: 1)"
    assert (await client.get("/users/nobody/versions/0", headers=h)).status_code == 404
    other = await make_tenant(client, "other")
    theirs = await client.get("/users/mel/versions/1", headers=other.headers)
    assert theirs.status_code == 404 and theirs.json()["detail"] == "no user 'mel'"
    assert (await client.get("/users/mel/versions/-1", headers=h)).status_code == 422
