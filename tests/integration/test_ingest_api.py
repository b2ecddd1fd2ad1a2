"""Ingestion over HTTP with a real worker: jobs, idempotency, plan, facts, versions."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

from tests.conftest import make_tenant, quiet_jobs

pytestmark = pytest.mark.integration

SESSION_1 = {
    "subject": "Melanie",
    "session_ts": "1:56 pm on 8 May, 2023",
    "turns": [
        {"speaker": "Caroline", "text": "Hey Mel! How was your week?", "id": "d1:1"},
        {
            "speaker": "Melanie",
            "text": "I ran a charity race for mental health last Saturday.",
            "id": "d1:2",
        },
        {
            "speaker": "Caroline",
            "text": "I went to the LGBTQ support group yesterday.",
            "id": "d1:3",
        },
    ],
}
SESSION_2 = {
    "subject": "Melanie",
    "turns": [
        {
            "speaker": "Melanie",
            "text": "We finally took the kids camping at Lake Tahoe.",
            "ts": "2023-07-02T18:00:00Z",
            "id": "d2:1",
        },
        {
            "speaker": "Caroline",
            "text": "That sounds amazing, I love camping.",
            "ts": "2023-07-02T18:01:00Z",
            "id": "d2:2",
        },
    ],
}


async def ingest(client, headers, body, **params):
    params.setdefault("wait", 20)
    return await client.post("/users/mel/ingest", json=body, headers=headers, params=params)


async def test_multi_session_chat_becomes_versions(client, tenant, worker):
    first = await ingest(client, tenant.headers, SESSION_1)
    assert first.status_code == 200, first.text  # finished within ?wait
    body = first.json()
    assert body["status"] == "done"
    assert body["status_url"] == f"/jobs/{body['job_id']}"
    assert body["plan"]["segments"] == 1 and body["plan"]["interactions"] == 3
    second = await ingest(client, tenant.headers, SESSION_2)
    assert second.json()["status"] == "done"
    assert second.json()["job"]["version_after"] == 2

    passport = (await client.get("/users/mel/passport", headers=tenant.headers)).json()
    sources = passport["sources"]
    assert len(sources) == 2
    # Event time, not ingest time: the 2023 backfill keeps its dates.
    assert sources[0]["ts"].startswith("2023-05-08")
    assert sources[1]["ts"].startswith("2023-07-02")
    # One episode per session, at the session's time, quoting it.
    assert [e["ts"][:10] for e in passport["episodes"]] == ["2023-05-08", "2023-07-02"]
    assert all(e["quoted"] is True for e in passport["episodes"])
    turn_ids = [s["turn_ids"] for s in passport["sources"]]
    assert turn_ids == [["d1:1", "d1:2", "d1:3"], ["d2:1", "d2:2"]]

    versions = (await client.get("/users/mel/versions", headers=tenant.headers)).json()["items"]
    assert [v["version"] for v in versions] == [2, 1, 0]
    assert versions[0]["cause"] == "ingest"
    assert versions[0]["changes"]["sources"]["added"] == 1
    v1 = (await client.get("/users/mel/passport?version=1", headers=tenant.headers)).json()
    assert len(v1["sources"]) == 1 and v1["sources"][0] == sources[0]

    job = (await client.get(body["status_url"], headers=tenant.headers)).json()
    assert job["status"] == "done" and job["progress"] == {"done": 1, "total": 1}
    assert job["version_after"] == 1 and job["finished_at"] is not None
    jobs = (await client.get("/users/mel/jobs", headers=tenant.headers)).json()["items"]
    assert len(jobs) == 2 and jobs[0]["job_id"] == second.json()["job_id"]


async def test_same_content_again_is_accepted_and_changes_nothing(client, worker):
    t = await make_tenant(client, "again")
    await ingest(client, t.headers, SESSION_1)
    again = await ingest(client, t.headers, SESSION_1)
    assert again.json()["status"] == "done"
    assert again.json()["job"]["version_after"] == 1
    assert again.json()["job"]["result"]["changed"] is False


async def test_idempotency_key(client, worker):
    t = await make_tenant(client, "idem")
    headers = {**t.headers, "Idempotency-Key": "req-1"}
    a = await client.post("/users/mel/ingest", json=SESSION_1, headers=headers)
    b = await client.post("/users/mel/ingest", json=SESSION_1, headers=headers)
    assert a.status_code in (200, 202) and b.status_code in (200, 202)
    assert a.json()["job_id"] == b.json()["job_id"]
    other = await client.post("/users/mel/ingest", json=SESSION_2, headers=headers)
    assert other.status_code == 409
    assert "Idempotency-Key" in other.json()["detail"]
    jobs = (await client.get("/users/mel/jobs", headers=t.headers)).json()["items"]
    assert len(jobs) == 1
    # Keys are per tenant: another tenant may use the same key for its own job.
    u = await make_tenant(client, "idem2")
    c = await client.post(
        "/users/mel/ingest", json=SESSION_1, headers={**u.headers, "Idempotency-Key": "req-1"}
    )
    assert c.json()["job_id"] != a.json()["job_id"]


async def test_plan_stores_nothing(client, tenant):
    turns = [{"speaker": "a", "text": "word " * 400} for _ in range(10)]
    resp = await client.post("/users/planned/plan", json={"turns": turns}, headers=tenant.headers)
    assert resp.status_code == 200
    plan = resp.json()
    assert plan["interactions"] == 10
    assert plan["segments"] == plan["extraction_calls"] >= 2
    assert plan["max_segment_tokens"] <= 1500
    assert plan["estimated_input_tokens"] > 0
    assert (await client.get("/users/planned/passport", headers=tenant.headers)).status_code == 404


async def test_client_facts_merge_with_contradictions(client, tenant):
    old = {"facts": [{"key": "location", "value": "Harare", "ts": "2023-01-01T00:00:00Z"}]}
    new = {
        "facts": [{"key": "location", "value": "Kwekwe", "ts": "2024-01-01T00:00:00Z"}],
        "prefs": [{"key": "tone", "value": "direct"}],
    }
    r1 = await client.post("/users/f/facts", json=old, headers=tenant.headers)
    assert r1.status_code == 200 and r1.json()["version"] == 1
    r2 = await client.post("/users/f/facts", json=new, headers=tenant.headers)
    assert r2.json()["version"] == 2 and r2.json()["changed"]
    doc = (await client.get("/users/f/passport", headers=tenant.headers)).json()
    assert [f["value"] for f in doc["facts"]] == ["Kwekwe"]
    assert doc["contradictions"][0]["old"] == "Harare"
    assert doc["prefs"][0]["value"] == "direct"
    # An older value sent later loses, and is recorded.
    r3 = await client.post(
        "/users/f/facts",
        json={"facts": [{"key": "location", "value": "Bulawayo", "ts": "2022-01-01T00:00:00Z"}]},
        headers=tenant.headers,
    )
    doc = (await client.get("/users/f/passport", headers=tenant.headers)).json()
    assert [f["value"] for f in doc["facts"]] == ["Kwekwe"]
    assert any(c["old"] == "Bulawayo" for c in doc["contradictions"])
    assert r3.json()["version"] == 3


@pytest.mark.parametrize(
    ("body", "expect"),
    [
        ({}, "nothing to ingest"),
        ({"turns": []}, "nothing to ingest"),
        ({"turns": [{"speaker": " ", "text": "hi"}]}, "speaker"),
        ({"items": [{"speaker": None, "text": "hi", "session": "s"}]}, "session"),
        ({"turns": [{"speaker": "a", "text": "hi"}], "colour": "red"}, "colour"),
        ({"turns": [{"speaker": "a", "text": 5}]}, "text"),
        ({"rows": [{"table": "orders"}]}, "row"),
    ],
)
async def test_bad_input_is_a_clear_4xx(client, tenant, body, expect):
    resp = await client.post("/users/bad/ingest", json=body, headers=tenant.headers)
    assert 400 <= resp.status_code < 500, resp.text
    assert resp.headers["content-type"] == "application/problem+json"
    assert expect in resp.text


async def test_blank_texts_are_refused_and_unreadable_times_dropped(client, tenant, worker):
    """A request of blank turns says nothing to keep: a 422, not a job done with nothing stored;
    a time that cannot be read is dropped and the turn kept."""
    blank = {"turns": [{"speaker": "a", "text": " "}] * 3}
    resp = await client.post("/users/odd/ingest?wait=20", json=blank, headers=tenant.headers)
    assert resp.status_code == 422, resp.text
    assert "blank" in resp.json()["detail"]
    odd = {
        "turns": [{"speaker": "a", "text": "I moved to Kwekwe.", "ts": "2023-13-45"}],
        "items": [{"speaker": None, "text": "a note without an author"}],
        "session_ts": "not a date",
    }
    resp = await client.post("/users/odd/ingest?wait=20", json=odd, headers=tenant.headers)
    assert resp.status_code == 200, resp.text
    assert resp.json()["status"] == "done"
    passport = (await client.get("/users/odd/passport", headers=tenant.headers)).json()
    assert "Kwekwe" in str(passport)


async def test_oversized_turn_and_escapes(client, tenant, worker, settings):
    big = {"turns": [{"speaker": "a", "text": "x" * 1_000_000}]}  # a 1 MB turn
    resp = await client.post("/users/bad/ingest", json=big, headers=tenant.headers)
    assert resp.status_code in (413, 422)
    raw = b'{"turns":[{"speaker":"a","text":"caf\\u00e9 \\ud83d\\ude00 ok \\u0000 done"}]}'
    resp = await client.post(
        "/users/esc/ingest?wait=20",
        content=raw,
        headers={**tenant.headers, "Content-Type": "application/json"},
    )
    assert resp.status_code == 200, resp.text
    assert resp.json()["status"] == "done"
    bad_utf8 = b'{"turns":[{"speaker":"a","text":"\xff\xfe"}]}'
    resp = await client.post(
        "/users/esc/ingest",
        content=bad_utf8,
        headers={**tenant.headers, "Content-Type": "application/json"},
    )
    assert resp.status_code in (400, 422)
    lone = b'{"turns":[{"speaker":"a","text":"\\ud800 alone"}]}'
    resp = await client.post(
        "/users/esc/ingest",
        content=lone,
        headers={**tenant.headers, "Content-Type": "application/json"},
    )
    assert 400 <= resp.status_code < 500, resp.text


async def test_every_version_rebuilds_exactly(client, tenant):
    """Writes that touch nested meta (dedupe decisions) still rebuild byte for byte."""
    writes = [
        {"facts": [{"key": "favorite_color", "value": "blue", "ts": "2023-01-01T00:00:00Z"}]},
        {"facts": [{"key": "favourite_color", "value": "green", "ts": "2023-02-01T00:00:00Z"}]},
        {"facts": [{"key": "favourite_colour", "value": "red", "ts": "2023-03-01T00:00:00Z"}]},
        {"facts": [{"key": "budget_min", "value": 10, "ts": "2023-03-02T00:00:00Z"}]},
        {"facts": [{"key": "budget_max", "value": 99, "ts": "2023-03-03T00:00:00Z"}]},
        {"prefs": [{"key": "min_budget", "value": 12, "ts": "2023-04-01T00:00:00Z"}]},
    ]
    seen = {}
    for body in writes:
        resp = await client.post("/users/hist/facts", json=body, headers=tenant.headers)
        version = resp.json()["version"]
        seen[version] = (await client.get("/users/hist/passport", headers=tenant.headers)).content
    assert len(seen) == len(writes)
    doc = (await client.get("/users/hist/passport", headers=tenant.headers)).json()
    assert doc["meta"]["dedupe"]["decisions"], "the fuzzy merges were recorded"
    for version, body in seen.items():
        old = await client.get(f"/users/hist/passport?version={version}", headers=tenant.headers)
        assert old.status_code == 200
        assert old.content == body, version


async def test_a_rule_that_raises_costs_only_its_sentence(client, tenant, app, monkeypatch):
    from app.domain.extraction.rules import RuleExtractor, extractor
    from app.domain.ingest import IngestPayload
    from app.services import ingest, processing
    from app.services.claimed import WorkerResources

    def exploding(view, out):  # a rule with a bug that real chat can reach
        for sentence in view.sentences:
            if "kaboom" in sentence.text.lower():
                raise KeyError("kaboom day")

    # The job is run here, by the extractor in this process, so the faulty rule is the one run.
    monkeypatch.setattr(extractor, "FAMILIES", (*extractor.FAMILIES, exploding))
    body = {
        "subject": "Ana",
        "session_ts": "2024-03-01T10:00:00Z",
        "turns": [
            {
                "speaker": "Ana",
                "text": "I moved to Porto last week. Kaboom, what a move!",
                "id": "a1",
            },
            {"speaker": "Bo", "text": "Nice! How is the new flat?", "id": "b1"},
        ],
    }
    quiet, own = quiet_jobs(app)  # jobs on a queue no worker reads: the test runs them
    payload = IngestPayload.model_validate(body)
    accepted = await ingest.accept(quiet, uuid.UUID(tenant.id), "rules", payload, own)
    resources = WorkerResources(RuleExtractor())
    tenant_id, job_id = uuid.UUID(tenant.id), accepted.job.id
    await processing.run_job(quiet, tenant_id, job_id, own, resources)
    job = (await client.get(f"/jobs/{job_id}", headers=tenant.headers)).json()
    assert job["status"] == "done" and job["error"] is None, job
    assert job["result"]["rules_failed"] == [
        # The kind of error, never its text (which may quote what was said).
        {"rule": "exploding", "turn_id": "a1", "error": "KeyError"}
    ]
    doc = (await client.get("/users/rules/passport", headers=tenant.headers)).json()
    assert [t["id"] for t in doc["turns"]] == ["a1", "b1"]
    # Every other rule still gave what it gives for that sentence and the others.
    assert {f["key"]: f["value"] for f in doc["facts"]}.get("location") == "Porto"


async def test_an_openai_style_message_list_is_ingested_as_it_is(client, tenant, worker):
    messages = [
        {"role": "system", "content": "You are a helpful assistant. I live in Oslo."},
        {"role": "user", "content": "I moved to Porto last week for a new job.", "id": "u1"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "## Moving Checklist\n- **Register Address**: soon."},
                {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}},
            ],
            "tool_calls": None,
            "refusal": None,
            "id": "a1",
        },
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function"}]},
        {"role": "tool", "content": '{"city": "Lisbon"}', "tool_call_id": "c1", "id": "t1"},
        {"role": "user", "name": "Ana", "content": "My favorite food is bacalhau.", "id": "u2"},
    ]
    resp = await client.post(
        "/users/agent/ingest?wait=20", json={"turns": messages}, headers=tenant.headers
    )
    assert resp.status_code == 200, resp.text
    assert resp.json()["status"] == "done"
    doc = (await client.get("/users/agent/passport", headers=tenant.headers)).json()
    turns = {t["id"]: t for t in doc["turns"] if not t["id"].startswith("t_")}
    assert turns["u1"]["role"] == "user" and turns["u2"]["speaker"] == "Ana"
    assert turns["a1"]["role"] == "assistant"
    assert turns["a1"]["text"].startswith("## Moving Checklist")  # kept verbatim
    assert turns["t1"]["role"] == "tool"
    # Beliefs come from the user's words only: none from the system prompt, the assistant's
    # headings and list labels, or the tool's output.
    said = json.dumps({k: doc[k] for k in ("facts", "prefs", "entities")})
    assert "Porto" in said or "bacalhau" in said
    for never in ("Oslo", "Lisbon", "Moving Checklist", "Register Address"):
        assert never not in said, never


async def test_standing_instructions_lead_the_context_the_newest_wins_and_forget_takes_them(
    client, tenant, worker
):
    def chat(n: int, said: str, day: int) -> dict[str, Any]:
        ts = f"2024-04-{day:02d}T10:00:00Z"
        return {
            "turns": [
                {"role": "user", "content": said, "id": f"u{n}", "ts": ts},
                {"role": "assistant", "content": "Understood, I will do that.", "ts": ts},
            ]
        }

    url = "/users/dev/ingest?wait=20"
    for n, said, day in [
        (1, "Please always answer in French.", 1),
        (2, "From now on, answer in Spanish.", 9),
    ]:
        resp = await client.post(url, json=chat(n, said, day), headers=tenant.headers)
        assert resp.json()["status"] == "done", resp.text
    doc = (await client.get("/users/dev/passport", headers=tenant.headers)).json()
    [current] = doc["instructions"]
    assert current["text"] == "From now on, answer in Spanish."
    assert [h["text"] for h in current["history"]] == ["Please always answer in French."]
    ctx = await client.get("/users/dev/context?q=unit+tests", headers=tenant.headers)
    assert ctx.text.startswith("Instructions:\n- From now on, answer in Spanish.\n")
    # Forgetting the turn that said it brings back what it replaced.
    assert (await client.delete("/users/dev/turns/u2", headers=tenant.headers)).status_code == 200
    ctx = await client.get("/users/dev/context?q=unit+tests", headers=tenant.headers)
    assert ctx.text.startswith("Instructions:\n- Please always answer in French.\n")
    assert "Spanish" not in ctx.text


async def test_a_value_the_user_states_keeps_its_history_and_the_context_shows_the_newest(
    client, tenant, worker
):
    def chat(n: int, said: str, day: int) -> dict[str, Any]:
        ts = f"2024-04-{day:02d}T10:00:00Z"
        return {
            "turns": [
                {"role": "user", "content": said, "id": f"v{n}", "ts": ts},
                {"role": "assistant", "content": "Nice, coverage at 99% is next!", "ts": ts},
            ]
        }

    url = "/users/vals/ingest?wait=20"
    for n, said, day in [
        (1, "My API test coverage is at 65% after this sprint.", 1),
        (2, "Good news: my API test coverage has now reached 78%.", 12),
    ]:
        resp = await client.post(url, json=chat(n, said, day), headers=tenant.headers)
        assert resp.json()["status"] == "done", resp.text
    doc = (await client.get("/users/vals/passport", headers=tenant.headers)).json()
    [value] = doc["values"]
    assert (value["about"], value["value"], value["turn_ids"]) == (
        "API test coverage",
        "78%",
        ["v2"],
    )
    assert [(h["value"], h["turn_ids"]) for h in value["history"]] == [("65%", ["v1"])]
    ctx = await client.get(
        "/users/vals/context?q=what+is+my+API+test+coverage", headers=tenant.headers
    )
    assert "API test coverage: 78% (since 12 April 2024; before: 65%, 1 April 2024)" in ctx.text
    # Forgetting the turn that said the newest brings back the value before it.
    assert (await client.delete("/users/vals/turns/v2", headers=tenant.headers)).status_code == 200
    doc = (await client.get("/users/vals/passport", headers=tenant.headers)).json()
    assert [(v["value"], v["history"]) for v in doc["values"]] == [("65%", [])]
    assert "78%" not in str(doc)


async def test_another_services_memories_and_a_message_list_are_imported_as_turns(
    client, tenant, worker
):
    memories = [
        {
            "id": "mem-1",
            "memory": "Prefers window seats on long flights",
            "created_at": "2024-03-02T10:00:00Z",
            "user_id": "someone-elsewhere",
            "metadata": {"category": "travel"},
        },
        {"id": "mem-2", "text": "Allergic to peanuts", "timestamp": "2024-01-05"},
    ]
    resp = await client.post(
        "/users/imported/import?wait=20", json=memories, headers=tenant.headers
    )
    assert resp.status_code == 200 and resp.json()["status"] == "done", resp.text
    messages = {
        "messages": [
            {"role": "user", "content": "Book the 9:40 train to Porto.", "id": "msg-1"},
            {"role": "assistant", "content": "Booked: carriage 4.", "id": "msg-2"},
        ],
        "session_ts": "2024-04-01T08:00:00Z",
    }
    resp = await client.post(
        "/users/imported/import?wait=20", json=messages, headers=tenant.headers
    )
    assert resp.json()["status"] == "done", resp.text
    doc = (await client.get("/users/imported/passport", headers=tenant.headers)).json()
    turns = {t["id"]: (t["speaker"], t["text"], t["ts"][:10]) for t in doc["turns"]}
    assert turns == {
        "mem-1": ("user", "Prefers window seats on long flights", "2024-03-02"),
        "mem-2": ("user", "Allergic to peanuts", "2024-01-05"),
        "msg-1": ("user", "Book the 9:40 train to Porto.", "2024-04-01"),
        "msg-2": ("assistant", "Booked: carriage 4.", "2024-04-01"),
    }
    ctx = await client.get("/users/imported/context?q=peanuts+allergy", headers=tenant.headers)
    assert "[5 January 2024]\nuser: Allergic to peanuts" in ctx.text
    # What cannot be imported is refused whole, saying where.
    bad = [{"memory": "ok"}, {"created_at": "2024-01-01"}]
    resp = await client.post("/users/imported/import", json=bad, headers=tenant.headers)
    assert resp.status_code == 422
    assert resp.headers["content-type"].startswith("application/problem+json")
    assert "memory, text, content or fact" in resp.text


async def test_a_job_is_followed_with_one_waiting_request(client, tenant, worker):
    h = tenant.headers
    body = {"turns": [{"role": "user", "content": "I repainted the fence green on Sunday."}]}
    queued = await client.post("/users/gus/ingest", json=body, headers=h)
    assert queued.status_code == 202
    job_id = queued.json()["job_id"]
    ended = await client.get(f"/jobs/{job_id}?wait=20", headers=h)
    assert ended.status_code == 200
    assert (ended.json()["status"], ended.json()["version_after"]) == ("done", 1)
    # An ended job answers at once; a bad wait is refused; another tenant's job is not found.
    assert (await client.get(f"/jobs/{job_id}?wait=20", headers=h)).json()["status"] == "done"
    assert (await client.get(f"/jobs/{job_id}?wait=-1", headers=h)).status_code == 422
    other = await make_tenant(client, "other")
    hidden = await client.get(f"/jobs/{job_id}?wait=1", headers=other.headers)
    assert hidden.status_code == 404
