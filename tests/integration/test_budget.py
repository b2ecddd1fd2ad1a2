"""The per-tenant model budget on a real Redis: fixed one-minute windows of calls and tokens."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis

from app.adapters.budget import TenantBudget

pytestmark = pytest.mark.integration


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def redis(settings) -> AsyncIterator[Redis]:
    client = Redis.from_url(settings.redis_url)
    yield client
    await client.aclose()


async def test_calls_over_the_limit_wait_for_the_next_window(redis) -> None:
    clock = Clock(60 * 28_333_334 + 40.0)  # 40 s into a minute
    budget = TenantBudget(redis, calls_per_minute=2, tokens_per_minute=0, clock=clock)
    tenant, other = uuid.uuid4(), uuid.uuid4()
    assert await budget.reserve_call(tenant) is None
    assert await budget.reserve_call(tenant) is None
    assert await budget.reserve_call(tenant) == 20.0  # the rest of this minute
    assert await budget.reserve_call(other) is None  # budgets are per tenant
    clock.now += 20
    assert await budget.reserve_call(tenant) is None  # a new window


async def test_tokens_spent_stop_the_next_call(redis) -> None:
    clock = Clock(60 * 28_333_335 + 10.0)
    budget = TenantBudget(redis, calls_per_minute=0, tokens_per_minute=1000, clock=clock)
    tenant = uuid.uuid4()
    assert await budget.reserve_call(tenant) is None
    await budget.charge_tokens(tenant, 600)
    assert await budget.reserve_call(tenant) is None
    await budget.charge_tokens(tenant, 600)  # the call that was let through went over
    assert await budget.reserve_call(tenant) is not None
    clock.now += 60
    assert await budget.reserve_call(tenant) is None


async def test_no_limit_never_asks_redis() -> None:
    budget = TenantBudget(None, calls_per_minute=0, tokens_per_minute=0)  # type: ignore[arg-type]
    tenant = uuid.uuid4()
    for _ in range(100):
        assert await budget.reserve_call(tenant) is None
    await budget.charge_tokens(tenant, 10**9)
