"""Every version of a passport is rebuilt byte for byte: head deltas plus the rows alive then."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytestmark = pytest.mark.integration

LINES = [
    ("Ana", "I moved to Lisbon last week for a new job."),
    ("Bo", "Congrats! What is the job?"),
    ("Ana", "I work as a nurse at the city hospital now."),
    ("Bo", "My sister is a nurse too, she loves it."),
    ("Ana", "I love hiking in the mountains on weekends."),
    ("Bo", "Same, we hiked Sintra yesterday."),
    ("Ana", "My cat Miso hates the new flat."),
    ("Bo", "Cats need time. Mine took a month."),
]


def _session(n: int) -> dict[str, Any]:
    turns = [
        {"speaker": who, "text": f"{text} (session {n})", "id": f"s{n}t{i}"}
        for i, (who, text) in enumerate(LINES[n % 4 : n % 4 + 4])
    ]
    return {"subject": "Ana", "session_ts": f"2024-03-{n + 1:02d}T10:00:00Z", "turns": turns}


async def _now(client: Any, headers: dict[str, str]) -> tuple[int, bytes]:
    resp = await client.get("/users/ana/passport", headers=headers)
    assert resp.status_code == 200
    return int(resp.headers["etag"].strip('"')), resp.content


async def test_every_version_is_rebuilt_exactly(client, tenant, worker):
    h = tenant.headers
    seen: dict[int, bytes] = {}

    async def record() -> None:
        version, body = await _now(client, h)
        seen[version] = body

    for n in range(4):
        job = await client.post("/users/ana/ingest?wait=20", json=_session(n), headers=h)
        assert job.json()["status"] == "done", job.text
        await record()
    # An import that drops the first turn and changes a belief removes a row and edits the head.
    doc = json.loads(seen[max(seen)])
    del doc["witness"]  # edited on purpose: the seal would refuse it
    doc["turns"] = doc["turns"][1:]
    doc["facts"].append({"key": "ana.shoe_size", "value": 38, "ts": "2024-03-09T00:00:00Z"})
    resp = await client.put("/users/ana/passport", json=doc, headers=h)
    assert resp.status_code == 200, resp.text
    await record()
    facts = {"facts": [{"key": "ana.team", "value": "Benfica"}], "prefs": []}
    assert (await client.post("/users/ana/facts", json=facts, headers=h)).status_code == 200
    await record()
    for n in range(4, 6):
        job = await client.post("/users/ana/ingest?wait=20", json=_session(n), headers=h)
        assert job.json()["status"] == "done"
        await record()
    redo = await client.post("/users/ana/reprocess?wait=20", headers=h)
    assert redo.json()["status"] == "done", redo.text
    await record()

    current = max(seen)
    assert len(seen) >= 8
    for version, body in seen.items():
        old = await client.get("/users/ana/passport", params={"version": version}, headers=h)
        assert old.content == body, version
    # And every version in between is there to read.
    for version in range(current + 1):
        old = await client.get("/users/ana/passport", params={"version": version}, headers=h)
        assert old.status_code == 200, version
    turns = json.loads(seen[current])["turns"]
    assert len(turns) == 6 * 4 - 1  # every turn said, less the one the import dropped
    assert len({t["id"] for t in turns}) == len(turns)
