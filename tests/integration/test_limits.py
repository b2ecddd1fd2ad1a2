"""Per-tenant limits answer problem+json that names the limit; other tenants are untouched."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator

import httpx
import pytest

from tests.conftest import make_tenant

pytestmark = pytest.mark.integration

PER_SECOND = 5


@pytest.fixture
async def limited(settings) -> AsyncIterator[httpx.AsyncClient]:  # type: ignore[no-untyped-def]
    """A client on an app with small limits: a few requests a second, three turns a user."""
    from app.main import create_app

    small = settings.model_copy(
        update={"tenant_requests_per_second": PER_SECOND, "user_max_turns": 3}
    )
    application = create_app(small)
    async with application.router.lifespan_context(application):
        transport = httpx.ASGITransport(app=application)
        async with httpx.AsyncClient(transport=transport, base_url="http://t.test") as client:
            yield client


async def _burst(client: httpx.AsyncClient, headers: dict[str, str], n: int) -> list:
    return list(
        await asyncio.gather(*(client.get("/users/u/passport", headers=headers) for _ in range(n)))
    )


async def test_a_tenant_past_its_requests_per_second_gets_429_and_others_do_not(limited):  # type: ignore[no-untyped-def]
    loud, calm = await make_tenant(limited, "loud"), await make_tenant(limited, "calm")
    await asyncio.sleep(1.0 - time.time() % 1.0)  # the start of a fresh one-second window
    answers = await _burst(limited, loud.headers, 4 * PER_SECOND)
    refused = [a for a in answers if a.status_code == 429]
    # At most two windows' worth got through (a burst may straddle a second's edge).
    assert len(answers) - len(refused) <= 2 * PER_SECOND and refused
    problem = refused[0].json()
    assert refused[0].headers["content-type"] == "application/problem+json"
    assert problem["limit"] == "tenant_requests_per_second"
    assert int(refused[0].headers["retry-after"]) >= 1
    # The other tenant's requests are counted on their own.
    calm_answers = await _burst(limited, calm.headers, 2)
    assert [a.status_code for a in calm_answers] == [404, 404]  # no such user, but served
    # A request with a body is refused before it is read, the same way.
    posts = await asyncio.gather(
        *(
            limited.post("/users/u/facts", headers=loud.headers, json={"facts": {"a": "b"}})
            for _ in range(4 * PER_SECOND)
        )
    )
    assert any(p.status_code == 429 for p in posts)


async def test_turns_past_the_users_limit_are_refused_with_413(limited):  # type: ignore[no-untyped-def]
    tenant = await make_tenant(limited, "full")
    turns = [{"speaker": "Ana", "text": f"line {n}", "id": f"t{n}"} for n in range(3)]
    first = await limited.post("/users/ana/ingest", headers=tenant.headers, json={"turns": turns})
    assert first.status_code == 202, first.text
    await asyncio.sleep(1.1)  # out of the request window
    more = [{"speaker": "Ana", "text": "one more", "id": "t9"}]
    refused = await limited.post("/users/ana/ingest", headers=tenant.headers, json={"turns": more})
    assert refused.status_code == 413, refused.text
    assert refused.json()["limit"] == "user_max_turns"
    other = await limited.post("/users/bo/ingest", headers=tenant.headers, json={"turns": more})
    assert other.status_code == 202  # the limit is per user


@pytest.fixture
async def metered(settings) -> AsyncIterator[httpx.AsyncClient]:  # type: ignore[no-untyped-def]
    """A client on an app whose tenants may send 10,000 bytes a day, 30 turns a user."""
    from app.main import create_app

    small = settings.model_copy(
        update={
            "tenant_requests_per_second": 0,
            "tenant_ingest_bytes_per_day": 10_000,
            "user_max_turns": 30,
        }
    )
    application = create_app(small)
    async with application.router.lifespan_context(application):
        transport = httpx.ASGITransport(app=application)
        async with httpx.AsyncClient(transport=transport, base_url="http://t.test") as client:
            yield client


def _two_turns(n: int) -> dict:
    filler = "and the weather held all afternoon " * 4
    return {
        "turns": [
            {"speaker": "Lia", "text": f"Note {n}: I walked to the market {filler}"},
            {"speaker": "Ben", "text": f"Note {n}: good to hear {filler}"},
        ]
    }


async def test_concurrent_writes_never_pass_the_daily_bytes_or_the_users_turns(metered):  # type: ignore[no-untyped-def]
    t = await make_tenant(metered, "metered")
    answers = await asyncio.gather(
        *(
            metered.post("/users/lia/ingest", json=_two_turns(n), headers=t.headers)
            for n in range(40)
        )
    )
    codes = [a.status_code for a in answers]
    accepted = [a for a in answers if a.status_code == 202]
    assert set(codes) <= {202, 413, 429}, codes
    # Each body is about 400 bytes as stored: 24 would fit the day's 10,000, but 30 turns a
    # user is 15 of them. The limit holds exactly, not once per request checked at once.
    assert len(accepted) == 15, codes
    assert {a.json()["limit"] for a in answers if a.status_code != 202} == {"user_max_turns"}


async def test_concurrent_writes_for_many_users_never_pass_the_daily_bytes(metered):  # type: ignore[no-untyped-def]
    t = await make_tenant(metered, "metered-many")
    answers = await asyncio.gather(
        *(
            metered.post(f"/users/u{n}/ingest", json=_two_turns(n), headers=t.headers)
            for n in range(40)
        )
    )
    codes = [a.status_code for a in answers]
    assert set(codes) <= {202, 429}, codes
    # About 400 bytes each as stored: 24 fit the day's 10,000, whichever 24 were first.
    assert codes.count(202) == 24, codes
    refused = [a.json() for a in answers if a.status_code == 429]
    assert {r["limit"] for r in refused} == {"tenant_ingest_bytes_per_day"}
    # A refused write left nothing: only the accepted users exist.
    listed = (await metered.get("/users?limit=100", headers=t.headers)).json()["items"]
    assert len(listed) == 24


async def test_passport_puts_and_facts_writes_count_against_the_daily_bytes(metered):  # type: ignore[no-untyped-def]
    t = await make_tenant(metered, "metered-put")
    # About 6,500 bytes as stored: one fits the day's 10,000, two do not.
    doc = {"version": "2.1", "facts": [{"key": f"k{i}", "value": "x" * 40} for i in range(100)]}
    first = await metered.put("/users/ivo/passport", json=doc, headers=t.headers)
    assert first.status_code in (200, 201), first.text
    # The put's bytes were counted: a second one of the same size no longer fits the day.
    again = await metered.put("/users/ivy/passport", json=doc, headers=t.headers)
    assert again.status_code == 429, again.text
    assert again.json()["limit"] == "tenant_ingest_bytes_per_day"
    facts = {"facts": [{"key": f"f{i}", "value": "y" * 40} for i in range(80)]}
    refused = await metered.post("/users/ivo/facts", json=facts, headers=t.headers)
    assert refused.status_code == 429, refused.text
    small = await metered.post(
        "/users/ivo/facts", json={"facts": [{"key": "a", "value": 1}]}, headers=t.headers
    )
    assert small.status_code < 300, small.text


async def test_heavy_requests_past_a_tenants_slots_are_refused_and_others_still_served(app, client):  # type: ignore[no-untyped-def]
    busy, calm = await make_tenant(client, "heavy-busy"), await make_tenant(client, "heavy-calm")
    for t in (busy, calm):
        doc = {"version": "2.1", "facts": [{"key": "city", "value": "Gweru"}]}
        assert (await client.put("/users/ana/passport", json=doc, headers=t.headers)).is_success
    slots = app.state.runtime.heavy
    busy_id = uuid.UUID(busy.id)
    # The busy tenant's slots are all taken (as by long checks still running).
    for _ in range(slots.per_tenant):
        slots.take(busy_id)
    try:
        heavy = (
            "/users/ana/integrity",
            "/users/ana/passport",
            "/users/ana/versions/1",
            "/ui/f/users/ana/integrity",
            "/ui/f/users/ana/versions/1",
        )
        for path in heavy:
            refused = await client.get(path, headers=busy.headers)
            assert refused.status_code == 429, (path, refused.text)
            assert refused.json()["limit"] == "tenant_heavy_requests"
            assert refused.headers["retry-after"] == "1"
            assert (await client.get(path, headers=calm.headers)).status_code == 200, path
        # A cheap read of the busy tenant is not a heavy one.
        assert (await client.get("/users/ana/context?q=city", headers=busy.headers)).is_success
    finally:
        for _ in range(slots.per_tenant):
            slots.give_back(busy_id)
    assert (await client.get("/users/ana/integrity", headers=busy.headers)).status_code == 200
    # A whole export gives its slot back once sent.
    for _ in range(3 * slots.per_tenant):
        assert (await client.get("/users/ana/passport", headers=busy.headers)).status_code == 200
    assert slots.running(busy_id) == 0


@pytest.fixture
async def unlimited_turns(settings) -> AsyncIterator[httpx.AsyncClient]:  # type: ignore[no-untyped-def]
    """A client on an app that counts no user's turns (``user_max_turns`` 0)."""
    from app.main import create_app

    application = create_app(settings.model_copy(update={"user_max_turns": 0}))
    async with application.router.lifespan_context(application):
        transport = httpx.ASGITransport(app=application)
        async with httpx.AsyncClient(transport=transport, base_url="http://t.test") as client:
            yield client


