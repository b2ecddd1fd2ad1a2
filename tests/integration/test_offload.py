"""CPU work runs off the worker's event loop, and a segment past its time limit fails alone."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import subprocess
import sys
import time
import uuid

import pytest

from app.services.offload import CpuPool, PooledRules, TimeLimitExceeded
from tests.conftest import quiet_jobs

pytestmark = pytest.mark.integration


def catastrophic(n: int) -> bool:
    """A regex that backtracks for ages on n letters: stands for a rule with a bad pattern."""
    return re.match(r"(a+)+$", "a" * n + "b") is not None


def busy(seconds: float) -> float:
    """Pure Python that holds the interpreter for ``seconds``."""
    end = time.perf_counter() + seconds
    spins = 0.0
    while time.perf_counter() < end:
        spins += 1
    return spins


async def test_a_call_past_its_limit_is_stopped_and_the_pool_goes_on() -> None:
    pool = CpuPool(1, seconds=0.5)
    try:
        started = time.perf_counter()
        with pytest.raises(TimeLimitExceeded):
            await pool.run(catastrophic, 60)  # days of backtracking, stopped at the limit
        assert time.perf_counter() - started < 5
        assert await pool.run(catastrophic, 5) is False  # the same process answers again
    finally:
        pool.close()


def deaf_spin(pid_file: str) -> None:
    """Spins with the timer's signal blocked: stands for C code that no signal reaches."""
    import os
    import signal

    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
    with open(pid_file, "w") as f:
        f.write(str(os.getpid()))
    while True:
        pass


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ", 1)[1][0] != "Z"  # a zombie has ended
    except FileNotFoundError:
        return False


async def test_a_process_no_signal_reaches_is_left_behind_and_ended_by_the_kernel(tmp_path) -> None:  # type: ignore[no-untyped-def]
    pool = CpuPool(1, seconds=0.3, grace=1.0)
    pid_file = tmp_path / "pid"
    try:
        with pytest.raises(TimeLimitExceeded):
            await pool.run(deaf_spin, str(pid_file))
        assert await pool.run(catastrophic, 5) is False  # a new process answers at once
        stuck = int(pid_file.read_text())
        for _ in range(150):  # up to 30 s for the kernel to see its CPU time spent
            if not _alive(stuck):
                break
            await asyncio.sleep(0.2)
        assert not _alive(stuck)  # its CPU limit ended it: nothing spins on
    finally:
        pool.close()


# A worker in miniature: it starts a pool, says so, and waits to be killed.
OWNER = """
import asyncio
from app.services.offload import CpuPool

async def main():
    pool = CpuPool(2, seconds=5.0)
    await pool.start()
    print("ready", flush=True)
    await asyncio.sleep(120)

asyncio.run(main())
"""


def _descendants(pid: int) -> set[int]:
    """Every process below ``pid``, by the parent ids in /proc."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parents[int(entry)] = int(f.read().split(") ", 1)[1].split()[1])
            except (FileNotFoundError, ProcessLookupError, IndexError):
                continue
    below, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - below
        below |= frontier
    return below


def test_a_killed_workers_pool_processes_end_with_it() -> None:
    owner = subprocess.Popen([sys.executable, "-c", OWNER], stdout=subprocess.PIPE, text=True)
    pool: set[int] = set()
    try:
        assert owner.stdout is not None and owner.stdout.readline().strip() == "ready"
        pool = _descendants(owner.pid)
        assert len(pool) >= 3  # the forkserver and the pool's two processes, at least
        owner.kill()  # as the OOM killer would: nothing is shut down
        owner.wait()
        for _ in range(50):
            if not any(_alive(pid) for pid in pool):
                break
            time.sleep(0.2)
        assert not [pid for pid in pool if _alive(pid)]  # none left waiting forever
    finally:
        owner.kill()
        owner.wait()
        for pid in pool:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


async def test_the_event_loop_keeps_running_while_the_pool_works() -> None:
    pool = CpuPool(1, seconds=10)
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    ticker = asyncio.create_task(tick())
    try:
        await pool.run(busy, 1.0)
    finally:
        ticker.cancel()
        pool.close()
    # A second of work elsewhere: the loop ticked most of its hundred times meanwhile.
    assert ticks > 50


async def _run_with_a_pool_that_stops_every_extraction(app, tenant, user: str, inline: int):  # type: ignore[no-untyped-def]
    """Accept one short exchange for ``user`` and run its job on a pool whose extraction calls
    all pass their time limit, with ``cpu_inline_tokens`` at ``inline``; the job's id."""
    from app.domain.ingest import IngestPayload
    from app.services import ingest, processing
    from app.services.claimed import WorkerResources

    quiet, own = quiet_jobs(app)  # jobs on a queue no worker reads: the test runs them
    own = own.model_copy(update={"cpu_inline_tokens": inline})
    turns = [{"speaker": "Ana", "text": "I moved to Porto last week.", "id": "a1"}]
    body = {"subject": "Ana", "session_ts": "2024-03-01T10:00:00Z", "turns": turns}
    payload = IngestPayload.model_validate(body)
    accepted = await ingest.accept(quiet, uuid.UUID(tenant.id), user, payload, own)
    preparing, extracting = CpuPool(1, seconds=30), CpuPool(1, seconds=0.000_1)
    try:
        resources = WorkerResources(PooledRules(extracting), pool=preparing)
        tenant_id, job_id = uuid.UUID(tenant.id), accepted.job.id
        await processing.run_job(quiet, tenant_id, job_id, own, resources)
    finally:
        preparing.close()
        extracting.close()
    return job_id


async def test_a_segment_past_the_limit_is_failed_and_its_turns_kept(client, tenant, app):  # type: ignore[no-untyped-def]
    # Nothing runs in the worker's own process: every extraction goes to the pool.
    job_id = await _run_with_a_pool_that_stops_every_extraction(app, tenant, "slow", inline=0)
    job = (await client.get(f"/jobs/{job_id}", headers=tenant.headers)).json()
    assert job["status"] == "failed", job  # its only segment failed
    assert job["result"]["segments_failed"][0]["error"].startswith("time_limit: ")
    doc = (await client.get("/users/slow/passport", headers=tenant.headers)).json()
    assert [t["id"] for t in doc["turns"]] == ["a1"]  # the words are kept


async def test_a_small_job_is_extracted_in_the_workers_own_process(client, tenant, app):  # type: ignore[no-untyped-def]
    # One short exchange is under cpu_inline_tokens: the pool is never asked.
    job_id = await _run_with_a_pool_that_stops_every_extraction(app, tenant, "quick", inline=4000)
    job = (await client.get(f"/jobs/{job_id}", headers=tenant.headers)).json()
    assert job["status"] == "done", job
    assert not job["result"].get("segments_failed")
    doc = (await client.get("/users/quick/passport", headers=tenant.headers)).json()
    assert [t["id"] for t in doc["turns"]] == ["a1"]
    assert any("Porto" in str(fact) for fact in doc["facts"]), doc["facts"]
