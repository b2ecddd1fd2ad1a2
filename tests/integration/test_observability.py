"""The operator's view: /metrics, request ids, JSON logs, worker metrics and health, tracing."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from app.domain.extraction.extractor import Extraction, ExtractionInput
from app.domain.extraction.rules import RuleExtractor
from app.logging import configure_logging
from app.main import create_app
from app.settings import Settings
from tests.conftest import make_tenant, quiet_jobs

pytestmark = pytest.mark.integration

PROBLEM = "application/problem+json"
ROUTE = "/users/{key}/passport"


def sample(name: str, **labels: str) -> float:
    """A sample's current value in this process's registry (0 when it has none yet)."""
    return REGISTRY.get_sample_value(name, labels) or 0.0


def scrape(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Parse a Prometheus text exposition into {(sample name, labels): value}."""
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# -- API metrics ------------------------------------------------------------------------------


async def test_metrics_time_requests_by_route_template_and_status(client, tenant, app, settings):
    count = "tessera_http_request_duration_seconds_count"
    ok = {"method": "GET", "route": ROUTE, "status": "200"}
    missing = {"method": "GET", "route": ROUTE, "status": "404"}
    too_big = {"method": "PUT", "route": ROUTE, "status": "413"}
    before_ok, before_missing = sample(count, **ok), sample(count, **missing)
    before_too_big = sample(count, **too_big)

    put = await client.put("/users/m1/passport", json={"version": "2.1"}, headers=tenant.headers)
    assert put.status_code == 201
    for _ in range(2):
        assert (await client.get("/users/m1/passport", headers=tenant.headers)).status_code == 200
    assert (await client.get("/users/nobody/passport", headers=tenant.headers)).status_code == 404
    oversized = b"x" * (settings.max_import_bytes + 1)  # an import has its own, larger limit
    refused = await client.put("/users/m1/passport", content=oversized, headers=tenant.headers)
    assert refused.status_code == 413  # answered before routing, still under its route

    resp = await client.get("/metrics")  # no API key needed
    assert resp.status_code == 200
    assert resp.headers["content-type"].startswith("text/plain")
    samples = scrape(resp.text)
    # The route template, not the user's key, labels the series: one series for every user.
    assert samples[(count, frozenset(ok.items()))] == before_ok + 2
    assert samples[(count, frozenset(missing.items()))] == before_missing + 1
    assert samples[(count, frozenset(too_big.items()))] == before_too_big + 1
    bucket = (
        "tessera_http_request_duration_seconds_bucket",
        frozenset({**ok, "le": "+Inf"}.items()),
    )
    assert samples[bucket] == before_ok + 2
    assert not any("m1" in dict(labels).get("route", "") for _, labels in samples)
    # /metrics does not time itself, and is not part of the API's schema.
    assert not any(dict(labels).get("route") == "/metrics" for _, labels in samples)
    assert "/metrics" not in app.openapi()["paths"]


async def test_metrics_label_unmatched_paths_none_and_wrong_methods_by_route(client):
    count = "tessera_http_request_duration_seconds_count"
    unmatched = {"method": "GET", "route": "none", "status": "404"}
    wrong_method = {"method": "DELETE", "route": "/livez", "status": "405"}
    before = sample(count, **unmatched), sample(count, **wrong_method)
    assert (await client.get(f"/no/such/{uuid.uuid4().hex}")).status_code == 404
    assert (await client.delete("/livez")).status_code == 405
    assert (sample(count, **unmatched), sample(count, **wrong_method)) == (
        before[0] + 1,
        before[1] + 1,
    )


# -- request ids ------------------------------------------------------------------------------


async def test_request_id_is_echoed_or_generated(client, tenant):
    given = await client.get("/livez", headers={"X-Request-ID": "trace-42.a_b"})
    assert given.headers["x-request-id"] == "trace-42.a_b"
    first, second = await client.get("/livez"), await client.get("/livez")
    assert len(first.headers["x-request-id"]) == 32
    assert first.headers["x-request-id"] != second.headers["x-request-id"]


