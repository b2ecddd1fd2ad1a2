"""A user's small jobs run together: one version holds them, and each job keeps its guarantees."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest

from tests.conftest import quiet_jobs
from tests.integration.test_forget import Gate

pytestmark = pytest.mark.integration


def _exchange(n: int, *, said: str | None = None) -> Any:
    from app.domain.ingest import IngestPayload

    text = said or f"Reminder {n}: the kiln in shed {n} needs a new thermocouple."
    turns = [
        {"speaker": "user", "text": text, "id": f"u{n}", "ts": f"2025-02-01T09:{n:02d}:00Z"},
        # Timed too: an untimed turn takes its job's time, and the batch's a0 would not be the
        # first job's a0 when the two jobs were accepted in different seconds.
        {
            "speaker": "assistant",
            "text": f"Noted, shed {n}.",
            "id": f"a{n}",
            "ts": f"2025-02-01T09:{n:02d}:30Z",
        },
    ]
    return IngestPayload.model_validate({"subject": "Mina", "turns": turns})


async def _accept_all(quiet, tenant_id, own, user: str, payloads: list[Any]) -> list[uuid.UUID]:  # type: ignore[no-untyped-def]
    from app.services import ingest

    return [(await ingest.accept(quiet, tenant_id, user, p, own)).job.id for p in payloads]


async def _jobs(client, headers, ids: list[uuid.UUID]) -> list[dict[str, Any]]:  # type: ignore[no-untyped-def]
    return [(await client.get(f"/jobs/{i}", headers=headers)).json() for i in ids]


async def test_a_users_queued_jobs_are_one_version_that_holds_each(client, tenant, app):  # type: ignore[no-untyped-def]
    from app.domain.extraction.rules import RuleExtractor
    from app.services import processing
    from app.services.claimed import WorkerResources

    quiet, own = quiet_jobs(app)
    tenant_id = uuid.UUID(tenant.id)
    ids = await _accept_all(quiet, tenant_id, own, "mina", [_exchange(n) for n in range(5)])
    other = await _accept_all(quiet, tenant_id, own, "otto", [_exchange(9)])
    resources = WorkerResources(RuleExtractor())

    outcome = await processing.run_next(quiet, (tenant_id, ids[0]), own, resources)
    assert outcome.status == "done" and outcome.jobs == 5
    jobs = await _jobs(client, tenant.headers, ids)
    assert [j["status"] for j in jobs] == ["done"] * 5
    assert {j["version_after"] for j in jobs} == {1}
    # Each job reports what it added itself, not the batch's total.
    assert [j["result"]["summary"]["turns_added"] for j in jobs] == [2] * 5
    assert all(j["result"]["changed"] for j in jobs)
    doc = (await client.get("/users/mina/passport", headers=tenant.headers)).json()
    assert [t["id"] for t in doc["turns"]] == [x for n in range(5) for x in (f"u{n}", f"a{n}")]
    checked = (await client.get("/users/mina/integrity", headers=tenant.headers)).json()
    assert checked["valid"] is True and checked["versions"] == 2
    # Another user's job was not taken with them.
    assert (await _jobs(client, tenant.headers, other))[0]["status"] == "queued"


async def test_a_batch_takes_at_most_the_configured_jobs_and_a_lone_job_runs_at_once(
    client, tenant, app
):  # type: ignore[no-untyped-def]
    from app.domain.extraction.rules import RuleExtractor
    from app.services import processing
    from app.services.claimed import WorkerResources

    quiet, own = quiet_jobs(app)
    own = own.model_copy(update={"job_batch_max": 3})
    tenant_id = uuid.UUID(tenant.id)
    ids = await _accept_all(quiet, tenant_id, own, "mina", [_exchange(n) for n in range(5)])
    resources = WorkerResources(RuleExtractor())
    message = (tenant_id, ids[0])
    runs = [await processing.run_next(quiet, message, own, resources) for _ in range(2)]
    assert [o.jobs for o in runs] == [3, 2]
    jobs = await _jobs(client, tenant.headers, ids)
    assert [j["version_after"] for j in jobs] == [1, 1, 1, 2, 2]
    lone = await _accept_all(quiet, tenant_id, own, "mina", [_exchange(7)])
    outcome = await processing.run_next(quiet, (tenant_id, lone[0]), own, resources)
    assert outcome.status == "done" and outcome.jobs == 1 and outcome.version == 3


async def test_a_request_repeated_within_a_batch_changes_nothing_the_second_time(
    client, tenant, app
):  # type: ignore[no-untyped-def]
    from app.domain.extraction.rules import RuleExtractor
    from app.services import processing
    from app.services.claimed import WorkerResources
    from app.services.origin import Origin

    quiet, own = quiet_jobs(app)
    tenant_id = uuid.UUID(tenant.id)
    from app.services import ingest

    keyed = Origin(idempotency_key="mina-1", actor="")
    first = await ingest.accept(quiet, tenant_id, "mina", _exchange(1), own, keyed)
    replay = await ingest.accept(quiet, tenant_id, "mina", _exchange(1), own, keyed)
    assert replay.replayed and replay.job.id == first.job.id
    again = await _accept_all(quiet, tenant_id, own, "mina", [_exchange(1), _exchange(2)])
    ids = [first.job.id, *again]
    outcome = await processing.run_next(
        quiet, (tenant_id, ids[0]), own, WorkerResources(RuleExtractor())
    )
    assert outcome.jobs == 3
    jobs = await _jobs(client, tenant.headers, ids)
    assert [j["result"]["changed"] for j in jobs] == [True, False, True]
    doc = (await client.get("/users/mina/passport", headers=tenant.headers)).json()
    assert [t["id"] for t in doc["turns"]] == ["u1", "a1", "u2", "a2"]


async def test_a_forget_racing_a_batch_restarts_its_jobs_and_is_not_undone(
    client, tenant, app, settings
):  # type: ignore[no-untyped-def]
    from app.services import processing
    from app.services.claimed import WorkerResources
    from tests.integration.test_forget import _places_holding

    quiet, own = quiet_jobs(app)
    tenant_id = uuid.UUID(tenant.id)
    secret = "Quillmarsh"
    said = f"My studio is in {secret}, by the old mill."
    opened = WorkerResources(Gate())
    opened.extractor.open.set()
    first = await _accept_all(quiet, tenant_id, own, "mina", [_exchange(0, said=said)])
    await processing.run_next(quiet, (tenant_id, first[0]), own, opened)

    ids = await _accept_all(
        quiet, tenant_id, own, "mina", [_exchange(0, said=said), _exchange(1), _exchange(2)]
    )
    held = WorkerResources(Gate())
    batch = asyncio.create_task(processing.run_next(quiet, (tenant_id, ids[0]), own, held))
    await asyncio.wait_for(held.extractor.reached.wait(), 20)
    forgot = await client.delete("/users/mina/turns/u0", headers=tenant.headers)
    assert forgot.status_code == 200, forgot.text
    held.extractor.open.set()
    outcome = await batch
    assert outcome.status == "restarted" and outcome.jobs == 3
    assert _places_holding(settings.database_url, secret) == []
    jobs = await _jobs(client, tenant.headers, ids)
    assert [j["status"] for j in jobs] == ["queued"] * 3

    rerun = await processing.run_next(quiet, (tenant_id, ids[0]), own, opened)
    assert rerun.status == "done" and rerun.jobs == 3
    doc = (await client.get("/users/mina/passport", headers=tenant.headers)).json()
    # The forget took the turn out of the queued payload that said it again, too.
    assert [t["id"] for t in doc["turns"]] == ["a0", "u1", "a1", "u2", "a2"]
    assert _places_holding(settings.database_url, secret) == []
    assert [j["status"] for j in await _jobs(client, tenant.headers, ids)] == ["done"] * 3


async def test_a_write_that_lands_while_a_batch_extracts_is_kept_under_the_batchs_version(
    client, tenant, app
):  # type: ignore[no-untyped-def]
    # The batch merges first onto the head it read its input after; the row lock finds the
    # write that came since, and the batch merges again onto what that write left.
    from app.services import processing
    from app.services.claimed import WorkerResources

    quiet, own = quiet_jobs(app)
    tenant_id = uuid.UUID(tenant.id)
    opened = WorkerResources(Gate())
    opened.extractor.open.set()
    first = await _accept_all(quiet, tenant_id, own, "mina", [_exchange(0)])
    await processing.run_next(quiet, (tenant_id, first[0]), own, opened)

    ids = await _accept_all(quiet, tenant_id, own, "mina", [_exchange(1), _exchange(2)])
    held = WorkerResources(Gate())
    batch = asyncio.create_task(processing.run_next(quiet, (tenant_id, ids[0]), own, held))
    await asyncio.wait_for(held.extractor.reached.wait(), 20)
    fact = {"facts": [{"key": "kiln_brand", "value": "Skutt", "ts": "2025-02-01T08:00:00Z"}]}
    wrote = await client.post("/users/mina/facts", json=fact, headers=tenant.headers)
    assert wrote.status_code == 200 and wrote.json()["version"] == 2, wrote.text
    held.extractor.open.set()
    outcome = await batch
    assert outcome.status == "done" and outcome.jobs == 2
    assert {j["version_after"] for j in await _jobs(client, tenant.headers, ids)} == {3}
    doc = (await client.get("/users/mina/passport", headers=tenant.headers)).json()
    assert [f["value"] for f in doc["facts"] if f["key"] == "kiln_brand"] == ["Skutt"]
    assert [t["id"] for t in doc["turns"]] == [x for n in range(3) for x in (f"u{n}", f"a{n}")]
    checked = (await client.get("/users/mina/integrity", headers=tenant.headers)).json()
    assert checked["valid"] is True and checked["versions"] == 4


async def test_a_job_that_raises_in_a_batch_fails_alone_with_its_turns_kept(
    client, tenant, app, monkeypatch
):  # type: ignore[no-untyped-def]
    from app.domain.extraction.rules import RuleExtractor
    from app.services import processing, running
    from app.services.claimed import WorkerResources

    quiet, own = quiet_jobs(app)
    own = own.model_copy(update={"job_max_attempts": 2})
    tenant_id = uuid.UUID(tenant.id)
    ids = await _accept_all(quiet, tenant_id, own, "mina", [_exchange(n) for n in range(4)])
    poisoned = ids[2]
    extract = running.extract

    async def poison(claimed, *args, **kwargs):  # type: ignore[no-untyped-def]
        if claimed.job.id == poisoned:
            raise RuntimeError("this job breaks every worker that runs it")
        return await extract(claimed, *args, **kwargs)

    monkeypatch.setattr(running, "extract", poison)
    resources = WorkerResources(RuleExtractor())
    message = (tenant_id, ids[0])
    with pytest.raises(RuntimeError):
        await processing.run_next(quiet, message, own, resources)
    jobs = await _jobs(client, tenant.headers, ids)
    # The batch raised; each job then ran alone: the others are written, the poisoned one waits.
    assert [j["status"] for j in jobs] == ["done", "done", "queued", "done"]
    for _ in range(own.job_max_attempts + 1):
        try:
            outcome = await processing.run_next(quiet, message, own, resources)
        except RuntimeError:
            continue
        break
    assert outcome.status == "failed" and outcome.jobs == 1
    jobs = await _jobs(client, tenant.headers, ids)
    assert [j["status"] for j in jobs] == ["done", "done", "failed", "done"]
    assert jobs[2]["error"] == "gave up after 2 attempts"
    doc = (await client.get("/users/mina/passport", headers=tenant.headers)).json()
    assert sorted(t["id"] for t in doc["turns"]) == sorted(
        x for n in range(4) for x in (f"u{n}", f"a{n}")
    )


async def test_after_one_tenants_batch_another_tenants_job_goes_next(client, app):  # type: ignore[no-untyped-def]
    from app.domain.extraction.rules import RuleExtractor
    from app.services import processing
    from app.services.claimed import WorkerResources
    from tests.conftest import make_tenant

    quiet, own = quiet_jobs(app)
    own = own.model_copy(update={"job_batch_max": 4})
    loud, calm = await make_tenant(client, "loud-batch"), await make_tenant(client, "calm-batch")
    loud_id, calm_id = uuid.UUID(loud.id), uuid.UUID(calm.id)
    flood = await _accept_all(quiet, loud_id, own, "mina", [_exchange(n) for n in range(12)])
    late = await _accept_all(quiet, calm_id, own, "otto", [_exchange(1)])
    resources = WorkerResources(RuleExtractor())
    message = (loud_id, flood[0])
    runs = [await processing.run_next(quiet, message, own, resources) for _ in range(2)]
    # The first run took four of the loud tenant's jobs; the calm tenant's one job ran next.
    assert [o.jobs for o in runs] == [4, 1]
    assert (await _jobs(client, calm.headers, late))[0]["status"] == "done"
    assert [j["status"] for j in await _jobs(client, loud.headers, flood)].count("done") == 4
