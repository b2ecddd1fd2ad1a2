"""Forgetting a turn is a hard delete: its words are nowhere afterwards, and the rest stays."""

from __future__ import annotations

import asyncio
import unicodedata
import uuid
from typing import Any

import httpx
import psycopg
import pytest

from tests.conftest import _libpq, make_tenant, quiet_jobs
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


TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "app.py", line 3, in <module>\n'
    "    main()\n"
    "ValueError: boom\n"
)
# Turns the log keeps in another form than they were sent: noise pruned from their start, a
# control character dropped, letters composed. Each is found in the payloads by what it became.
SENT_OTHERWISE = {
    "a key first": ("Keyhaven", "A" * 240 + " is my key, and Keyhaven is my town"),
    "a traceback first": ("Tracewick", TRACEBACK + "anyway, Tracewick is my town"),
    "a control character first": ("Bellmoor", "\x07Bellmoor is my town"),
    "decomposed letters": ("Nfdton", unicodedata.normalize("NFD", "José lives in Nfdton")),
}


@pytest.mark.parametrize("name", list(SENT_OTHERWISE))
async def test_a_turn_stored_otherwise_leaves_its_payload_too(client, worker, settings, name):  # type: ignore[no-untyped-def]
    secret, text = SENT_OTHERWISE[name]
    t = await make_tenant(client, f"forget-form-{list(SENT_OTHERWISE).index(name)}")
    body = _session([("s1", "Ana", text), ("b1", "Bo", "Nice place.")], 3)
    done = await client.post("/users/ana/ingest?wait=20", json=body, headers=t.headers)
    assert done.json()["job"]["status"] == "done", done.text
    assert "ingest_job.payload" in _places_holding(settings.database_url, secret)
    gone = await client.delete("/users/ana/turns/s1", headers=t.headers)
    assert gone.status_code == 200 and gone.json()["payloads_scrubbed"] == 1, gone.text
    assert _places_holding(settings.database_url, secret) == []
    kept = await client.get("/users/ana/passport", headers=t.headers)
    assert [turn["id"] for turn in kept.json()["turns"]] == ["b1"]


class Gate:
    """The rule extractor, held at the door until the test opens it."""

    name = "rules"

    def __init__(self) -> None:
        self.reached = asyncio.Event()
        self.open = asyncio.Event()

    async def extract(self, request: Any) -> Any:
        from app.domain.extraction.rules import extract_rules

        self.reached.set()
        await self.open.wait()
        return extract_rules(request)


async def test_a_forget_during_a_job_is_not_undone_by_the_job(client, tenant, app, settings):  # type: ignore[no-untyped-def]
    from app.domain.ingest import IngestPayload
    from app.services import ingest, processing
    from app.services.claimed import WorkerResources

    quiet, own = quiet_jobs(app)  # jobs on a queue no worker reads: the test runs them
    tenant_id = uuid.UUID(tenant.id)
    secret = "Racebridge"
    said = ("s1", "Ana", f"My home city is {secret}.")
    first = _session([said, ("b1", "Bo", "Far away!")], 1)
    again = _session([said, ("s2", "Ana", "My favorite food is bacalhau.")], 1)
    jobs = []
    for body in (first, again):
        payload = IngestPayload.model_validate(body)
        accepted = await ingest.accept(quiet, tenant_id, "race", payload, own)
        jobs.append(accepted.job.id)
    plain = WorkerResources(Gate())
    plain.extractor.open.set()
    await processing.run_job(quiet, tenant_id, jobs[0], own, plain)

    # The second job has read its payload and waits in extraction when the forget comes.
    held = WorkerResources(Gate())
    running = asyncio.create_task(processing.run_job(quiet, tenant_id, jobs[1], own, held))
    await asyncio.wait_for(held.extractor.reached.wait(), 20)
    forgot = await client.delete("/users/race/turns/s1", headers=tenant.headers)
    assert forgot.status_code == 200, forgot.text
    held.extractor.open.set()
    outcome = await running
    assert outcome.status == "restarted"  # it saw the log rewritten, and committed nothing
    assert _places_holding(settings.database_url, secret) == []

    # Run again, it works on what the forget left of its payload.
    again_outcome = await processing.run_job(quiet, tenant_id, jobs[1], own, plain)
    assert again_outcome.status == "done"
    doc = (await client.get("/users/race/passport", headers=tenant.headers)).json()
    assert [turn["id"] for turn in doc["turns"]] == ["b1", "s2"]
    assert _places_holding(settings.database_url, secret) == []


async def test_every_api_process_drops_what_it_cached_of_a_forgotten_turn(client, worker, settings):  # type: ignore[no-untyped-def]
    from app.main import create_app

    secret = "Farcaster"
    t = await make_tenant(client, "forget-elsewhere")
    body = _session([("s1", "Ana", f"My home city is {secret}."), ("b1", "Bo", "Far!")], 4)
    done = await client.post("/users/ana/ingest?wait=20", json=body, headers=t.headers)
    assert done.json()["job"]["status"] == "done"
    other = create_app(settings)  # a second API process on the same database
    async with other.router.lifespan_context(other):
        transport = httpx.ASGITransport(app=other)
        async with httpx.AsyncClient(transport=transport, base_url="http://b.test") as b:
            read = await b.get("/users/ana/context", params={"q": "home"}, headers=t.headers)
            assert secret in read.text
            held = other.state.runtime.caches
            assert held.indexes.peek(uuid.UUID(t.id), "ana") is not None
            gone = await client.delete("/users/ana/turns/s1", headers=t.headers)
            assert gone.status_code == 200
            # The forget's signal reaches the other process: it lets go of the user at once.
            for _ in range(100):
                if held.indexes.peek(uuid.UUID(t.id), "ana") is None:
                    break
                await asyncio.sleep(0.05)
            assert held.indexes.peek(uuid.UUID(t.id), "ana") is None
            assert not any(secret.encode() in body for body in held.results.values())


async def test_an_id_with_a_nul_names_nothing_and_is_refused_not_a_server_error(client):
    t = await make_tenant(client, "nul-ids")
    await client.put("/users/u/passport", json={"version": "2.1", "facts": []}, headers=t.headers)
    for path in ("/users/u/turns/a%00b", "/users/u/sources/seg%00"):
        resp = await client.delete(path, headers=t.headers)
        assert resp.status_code == 422, (path, resp.text)
        assert resp.headers["content-type"].startswith("application/problem+json")
    # Other control characters can be in a client's id: looked up, and not found.
    assert (await client.delete("/users/u/turns/a%01b", headers=t.headers)).status_code == 404
