"""History you can prove: the chain verifies, tampering in Postgres is found where it happened,
a forget keeps the chain whole and returns a signed receipt that outlives the user, and a sealed
export that was edited is refused on import."""

from __future__ import annotations

import uuid
from typing import Any

import psycopg
import pytest

from app.db.models import Tenant
from app.domain.integrity.receipts import verify
from app.services import forget, integrity, passports
from tests.conftest import RECEIPT_SECRET, _libpq, make_tenant, quiet_jobs

pytestmark = pytest.mark.integration

WORDS = ["harbour", "violin", "glacier", "lantern", "orchard", "compass"]


def session(n: int) -> dict[str, Any]:
    """A short chat whose user turn names a different thing each time."""
    return {
        "subject": "Ana",
        "session_ts": f"2024-03-{n + 1:02d}T10:00:00Z",
        "turns": [
            {"id": f"u{n}", "speaker": "Ana", "text": f"I bought a {WORDS[n]} on day {n}."},
            {"id": f"b{n}", "speaker": "Bo", "text": f"A {WORDS[n]}? Show me."},
        ],
    }


async def history(client, headers: dict[str, str], user: str, sessions: int) -> None:  # type: ignore[no-untyped-def]
    for n in range(sessions):
        done = await client.post(f"/users/{user}/ingest?wait=20", json=session(n), headers=headers)
        assert done.json()["job"]["status"] == "done", done.text


async def check(client, headers: dict[str, str], user: str, **params: Any) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    got = await client.get(f"/users/{user}/integrity", params=params, headers=headers)
    assert got.status_code == 200, got.text
    return got.json()


def sql(database_url: str, statement: str, *args: Any) -> Any:
    with psycopg.connect(_libpq(database_url)) as conn:
        found = conn.execute(statement, args)
        rows = found.fetchall() if found.description else None
        conn.commit()
        return rows


async def test_the_chain_verifies_and_its_root_is_everywhere(client, worker, tenant):  # type: ignore[no-untyped-def]
    await history(client, tenant.headers, "ana", 3)
    found = await check(client, tenant.headers, "ana")
    assert found["valid"] is True and found["reason"] is None
    assert found["versions"] == 4 and found["rows"] > 0
    versions = (await client.get("/users/ana/versions", headers=tenant.headers)).json()["items"]
    assert versions[0]["hash"] == found["root"]
    assert len({v["hash"] for v in versions}) == len(versions)
    doc = await client.get("/users/ana/passport", headers=tenant.headers)
    assert doc.headers["X-Tessera-Root"] == found["root"]
    assert doc.json()["witness"]["root"] == found["root"]
    assert doc.json()["witness"]["version"] == 3
    old = await client.get("/users/ana/passport?version=1", headers=tenant.headers)
    assert old.headers["X-Tessera-Root"] == versions[-2]["hash"]
    tail = await check(client, tenant.headers, "ana", from_version=2)
    assert tail["valid"] and tail["versions"] == 2 and tail["from_version"] == 2
    kept = await client.get(
        f"/users/ana/integrity?root={versions[1]['hash']}", headers=tenant.headers
    )
    assert kept.json()["valid"] is True and kept.json()["root_version"] == 2
    # A root kept elsewhere that is none of the versions': the history is not the one kept.
    unknown = await client.get(f"/users/ana/integrity?root={'0' * 64}", headers=tenant.headers)
    assert unknown.json()["valid"] is False, unknown.text
    assert unknown.json()["root_version"] is None and "none of" in unknown.json()["reason"]


