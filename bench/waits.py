"""What a ``?wait`` write costs each process: agents that write, wait, then read.

``python -m bench.waits [--agents 4] [--seconds 40] [--json OUT]``

Against the service as ``make dev`` runs it (an API process per core, one worker, embedded
Postgres and Redis), ``--agents`` agents each speak to a user of their own: remember one exchange
with ``?wait``, then read the context at the version the write reported, again and again for
``--seconds`` (after five seconds of the same, not counted). It prints the writes made, the
write's p50 and p99 (client side), and the CPU each process (the API's, the worker's, with their
children) spent per exchange, from ``psutil``. Compare two commits by running it in each.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench.ingest import cpu_seconds, percentile, running_stack
from bench.soak import ANSWER, tenant_keys
from tessera import AsyncTessera

WARM_SECONDS = 5.0


async def agent(
    client: AsyncTessera, user: str, numbers: Iterator[int], until: float, ms: list[float]
) -> None:
    """Write an exchange with ``?wait`` and read after it, until ``until``; ``numbers`` gives the
    user's exchanges their ids, never the same twice (a turn sent again is not written again)."""
    for n in numbers:
        if time.monotonic() >= until:
            return
        exchange = [
            {
                "role": "user",
                "content": f"Item {n}: the fence wants a coat of paint.",
                "id": f"{n}u",
            },
            {"role": "assistant", "content": ANSWER * 4, "id": f"{n}a"},
        ]
        started = time.perf_counter()
        job = await client.remember(user, exchange, session=f"s{n // 10}", wait=30)
        ms.append((time.perf_counter() - started) * 1000)
        await client.context(user, "What does the fence need?", min_version=job.version_after)


async def measured(url: str, admin: str, pids: dict[str, int], agents: int, seconds: float) -> Any:
    """Warm up, then run the agents for ``seconds``; the figures."""
    key = (await tenant_keys(url, admin, 1))[0]
    client = AsyncTessera(url, key)
    users = {f"waiter-{a}": itertools.count() for a in range(agents)}
    warm: list[float] = []
    until = time.monotonic() + WARM_SECONDS
    await asyncio.gather(*(agent(client, u, n, until, warm) for u, n in users.items()))
    ms: list[float] = []
    before = {name: cpu_seconds(pid, tree=True) for name, pid in pids.items()}
    until = time.monotonic() + seconds
    await asyncio.gather(*(agent(client, u, n, until, ms) for u, n in users.items()))
    after = {name: cpu_seconds(pid, tree=True) for name, pid in pids.items()}
    await client.aclose()
    return {
        "agents": agents,
        "writes": len(ms),
        "write_p50_ms": round(percentile(ms, 50), 1),
        "write_p99_ms": round(percentile(ms, 99), 1),
        "cpu_ms_per_exchange": {
            name: round((after[name] - before[name]) * 1000 / max(len(ms), 1), 2) for name in pids
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.waits", description=__doc__)
    parser.add_argument("--agents", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=40.0)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    with running_stack(api_processes=os.cpu_count() or 1) as stack:
        pids = {name: child.pid for name, child in stack.children.items()}
        figures = asyncio.run(
            measured(stack.base_url, stack.admin_token, pids, args.agents, args.seconds)
        )
    print(json.dumps(figures))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
