"""Export and import of whole passports: SozoGraph both ways, streaming, sections, log pages."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
import sozograph

from app.domain.ids import canonical_bytes
from tests.conftest import without_witness

pytestmark = pytest.mark.integration


def _sozograph_file() -> dict[str, Any]:
    """A passport as the SozoGraph library itself saves one."""
    p = sozograph.Passport.new()
    p.user_key = "rui"
    when = datetime(2024, 2, 3, 10, 0, tzinfo=UTC)
    p.facts.append(sozograph.schema.Fact(key="city", value="Porto", ts=when, source="seg_1"))
    p.prefs.append(
        sozograph.schema.Preference(key="coffee", value="black", ts=when, source="seg_1")
    )
    p.entities.append(sozograph.schema.Entity(name="Porto", type="place"))
    p.observations.append(
        sozograph.schema.Observation(text="Rui ran a half marathon.", ts=when, source="seg_1")
    )
    p.episodes.append(
        sozograph.schema.Episode(id="seg_1", ts=when, summary="Rui talked running.", source="seg_1")
    )
    p.sources.append(sozograph.schema.SourceRef(id="seg_1", kind="chat", ts=when))
    return p.to_compact_dict()


async def test_a_sozograph_file_imports_as_is(client, tenant):
    doc = _sozograph_file()
    resp = await client.put("/users/rui/passport", json=doc, headers=tenant.headers)
    assert resp.status_code == 201, resp.text
    got = await client.get("/users/rui/passport", headers=tenant.headers)
    assert without_witness(got.json()) == doc
    # The observation is in the log, where the context ranks it.
    ctx = await client.get("/users/rui/context", params={"q": "marathon"}, headers=tenant.headers)
    assert "half marathon" in ctx.text


async def test_an_export_loads_in_sozograph(client, tenant, worker):
    session = {
        "subject": "Ana",
        "session_ts": "2024-03-01T10:00:00Z",
        "turns": [
            {"speaker": "Ana", "text": "I moved to Lisbon last week for a new job.", "id": "a1"},
            {"speaker": "Bo", "text": "Congrats! How is it going?", "id": "b1"},
            {"speaker": "Ana", "text": "Great. My desk faces the river Tagus.", "id": "a2"},
        ],
    }
    job = await client.post("/users/ana/ingest?wait=20", json=session, headers=tenant.headers)
    assert job.json()["status"] == "done", job.text
    native = (await client.get("/users/ana/passport", headers=tenant.headers)).json()
    assert [t["id"] for t in native["turns"]] == ["a1", "b1", "a2"]
    assert native["turns"][0]["dates"] == [{"said": "last week", "day": "2024-02-19"}]

    resp = await client.get(
        "/users/ana/passport", params={"format": "sozograph"}, headers=tenant.headers
    )
    assert resp.status_code == 200
    assert "turns" not in resp.json()
    loaded = sozograph.Passport.from_dict(resp.json())
    assert {s.id for s in loaded.sources} == {s["id"] for s in native["sources"]}
    assert [f.key for f in loaded.facts] == [f["key"] for f in native["facts"]]
    # Every turn is an observation: who said what, when, the day it named, its session.
    said = {o.text: o for o in loaded.observations}
    first = said["Ana: I moved to Lisbon last week for a new job."]
    assert (first.when, first.participants) == ("2024-02-19", ["Ana"])
    assert len(loaded.observations) == 3
    # The episode of the session, in Ana's words, loads as the library's episode.
    [episode] = loaded.episodes
    assert episode.participants == ["Ana", "Bo"]
    assert episode.summary in {t["text"] for t in native["turns"]} | {
        "I moved to Lisbon last week for a new job.",
        "My desk faces the river Tagus.",
    }
    # The library's own context answers from what was said.
    assert "river Tagus" in loaded.context(query="Which river does Ana's desk face?")

    # Saved by the library and imported into Tessera: the turns come back.
    saved = loaded.to_compact_dict()
    put = await client.put("/users/ana2/passport", json=saved, headers=tenant.headers)
    assert put.status_code == 201, put.text
    back = (await client.get("/users/ana2/passport", headers=tenant.headers)).json()
    assert [(t["speaker"], t["text"], t["ts"]) for t in back["turns"]] == [
        (t["speaker"], t["text"], t["ts"]) for t in native["turns"]
    ]
    assert back["observations"] == []
    ctx = await client.get("/users/ana2/context", params={"q": "river"}, headers=tenant.headers)
    assert "Ana: Great. My desk faces the river Tagus." in ctx.text

    # The episode quotes the session's turns: forgetting one of them forgets it too.
    forgot = await client.delete("/users/ana/turns/b1", headers=tenant.headers)
    assert forgot.status_code == 200, forgot.text
    after = (await client.get("/users/ana/passport", headers=tenant.headers)).json()
    assert after["episodes"] == []


async def test_the_sozograph_export_streams_and_pages_the_same_document(client, tenant, worker):
    session = {
        "session_ts": "2024-03-01T10:00:00Z",
        "turns": [{"speaker": "user", "text": f"Note {i}: the lake was calm."} for i in range(30)],
    }
    job = await client.post("/users/pg/ingest?wait=20", json=session, headers=tenant.headers)
    assert job.json()["status"] == "done", job.text
    whole = await client.get(
        "/users/pg/passport", params={"format": "sozograph"}, headers=tenant.headers
    )
    paged = await client.get(
        "/users/pg/passport",
        params={"format": "sozograph", "limit": 1000},
        headers=tenant.headers,
    )
    assert paged.status_code == 200, paged.text
    for doc in (whole.json(), paged.json()):
        assert "turns" not in doc
        assert [o["text"] for o in doc["observations"]] == [
            f"user: Note {i}: the lake was calm." for i in range(30)
        ]
        sozograph.Passport.from_dict(doc)


async def test_the_native_export_is_canonical_and_reimports_without_a_change(client, tenant):
    doc = _sozograph_file()
    doc["turns"] = [
        {
            "id": f"m{i}",
            "speaker": "Rui",
            "text": f"message number {i}",
            "ts": "2024-02-03T10:00:00Z",
        }
        for i in range(5)
    ]
    await client.put("/users/rui/passport", json=doc, headers=tenant.headers)
    body = (await client.get("/users/rui/passport", headers=tenant.headers)).content
    assert canonical_bytes(json.loads(body)) == body
    again = await client.put(
        "/users/rui/passport",
        content=body,
        headers={**tenant.headers, "If-Match": '"1"', "Content-Type": "application/json"},
    )
    assert again.json() == {"user_key": "rui", "version": 1, "created": False, "changed": False}
    # One more turn appended: one row added, the rest kept as they are.
    more = json.loads(body)
    del more["witness"]  # edited on purpose: the seal would refuse it
    more["turns"].append({"id": "m5", "speaker": "Rui", "text": "one more"})
    resp = await client.put("/users/rui/passport", json=more, headers=tenant.headers)
    assert resp.json()["version"] == 2
    versions = (await client.get("/users/rui/versions", headers=tenant.headers)).json()
    assert versions["items"][0]["changes"] == {"turns": {"added": 1, "removed": 0}}


async def test_an_import_larger_than_the_body_limit_goes_through(client, tenant, settings):
    turns = [
        {"id": f"m{i}", "speaker": "Rui", "text": f"{i} " + "lorem ipsum " * 40}
        for i in range(settings.max_body_bytes // 400)
    ]
    doc = {"version": "2.1", "user_key": "big", "turns": turns}
    assert len(json.dumps(doc)) > settings.max_body_bytes
    resp = await client.put("/users/big/passport", json=doc, headers=tenant.headers)
    assert resp.status_code == 201, resp.text[:300]
    got = await client.get("/users/big/passport", headers=tenant.headers)
    assert got.json()["turns"] == turns


async def test_sections_and_pages_of_the_log(client, tenant):
    doc = _sozograph_file()
    doc["turns"] = [
        {
            "id": f"m{i}",
            "speaker": "Rui",
            "text": f"day {i}",
            "ts": f"2024-02-{i + 1:02d}T09:00:00Z",
        }
        for i in range(7)
    ]
    await client.put("/users/rui/passport", json=doc, headers=tenant.headers)
    only = await client.get(
        "/users/rui/passport", params={"sections": "facts,prefs"}, headers=tenant.headers
    )
    assert set(only.json()) == {"version", "user_key", "updated_at", "facts", "prefs", "witness"}

    seen: list[str] = []
    params: dict[str, Any] = {"sections": "turns", "limit": 3}
    while True:
        page = await client.get("/users/rui/passport", params=params, headers=tenant.headers)
        assert page.status_code == 200
        seen += [t["id"] for t in page.json()["turns"]]
        cursor = page.headers.get("x-next-cursor")
        if cursor is None:
            break
        assert 'rel="next"' in page.headers["link"]
        params["after"] = int(cursor)
    assert seen == [f"m{i}" for i in range(7)]

    window = await client.get(
        "/users/rui/passport",
        params={"sections": "turns", "since": "2024-02-03", "until": "2024-02-04"},
        headers=tenant.headers,
    )
    assert [t["id"] for t in window.json()["turns"]] == ["m2", "m3"]
    bad = await client.get(
        "/users/rui/passport", params={"sections": "facts,nope"}, headers=tenant.headers
    )
    assert bad.status_code == 422


async def test_an_import_keeps_the_head_small_so_the_next_write_costs_its_change(
    client, tenant, worker
):
    loops = [{"item": f"call the plumber about tap {i}"} for i in range(130)]
    changes = [{"key": "city", "old": f"Town {i}", "new": f"Town {i + 1}"} for i in range(60)]
    doc = {"version": "2.1", "user_key": "rui", "open_loops": loops, "contradictions": changes}
    resp = await client.put("/users/rui/passport", json=doc, headers=tenant.headers)
    assert resp.status_code == 201, resp.text
    # The oldest beyond the head's caps went to the log at the import; the export is in order.
    got = (await client.get("/users/rui/passport", headers=tenant.headers)).json()
    assert got["open_loops"] == loops
    assert got["contradictions"] == changes
    body = (await client.get("/users/rui/passport", headers=tenant.headers)).content
    again = await client.put(
        "/users/rui/passport",
        content=body,
        headers={**tenant.headers, "Content-Type": "application/json"},
    )
    assert again.json()["changed"] is False

    # So the next write moves nothing out of the head: it adds its own turn.
    session = {"turns": [{"speaker": "Rui", "text": "Just had lunch.", "id": "r1"}]}
    job = await client.post("/users/rui/ingest?wait=20", json=session, headers=tenant.headers)
    assert job.json()["status"] == "done", job.text
    latest = (await client.get("/users/rui/versions", headers=tenant.headers)).json()["items"][0]
    assert latest["changes"]["turns"] == {"added": 1, "removed": 0}
    assert "open_loops" not in latest["changes"]
    assert "contradictions" not in latest["changes"]


async def test_a_slow_reader_of_an_export_holds_no_database_connection(client, tenant, settings):  # type: ignore[no-untyped-def]
    import uuid

    from app.db.engine import create_engine, session_factory
    from app.db.uow import uow_factory
    from app.services import passports

    doc = _sozograph_file()
    count = passports.EXPORT_BATCH + 10  # more than one batch of rows
    doc["turns"] = [{"id": f"m{i}", "speaker": "Rui", "text": f"line {i}"} for i in range(count)]
    put = await client.put("/users/rui/passport", json=doc, headers=tenant.headers)
    assert put.status_code == 201, put.text
    engine = create_engine(settings.database_url, pool_size=2, max_overflow=0)
    try:
        uows = uow_factory(session_factory(engine))
        readers = [
            (await passports.export(uows, uuid.UUID(tenant.id), "rui")).chunks for _ in range(10)
        ]
        parts: list[list[bytes]] = [[] for _ in readers]
        # Ten readers each take a few chunks, then read nothing for a while: none holds one of
        # the pool's two connections meanwhile, so all of them get their rows.
        for reader, got in zip(readers, parts, strict=True):
            for _ in range(8):
                got.append(await anext(reader))
            assert engine.sync_engine.pool.checkedout() == 0
        for reader, got in zip(readers, parts, strict=True):
            got.extend([chunk async for chunk in reader])
            assert engine.sync_engine.pool.checkedout() == 0
        exported = json.loads(b"".join(parts[0]))
        assert len(exported["turns"]) == count
        assert all(b"".join(p) == b"".join(parts[0]) for p in parts)
    finally:
        await engine.dispose()
