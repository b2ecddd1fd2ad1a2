"""The worker answers to the arq function names jobs are queued under, old and new."""

from __future__ import annotations

from app.adapters.queue import LEGACY_PROCESS_JOB, PROCESS_JOB
from app.settings import Settings
from workers.main import build_worker, process_job


def test_a_job_queued_before_the_rename_is_run_like_one_queued_now() -> None:
    # Redis may still hold jobs queued by an older API under the old name when workers upgrade.
    worker = build_worker(Settings(redis_url="redis://127.0.0.1:1/0"))
    for name in (PROCESS_JOB, LEGACY_PROCESS_JOB):
        assert worker.functions[name].coroutine is process_job
    assert PROCESS_JOB != LEGACY_PROCESS_JOB


def test_the_worker_runs_its_jobs_on_uvloop_where_it_is_installed() -> None:
    import asyncio

    import uvloop

    from workers.main import use_uvloop

    before = asyncio.get_event_loop_policy()
    try:
        assert use_uvloop()
        loop = asyncio.new_event_loop()
        try:
            assert isinstance(loop, uvloop.Loop)
        finally:
            loop.close()
    finally:
        asyncio.set_event_loop_policy(before)
