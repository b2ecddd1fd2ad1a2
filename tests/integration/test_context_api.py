"""Reading over HTTP: context within budget, JSON with provenance, ETags, search, cache."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from tests.conftest import make_tenant

pytestmark = pytest.mark.integration

PASSPORT = {
    "version": "2.1",
    "user_key": "mel",
    "facts": [
        {"key": "location", "value": "Kwekwe", "ts": "2024-02-01T00:00:00Z", "confidence": 0.9},
        {"key": "caroline.location", "value": "Lisbon", "ts": "2024-01-01T00:00:00Z"},
    ],
    "prefs": [{"key": "likes_camping", "value": True, "ts": "2023-07-02T00:00:00Z"}],
    "observations": [
        {
            "text": "Melanie ran a charity race for mental health.",
            "when": "2023-05-06",
            "ts": "2023-05-08T13:56:00Z",
            "source": "seg_a",
            "participants": ["Melanie"],
        },
        {
            "text": "Caroline visited Lisbon with her sister.",
            "when": "2023-09-10",
            "ts": "2023-09-12T10:00:00Z",
            "source": "seg_b",
            "participants": ["Caroline"],
        },
    ],
    "episodes": [
        {
            "id": "seg_c",
            "ts": "2023-07-02T18:00:00Z",
            "source": "seg_c",
            "summary": "Melanie took the kids camping at Lake Tahoe.",
            "salience": 0.7,
            "participants": ["Melanie", "Caroline"],
            "keywords": ["camping", "tahoe"],
        },
    ],
    "sources": [
        {"id": "seg_a", "kind": "chat", "hash": "sha256:a", "turn_ids": ["d1:2"]},
        {"id": "seg_b", "kind": "chat", "hash": "sha256:b", "turn_ids": ["d5:1", "d5:2"]},
        {"id": "seg_c", "kind": "chat", "hash": "sha256:c", "turn_ids": ["d2:1"]},
    ],
}


@pytest.fixture
async def mel(client, tenant):
    resp = await client.put("/users/mel/passport", json=PASSPORT, headers=tenant.headers)
    assert resp.status_code == 201
    return tenant


async def test_context_text_holds_facts_and_the_relevant_memory(client, mel):
    resp = await client.get(
        "/users/mel/context",
        params={"q": "When did Melanie run the charity race?"},
        headers=mel.headers,
    )
    assert resp.status_code == 200
    assert resp.headers["content-type"].startswith("text/plain")
    text = resp.text
    assert "Kwekwe" in text
    assert "charity race" in text
    assert "2023-05-06" in text or "6 May 2023" in text
    assert len(text) <= 3000


async def test_budget_is_never_exceeded(client, mel):
    for budget in (400, 500, 800, 1500, 3000):
        resp = await client.get(
            "/users/mel/context",
            params={"q": "camping", "budget_chars": budget},
            headers=mel.headers,
        )
        assert len(resp.text) <= budget
    for bad in (399, 100_001):
        resp = await client.get(
            "/users/mel/context", params={"budget_chars": bad}, headers=mel.headers
        )
        assert resp.status_code == 422


async def test_json_format_has_scores_and_provenance(client, mel):
    resp = await client.get(
        "/users/mel/context", params={"q": "Lisbon", "format": "json"}, headers=mel.headers
    )
    body = resp.json()
    assert body["version"] == 1
    flat = str(body)
    assert "d5:1" in flat and "seg_b" in flat and "score" in flat


async def test_etag_and_new_versions_are_picked_up(client, mel):
    first = await client.get("/users/mel/context", params={"q": "Lisbon"}, headers=mel.headers)
    etag = first.headers["etag"]
    again = await client.get(
        "/users/mel/context",
        params={"q": "Lisbon"},
        headers={**mel.headers, "If-None-Match": etag},
    )
    assert again.status_code == 304
    other_q = await client.get(
        "/users/mel/context",
        params={"q": "camping"},
        headers={**mel.headers, "If-None-Match": etag},
    )
    assert other_q.status_code == 200
    await client.post(
        "/users/mel/facts",
        json={"facts": [{"key": "location", "value": "Harare", "ts": "2025-01-01T00:00:00Z"}]},
        headers=mel.headers,
    )
    after = await client.get(
        "/users/mel/context",
        params={"q": "Lisbon"},
        headers={**mel.headers, "If-None-Match": etag},
    )
    assert after.status_code == 200
    assert "Harare" in after.text
    assert after.headers["x-passport-version"] == "2"


async def test_a_re_created_user_never_gets_the_deleted_users_context(client, mel, settings):
    # Two API processes: the one that serves the delete forgets the user, the other only
    # learns of it from the passport row. Versions restart when the user is created again.
    import httpx

    from app.main import create_app

    other_app = create_app(settings)
    async with other_app.router.lifespan_context(other_app):
        transport = httpx.ASGITransport(app=other_app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t.test") as other:
            old = await other.get("/users/mel/context", params={"q": "Lisbon"}, headers=mel.headers)
            assert "Kwekwe" in old.text and "Lisbon" in old.text
            assert (await client.delete("/users/mel", headers=mel.headers)).status_code == 200
            again = {**PASSPORT, "facts": [{"key": "location", "value": "Bulawayo"}]}
            put = await client.put("/users/mel/passport", json=again, headers=mel.headers)
            assert put.json()["version"] == 1  # the same version number as the deleted passport
            new = await other.get("/users/mel/context", params={"q": "Lisbon"}, headers=mel.headers)
            assert new.headers["x-passport-version"] == old.headers["x-passport-version"]
            assert "Bulawayo" in new.text and "Kwekwe" not in new.text
            assert new.headers["etag"] != old.headers["etag"]
            cached = await other.get(
                "/users/mel/context",
                params={"q": "Lisbon"},
                headers={**mel.headers, "If-None-Match": old.headers["etag"]},
            )
            assert cached.status_code == 200 and "Bulawayo" in cached.text


async def test_search_ranks_with_provenance(client, mel):
    resp = await client.get("/users/mel/search", params={"q": "Lisbon sister"}, headers=mel.headers)
    assert resp.status_code == 200
    items = resp.json()["items"]
    assert items[0]["text"].startswith("Caroline visited Lisbon")
    assert items[0]["turn_ids"] == ["d5:1", "d5:2"]
    assert items[0]["score"] > 0


async def test_since_until_and_bad_dates(client, mel):
    resp = await client.get(
        "/users/mel/search",
        params={
            "q": "Melanie camping charity race Lisbon",
            "since": "2023-07-01",
            "until": "2023-07",
        },
        headers=mel.headers,
    )
    texts = [i["text"] for i in resp.json()["items"]]
    assert texts and all("Tahoe" in t for t in texts)
    bad = await client.get("/users/mel/context", params={"since": "soon"}, headers=mel.headers)
    assert bad.status_code == 422
    assert "since" in bad.json()["detail"]


async def test_context_of_unknown_or_foreign_user_is_404(client, mel):
    other = await make_tenant(client, "other")
    assert (await client.get("/users/mel/context", headers=other.headers)).status_code == 404
    assert (await client.get("/users/mel/search?q=x", headers=other.headers)).status_code == 404
    assert (await client.get("/users/nobody/context", headers=mel.headers)).status_code == 404


async def test_ingested_chat_answers_a_question(client, worker):
    t = await make_tenant(client, "reader")
    body = {
        "subject": "Melanie",
        "session_ts": "2023-05-08T13:56:00Z",
        "turns": [
            {"speaker": "Caroline", "text": "How was the weekend?", "id": "1"},
            {
                "speaker": "Melanie",
                "text": "I ran a charity race for mental health on Saturday.",
                "id": "2",
            },
        ],
    }
    done = await client.post("/users/m/ingest?wait=20", json=body, headers=t.headers)
    assert done.json()["status"] == "done"
    resp = await client.get("/users/m/context", params={"q": "charity race"}, headers=t.headers)
    assert "charity race" in resp.text
    # The turn said on Monday 8 May, with its "Saturday" resolved beside the words.
    assert "Memories:\n[8 May 2023]\n" in resp.text
    assert "\nMelanie: I ran a charity race for mental health on Saturday" in resp.text
    assert "(6 May 2023)" in resp.text
    doc = await client.get(
        "/users/m/context", params={"q": "charity race", "format": "json"}, headers=t.headers
    )
    assert ["2"] in [m["turn_ids"] for m in doc.json()["memories"]]


async def test_json_says_how_each_memorys_score_was_made(client, worker):  # type: ignore[no-untyped-def]
    t = await make_tenant(client, "ctx-why")
    body = {
        "session_ts": "2024-03-02T10:00:00Z",
        "turns": [
            {"role": "user", "content": "My kayak club meets at the quarry lake.", "id": "k1"},
            {
                "role": "assistant",
                "content": "A quarry lake is calm water for a kayak.",
                "id": "k2",
            },
            {"role": "user", "content": "The bakery on the corner sells rye bread.", "id": "k3"},
        ],
    }
    done = await client.post("/users/kai/ingest?wait=20", json=body, headers=t.headers)
    assert done.json()["status"] == "done"
    resp = await client.get(
        "/users/kai/context",
        params={"q": "Where does my kayak club meet?", "format": "json"},
        headers=t.headers,
    )
    memories = {m["turn_ids"][0]: m for m in resp.json()["memories"]}
    mine, answer = memories["k1"]["why"], memories["k2"]["why"]
    names = {
        "bm25", "assistant", "assistant_bm25", "neighbours", "speaker", "coverage",
        "similarity", "pairs", "amount", "date", "first",
    }  # fmt: skip
    assert set(mine["features"]) == names
    # Without an embedding model (the default) similarity is 0 and weighs nothing.
    assert mine["features"]["similarity"] == {"value": 0.0, "adds": 0.0}
    assert mine["bm25"] > 0 and mine["features"]["bm25"]["value"] == 1.0
    # What each feature added, with the bias, is the score's logit.
    logit = mine["bias"] + sum(f["adds"] for f in mine["features"].values())
    assert abs(1 / (1 + 2.718281828**-logit) - mine["score"]) < 1e-3
    assert memories["k1"]["score"] == mine["score"]
    # The assistant's answer is marked as such, and the person's own words rank above it.
    assert answer["features"]["assistant"]["value"] == 1.0
    assert mine["score"] > answer["score"]
    assert (
        "k3" not in memories
        or memories["k3"]["why"] is None
        or (memories["k3"]["why"]["score"] < mine["score"])
    )


async def test_a_held_index_catches_up_when_a_write_lands_before_any_read(client, app, worker):
    t = await make_tenant(client, "fresh")
    body = {"subject": "Ana", "turns": [{"speaker": "Ana", "text": "I adopted a cat.", "id": "1"}]}
    done = await client.post("/users/ana/ingest?wait=20", json=body, headers=t.headers)
    assert done.json()["job"]["version_after"] == 1
    await client.get("/users/ana/context", params={"q": "cat"}, headers=t.headers)
    cache = app.state.runtime.caches.indexes
    assert cache.peek(uuid.UUID(t.id), "ana").version == 1
    more = {"subject": "Ana", "turns": [{"speaker": "Ana", "text": "Her name is Miso.", "id": "2"}]}
    done = await client.post("/users/ana/ingest?wait=20", json=more, headers=t.headers)
    assert done.json()["job"]["version_after"] == 2
    for _ in range(100):  # the worker's signal names the user: the index grows without a read
        if cache.peek(uuid.UUID(t.id), "ana").version == 2:
            break
        await asyncio.sleep(0.02)
    assert cache.peek(uuid.UUID(t.id), "ana").version == 2
    resp = await client.get("/users/ana/context", params={"q": "Miso"}, headers=t.headers)
    assert "Her name is Miso." in resp.text


async def test_what_we_talked_about_in_a_month_is_that_months_sessions(client, worker):  # type: ignore[no-untyped-def]
    t = await make_tenant(client, "ctx-sessions")
    sessions = [
        ("2024-04-10T09:00:00Z", "I am building a raised garden bed for tomatoes."),
        ("2024-05-03T09:00:00Z", "We are repainting the kitchen a deep blue this week."),
        ("2024-05-21T09:00:00Z", "The new kitchen cabinets arrive on Friday."),
        ("2024-06-02T09:00:00Z", "I bought a gravel bike for the summer."),
    ]
    for n, (ts, text) in enumerate(sessions):
        body = {
            "turns": [
                {"role": "user", "content": text, "ts": ts, "id": f"u{n}"},
                {"role": "assistant", "content": "Sounds like a plan.", "ts": ts, "id": f"a{n}"},
            ],
        }
        job = await client.post("/users/ana/ingest?wait=20", json=body, headers=t.headers)
        assert job.json()["status"] == "done", job.text
    asked = {"q": "What did we talk about in May?", "budget_chars": 1200, "format": "json"}
    reply = await client.get("/users/ana/context", params=asked, headers=t.headers)
    assert reply.status_code == 200, reply.text
    got = reply.json()
    assert [s["summary"] for s in got["sessions"]] == [sessions[1][1], sessions[2][1]]
    assert got["sessions"][0]["turn_ids"] == ["u1", "a1"]
    asked["format"] = "text"
    text = (await client.get("/users/ana/context", params=asked, headers=t.headers)).text
    assert "Sessions:\n[3 May 2024] user, assistant: We are repainting the kitchen" in text
    assert "tomatoes" not in text and "gravel" not in text
