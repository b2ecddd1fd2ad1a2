"""Forgetting a turn is a hard delete: its words are nowhere afterwards, and the rest stays."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest

from tests.conftest import _libpq, make_tenant
from tests.integration.test_llm_pipeline import ingest, llm_stack, passport

pytestmark = pytest.mark.integration

SECRET = "Zanzibarville"


def _session(texts: list[tuple[str, str, str]], day: int) -> dict[str, Any]:
    return {
        "subject": "Ana",
        "session_ts": f"2024-03-{day:02d}T10:00:00Z",
        "turns": [{"speaker": who, "text": text, "id": tid} for tid, who, text in texts],
    }


def _places_holding(database_url: str, needle: str) -> list[str]:
    """Every (table.column) of the database whose text holds ``needle``, any case."""
    found = []
    with psycopg.connect(_libpq(database_url)) as conn:
        columns = conn.execute(
            "SELECT table_name, column_name FROM information_schema.columns "
            "WHERE table_schema = 'public' AND data_type IN "
            "('text', 'character varying', 'jsonb', 'json', 'ARRAY')"
        ).fetchall()
        for table, column in columns:
            hits = conn.execute(
                f'SELECT count(*) FROM "{table}" WHERE "{column}"::text ILIKE %s',
                (f"%{needle}%",),
            ).fetchone()
            if hits and hits[0]:
                found.append(f"{table}.{column}")
    return found


async def test_a_forgotten_turn_leaves_no_trace_anywhere(settings):
    async with llm_stack(settings) as s:
        t = await make_tenant(s.api, "forget")
        first = _session(
            [
                ("s1", "Ana", f"My home city is {SECRET}."),
                ("b1", "Bo", "Lovely, I will visit you there."),
            ],
            1,
        )
        second = _session([("s2", "Ana", "My favorite food is bacalhau.")], 5)
        for body in (first, second):
            job = await ingest(s.api, t.headers, "ana", body)
            assert job["status"] == "done", job
        before = await passport(s.api, t.headers, "ana")
        assert before["facts"][0]["value"] == SECRET
        assert any(SECRET in e["summary"] for e in before["episodes"])
        held = _places_holding(settings.database_url, SECRET)
        for place in (
            "memory.item",
            "passport.doc",
            "ingest_job.payload",
            "extraction_cache.output",
        ):
            assert place in held, held
        # An agent reads it, so the answer is cached in the API process.
        read = await s.api.get(
            "/users/ana/context", params={"q": "home city", "format": "json"}, headers=t.headers
        )
        assert SECRET in read.text

        resp = await s.api.delete("/users/ana/turns/s1", headers=t.headers)
        assert resp.status_code == 200, resp.text
        done = resp.json()
        assert done["turns"] == 1 and done["versions_rewritten"] >= 1
        assert done["payloads_scrubbed"] == 1 and done["cached_extractions"] >= 1
        assert done["version"] == 3  # one version per job, then the forget

        # Nowhere in the database: no row, no version, no payload, no cache entry.
        assert _places_holding(settings.database_url, SECRET) == []
        # Nowhere the API answers from: no cached context, no export, no earlier version.
        cached = s.app.state.runtime.caches.results.values()
        assert not any(SECRET.encode() in body for body in cached)
        for version in range(done["version"] + 1):
            old = await s.api.get(
                "/users/ana/passport", params={"version": version}, headers=t.headers
            )
            assert old.status_code == 200 and SECRET not in old.text, version
        for path, params in (
            ("/users/ana/context", {"q": "home city", "format": "json"}),
            ("/users/ana/context", {}),
            ("/users/ana/search", {"q": SECRET}),
        ):
            got = await s.api.get(path, params=params, headers=t.headers)
            assert got.status_code == 200 and SECRET not in got.text, path

        # The rest stays: the other turns, and what the other session said.
        after = await passport(s.api, t.headers, "ana")
        assert [turn["id"] for turn in after["turns"]] == ["b1", "s2"]
        assert {f["key"]: f["value"] for f in after["facts"]} == {"favorite_food": "bacalhau"}
        assert [src["turn_ids"] for src in after["sources"]] == [["b1"], ["s2"]]
        versions = (await s.api.get("/users/ana/versions", headers=t.headers)).json()
        assert versions["items"][0]["cause"] == "forget"
        assert versions["items"][0]["changes"]["forgotten"]["turns"] == 1

        # Forgetting what is already gone, or was never said, is a 404.
        again = await s.api.delete("/users/ana/turns/s1", headers=t.headers)
        assert again.status_code == 404
        assert again.headers["content-type"] == "application/problem+json"


async def test_forgetting_a_source_takes_all_its_turns_and_only_this_tenants(settings):
    async with llm_stack(settings) as s:
        t = await make_tenant(s.api, "forget-source")
        other = await make_tenant(s.api, "forget-other")
        body = _session([("a1", "Ana", f"My home city is {SECRET}."), ("a2", "Bo", "Far away!")], 2)
        for tenant in (t, other):
            job = await ingest(s.api, tenant.headers, "ana", body)
            assert job["status"] == "done"
        doc = await passport(s.api, t.headers, "ana")
        [source] = doc["sources"]
        resp = await s.api.delete(f"/users/ana/sources/{source['id']}", headers=t.headers)
        assert resp.status_code == 200, resp.text
        assert resp.json()["turns"] == 2
        gone = await passport(s.api, t.headers, "ana")
        assert gone["turns"] == [] and gone["sources"] == [] and gone["episodes"] == []
        # The other tenant's user of the same name keeps everything.
        kept = await passport(s.api, other.headers, "ana")
        assert len(kept["turns"]) == 2 and SECRET in str(kept)


async def test_a_forgotten_turn_takes_what_every_segment_listing_it_made(client, tenant, settings):
    """A reprocess may cut the turns into new segments; what those made goes with the turn too."""
    secret = "Quillonbury"
    said = {"speaker": "Ana", "text": f"My home city is {secret}.", "ts": "2024-03-01T10:00:00Z"}
    doc = {
        "version": "2.1",
        "user_key": "ana",
        "meta": {},
        "turns": [
            {"id": "s1", **said, "source": "seg_first"},
            {"id": "b1", "speaker": "Bo", "text": "Lovely.", "source": "seg_first"},
        ],
        # The turn was filed under seg_first; a later segmentation put it in seg_again.
        "sources": [
            {"id": "seg_first", "kind": "chat", "hash": "sha256:1", "turn_ids": ["s1", "b1"]},
            {"id": "seg_again", "kind": "chat", "hash": "sha256:2", "turn_ids": ["s1"]},
        ],
        "observations": [{"text": f"Ana lives in {secret}.", "source": "seg_again"}],
        "episodes": [
            {"id": "seg_again", "summary": f"Ana is from {secret}.", "source": "seg_again"}
        ],
    }
    put = await client.put("/users/ana/passport", json=doc, headers=tenant.headers)
    assert put.status_code in (200, 201), put.text
    assert secret in (await client.get("/users/ana/passport", headers=tenant.headers)).text

    gone = await client.delete("/users/ana/turns/s1", headers=tenant.headers)
    assert gone.status_code == 200, gone.text
    after = (await client.get("/users/ana/passport", headers=tenant.headers)).json()
    assert secret not in str(after)
    assert [t["id"] for t in after["turns"]] == ["b1"]
    assert after["observations"] == [] and after["episodes"] == []
    assert _places_holding(settings.database_url, secret) == []
