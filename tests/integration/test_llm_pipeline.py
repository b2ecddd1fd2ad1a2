"""The LLM extractor wired into the pipeline, against a fake OpenAI-compatible server.

Each test runs the API and an in-process worker with ``TESSERA_EXTRACTOR=openai:test-model`` on a
queue of its own; the worker's provider client talks to ``FakeLLM`` over ``httpx.MockTransport``
in the real chat-completions wire format. Nothing reaches the network and no key is real.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import psycopg
import pytest

from tests.conftest import _libpq, make_tenant

pytestmark = pytest.mark.integration

FACT = re.compile(r"\b[Mm]y ([a-z][a-z ]{1,40}?) is ([^.!?]+)")


def completion(content: str) -> dict[str, Any]:
    """A chat.completions response carrying ``content``."""
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "test-model",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": content, "refusal": None},
            }
        ],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
    }


@dataclass
class FakeLLM:
    """An OpenAI-compatible server: "my X is Y" becomes the fact x=Y; scripted failures."""

    status: int = 200  # anything else: every request gets this status
    garble: str | None = None  # a segment containing this word gets a reply that is not JSON
    merges: list[dict[str, str]] = field(default_factory=list)  # the key_merges answer
    prompts: list[str] = field(default_factory=list)  # every extraction prompt received
    reconcile_calls: int = 0

    def calls_about(self, subject: str) -> int:
        """Extraction requests about this subject (other tests' stray jobs are not counted)."""
        return sum(f"Subject: {subject}\n" in prompt for prompt in self.prompts)

    def handle(self, request: httpx.Request) -> httpx.Response:
        assert request.url.path == "/v1/chat/completions"
        body = json.loads(request.content)
        if self.status != 200:
            error = {
                "message": "Incorrect API key provided: sk-wrong.",
                "type": "invalid_request_error",
                "param": None,
                "code": "invalid_api_key",
            }
            return httpx.Response(self.status, json={"error": error})
        schema = body["response_format"]["json_schema"]["name"]
        prompt = body["messages"][1]["content"]
        if schema == "key_merges":
            self.reconcile_calls += 1
            return httpx.Response(200, json=completion(json.dumps({"merges": self.merges})))
        self.prompts.append(prompt)
        if self.garble and self.garble in prompt:
            return httpx.Response(200, json=completion("Sure! Here is what I found: nothing."))
        return httpx.Response(200, json=completion(json.dumps(self.extract(prompt))))

    @staticmethod
    def extract(prompt: str) -> dict[str, Any]:
        turns = [json.loads(line) for line in prompt.split("Transcript:\n", 1)[1].splitlines()]
        facts = [
            {"key": "_".join(m.group(1).split()), "value": m.group(2).strip(), "confidence": 0.9}
            for turn in turns
            for m in FACT.finditer(turn["text"])
        ]
        speakers = list(dict.fromkeys(turn["speaker"] for turn in turns))
        episode = {
            "summary": f"LLM summary: {turns[0]['text']}",
            "salience": 0.5,
            "participants": speakers,
            "keywords": ["test"],
        }
        return {
            "facts": facts,
            "prefs": [],
            "entities": [],
            "open_loops": [],
            "observations": [],
            "episode": episode,
        }


class Clock:
    """The budget's clock, moved by hand so a window never ends by itself mid-test."""

    def __init__(self) -> None:
        self.now = 60 * 28_333_334 + 10.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Stack:
    """An API client and the fake model behind this stack's worker."""

    api: httpx.AsyncClient
    fake: FakeLLM
    settings: Any
    app: Any


@asynccontextmanager
async def llm_stack(settings: Any, **overrides: Any) -> AsyncIterator[Stack]:
    """API + in-process worker with the fake LLM, on a queue no other worker reads."""
    from app.main import create_app
    from workers.main import build_worker

    clock = overrides.pop("budget_clock", None)
    own = settings.model_copy(
        update={
            "queue_name": f"tessera-llm:{uuid.uuid4().hex[:8]}",
            "extractor": "openai:test-model",
            "llm_base_url": "http://fake-llm.test/v1",
            "llm_max_retries": 0,
            **overrides,
        }
    )
    fake = FakeLLM()
    http = httpx.AsyncClient(transport=httpx.MockTransport(fake.handle))
    application = create_app(own)
    async with application.router.lifespan_context(application):
        worker = build_worker(own, llm_http_client=http, budget_clock=clock)
        worker.handle_signals = False  # type: ignore[attr-defined]
        task = asyncio.create_task(worker.async_run())
        try:
            transport = httpx.ASGITransport(app=application)
            async with httpx.AsyncClient(transport=transport, base_url="http://llm.test") as api:
                yield Stack(api, fake, own, application)
        finally:
            task.cancel()
            await worker.close()
            await http.aclose()


SESSION = {
    "subject": "Ana",
    "turns": [
        {"speaker": "Ana", "text": "My home city is Lisbon.", "ts": "2024-03-01T10:00:00Z"},
        {
            "speaker": "Bo",
            "text": "Nice, my favorite food is bacalhau.",
            "ts": "2024-03-01T10:01:00Z",
        },
    ],
}


def two_segments(first: str, second: str) -> dict[str, Any]:
    """A payload that is two segments: a month lies between its turns."""
    return {
        "subject": "Ana",
        "turns": [
            {"speaker": "Ana", "text": first, "ts": "2024-01-01T10:00:00Z"},
            {"speaker": "Ana", "text": second, "ts": "2024-02-01T10:00:00Z"},
        ],
    }


async def ingest(api: httpx.AsyncClient, headers: dict, user: str, body: dict) -> dict:
    resp = await api.post(f"/users/{user}/ingest", json=body, headers=headers, params={"wait": 20})
    assert resp.status_code in (200, 202), resp.text
    return resp.json()["job"]


async def poll(api: httpx.AsyncClient, headers: dict, job_id: str, done: Any) -> dict:
    """The job once ``done(job)`` holds; fails after 30 s."""
    deadline = time.monotonic() + 30
    while True:
        job = (await api.get(f"/jobs/{job_id}", headers=headers)).json()
        if done(job):
            return job
        assert time.monotonic() < deadline, job
        await asyncio.sleep(0.1)


async def passport(api: httpx.AsyncClient, headers: dict, user: str) -> dict:
    return (await api.get(f"/users/{user}/passport", headers=headers)).json()


def facts(doc: dict) -> dict[str, Any]:
    return {f["key"]: f["value"] for f in doc["facts"]}


# --- tests --------------------------------------------------------------------------------------


async def test_llm_ingest_builds_the_passport_and_the_cache_saves_the_second_call(settings):
    async with llm_stack(settings) as s:
        t = await make_tenant(s.api, "llm")
        plan = (await s.api.post("/users/ana/plan", json=SESSION, headers=t.headers)).json()
        assert (plan["extractor"], plan["segments"], plan["model_calls"]) == (
            "openai:test-model",
            1,
            1,
        )

        job = await ingest(s.api, t.headers, "ana", SESSION)
        assert job["status"] == "done", job
        assert job["kind"] == "ingest"
        assert job["usage"] == {
            "calls": 1,
            "input_tokens": 100,
            "output_tokens": 20,
            "cache_hits": 0,
        }
        doc = await passport(s.api, t.headers, "ana")
        assert facts(doc) == {"home_city": "Lisbon", "favorite_food": "bacalhau"}
        assert doc["episodes"][0]["summary"] == "LLM summary: My home city is Lisbon."
        assert doc["episodes"][0]["ts"] == "2024-03-01T10:01:00Z"  # event time, not now

        # The same transcript for the same user: already merged, so nothing is even looked up.
        again = await ingest(s.api, t.headers, "ana", SESSION)
        assert again["status"] == "done" and again["result"]["changed"] is False
        # For another user it is a new passport, but the same prompt: the cache answers.
        other = await ingest(s.api, t.headers, "bo", SESSION)
        assert other["status"] == "done" and other["result"]["changed"] is True
        assert other["usage"] == {
            "calls": 0,
            "input_tokens": 0,
            "output_tokens": 0,
            "cache_hits": 1,
        }
        assert facts(await passport(s.api, t.headers, "bo")) == facts(doc)
        assert s.fake.calls_about("Ana") == 1

        usage = (await s.api.get("/usage", headers=t.headers)).json()
        totals = dict(usage["totals"])
        # Three bodies of the same session were sent: the quota counts each one's bytes.
        assert totals.pop("ingest_bytes") >= 3 * len("My home city is Lisbon.")
        assert totals == {
            "jobs": 3,
            "calls": 1,
            "input_tokens": 100,
            "output_tokens": 20,
            "cache_hits": 1,
        }
        today = datetime.now(UTC).date()
        assert usage["until"] == today.isoformat()
        assert usage["since"] == (today - timedelta(days=29)).isoformat()
        assert [d["day"] for d in usage["days"]] == [today.isoformat()]
        assert usage["days"][0]["calls"] == 1
        past = await s.api.get(
            "/usage", headers=t.headers, params={"since": "2020-01-01", "until": "2020-01-31"}
        )
        assert past.json()["totals"]["jobs"] == 0 and past.json()["days"] == []
        backwards = await s.api.get(
            "/usage", headers=t.headers, params={"since": "2024-02-01", "until": "2024-01-01"}
        )
        assert backwards.status_code == 200
        assert backwards.json()["totals"]["jobs"] == 0 and backwards.json()["days"] == []
        everything = await s.api.get(
            "/usage", headers=t.headers, params={"since": "0001-01-01", "until": "9999-12-31"}
        )
        assert everything.status_code == 200
        assert everything.json()["totals"]["calls"] == usage["totals"]["calls"]
        for bad in ("0", "2024-1-5", "20240105", "2024-02-30"):
            refused = await s.api.get("/usage", headers=t.headers, params={"until": bad})
            assert refused.status_code == 422, bad
            assert refused.headers["content-type"] == "application/problem+json"


async def test_plan_with_the_rule_extractor_costs_no_model_call(client, tenant):
    plan = (await client.post("/users/p/plan", json=SESSION, headers=tenant.headers)).json()
    assert (plan["extractor"], plan["model_calls"], plan["extraction_calls"]) == ("rules", 0, 1)


async def test_a_rejected_key_fails_the_job_and_retry_after_the_fix_succeeds(settings):
    async with llm_stack(settings) as s:
        t = await make_tenant(s.api, "llm-auth")
        s.fake.status = 401
        job = await ingest(s.api, t.headers, "ana", SESSION)
        assert job["status"] == "failed"
        # A stable code and message, the HTTP status; the provider's own words stay in the log.
        assert job["error"] == (
            "provider_refused: the model provider refused the request "
            "(its key, model or request) (HTTP 401)"
        )
        # Nothing was extracted, but what was said is kept: the turns are in the log.
        assert job["version_after"] == 1
        doc = await passport(s.api, t.headers, "ana")
        assert doc["facts"] == [] and doc["sources"] == []
        assert [turn["text"] for turn in doc["turns"]] == [
            turn["text"] for turn in SESSION["turns"]
        ]

        s.fake.status = 200  # the operator fixed the key
        resp = await s.api.post(f"/jobs/{job['job_id']}/retry?wait=20", headers=t.headers)
        assert resp.status_code == 200, resp.text
        assert resp.headers["location"] == f"/jobs/{job['job_id']}"
        retried = resp.json()
        assert retried["status"] == "done" and retried["error"] is None
        assert retried["attempts"] == 1 and retried["version_after"] == 2
        after = await passport(s.api, t.headers, "ana")
        assert facts(after)["home_city"] == "Lisbon"
        assert len(after["turns"]) == len(doc["turns"])  # the retry added no turn twice

        # A job that is done with nothing failed has nothing to retry.
        again = await s.api.post(f"/jobs/{job['job_id']}/retry", headers=t.headers)
        assert again.status_code == 409
        assert again.headers["content-type"] == "application/problem+json"
        assert "nothing to retry" in again.json()["detail"]


async def test_a_malformed_answer_fails_only_its_segment(settings):
    async with llm_stack(settings) as s:
        t = await make_tenant(s.api, "llm-garbled")
        s.fake.garble = "GARBLED"
        body = two_segments("My home city is Lisbon.", "GARBLED my pet is a cat.")
        job = await ingest(s.api, t.headers, "ana", body)
        assert job["status"] == "done", job
        [failed] = job["result"]["segments_failed"]
        assert failed["error"].startswith("model_output_invalid: ")
        assert "GARBLED" not in str(job)
        assert job["error"].startswith("1 of 2 segments failed")
        assert job["result"]["segments_applied"] == 1
        # The failed segment's first answer and its repair were paid for: they count.
        assert job["usage"]["calls"] == 3 and job["usage"]["input_tokens"] == 300
        doc = await passport(s.api, t.headers, "ana")
        assert facts(doc) == {"home_city": "Lisbon"}
        assert failed["segment"] not in {src["id"] for src in doc["sources"]}

        s.fake.garble = None
        resp = await s.api.post(f"/jobs/{job['job_id']}/retry?wait=20", headers=t.headers)
        retried = resp.json()
        assert retried["status"] == "done" and retried["result"]["segments_failed"] == []
        assert retried["usage"]["calls"] == 4  # only the failed segment was asked again
        assert facts(await passport(s.api, t.headers, "ana")) == {
            "home_city": "Lisbon",
            "pet": "a cat",
        }


async def test_an_exhausted_tenant_budget_defers_the_job_instead_of_failing_it(settings):
    clock = Clock()
    async with llm_stack(settings, tenant_calls_per_minute=1, budget_clock=clock) as s:
        t = await make_tenant(s.api, "llm-budget")
        body = two_segments("My home city is Lisbon.", "My pet is a cat.")
        accepted = await s.api.post("/users/ana/ingest", json=body, headers=t.headers)
        job_id = accepted.json()["job_id"]

        job = await poll(
            s.api, t.headers, job_id, lambda j: j["result"].get("note") == "deferred: tenant budget"
        )
        assert job["status"] == "queued"  # not failed: it waits for the next window
        assert job["usage"]["calls"] == 1 and s.fake.calls_about("Ana") == 1
        assert (await passport(s.api, t.headers, "ana"))["sources"] == []

        # The job is not taken before its time, which the database keeps with it.
        runtime = s.app.state.runtime
        async with runtime.uows() as uow:
            stored = await uow.tenant(uuid.UUID(t.id)).job(uuid.UUID(job_id))
            assert stored is not None and stored.not_before is not None
            assert stored.not_before > datetime.now(UTC) + timedelta(seconds=30)
            # The next window: arq delivers the deferred job then; here time moves at once.
            await uow.tenant(uuid.UUID(t.id)).update_job(uuid.UUID(job_id), not_before=None)
            await uow.commit()
        clock.now += 60
        await runtime.enqueue(uuid.UUID(t.id), uuid.UUID(job_id))
        job = await poll(s.api, t.headers, job_id, lambda j: j["status"] == "done")
        assert "note" not in job["result"] and job["result"]["segments_applied"] == 2
        # The segment extracted before the deferral came back from the cache.
        assert job["usage"]["calls"] == 2 and job["usage"]["cache_hits"] >= 1
        assert s.fake.calls_about("Ana") == 2
        assert facts(await passport(s.api, t.headers, "ana")) == {
            "home_city": "Lisbon",
            "pet": "a cat",
        }


async def test_reprocess_after_switching_from_rules_to_the_llm(client, worker, settings):
    t = await make_tenant(client, "switch")
    job = await ingest(client, t.headers, "ana", SESSION)  # the rule extractor
    assert job["status"] == "done"
    client_fact = {"facts": [{"key": "employer", "value": "ACME", "ts": "2024-01-01T00:00:00Z"}]}
    await client.post("/users/ana/facts", json=client_fact, headers=t.headers)
    before = await passport(client, t.headers, "ana")
    version = (await client.get("/users/ana/versions", headers=t.headers)).json()["items"][0]
    # The rules' episode quotes the session; the model's, written by reprocess, replaces it.
    assert [e["quoted"] for e in before["episodes"]] == [True]

    async with llm_stack(settings) as s:
        resp = await s.api.post("/users/ana/reprocess?wait=20", headers=t.headers)
        assert resp.status_code == 200, resp.text
        job = resp.json()
        assert (job["kind"], job["status"]) == ("reprocess", "done")
        assert job["version_after"] == version["version"] + 1
        assert job["usage"]["calls"] == 1
        missing = await s.api.post("/users/nobody/reprocess", headers=t.headers)
        assert missing.status_code == 404

    after = await passport(client, t.headers, "ana")
    assert after["episodes"][0]["summary"] == "LLM summary: My home city is Lisbon."
    assert len(after["episodes"]) == 1
    assert "quoted" not in after["episodes"][0]  # the model's words: ranked
    # The client's own fact is carried over; the transcript's facts are the model's now.
    assert facts(after) == {"employer": "ACME", "home_city": "Lisbon", "favorite_food": "bacalhau"}
    assert {src["id"] for src in after["sources"]} == {src["id"] for src in before["sources"]}
    versions = (await client.get("/users/ana/versions", headers=t.headers)).json()["items"]
    assert versions[0]["cause"] == "reprocess" and versions[0]["job_id"] == job["job_id"]


async def test_compact_merges_a_synonym_pair_and_rejects_an_invented_key(settings, client):
    async with llm_stack(settings) as s:
        t = await make_tenant(s.api, "llm-compact")
        body = two_segments("My code style is terse.", "My boilerplate preference is none at all.")
        assert (await ingest(s.api, t.headers, "ana", body))["status"] == "done"
        s.fake.merges = [
            {"keep": "code_style", "drop": "boilerplate_preference", "reason": "same thing"},
            {"keep": "coding_style_v2", "drop": "code_style", "reason": "clearer"},
        ]
        resp = await s.api.post("/users/ana/compact?wait=20", headers=t.headers)
        assert resp.status_code == 200, resp.text
        job = resp.json()
        assert (job["kind"], job["status"]) == ("compact", "done")
        assert job["result"]["merges"] == [
            {"keep": "code_style", "drop": "boilerplate_preference", "reason": "same thing"}
        ]
        [rejected] = job["result"]["rejected"]
        assert rejected["refused"] == "not an existing key: 'coding_style_v2'"
        assert job["usage"]["calls"] == 1 and s.fake.reconcile_calls == 1

        doc = await passport(s.api, t.headers, "ana")
        assert facts(doc) == {"code_style": "none at all"}  # the newer statement won
        assert [(c["key"], c["old"], c["new"]) for c in doc["contradictions"]] == [
            ("code_style", "terse", "none at all")
        ]
        tier3 = [d for d in doc["meta"]["dedupe"]["decisions"] if d["tier"] == 3]
        assert [(d["action"], d["incoming"]) for d in tier3] == [
            ("merge", "boilerplate_preference"),
            ("refuse", "code_style"),
        ]
        versions = (await s.api.get("/users/ana/versions", headers=t.headers)).json()["items"]
        assert versions[0]["cause"] == "compact"

    # With the rule extractor there is no model to ask.
    rules = await make_tenant(client, "rules-compact")
    await client.post(
        "/users/u/facts", json={"facts": [{"key": "a", "value": 1}]}, headers=rules.headers
    )
    refused = await client.post("/users/u/compact", headers=rules.headers)
    assert refused.status_code == 409
    assert refused.headers["content-type"] == "application/problem+json"
    assert refused.json()["detail"].startswith("compaction needs an LLM extractor")


def _finished_long_ago(database_url: str, job_id: str) -> None:
    with psycopg.connect(_libpq(database_url)) as conn:
        conn.execute(
            "UPDATE ingest_job SET finished_at = now() - interval '31 days' WHERE id = %s",
            (job_id,),
        )


async def test_retry_needs_a_finished_job_with_its_payload(settings):
    async with llm_stack(settings) as s:
        t = await make_tenant(s.api, "llm-retention")
        s.fake.status = 401
        job = await ingest(s.api, t.headers, "ana", SESSION)
        assert job["status"] == "failed"
        s.fake.status = 200

        # Past retention, the sweeper forgets the payload: the job cannot run again. The update
        # runs off the event loop: the in-process worker's sweeper may hold the row meanwhile,
        # and it can only let go if the loop keeps running.
        await asyncio.to_thread(_finished_long_ago, s.settings.database_url, job["job_id"])
        from app.services import processing

        # What every worker's sweeper runs each tick (one of them may have been first).
        await processing.expire_payloads(s.app.state.runtime.uows, s.settings)
        gone = await s.api.post(f"/jobs/{job['job_id']}/retry", headers=t.headers)
        assert gone.status_code == 409
        assert "no longer stored" in gone.json()["detail"]


async def test_a_job_waiting_for_a_worker_cannot_be_retried(settings):
    from app.main import create_app

    idle = create_app(settings.model_copy(update={"queue_name": f"idle:{uuid.uuid4().hex}"}))
    async with idle.router.lifespan_context(idle):
        transport = httpx.ASGITransport(app=idle)
        async with httpx.AsyncClient(transport=transport, base_url="http://idle.test") as api:
            t = await make_tenant(api, "idle")
            body = {"turns": [{"speaker": "q", "text": "Nobody will read this queue."}]}
            queued = (await api.post("/users/q/ingest", json=body, headers=t.headers)).json()
            resp = await api.post(f"/jobs/{queued['job_id']}/retry", headers=t.headers)
            assert resp.status_code == 409
            assert "queued" in resp.json()["detail"]