async def test_request_id_is_sanitised(client):
    dirty = await client.get("/livez", headers={"X-Request-ID": 'abc def<script>;"x"'})
    assert dirty.headers["x-request-id"] == "abcdefscriptx"
    long = await client.get("/livez", headers={"X-Request-ID": "a" * 300})
    assert long.headers["x-request-id"] == "a" * 128
    junk = await client.get("/livez", headers={"X-Request-ID": "<>;;"})
    assert len(junk.headers["x-request-id"]) == 32  # nothing usable left: a new one


async def test_request_id_on_problem_responses(client, tenant, settings):
    missing = await client.get(
        "/users/nobody/passport", headers={**tenant.headers, "X-Request-ID": "req-404"}
    )
    assert missing.status_code == 404
    assert missing.headers["content-type"] == PROBLEM
    assert missing.headers["x-request-id"] == "req-404"

    unauthorized = await client.get("/users", headers={"X-Request-ID": "req-401"})
    assert unauthorized.status_code == 401
    assert unauthorized.headers["x-request-id"] == "req-401"

    too_big = await client.put(
        "/users/big/passport",
        content=b"x" * (settings.max_import_bytes + 1),
        headers={**tenant.headers, "Content-Type": "application/json", "X-Request-ID": "req-413"},
    )
    assert too_big.status_code == 413
    assert too_big.headers["content-type"] == PROBLEM
    assert too_big.headers["x-request-id"] == "req-413"


async def test_request_id_on_unexpected_errors(settings):
    application = create_app(settings)

    async def boom() -> None:
        raise RuntimeError("secret detail")

    application.add_api_route("/boom", boom)
    transport = httpx.ASGITransport(app=application, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://t.test") as c:
        resp = await c.get("/boom", headers={"X-Request-ID": "req-500"})
    assert resp.status_code == 500
    assert resp.headers["content-type"] == PROBLEM
    assert resp.headers["x-request-id"] == "req-500"
    assert "secret detail" not in resp.text  # the log has it, the client does not


# -- logs -------------------------------------------------------------------------------------


@pytest.fixture
def json_logs(settings) -> Iterator[io.StringIO]:
    """configure_logging at debug level into a buffer; the root logger is put back after."""
    root = logging.getLogger()
    level = root.level
    buffer = io.StringIO()
    configure_logging(settings.model_copy(update={"log_level": "debug"}), stream=buffer)
    (ours,) = root.handlers
    try:
        yield buffer
    finally:
        root.removeHandler(ours)
        root.setLevel(level)
        logging.captureWarnings(False)


async def test_logs_are_json_with_request_ids_and_no_secrets(client, tenant, json_logs):
    secret_value = "Zanzibar-" + uuid.uuid4().hex
    doc = {"version": "2.1", "facts": [{"key": "hideout", "value": secret_value}]}
    put = await client.put(
        "/users/log-user/passport", json=doc, headers={**tenant.headers, "X-Request-ID": "put-1"}
    )
    assert put.status_code == 201
    got = await client.get("/users/log-user/passport", headers=tenant.headers)
    assert got.status_code == 200 and secret_value in got.text
    generated = got.headers["x-request-id"]

    text = json_logs.getvalue()
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]  # all JSON
    access = [line for line in lines if line.get("logger") == "tessera.access"]
    by_id = {line["request_id"]: line for line in access}
    assert set(by_id) >= {"put-1", generated}
    put_line = by_id["put-1"]
    assert put_line["method"] == "PUT"
    assert put_line["route"] == ROUTE
    assert put_line["status"] == 201
    assert put_line["tenant_id"] == tenant.id
    assert isinstance(put_line["duration_ms"], float)
    assert by_id[generated]["status"] == 200
    assert all("timestamp" in line and "level" in line for line in lines)
    # Neither the key nor the passport's content is written anywhere, even at debug level.
    assert tenant.key not in text
    assert tenant.key.split("_")[2] not in text  # not even the secret part alone
    assert secret_value not in text
    assert "Bearer" not in text


# -- worker metrics ---------------------------------------------------------------------------


class CountingExtractor:
    """The rule extractor, reporting model calls and tokens as an LLM extractor would."""

    name = "counting"

    def __init__(self) -> None:
        self.inner = RuleExtractor()

    async def extract(self, request: ExtractionInput) -> Extraction:
        extraction = await self.inner.extract(request)
        return dataclasses.replace(extraction, calls=1, input_tokens=100, output_tokens=7)