async def test_tampering_in_postgres_is_reported_at_its_version(client, worker, settings):  # type: ignore[no-untyped-def]
    t = await make_tenant(client, "tamper")
    await history(client, t.headers, "ana", 3)
    assert (await check(client, t.headers, "ana"))["valid"]
    url = settings.database_url
    # A stored turn edited behind the API's back.
    [(row_id, version)] = sql(
        url,
        "SELECT id, version_added FROM memory WHERE tenant_id = %s AND item->>'id' = 'u1'",
        uuid.UUID(t.id),
    )
    sql(
        url,
        "UPDATE memory SET item = jsonb_set(item, '{text}', '\"I bought nothing.\"') WHERE id = %s",
        row_id,
    )
    found = await check(client, t.headers, "ana")
    assert found["valid"] is False and found["first_bad_version"] == version
    assert "row it added" in found["reason"]
    # Put back, it verifies again; then a head delta, then a version row's cause.
    sql(
        url,
        "UPDATE memory SET item = jsonb_set(item, '{text}', to_jsonb(%s::text)) WHERE id = %s",
        f"I bought a {WORDS[1]} on day 1.",
        row_id,
    )
    assert (await check(client, t.headers, "ana"))["valid"]
    where = "tenant_id = %s AND user_key = 'ana' AND version = 2"
    [(delta,)] = sql(
        url, f"SELECT delta::text FROM passport_version WHERE {where}", uuid.UUID(t.id)
    )
    sql(
        url,
        f'UPDATE passport_version SET delta = delta || \'{{"x": ["kazoo"]}}\' WHERE {where}',
        uuid.UUID(t.id),
    )
    found = await check(client, t.headers, "ana")
    assert (found["valid"], found["first_bad_version"]) == (False, 2), found
    sql(url, f"UPDATE passport_version SET delta = %s::jsonb WHERE {where}", delta, uuid.UUID(t.id))
    assert (await check(client, t.headers, "ana"))["valid"]
    sql(url, f"UPDATE passport_version SET cause = 'import' WHERE {where}", uuid.UUID(t.id))
    found = await check(client, t.headers, "ana")
    assert (found["valid"], found["first_bad_version"]) == (False, 2), found
    assert "hash" in found["reason"]
    # A head edited directly is reported at the newest version.
    sql(url, f"UPDATE passport_version SET cause = 'ingest' WHERE {where}", uuid.UUID(t.id))
    sql(
        url,
        "UPDATE passport SET doc = jsonb_set(doc, '{facts}', '[]') "
        "WHERE tenant_id = %s AND user_key = 'ana'",
        uuid.UUID(t.id),
    )
    found = await check(client, t.headers, "ana")
    if found["valid"]:  # the rules found no fact to erase: edit another section
        sql(
            url,
            "UPDATE passport SET doc = jsonb_set(doc, '{prefs}', '[{\"key\": \"x\"}]') "
            "WHERE tenant_id = %s AND user_key = 'ana'",
            uuid.UUID(t.id),
        )
        found = await check(client, t.headers, "ana")
    assert (found["valid"], found["first_bad_version"]) == (False, 3), found


async def test_a_forget_keeps_the_chain_and_returns_a_receipt_that_outlives_the_user(  # type: ignore[no-untyped-def]
    client, worker, settings
):
    t = await make_tenant(client, "receipts")
    await history(client, t.headers, "ana", 3)
    gone = await client.delete("/users/ana/turns/u1", headers=t.headers)
    assert gone.status_code == 200, gone.text
    receipt = gone.json()["receipt"]
    assert receipt["scope"] == "turn" and receipt["target"] == "u1"
    assert receipt["removed"]["turns"] == 1 and receipt["redacted"]
    assert verify(receipt, RECEIPT_SECRET.encode())
    assert WORDS[1] not in str(receipt)
    found = await check(client, t.headers, "ana")
    assert found["valid"], found
    assert found["root"] == receipt["root"] == gone.json()["receipt"]["root"]
    # The redacted hashes stay in the version that added the turn; its text is gone.
    [(redactions,)] = sql(
        settings.database_url,
        "SELECT redactions FROM passport_version WHERE tenant_id = %s AND user_key = 'ana' "
        "AND version = 2",
        uuid.UUID(t.id),
    )
    assert {h for h, _ in redactions["added"]} >= set(receipt["redacted"][:1])
    again = await client.get(f"/users/ana/receipts/{receipt['id']}", headers=t.headers)
    assert again.status_code == 200 and again.json() == receipt

    deleted = await client.delete("/users/ana", headers=t.headers)
    assert deleted.status_code == 200, deleted.text
    user_receipt = deleted.json()
    assert user_receipt["scope"] == "user" and user_receipt["removed"]["log_rows"] > 0
    assert user_receipt["root"] == found["root"]
    assert verify(user_receipt, RECEIPT_SECRET.encode())
    for kept in (receipt, user_receipt):
        got = await client.get(f"/users/ana/receipts/{kept['id']}", headers=t.headers)
        assert got.status_code == 200 and got.json() == kept
    other = await make_tenant(client, "receipts-other")
    hidden = await client.get(f"/users/ana/receipts/{receipt['id']}", headers=other.headers)
    assert hidden.status_code == 404
    assert (await client.get("/users/ana/integrity", headers=t.headers)).status_code == 404


