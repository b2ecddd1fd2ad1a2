"""GET /users/{key}/turns: a session's newest turns, verbatim, newest first, paged."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import make_tenant

pytestmark = pytest.mark.integration


def _exchange(session: str, n: int) -> dict[str, Any]:
    return {
        "turns": [
            {"role": "user", "content": f"question {n} of {session}", "session": session},
            {"role": "assistant", "content": f"answer {n} of {session}", "session": session},
        ]
    }


async def test_a_sessions_turns_come_newest_first_page_by_page(client, worker, tenant):
    h = tenant.headers
    for n in range(3):
        for session in ("s-a", "s-b"):
            body = _exchange(session, n)
            done = await client.post("/users/ada/ingest?wait=20", json=body, headers=h)
            assert done.status_code == 200 and done.json()["status"] == "done", done.text

    first = await client.get("/users/ada/turns?session=s-a&limit=4", headers=h)
    assert first.status_code == 200
    page = first.json()
    texts = [t["text"] for t in page["items"]]
    assert texts == ["answer 2 of s-a", "question 2 of s-a", "answer 1 of s-a", "question 1 of s-a"]
    assert [t["role"] for t in page["items"]] == ["assistant", "user"] * 2
    assert {t["session"] for t in page["items"]} == {"s-a"}
    older = await client.get(
        f"/users/ada/turns?session=s-a&limit=4&cursor={page['next_cursor']}", headers=h
    )
    rest = older.json()
    assert [t["text"] for t in rest["items"]] == ["answer 0 of s-a", "question 0 of s-a"]
    assert rest["next_cursor"] is None

    every = (await client.get("/users/ada/turns?limit=3", headers=h)).json()["items"]
    assert [t["text"] for t in every] == ["answer 2 of s-b", "question 2 of s-b", "answer 2 of s-a"]
    unknown = (await client.get("/users/ada/turns?session=nope", headers=h)).json()
    assert unknown == {"items": [], "next_cursor": None}


async def test_a_forgotten_turn_is_not_listed(client, worker, tenant):
    h = tenant.headers
    body = {
        "turns": [
            {"role": "user", "content": "my locker code is 4312", "id": "m1", "session": "s"},
            {"role": "assistant", "content": "I will remember it.", "id": "m2", "session": "s"},
        ]
    }
    assert (await client.post("/users/bo/ingest?wait=20", json=body, headers=h)).is_success
    assert (await client.delete("/users/bo/turns/m1", headers=h)).status_code == 200
    items = (await client.get("/users/bo/turns?session=s", headers=h)).json()["items"]
    assert [t["id"] for t in items] == ["m2"]


async def test_turns_of_another_tenant_or_unknown_user_are_404_and_bad_input_is_422(
    client, worker, tenant
):
    h = tenant.headers
    body = _exchange("s", 0)
    assert (await client.post("/users/cy/ingest?wait=20", json=body, headers=h)).is_success
    other = await make_tenant(client, "other")
    hidden = await client.get("/users/cy/turns", headers=other.headers)
    assert hidden.status_code == 404
    assert hidden.headers["content-type"] == "application/problem+json"
    assert (await client.get("/users/nobody/turns", headers=h)).status_code == 404
    for query in ("limit=0", "limit=501", "cursor=0", "cursor=x", "session="):
        bad = await client.get(f"/users/cy/turns?{query}", headers=h)
        assert bad.status_code == 422, query


async def test_one_turn_by_its_id_and_the_sessions_spoken_in_last_first(client, worker, tenant):
    h = tenant.headers
    for n, session in enumerate(("notes/a", "chat-1", "notes/b", "chat-1")):
        said = f"message {n} in {session}"
        body = {"turns": [{"role": "user", "content": said, "session": session}]}
        assert (await client.post("/users/di/ingest?wait=20", json=body, headers=h)).is_success
    mine = {"turns": [{"role": "user", "content": "mine", "id": "k/1 x", "session": "notes/a"}]}
    assert (await client.post("/users/di/ingest?wait=20", json=mine, headers=h)).is_success

    one = await client.get("/users/di/turns/k%2F1%20x", headers=h)
    assert one.status_code == 200
    assert (one.json()["text"], one.json()["session"]) == ("mine", "notes/a")
    missing = await client.get("/users/di/turns/nope", headers=h)
    assert missing.status_code == 404 and missing.json()["detail"] == "user 'di' has no turn 'nope'"

    listed = (await client.get("/users/di/sessions", headers=h)).json()
    assert [(s["name"], s["turns"]) for s in listed["items"]] == [
        ("notes/a", 2),
        ("chat-1", 2),
        ("notes/b", 1),
    ]
    assert all(s["last_ts"] for s in listed["items"])
    notes = (await client.get("/users/di/sessions?prefix=notes/", headers=h)).json()["items"]
    assert [s["name"] for s in notes] == ["notes/a", "notes/b"]
    page = (await client.get("/users/di/sessions?limit=2", headers=h)).json()
    rest = await client.get(f"/users/di/sessions?limit=2&cursor={page['next_cursor']}", headers=h)
    assert [s["name"] for s in rest.json()["items"]] == ["notes/b"]
    # A prefix is a prefix, never a pattern: '%' and '_' match themselves.
    assert (await client.get("/users/di/sessions?prefix=%25", headers=h)).json()["items"] == []


async def test_forgetting_a_session_takes_every_turn_of_it_with_a_receipt(client, worker, tenant):
    h = tenant.headers
    for session, text in (("s/1", "my bike lock code is 7781"), ("s/2", "I like green tea")):
        body = {"turns": [{"role": "user", "content": text, "session": session}]}
        assert (await client.post("/users/ed/ingest?wait=20", json=body, headers=h)).is_success
    gone = await client.delete("/users/ed/sessions/s/1", headers=h)
    assert gone.status_code == 200, gone.text
    done = gone.json()
    assert done["turns"] == 1
    assert (done["receipt"]["scope"], done["receipt"]["target"]) == ("session", "s/1")
    names = [s["name"] for s in (await client.get("/users/ed/sessions", headers=h)).json()["items"]]
    assert names == ["s/2"]
    context = (await client.get("/users/ed/context?q=bike+lock+code", headers=h)).text
    assert "7781" not in context
    again = await client.delete("/users/ed/sessions/s/1", headers=h)
    assert again.status_code == 404 and again.json()["detail"] == "user 'ed' has no session 's/1'"


async def test_a_nul_in_a_session_or_prefix_is_refused_before_the_database(client, tenant):
    h = tenant.headers
    await client.put("/users/fa/passport", json={"version": "2.1", "facts": []}, headers=h)
    for query in ("session=a%00b", "prefix=%00q"):
        route = "turns" if query.startswith("session") else "sessions"
        bad = await client.get(f"/users/fa/{route}?{query}", headers=h)
        assert bad.status_code == 422, (query, bad.text)