@pytest.fixture
async def own_queue(settings) -> AsyncIterator[tuple[Settings, httpx.AsyncClient]]:
    """Settings with a queue no running worker reads, and an API client that enqueues to it."""
    own = settings.model_copy(update={"queue_name": f"tessera-obs:{uuid.uuid4().hex[:8]}"})
    application = create_app(own)
    async with application.router.lifespan_context(application):
        transport = httpx.ASGITransport(app=application)
        async with httpx.AsyncClient(transport=transport, base_url="http://obs.test") as c:
            yield own, c


async def test_worker_job_metrics_count_outcomes_and_usage(own_queue, app):
    from app.services.claimed import WorkerResources
    from workers.main import process_job

    own, api = own_queue
    t = await make_tenant(api, "metered")
    body = {"turns": [{"speaker": "Ana", "text": "I moved to Lisbon for a new job."}]}
    accepted = await api.post("/users/ana/ingest", json=body, headers=t.headers)
    assert accepted.status_code == 202, accepted.text
    job_id = accepted.json()["job_id"]
    segments = accepted.json()["plan"]["segments"]
    runtime = dataclasses.replace(
        app.state.runtime, settings=own, resources=WorkerResources(CountingExtractor())
    )
    ctx = {"runtime": runtime}
    before = {
        "done": sample("tessera_jobs_total", outcome="done"),
        "skipped": sample("tessera_jobs_total", outcome="skipped"),
        "timed": sample("tessera_job_duration_seconds_count", outcome="done"),
        "calls": sample("tessera_extraction_calls_total"),
        "input": sample("tessera_extraction_tokens_total", type="input"),
    }

    assert await process_job(ctx, t.id, job_id) == "done"
    # A second delivery of the same job (at-least-once) finds it finished.
    assert await process_job(ctx, t.id, job_id) == "skipped"

    assert sample("tessera_jobs_total", outcome="done") == before["done"] + 1
    assert sample("tessera_jobs_total", outcome="skipped") == before["skipped"] + 1
    assert sample("tessera_job_duration_seconds_count", outcome="done") == before["timed"] + 1
    assert sample("tessera_extraction_calls_total") == before["calls"] + segments
    assert sample("tessera_extraction_tokens_total", type="input") == before["input"] + 100 * (
        segments
    )
    job = (await api.get(f"/jobs/{job_id}", headers=t.headers)).json()
    assert job["status"] == "done"


async def test_worker_counts_a_crashed_job_as_retried(monkeypatch, settings, app, client):  # type: ignore[no-untyped-def]
    from arq import Retry

    from app.domain.ingest import IngestPayload
    from app.services import ingest, processing
    from app.services.claimed import WorkerResources
    from workers.main import process_job

    async def crash(claimed: object) -> None:
        raise ConnectionError("database went away")

    runtime = app.state.runtime
    quiet, own = quiet_jobs(app)  # jobs on a queue no worker reads: the test runs them
    t = await make_tenant(client, "crashed")
    payload = IngestPayload.model_validate({"text": "Hello."})
    accepted = await ingest.accept(quiet, uuid.UUID(t.id), "ana", payload, own)
    monkeypatch.setitem(processing.RUNS, "ingest", crash)
    before = sample("tessera_jobs_total", outcome="retried")
    worker = dataclasses.replace(runtime, uows=quiet, resources=WorkerResources(extractor=None))  # type: ignore[arg-type]
    ctx = {"runtime": worker, "job_try": 1}
    with pytest.raises(Retry):
        await process_job(ctx, t.id, str(accepted.job.id))
    assert sample("tessera_jobs_total", outcome="retried") == before + 1
    job = (await client.get(f"/jobs/{accepted.job.id}", headers=t.headers)).json()
    # Queued again for a later attempt; the tenant reads a stable code, the log the details.
    assert job["status"] == "queued"
    assert job["error"] == "internal_error: an unexpected error; the worker's log has the details"


