"""Reliability with real worker processes: concurrency, and faults while a job runs (SIGKILL,
SIGTERM, Postgres connections cut, Redis emptied and its connections cut)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import httpx
import psycopg
import pytest
import redis

from app.domain.memory.merge import HEAD_BELIEFS_CAP
from app.settings import Settings
from tests.conftest import _libpq, make_tenant

pytestmark = [pytest.mark.integration, pytest.mark.slow]


@pytest.fixture
def rel_settings(settings):
    """Settings with a queue of this test's own, so only its worker processes take the jobs.

    No request rate limit: these tests poll fifty jobs at once, and are about faults, not limits.
    """
    queue = f"tessera-rel:{uuid.uuid4().hex[:8]}"
    return settings.model_copy(update={"queue_name": queue, "tenant_requests_per_second": 0})


@pytest.fixture
async def rel_client(rel_settings) -> AsyncIterator[httpx.AsyncClient]:
    from app.main import create_app

    app = create_app(rel_settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://rel.test") as c:
            yield c


@pytest.fixture
def start_worker(rel_settings) -> Iterator[Callable[[], subprocess.Popen]]:
    """Start `tessera worker` processes on the test's queue; all are stopped at the end."""
    procs: list[subprocess.Popen] = []
    logs = Path(tempfile.mkdtemp(prefix="tsr-w-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("TESSERA_")}
    env.update(
        {
            "TESSERA_DATABASE_URL": rel_settings.database_url,
            "TESSERA_REDIS_URL": rel_settings.redis_url,
            "TESSERA_QUEUE_NAME": rel_settings.queue_name,
            "TESSERA_JOB_STALE_SECONDS": "3",
            "TESSERA_SWEEP_INTERVAL_SECONDS": "1",
            "TESSERA_LOG_LEVEL": "warning",
            "TESSERA_WORKER_METRICS_PORT": "0",
        }
    )

    def start() -> subprocess.Popen:
        log = open(logs / f"worker-{len(procs)}.log", "wb")  # noqa: SIM115
        proc = subprocess.Popen(
            [sys.executable, "-m", "app.cli.main", "worker"], env=env, stdout=log, stderr=log
        )
        procs.append(proc)
        return proc

    yield start
    for proc in procs:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    for proc in procs:
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
    # Shown by pytest only when the test failed: what the workers said, for the diagnosis.
    for path in sorted(logs.glob("worker-*.log")):
        print(f"--- {path.name} (last lines) ---")
        print("\n".join(path.read_text(errors="replace").splitlines()[-40:]))


def session_turns(n: int, i: int) -> list[dict]:
    return [
        {
            "speaker": "Maya" if j % 2 == 0 else "Jon",
            "text": f"Session {i} line {j}: we talked about trip {i} to town {j % 7} "
            f"and the budget of {100 + i} dollars for it.",
            "ts": f"2023-{1 + i % 12:02d}-{1 + i % 28:02d}T10:{j % 60:02d}:00Z",
            "id": f"s{i}:{j}",
        }
        for j in range(n)
    ]


async def wait_jobs(client, headers, job_ids, seconds: float) -> list[dict]:
    deadline = time.monotonic() + seconds
    while True:
        jobs = [(await client.get(f"/jobs/{j}", headers=headers)).json() for j in job_ids]
        if all(j["status"] in ("done", "failed") for j in jobs) or time.monotonic() > deadline:
            return jobs
        await asyncio.sleep(0.3)


async def test_fifty_concurrent_ingests_lose_nothing(rel_client, start_worker):
    start_worker()
    start_worker()
    t = await make_tenant(rel_client, "concurrent")
    bodies = [{"turns": session_turns(4, i)} for i in range(45)]
    bodies += [{"turns": session_turns(4, i)} for i in range(5)]  # repeats change nothing

    async def post(body: dict) -> str:
        async with httpx.AsyncClient(
            transport=rel_client._transport, base_url="http://rel.test"
        ) as own:  # a client of its own, as parallel callers would have
            resp = await own.post("/users/shared/ingest", json=body, headers=t.headers)
            assert resp.status_code == 202, resp.text
            return resp.json()["job_id"]

    job_ids = await asyncio.gather(*(post(b) for b in bodies))
    jobs = await wait_jobs(rel_client, t.headers, job_ids, 120)
    assert [j["status"] for j in jobs] == ["done"] * 50
    changed = sum(1 for j in jobs if j["result"]["changed"])
    assert changed == 45
    passport = (await rel_client.get("/users/shared/passport", headers=t.headers)).json()
    versions = (await rel_client.get("/users/shared/versions?limit=500", headers=t.headers)).json()[
        "items"
    ]
    assert passport["sources"] and len(passport["sources"]) == 45
    assert len({s["hash"] for s in passport["sources"]}) == 45
    # Jobs run together share a version: no more versions than changing jobs, numbered densely,
    # and every job names one that holds its turns.
    numbers = sorted(v["version"] for v in versions)
    assert numbers == list(range(len(numbers)))
    assert 1 < len(numbers) <= changed + 1  # plus version 0
    assert all(1 <= j["version_after"] <= numbers[-1] for j in jobs)
    ids = {tid for s in passport["sources"] for tid in s["turn_ids"]}
    assert ids == {f"s{i}:{j}" for i in range(45) for j in range(4)}


def _job_status(database_url: str, job_id: str) -> tuple[str, int]:
    with psycopg.connect(_libpq(database_url)) as conn:
        row = conn.execute(
            "SELECT status, progress_done FROM ingest_job WHERE id = %s", (job_id,)
        ).fetchone()
    assert row is not None
    return row[0], row[1]


async def _long_job(client: httpx.AsyncClient, headers: dict[str, str]) -> tuple[str, int]:
    """Accept a job of over a hundred segments (long enough to interrupt); its id and segments."""
    turns = session_turns(9_000, 1)
    for n, turn in enumerate(turns):
        turn["ts"] = f"2023-03-{1 + (n // 600) % 28:02d}T{(n // 60) % 24:02d}:{n % 60:02d}:00Z"
        turn["id"] = f"k{n}"
    resp = await client.post("/users/victim/ingest", json={"turns": turns}, headers=headers)
    assert resp.status_code == 202, resp.text
    total = resp.json()["plan"]["segments"]
    assert total > 100
    return resp.json()["job_id"], total


async def _until_running(database_url: str, job_id: str) -> None:
    deadline = time.monotonic() + 60
    while _job_status(database_url, job_id)[0] != "running":
        assert time.monotonic() < deadline, "the job never started"
        await asyncio.sleep(0.02)


async def _finished_once(
    client: httpx.AsyncClient, headers: dict[str, str], job_id: str, total: int
) -> dict:
    """The job ends done, each segment merged once, a version per slice: as if never
    interrupted."""
    (job,) = await wait_jobs(client, headers, [job_id], 180)
    assert job["status"] == "done", job
    passport = (await client.get("/users/victim/passport", headers=headers)).json()
    assert len(passport["sources"]) == total
    assert len({s["id"] for s in passport["sources"]}) == total  # each segment merged once
    assert len(passport["turns"]) == 9_000  # every word kept
    versions = (await client.get("/users/victim/versions", headers=headers)).json()["items"]
    slices = -(-total // Settings.model_fields["job_slice_segments"].default)
    assert [v["version"] for v in versions] == list(range(slices, -1, -1))
    assert job["version_after"] == slices
    return job


async def test_worker_killed_mid_job_is_finished_once_by_another(
    rel_client, start_worker, settings
):
    t = await make_tenant(rel_client, "killed")
    job_id, total = await _long_job(rel_client, t.headers)
    first = start_worker()
    await _until_running(settings.database_url, job_id)
    # Kill as soon as it is claimed: extracting ~150 segments takes far longer than this poll.
    first.send_signal(signal.SIGKILL)
    first.wait()
    await asyncio.sleep(0.5)  # let a COMMIT already in flight land before we look
    status, _ = _job_status(settings.database_url, job_id)
    assert status == "running", "the job finished before the kill; make it bigger"
    start_worker()
    job = await _finished_once(rel_client, t.headers, job_id, total)
    assert job["attempts"] == 2


async def test_a_worker_stopped_mid_job_leaves_it_to_be_finished_once(
    rel_client, start_worker, settings
):
    t = await make_tenant(rel_client, "stopped")
    job_id, total = await _long_job(rel_client, t.headers)
    first = start_worker()
    await _until_running(settings.database_url, job_id)
    first.send_signal(signal.SIGTERM)  # what a deploy does: finish or give back, then exit
    first.wait(timeout=60)
    start_worker()
    await _finished_once(rel_client, t.headers, job_id, total)


async def test_postgres_connections_dropped_mid_job_the_job_still_finishes_once(
    rel_client, start_worker, settings
):
    t = await make_tenant(rel_client, "pg-restart")
    job_id, total = await _long_job(rel_client, t.headers)
    start_worker()
    await _until_running(settings.database_url, job_id)
    # A restart as the worker sees it: every connection it holds is cut at once.
    with psycopg.connect(_libpq(settings.database_url), autocommit=True) as conn:
        cut = conn.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE application_name = 'tessera-worker' AND pid <> pg_backend_pid()"
        ).fetchone()
    assert cut is not None and cut[0] > 0
    await _finished_once(rel_client, t.headers, job_id, total)


async def test_redis_gone_mid_job_the_job_still_finishes_once(
    rel_client, start_worker, rel_settings, settings
):
    t = await make_tenant(rel_client, "redis-gone")
    job_id, total = await _long_job(rel_client, t.headers)
    worker = start_worker()
    await _until_running(settings.database_url, job_id)
    # Redis restarted empty under the worker: its queue, its in-progress keys and connections.
    server = redis.Redis.from_url(rel_settings.redis_url)
    server.flushall()
    server.client_kill_filter(_type="normal", skipme=True)
    await _finished_once(rel_client, t.headers, job_id, total)
    # The worker rode over it: it reconnected instead of exiting, and takes the next job.
    assert worker.poll() is None
    resp = await rel_client.post(
        "/users/next/ingest?wait=30", json={"turns": session_turns(2, 0)}, headers=t.headers
    )
    assert resp.json()["status"] == "done", resp.text


async def test_jobs_survive_redis_flushall(rel_client, start_worker, rel_settings):
    t = await make_tenant(rel_client, "flushed")
    job_ids = []
    for i in range(5):
        resp = await rel_client.post(
            f"/users/u{i}/ingest", json={"turns": session_turns(3, i)}, headers=t.headers
        )
        job_ids.append(resp.json()["job_id"])
    redis.Redis.from_url(rel_settings.redis_url).flushall()
    start_worker()
    jobs = await wait_jobs(rel_client, t.headers, job_ids, 60)
    assert [j["status"] for j in jobs] == ["done"] * 5
    for i in range(5):
        doc = (await rel_client.get(f"/users/u{i}/passport", headers=t.headers)).json()
        assert len(doc["sources"]) == 1


async def test_the_api_and_a_worker_whose_redis_connections_are_cut_go_on(
    client, tenant, worker, settings
):
    """Redis drops every client (a restart, a failover): both reconnect instead of failing."""
    first = await client.post(
        "/users/cut/ingest?wait=30", json={"turns": session_turns(2, 0)}, headers=tenant.headers
    )
    assert first.json()["status"] == "done", first.text
    server = redis.Redis.from_url(settings.redis_url)
    for _ in range(5):  # cut whenever the worker is polling, writing or waiting
        server.client_kill_filter(_type="normal", skipme=True)
        await asyncio.sleep(0.37)
    again = await client.post(
        "/users/cut/ingest?wait=30", json={"turns": session_turns(2, 1)}, headers=tenant.headers
    )
    assert again.json()["status"] == "done", again.text


def preference_turns(kb: int) -> list[dict]:
    """About ``kb`` KB of a person saying what they like, a different thing each sentence."""
    letters = "bcdfghjklmnprstvwz"

    def word(n: int) -> str:
        out = []
        n += len(letters) ** 3
        while n:
            n, digit = divmod(n, len(letters))
            out.append(letters[digit] + "aeiou"[digit % 5])
        return "".join(out)

    turns, n = [], 0
    while len(turns) * 4_000 < kb * 1_000:
        text = ""
        while len(text) < 4_000:
            text += f"I like {word(n)}. "
            n += 1
        turns.append({"speaker": "Ivo", "text": text})
    return turns


async def test_a_big_ingest_leaves_room_for_other_tenants_and_keeps_its_head_bounded(
    rel_client, start_worker
):
    big, small = await make_tenant(rel_client, "big"), await make_tenant(rel_client, "small")
    body = {"subject": "Ivo", "turns": preference_turns(500)}
    resp = await rel_client.post("/users/ivo/ingest", json=body, headers=big.headers)
    assert resp.status_code == 202, resp.text
    big_job = resp.json()["job_id"]
    start_worker()
    resp = await rel_client.post(
        "/users/ada/ingest", json={"text": "I moved to Gweru."}, headers=small.headers
    )
    small_job = resp.json()["job_id"]
    (one_line,) = await wait_jobs(rel_client, small.headers, [small_job], 30)
    assert one_line["status"] == "done"
    # The other tenant's line was done between the big job's slices, not after all of them.
    (still,) = [(await rel_client.get(f"/jobs/{big_job}", headers=big.headers)).json()]
    assert still["status"] in ("queued", "running"), still
    (done,) = await wait_jobs(rel_client, big.headers, [big_job], 240)
    assert done["status"] == "done", done
    assert done["result"]["summary"]["prefs_over_cap"] > 0
    # Its slices' counts add up to the whole job's, and nothing of a slice is left in it.
    segments = done["result"]["plan"]["segments"]
    assert segments > 32
    assert done["result"]["segments_applied"] == segments
    assert done["result"]["summary"]["sources_added"] == segments
    assert "segments_done" not in done["result"]
    passport = (await rel_client.get("/users/ivo/passport", headers=big.headers)).json()
    assert len(passport["prefs"]) == HEAD_BELIEFS_CAP
    assert len(passport["turns"]) == len(body["turns"])  # every word kept
    resp = await rel_client.post(
        "/users/ivo/ingest?wait=30", json={"text": "I moved to Mutare."}, headers=big.headers
    )
    assert resp.json()["status"] == "done", resp.text
