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


async def test_a_request_to_index_a_user_while_another_is_indexed_is_dropped() -> None:
    # One user is being indexed: another request is dropped at once (that user's next read
    # indexes the log), so a burst of forgets never holds the slots ingest jobs run in.
    import asyncio
    from types import SimpleNamespace

    from app.domain.extraction.rules import RuleExtractor
    from app.services.claimed import WorkerResources
    from workers.main import INDEX_USER, index_user

    resources = WorkerResources(extractor=RuleExtractor())
    runtime = SimpleNamespace(worker_resources=lambda: resources)
    worker = build_worker(Settings(redis_url="redis://127.0.0.1:1/0"))
    assert worker.functions[INDEX_USER].coroutine is index_user
    async with resources.indexing:
        ctx = {"runtime": runtime}
        asked = index_user(ctx, "6f1c3c8e-0000-4000-8000-000000000000", "ada")
        assert await asyncio.wait_for(asked, timeout=5) is False