async def test_forgetting_a_source_and_more_turns_keeps_the_chain(client, worker, tenant):  # type: ignore[no-untyped-def]
    await history(client, tenant.headers, "bo", 4)
    doc = (await client.get("/users/bo/passport", headers=tenant.headers)).json()
    first = await client.delete(
        f"/users/bo/sources/{doc['sources'][0]['id']}", headers=tenant.headers
    )
    assert first.status_code == 200, first.text
    assert (await check(client, tenant.headers, "bo"))["valid"]
    for turn_id in ("b2", "u2", "u3"):
        resp = await client.delete(f"/users/bo/turns/{turn_id}", headers=tenant.headers)
        assert resp.status_code == 200, resp.text
        found = await check(client, tenant.headers, "bo")
        assert found["valid"], (turn_id, found)
    assert found["versions"] == 9


async def test_an_edited_export_is_refused_and_an_untouched_one_imports(client, worker, tenant):  # type: ignore[no-untyped-def]
    await history(client, tenant.headers, "cy", 2)
    exported = (await client.get("/users/cy/passport", headers=tenant.headers)).json()
    clean = await client.put("/users/cy2/passport", json=exported, headers=tenant.headers)
    assert clean.status_code == 201, clean.text
    again = (await client.get("/users/cy2/passport", headers=tenant.headers)).json()
    assert again["turns"] == exported["turns"] and "witness" in again
    assert (await check(client, tenant.headers, "cy2"))["valid"]
    exported["turns"][0]["text"] = "I bought nothing."
    edited = await client.put("/users/cy3/passport", json=exported, headers=tenant.headers)
    assert edited.status_code == 422
    assert edited.headers["content-type"] == "application/problem+json"
    assert "turns" in edited.json()["detail"]


async def test_snapshots_are_chained_and_a_forget_that_rewrites_them_keeps_the_chain(app):  # type: ignore[no-untyped-def]
    """Every second version holds a snapshot; a forget rewrites deltas and snapshots alike."""
    uows, own = quiet_jobs(app)
    settings = own.model_copy(update={"version_snapshot_every": 2})
    tenant = uuid.uuid4()
    async with uows() as uow:
        await uow.system.add_tenant(Tenant(id=tenant, name="snapshots", limits={}))
        await uow.commit()
    turns: list[dict[str, Any]] = []
    for n, word in enumerate(WORDS):
        turns.append({"id": f"u{n}", "speaker": "Ana", "text": f"My {word} is blue."})
        facts = [
            {"key": f"ana.{w}", "value": "blue", "turn_ids": [f"u{i}"]}
            for i, w in enumerate(WORDS[: n + 1])
        ]
        doc = {"version": "2.1", "user_key": "ana", "turns": list(turns), "facts": facts}
        await passports.put_passport(uows, tenant, "ana", doc, settings=settings)
    caches = app.state.runtime.caches
    done = await forget.forget(
        uows, caches, tenant, "ana", forget.ForgetTarget(turn_id="u1"), settings
    )
    assert done.versions_rewritten >= 3 and done.redacted
    found = await integrity.check(uows, tenant, "ana")
    assert found.valid, found
    assert found.versions == len(WORDS) + 2  # version 0, one per import, the forget
    # A snapshot edited in place is found at its version.
    sql(
        app.state.runtime.settings.database_url,
        "UPDATE passport_version SET snapshot = jsonb_set(snapshot, '{facts}', '[]') "
        "WHERE tenant_id = %s AND version = 4",
        tenant,
    )
    broken = await integrity.check(uows, tenant, "ana")
    assert (broken.valid, broken.first_bad_version) == (False, 4), broken
