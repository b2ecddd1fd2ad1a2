"""A ``?wait`` write hears its job end: the job row is read when the wait starts and when the
worker signals the end, not on a timer; a lost signal connection costs time, never the answer."""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest
from sqlalchemy import event

from tests.conftest import quiet_jobs
from tests.integration.test_group_commit import _accept_all, _exchange

pytestmark = pytest.mark.integration


class JobReads:
    """Counts the job-row reads the API's engine runs while in use."""

    def __init__(self, app) -> None:  # type: ignore[no-untyped-def]
        self.engine = app.state.runtime.engine.sync_engine
        self.count = 0

    def _seen(self, conn, cursor, statement, params, context, executemany) -> None:  # type: ignore[no-untyped-def]
        if statement.lstrip().startswith("SELECT") and "FROM ingest_job" in statement:
            self.count += 1

    def __enter__(self) -> JobReads:
        event.listen(self.engine, "before_cursor_execute", self._seen)
        return self

    def __exit__(self, *exc: object) -> None:
        event.remove(self.engine, "before_cursor_execute", self._seen)


async def _waiting(app, tenant, quiet, own, user: str):  # type: ignore[no-untyped-def]
    """A job accepted on a queue no worker reads, and a wait for it running in a task."""
    from app.services import jobs

    tenant_id = uuid.UUID(tenant.id)
    job_id = (await _accept_all(quiet, tenant_id, own, user, [_exchange(1)]))[0]
    runtime = app.state.runtime
    view = await jobs.get_job(runtime.uows, tenant_id, job_id)
    wait = asyncio.create_task(
        jobs.wait_for_job(view, runtime.uows, tenant_id, 10, runtime.signals)
    )
    return tenant_id, job_id, wait


async def _finish(quiet, own, tenant_id, job_id) -> None:  # type: ignore[no-untyped-def]
    from app.domain.extraction.rules import RuleExtractor
    from app.services import processing
    from app.services.claimed import WorkerResources

    outcome = await processing.run_next(
        quiet, (tenant_id, job_id), own, WorkerResources(RuleExtractor())
    )
    assert outcome.status == "done"


async def test_a_wait_reads_the_job_when_it_starts_and_when_its_end_is_signalled(app, tenant):  # type: ignore[no-untyped-def]
    quiet, own = quiet_jobs(app)
    assert app.state.runtime.signals.listening
    tenant_id, job_id, wait = await _waiting(app, tenant, quiet, own, "ines")
    await asyncio.sleep(0.1)  # the wait has read the row once
    with JobReads(app) as reads:
        await asyncio.sleep(0.6)  # a timer's back-off would read the row every 20 to 100 ms
    assert not wait.done()
    assert reads.count <= 1  # none, or on a slow machine the wait's first read
    await _finish(quiet, own, tenant_id, job_id)
    started = time.monotonic()
    view = await asyncio.wait_for(wait, 5)
    assert view.status == "done" and view.version_after == 1
    assert time.monotonic() - started < 0.5  # woken by the signal, not by the rare re-read


async def test_a_lost_signal_connection_wakes_the_waits_and_they_read_the_row_again(
    app, tenant, monkeypatch
):  # type: ignore[no-untyped-def]
    from sqlalchemy import text

    from app.services import jobs

    # Without the wake, a wait would next read its row only at this recheck.
    monkeypatch.setattr(jobs, "SIGNALLED_RECHECK_SECONDS", 30.0)
    quiet, own = quiet_jobs(app)
    signals = app.state.runtime.signals
    assert signals.listening
    tenant_id, job_id, wait = await _waiting(app, tenant, quiet, own, "jo")
    await asyncio.sleep(0.1)  # the wait has read the row once
    with JobReads(app) as reads:
        async with app.state.runtime.engine.connect() as conn:
            await conn.execute(
                text(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE pid <> pg_backend_pid() AND query LIKE 'LISTEN%'"
                )
            )
        for _ in range(250):  # the wait, woken by the loss, reads its row again
            if reads.count:
                break
            await asyncio.sleep(0.02)
    assert reads.count >= 1
    assert not wait.done()
    # Finished while the listener may still be down: the wait, on its back-off, sees it soon.
    await _finish(quiet, own, tenant_id, job_id)
    view = await asyncio.wait_for(wait, 5)
    assert view.status == "done"
    if not signals.listening:  # the app is shared with the tests after this one
        await signals.start()