def test_worker_metrics_server_reports_queue_depth(settings):
    from workers.metrics import serve_metrics

    queue = f"tessera-depth:{uuid.uuid4().hex[:8]}"
    r = redis.Redis.from_url(settings.redis_url)
    r.zadd(queue, {"a": 1, "b": 2, "c": 3})
    port = free_port()
    server = serve_metrics(port, settings.redis_url, queue)
    assert server is not None and server.port == port
    try:
        # A second server on the same port is refused, and the worker carries on without it.
        assert serve_metrics(port, settings.redis_url, queue) is None
        text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=5).text
        samples = scrape(text)
        assert samples[("tessera_queue_depth", frozenset())] == 3
        for outcome in ("done", "failed", "skipped", "retried"):
            assert ("tessera_jobs_total", frozenset({("outcome", outcome)})) in samples
        assert ("tessera_extraction_cache_hits_total", frozenset()) in samples
    finally:
        server.close()
        r.delete(queue)
        r.close()
    assert serve_metrics(0, settings.redis_url, queue) is None  # 0: off


# -- the worker process: health check, metrics, JSON logs with job ids, graceful stop ---------


def _tessera(args: list[str], env: dict[str, str], **kwargs: Any) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "app.cli.main", *args], env=env, **kwargs)


def _check(env: dict[str, str]) -> int:
    return _tessera(["worker", "--check"], env, stderr=subprocess.DEVNULL).wait(timeout=60)


@pytest.mark.slow
async def test_worker_process_health_metrics_and_logs(own_queue):
    own, api = own_queue
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("TESSERA_")}
    env.update(
        {
            "TESSERA_DATABASE_URL": str(own.database_url),
            "TESSERA_REDIS_URL": str(own.redis_url),
            "TESSERA_QUEUE_NAME": own.queue_name,
            "TESSERA_WORKER_METRICS_PORT": str(port),
        }
    )
    assert _check(env) == 1  # no worker on this queue yet
    log_path = Path(tempfile.mkdtemp(prefix="tsr-obs-")) / "worker.log"
    with log_path.open("wb") as log_file:
        proc = _tessera(["worker"], env, stdout=log_file, stderr=log_file)
        try:
            deadline = time.monotonic() + 60
            while await asyncio.to_thread(_check, env) != 0:
                assert proc.poll() is None, log_path.read_text()
                assert time.monotonic() < deadline, "the worker never reported healthy"
                await asyncio.sleep(0.3)
            t = await make_tenant(api, "proc")
            body = {"turns": [{"speaker": "Ana", "text": "I moved to Porto."}]}
            resp = await api.post("/users/ana/ingest?wait=30", json=body, headers=t.headers)
            assert resp.json()["status"] == "done", resp.text
            job_id = resp.json()["job_id"]
            # arq takes a finished job off the queue just after our job row says done, and a
            # sweeper cron run may sit there briefly: the depth must drain to 0, not be 0 at once.
            depth_deadline = time.monotonic() + 10
            async with httpx.AsyncClient(timeout=5) as plain:
                while True:
                    text = (await plain.get(f"http://127.0.0.1:{port}/metrics")).text
                    metrics = scrape(text)
                    depth = metrics[("tessera_queue_depth", frozenset())]
                    if depth == 0 or time.monotonic() > depth_deadline:
                        break
                    await asyncio.sleep(0.2)
            assert metrics[("tessera_jobs_total", frozenset({("outcome", "done")}))] == 1
            assert depth == 0
        finally:
            proc.send_signal(signal.SIGTERM)
            code = proc.wait(timeout=60)
    assert code == 0, log_path.read_text()
    assert _check(env) == 1  # a stopped worker removes its health key
    lines = [json.loads(line) for line in log_path.read_text().splitlines() if line.strip()]
    job_lines = [line for line in lines if line.get("job_id") == job_id]
    assert any(line["logger"] == "tessera.worker" for line in job_lines)
    assert all(line["tenant_id"] == t.id for line in job_lines)


# -- tracing ----------------------------------------------------------------------------------


def test_tracing_without_the_otel_extra_is_a_clear_startup_error(monkeypatch, settings):
    # As if the extra were not installed, whatever this environment has.
    for name in (
        "opentelemetry.instrumentation.fastapi",
        "opentelemetry.sdk.resources",
        "opentelemetry.sdk.trace",
        "opentelemetry.sdk.trace.export",
    ):
        monkeypatch.setitem(sys.modules, name, None)
    assert create_app(settings).title == "Tessera"  # off by default: nothing is imported
    with pytest.raises(RuntimeError, match=r"tessera\[otel\]"):
        create_app(settings.model_copy(update={"otel_enabled": True}))
