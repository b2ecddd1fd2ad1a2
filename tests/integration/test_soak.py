"""The soak's agent loops for a few seconds against a live API and worker: nothing lost.

The full soak (`python -m bench.soak`, 20 minutes) judges latency and memory over time; here the
same loops, writes, reads, searches, forgets and exports, run briefly on the suite's Postgres and
Redis, and the end check must find every acknowledged turn kept and every forgotten one gone.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from bench.soak import Soak, run
from tests.integration.live import api_and_worker, tenant_key

pytestmark = [pytest.mark.integration, pytest.mark.slow]

ADMIN_TOKEN = "soak-admin-token"


@pytest.fixture(scope="module")
def url(settings, tmp_path_factory) -> Iterator[str]:  # type: ignore[no-untyped-def]
    with api_and_worker(
        settings, tmp_path_factory.mktemp("soak"), "tessera-soak", ADMIN_TOKEN
    ) as u:
        yield u


def test_agent_loops_lose_nothing_and_leave_nothing_forgotten(url: str, settings) -> None:  # type: ignore[no-untyped-def]
    keys = [tenant_key(url, ADMIN_TOKEN, f"soak-{n}") for n in range(2)]
    soak = Soak(url, keys, users=4, loops=3)
    soak.forget_share = 0.3  # forget often, so a few seconds see several
    result = asyncio.run(run(soak, settings.database_url, seconds=8, every=4))
    check = result["check"]
    errors = [i["errors"] for i in result["intervals"] if i["errors"]]
    assert errors == []
    assert check["acknowledged"] > 0 and check["forgotten"] > 0
    assert (check["missing"], check["found"]) == (0, 0)


def test_agents_that_pause_over_users_with_a_history_lose_nothing(url: str, settings) -> None:  # type: ignore[no-untyped-def]
    keys = [tenant_key(url, ADMIN_TOKEN, "soak-paused")]
    soak = Soak(url, keys, users=3, loops=0, pause=0.2)
    soak.forget_share = 0.3

    async def seeded_then_run() -> dict[str, Any]:
        await soak.seed(5)
        return await run(soak, settings.database_url, seconds=5, every=5)

    result = asyncio.run(seeded_then_run())
    check = result["check"]
    assert [i["errors"] for i in result["intervals"] if i["errors"]] == []
    assert check["acknowledged"] > 3 * 5 * 2  # each user's history, and exchanges after it
    assert result["intervals"][0]["calls"]["write ?wait"] > 3  # every user's agent stepped
    assert (check["missing"], check["found"]) == (0, 0)
