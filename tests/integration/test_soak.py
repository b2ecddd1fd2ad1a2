"""The soak's agent loops for a few seconds against a live API and worker: nothing lost.

The full soak (`python -m bench.soak`, 20 minutes) judges latency and memory over time; here the
same loops, writes, reads, searches, forgets and exports, run briefly on the suite's Postgres and
Redis, and the end check must find every acknowledged turn kept and every forgotten one gone.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

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
    result = asyncio.run(run(soak, {}, settings.database_url, seconds=8, every=4))
    check = result["check"]
    errors = [i["errors"] for i in result["intervals"] if i["errors"]]
    assert errors == []
    assert check["acknowledged"] > 0 and check["forgotten"] > 0
    assert (check["missing"], check["found"]) == (0, 0)
