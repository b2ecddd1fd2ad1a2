"""Odd requests get a problem, never a 500: integers past their column, deep JSON, odd user keys."""

from __future__ import annotations

import unicodedata

import pytest

from tests.conftest import make_tenant

pytestmark = pytest.mark.integration


def deep(levels: int) -> str:
    """JSON of an object and a list nested ``levels`` times each (written out, not encoded)."""
    return '{"a":[' * levels + '"x"' + "]}" * levels


def sent(client, path: str, body: str, headers: dict[str, str], method: str = "POST"):  # type: ignore[no-untyped-def]
    return client.request(
        method, path, content=body, headers={**headers, "Content-Type": "application/json"}
    )


async def test_a_version_past_what_the_database_stores_is_not_found(client):  # type: ignore[no-untyped-def]
    t = await make_tenant(client, "odd-versions")
    await client.put("/users/ana/passport", json={"version": "2.1"}, headers=t.headers)
    for version in (2_147_483_647, 2_147_483_646, 5):
        reply = await client.get(f"/users/ana/versions/{version}", headers=t.headers)
        assert reply.status_code == 404, (version, reply.text)
        assert reply.headers["content-type"] == "application/problem+json"
    assert (
        await client.get("/users/ana/versions/2147483648", headers=t.headers)
    ).status_code == 422


@pytest.mark.parametrize("levels", [100, 256, 300, 500, 990, 5000])
async def test_json_nested_deep_is_refused_as_unprocessable(client, levels):  # type: ignore[no-untyped-def]
    t = await make_tenant(client, f"odd-deep-{levels}")
    doc = '{"version": "2.1", "meta": {"deep": ' + deep(levels) + "}}"
    reply = await sent(client, "/users/ana/passport", doc, t.headers, "PUT")
    assert reply.status_code == 422, reply.text
    rows = '{"rows": [{"table": "orders", "row": {"deep": ' + deep(levels) + "}}]}"
    reply = await sent(client, "/users/ana/ingest", rows, t.headers)
    assert reply.status_code == 422, reply.text
    facts = '{"facts": [{"key": "deep", "value": ' + deep(levels) + "}]}"
    reply = await sent(client, "/users/ana/facts", facts, t.headers)
    assert reply.status_code == 422, reply.text
    assert reply.headers["content-type"] == "application/problem+json"


async def test_a_belief_key_of_only_nul_characters_is_refused(client):  # type: ignore[no-untyped-def]
    """NUL is dropped before a belief is stored; a key left empty is a problem, not a 500."""
    t = await make_tenant(client, "odd-nul-keys")
    for body in ('{"facts": [{"key": "\\u0000"}]}', '{"prefs": [{"key": "\\u0000\\u0000"}]}'):
        reply = await sent(client, "/users/ana/facts", body, t.headers)
        assert reply.status_code == 422, reply.text
        assert reply.headers["content-type"] == "application/problem+json"
        assert "NUL" in reply.json()["detail"]
    doc = '{"version": "2.1", "facts": [{"key": "\\u0000", "value": "x"}]}'
    reply = await sent(client, "/users/ana/passport", doc, t.headers, "PUT")
    assert reply.status_code == 422, reply.text


@pytest.mark.parametrize("key", [".", "..", " ana", "ana ", "a\\b", "x" * 257])
async def test_a_user_key_that_no_path_can_reach_is_refused(client, key):  # type: ignore[no-untyped-def]
    t = await make_tenant(client, "odd-keys")
    reply = await client.put(
        "/users/{}/passport".format(key.replace("\\", "%5C").replace(" ", "%20")),
        json={"version": "2.1"},
        headers=t.headers,
    )
    # "." and ".." never reach the route: the client or the router resolves them away.
    assert reply.status_code in (404, 405, 422), (key, reply.status_code)
    assert reply.status_code != 201


async def test_user_keys_are_one_user_however_their_letters_are_composed(client):  # type: ignore[no-untyped-def]
    t = await make_tenant(client, "odd-nfc")
    composed, decomposed = "jos\u00e9", unicodedata.normalize("NFD", "jos\u00e9")
    assert composed != decomposed
    made = await client.put(
        f"/users/{decomposed}/passport", json={"version": "2.1"}, headers=t.headers
    )
    assert made.status_code == 201
    assert (await client.get(f"/users/{composed}/passport", headers=t.headers)).status_code == 200
    listed = (await client.get("/users", headers=t.headers)).json()["items"]
    assert [u["user_key"] for u in listed] == [composed]


async def test_the_spec_declares_the_user_key_grammar(app):  # type: ignore[no-untyped-def]
    spec = app.openapi()
    parameter = next(
        p for p in spec["paths"]["/users/{key}/passport"]["get"]["parameters"] if p["name"] == "key"
    )
    schema = parameter["schema"]
    assert schema["maxLength"] == 256 and "pattern" in schema


async def test_an_ingest_field_of_only_nul_characters_is_refused(client):  # type: ignore[no-untyped-def]
    """A time or a name that is empty once NUL is dropped is refused before anything is queued."""
    t = await make_tenant(client, "odd-nul-ingest")
    body = '{"turns": [{"speaker": "ana", "text": "hello", "ts": "\\u0000"}]}'
    reply = await sent(client, "/users/ana/ingest", body, t.headers)
    assert reply.status_code == 422, reply.text
    assert reply.headers["content-type"] == "application/problem+json"


OUT_OF_RANGE = "0001-01-01T00:00:00+01:00"  # year 0 in UTC


async def test_a_time_out_of_range_once_its_offset_applies_is_a_problem_or_ignored(client):  # type: ignore[no-untyped-def]
    t = await make_tenant(client, "odd-times")
    # A turn's unreadable time is ignored, as documented: the turn takes the session's time.
    body = {
        "session_ts": OUT_OF_RANGE,
        "turns": [{"speaker": "Ana", "text": "hi", "ts": OUT_OF_RANGE}],
    }
    for path, status in (("/users/ana/plan", 200), ("/users/ana/ingest", 202)):
        reply = await client.post(path, json=body, headers=t.headers)
        assert reply.status_code == status, (path, reply.text)
    # A passport's unreadable time is kept as written and read as no time.
    doc = {
        "version": "2.1",
        "facts": [{"key": "city", "value": "Gweru", "ts": OUT_OF_RANGE}],
        "turns": [{"id": "m1", "speaker": "Ana", "text": "I live in Gweru.", "ts": OUT_OF_RANGE}],
    }
    reply = await client.put("/users/ana/passport", json=doc, headers=t.headers)
    assert reply.status_code in (200, 201), reply.text
    reply = await client.post(
        "/users/ana/facts",
        json={"facts": [{"key": "city", "value": "Mutare", "ts": "2024-01-01T00:00:00Z"}]},
        headers=t.headers,
    )
    assert reply.status_code < 300, reply.text
    for path in ("/users/ana/passport", "/users/ana/context?q=where", "/users/ana/versions"):
        reply = await client.get(path, headers=t.headers)
        assert reply.status_code == 200, (path, reply.text)
    for view in ("", "/beliefs", "/timeline", "/versions", "/versions/1", "/agent?q=where"):
        reply = await client.get(f"/ui/f/users/ana{view}", headers=t.headers)
        assert reply.status_code == 200, (view, reply.text)
