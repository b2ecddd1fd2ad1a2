"""One tenant's backlog does not hold up another's jobs; a deferred job waits for its time."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest

from tests.conftest import make_tenant, quiet_jobs

pytestmark = pytest.mark.integration


def _payload(n: int):  # type: ignore[no-untyped-def]
    from app.domain.ingest import IngestPayload

    turns = [{"speaker": "Ana", "text": f"Note number {n}: I moved to Porto.", "id": f"t{n}"}]
    body = {"subject": "Ana", "session_ts": "2024-03-01T10:00:00Z", "turns": turns}
    return IngestPayload.model_validate(body)


async def test_a_flood_from_one_tenant_does_not_delay_another(client, app):  # type: ignore[no-untyped-def]
    from app.domain.extraction.rules import RuleExtractor
    from app.services import ingest, processing
    from app.services.claimed import WorkerResources

    quiet, own = quiet_jobs(app)
    loud, calm = await make_tenant(client, "loud"), await make_tenant(client, "calm")
    loud_id, calm_id = uuid.UUID(loud.id), uuid.UUID(calm.id)
    flood = [await ingest.accept(quiet, loud_id, f"u{n}", _payload(n), own) for n in range(8)]
    late = await ingest.accept(quiet, calm_id, "one", _payload(99), own)

    resources = WorkerResources(RuleExtractor())
    message = (loud_id, flood[0].job.id)  # every message says only that some job waits
    calm_ran_at = None
    for run in range(len(flood) + 1):
        outcome = await processing.run_next(quiet, message, own, resources)
        assert outcome.status == "done", outcome
        async with quiet() as uow:
            job = await uow.tenant(calm_id).job(late.job.id)
        if calm_ran_at is None and job is not None and job.status == "done":
            calm_ran_at = run
    # The calm tenant's one job ran second, right after the first of the flood, not ninth.
    assert calm_ran_at == 1
    async with quiet() as uow:
        statuses = [
            (await uow.tenant(loud_id).job(a.job.id)).status  # type: ignore[union-attr]
            for a in flood
        ]
    assert statuses == ["done"] * len(flood)


async def test_workers_picking_at_once_each_run_a_job_and_leave_none_behind(client, app):  # type: ignore[no-untyped-def]
    import asyncio

    from app.domain.extraction.rules import RuleExtractor
    from app.services import ingest, processing
    from app.services.claimed import WorkerResources

    quiet, own = quiet_jobs(app)
    tenant = await make_tenant(client, "busy")
    tenant_id = uuid.UUID(tenant.id)
    accepted = [await ingest.accept(quiet, tenant_id, f"u{n}", _payload(n), own) for n in range(8)]
    resources = WorkerResources(RuleExtractor())
    # Eight messages handled at once, as a worker with eight job slots does after a burst.
    outcomes = await asyncio.gather(
        *(processing.run_next(quiet, (tenant_id, a.job.id), own, resources) for a in accepted)
    )
    assert [o.status for o in outcomes] == ["done"] * len(accepted)
    async with quiet() as uow:
        jobs = [await uow.tenant(tenant_id).job(a.job.id) for a in accepted]
    assert [j.status for j in jobs if j is not None] == ["done"] * len(accepted)


async def test_a_message_that_ran_another_tenants_job_runs_its_own_too(client, app):  # type: ignore[no-untyped-def]
    from app.domain.extraction.rules import RuleExtractor
    from app.services import ingest, processing
    from app.services.claimed import WorkerResources

    quiet, own = quiet_jobs(app)
    served, waiting = await make_tenant(client, "served"), await make_tenant(client, "waiting")
    served_id, waiting_id = uuid.UUID(served.id), uuid.UUID(waiting.id)
    resources = WorkerResources(RuleExtractor())
    first = await ingest.accept(quiet, served_id, "u0", _payload(0), own)
    await processing.run_next(quiet, (served_id, first.job.id), own, resources)
    # The served tenant's next job and then the other's, each with its own message; the other
    # tenant, never served, is the fair pick of whichever message runs first.
    mine = await ingest.accept(quiet, served_id, "u1", _payload(1), own)
    theirs = await ingest.accept(quiet, waiting_id, "v1", _payload(2), own)

    outcome = await processing.run_next(quiet, (served_id, mine.job.id), own, resources)

    # Both ran: left queued, the first job would wait for a message that is not coming.
    assert outcome.jobs == 2
    async with quiet() as uow:
        jobs = [
            await uow.tenant(served_id).job(mine.job.id),
            await uow.tenant(waiting_id).job(theirs.job.id),
        ]
    assert [j.status for j in jobs if j is not None] == ["done", "done"]
    second = await processing.run_next(quiet, (waiting_id, theirs.job.id), own, resources)
    assert second.status == "skipped"


async def test_a_deferred_job_is_not_taken_before_its_time(client, tenant, app):  # type: ignore[no-untyped-def]
    from app.domain.extraction.rules import RuleExtractor
    from app.services import ingest, processing
    from app.services.claimed import WorkerResources

    quiet, own = quiet_jobs(app)
    tenant_id = uuid.UUID(tenant.id)
    accepted = await ingest.accept(quiet, tenant_id, "later", _payload(1), own)
    async with quiet() as uow:
        later = datetime.now(UTC) + timedelta(hours=1)
        await uow.tenant(tenant_id).update_job(accepted.job.id, not_before=later)
        await uow.commit()
    resources = WorkerResources(RuleExtractor())
    message = (tenant_id, accepted.job.id)
    assert (await processing.run_next(quiet, message, own, resources)).status == "skipped"
    async with quiet() as uow:
        await uow.tenant(tenant_id).update_job(accepted.job.id, not_before=None)
        await uow.commit()
    assert (await processing.run_next(quiet, message, own, resources)).status == "done"


async def test_a_poison_job_ends_failed_after_its_tries_with_its_turns_kept(
    client, tenant, app, monkeypatch
):  # type: ignore[no-untyped-def]
    from app.domain.extraction.rules import RuleExtractor
    from app.services import ingest, processing, running
    from app.services.claimed import WorkerResources

    async def poison(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise RuntimeError("this job breaks every worker that runs it")

    monkeypatch.setattr(running, "extract", poison)
    quiet, own = quiet_jobs(app)
    own = own.model_copy(update={"job_max_attempts": 3})
    tenant_id = uuid.UUID(tenant.id)
    accepted = await ingest.accept(quiet, tenant_id, "poisoned", _payload(7), own)
    resources = WorkerResources(RuleExtractor())
    message = (tenant_id, accepted.job.id)
    raised = 0
    for _ in range(own.job_max_attempts + 1):
        try:
            outcome = await processing.run_next(quiet, message, own, resources)
        except RuntimeError:
            raised += 1
            continue
        break
    assert raised == own.job_max_attempts  # each try raised and was put back
    assert outcome.status == "failed"
    job = (await client.get(f"/jobs/{accepted.job.id}", headers=tenant.headers)).json()
    assert job["status"] == "failed" and job["error"] == "gave up after 3 attempts"
    doc = (await client.get("/users/poisoned/passport", headers=tenant.headers)).json()
    assert [t["id"] for t in doc["turns"]] == ["t7"]  # the words were kept
    again = await processing.run_next(quiet, message, own, resources)
    assert again.status == "skipped"  # failed is final: it is not run again