@pytest.mark.parametrize("counted", [True, False])
async def test_a_new_users_first_write_makes_their_passport_with_or_without_the_turn_limit(
    counted, limited, unlimited_turns
):  # type: ignore[no-untyped-def]
    # With the limit on, the turn count also tells whether the passport exists; off, nothing
    # is counted and the passport is made all the same.
    client = limited if counted else unlimited_turns
    t = await make_tenant(client, f"first-{counted}")
    assert (await client.get("/users/nova/passport", headers=t.headers)).status_code == 404
    accepted = await client.post("/users/nova/ingest", json=_two_turns(1), headers=t.headers)
    assert accepted.status_code == 202, accepted.text
    passport = await client.get("/users/nova/passport", headers=t.headers)
    assert passport.status_code == 200, passport.text
    again = await client.post("/users/nova/ingest", json=_two_turns(2), headers=t.headers)
    assert again.status_code == (413 if counted else 202), again.text  # 4 turns past 3
    versions = await client.get("/users/nova/versions", headers=t.headers)
    assert versions.json()["items"][-1]["version"] == 0, versions.text  # the chain's start


async def test_a_charge_counts_this_hours_bytes_and_the_rest_of_the_day_of_this_tenant_only(
    settings,
):  # type: ignore[no-untyped-def]
    from datetime import UTC, datetime, timedelta

    from app.db.engine import create_engine, session_factory
    from app.db.models import Tenant
    from app.db.repository import TenantRepository
    from app.db.system import SystemRepository

    engine = create_engine(settings.require_database_url(), pool_size=1)
    hour = datetime(2031, 5, 4, 12, tzinfo=UTC)
    ours, theirs = uuid.uuid4(), uuid.uuid4()
    try:
        async with session_factory(engine)() as session:
            system = SystemRepository(session)
            for tenant in (ours, theirs):
                await system.add_tenant(Tenant(id=tenant, name="c", created_at=hour, limits={}))
            repo = TenantRepository(session, ours)
            day = hour - timedelta(hours=23)
            await TenantRepository(session, theirs).charge_ingest_bytes(hour, 1_000, day)
            await repo.add_usage(hour - timedelta(hours=30), {"ingest_bytes": 500})  # days ago
            await repo.add_usage(hour - timedelta(hours=3), {"ingest_bytes": 40})
            assert await repo.charge_ingest_bytes(hour, 7, day) == 47
            assert await repo.charge_ingest_bytes(hour, 3, day) == 50  # this hour's row grows
            assert await repo.ingest_bytes_since(day) == 50  # what the two-statement read says
            await session.rollback()
    finally:
        await engine.dispose()
