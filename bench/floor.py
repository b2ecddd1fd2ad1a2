"""The floor under one exchange per request on this machine: the framework and the client alone.

``python -m bench.floor [--clients 4] [--exchanges 300] [--processes N]``

Issue 45 asks for 300 requests a second, one exchange (a user message and the assistant's
answer) each, end to end. Whatever Tessera does with an exchange, the same machine must also
parse the HTTP request, validate its body and answer it, and run the clients that send it. This
serves a FastAPI route that takes the ingest route's body (``IngestPayload``, validated as the
API validates it) and answers 202 at once, nothing stored, by as many uvicorn processes as the
API runs (one per core); ``--clients`` clients post the same BEAM exchanges as ``bench.rhythm``
(one chat of the tuning half each, exchange after exchange). It prints the requests a second and
the CPU milliseconds a request of the server processes and of the clients: what is left of the
machine's CPU for the work itself is what the target allows less these.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time
from typing import Any

import httpx
import orjson
from fastapi import FastAPI, Response

from app.domain.ingest.payload import IngestPayload
from bench.ingest import cpu_seconds, free_port, log, table
from bench.rhythm import beam_runs

app = FastAPI()


@app.post("/users/{key}/ingest", status_code=202)
async def accept(key: str, payload: IngestPayload) -> Response:
    """Validate the body as the API does, store nothing, answer 202."""
    return Response(b'{"status":"queued"}', status_code=202, media_type="application/json")


async def post_all(url: str, bodies: list[list[bytes]]) -> float:
    """Each client posts its bodies one after another; the seconds until all are answered."""

    async def client(n: int, mine: list[bytes]) -> None:
        headers = {"Content-Type": "application/json"}
        async with httpx.AsyncClient(base_url=url) as http:
            for body in mine:
                resp = await http.post(f"/users/floor-{n}/ingest", content=body, headers=headers)
                if resp.status_code != 202:
                    raise RuntimeError(f"answered {resp.status_code}: {resp.text[:200]}")

    started = time.perf_counter()
    await asyncio.gather(*(client(n, mine) for n, mine in enumerate(bodies)))
    return time.perf_counter() - started


def wait_until_up(server: subprocess.Popen[bytes], url: str) -> None:
    """Poll the server until it answers (30 s at most); raise if it exits first."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the server exited with {server.returncode}")
        try:
            httpx.get(f"{url}/docs", timeout=1)
            return
        except httpx.HTTPError:
            time.sleep(0.2)
    raise RuntimeError("the server did not answer within 30 s")


def measure(clients: int, exchanges: int, processes: int) -> dict[str, Any]:
    """Serve the route, post every exchange, and count the requests and the CPU."""
    made = beam_runs(clients, exchanges)["one exchange per request"]
    bodies = [[orjson.dumps(b) for b in mine] for mine in made]
    port = free_port()
    command = [sys.executable, "-m", "uvicorn", "bench.floor:app", "--port", str(port)]
    command += ["--workers", str(processes), "--log-level", "warning", "--no-access-log"]
    server = subprocess.Popen(command)
    try:
        url = f"http://127.0.0.1:{port}"
        wait_until_up(server, url)
        asyncio.run(post_all(url, [mine[:20] for mine in bodies]))  # warm-up, not counted
        server_before = cpu_seconds(server.pid, True)
        client_before = cpu_seconds(os.getpid(), False)
        seconds = asyncio.run(post_all(url, bodies))
        server_cpu = cpu_seconds(server.pid, True) - server_before
        client_cpu = cpu_seconds(os.getpid(), False) - client_before
    finally:
        server.terminate()
        server.wait(timeout=30)
    requests = sum(len(mine) for mine in bodies)
    return {
        "requests": requests,
        "seconds": seconds,
        "per_second": requests / seconds,
        "server_ms": 1000 * server_cpu / requests,
        "client_ms": 1000 * client_cpu / requests,
    }


def main(argv: list[str] | None = None) -> int:
    """Run once and print the figures."""
    parser = argparse.ArgumentParser(prog="python -m bench.floor", description=__doc__)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--exchanges", type=int, default=300, help="per client")
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    log(f"{args.clients} clients, {args.processes} server processes")
    got = measure(args.clients, args.exchanges, args.processes)
    print(
        table(
            ["requests", "req/s", "server CPU ms/request", "client CPU ms/request"],
            [
                [
                    f"{got['requests']:,}",
                    f"{got['per_second']:.0f}",
                    f"{got['server_ms']:.2f}",
                    f"{got['client_ms']:.2f}",
                ]
            ],
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
