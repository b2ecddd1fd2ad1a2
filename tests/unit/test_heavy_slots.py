"""A tenant's heavy-request slots: taken and given back, and past them a 429 names the limit."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from app.services.errors import LimitExceeded
from app.services.heavy import HeavySlots

ONE, TWO = uuid.uuid4(), uuid.uuid4()


def test_a_tenant_past_its_slots_is_refused_and_another_is_not() -> None:
    slots = HeavySlots(2)
    with slots.taken(ONE), slots.taken(ONE):
        with pytest.raises(LimitExceeded) as refused, slots.taken(ONE):
            pass
        assert refused.value.limit == "tenant_heavy_requests"
        with slots.taken(TWO):
            assert slots.running(TWO) == 1
    assert slots.running(ONE) == 0 and slots.running(TWO) == 0


def test_a_slot_is_given_back_when_the_work_raises() -> None:
    slots = HeavySlots(1)
    with pytest.raises(RuntimeError), slots.taken(ONE):
        raise RuntimeError("the check failed")
    with slots.taken(ONE):
        assert slots.running(ONE) == 1


def test_a_stream_holds_its_slot_until_it_ends_or_stops() -> None:
    slots = HeavySlots(1)

    async def chunks():  # type: ignore[no-untyped-def]
        for part in (b"a", b"b", b"c"):
            yield part

    async def read(stop_after: int) -> list[bytes]:
        slots.take(ONE)
        stream = slots.held_while(ONE, chunks())
        got = []
        async for chunk in stream:
            got.append(chunk)
            assert slots.running(ONE) == 1
            if len(got) == stop_after:
                break
        await stream.aclose()
        return got

    assert asyncio.run(read(3)) == [b"a", b"b", b"c"]
    assert slots.running(ONE) == 0
    assert asyncio.run(read(1)) == [b"a"]
    assert slots.running(ONE) == 0


def test_zero_slots_lifts_the_limit() -> None:
    slots = HeavySlots(0)
    with slots.taken(ONE), slots.taken(ONE), slots.taken(ONE):
        pass
