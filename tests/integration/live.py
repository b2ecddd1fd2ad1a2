"""Live `tessera` processes for the tests that talk to a real server over HTTP."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx


def free_port() -> int:
    """A TCP port on the loopback that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def service_env(settings: Any, logs: Path, queue: str, admin_token: str) -> dict[str, str]:
    """This environment minus TESSERA_ variables, plus the run's servers and an own queue."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TESSERA_")}
    env.update(
        {
            "TESSERA_DATABASE_URL": settings.database_url,
            "TESSERA_REDIS_URL": settings.redis_url,
            "TESSERA_QUEUE_NAME": f"{queue}:{uuid.uuid4().hex[:8]}",
            "TESSERA_ADMIN_TOKEN": admin_token,
            "TESSERA_DATA_DIR": str(logs / "data"),
            "TESSERA_LOG_LEVEL": "warning",
        }
    )
    return env


def _stop(procs: Sequence[subprocess.Popen[bytes]]) -> None:
    for proc in procs:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    for proc in procs:
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextmanager
def serving(
    commands: Mapping[str, Sequence[str]],
    env: Mapping[str, str],
    logs: Path,
    port: int,
    *,
    cwd: Path | None = None,
    ready_seconds: float = 60,
) -> Iterator[str]:
    """Run each role's command (output in ``logs/<role>.log``) until the API on ``port`` is ready;
    yields its URL and stops them all afterwards."""
    procs: dict[str, subprocess.Popen[bytes]] = {}
    url = f"http://127.0.0.1:{port}"
    try:
        for role, argv in commands.items():
            with (logs / f"{role}.log").open("wb") as log:
                procs[role] = subprocess.Popen(
                    list(argv), cwd=cwd, env=dict(env), stdout=log, stderr=subprocess.STDOUT
                )
        deadline = time.monotonic() + ready_seconds
        while True:
            for role, proc in procs.items():
                if proc.poll() is not None:
                    tail = (logs / f"{role}.log").read_text(errors="replace")[-3000:]
                    raise AssertionError(f"tessera {role} exited early:\n{tail}")
            try:
                if httpx.get(f"{url}/readyz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, f"the API did not become ready in {ready_seconds} s"
            time.sleep(0.2)
        yield url
    finally:
        _stop(list(procs.values()))


@contextmanager
def api_and_worker(settings: Any, logs: Path, queue: str, admin_token: str) -> Iterator[str]:
    """`tessera api` on a free port and one `tessera worker`, on this run's servers and a queue
    of their own; yields the API's URL."""
    port = free_port()
    env = service_env(settings, logs, queue, admin_token)
    base = [sys.executable, "-m", "app.cli.main"]
    commands = {"api": [*base, "api", "--port", str(port)], "worker": [*base, "worker"]}
    with serving(commands, env, logs, port) as url:
        yield url


def tenant_key(url: str, admin_token: str, name: str) -> str:
    """A new tenant's first API key, made through the admin API."""
    reply = httpx.post(
        f"{url}/admin/tenants",
        json={"name": name},
        headers={"Authorization": f"Bearer {admin_token}"},
        timeout=30,
    )
    assert reply.status_code == 201, reply.text
    return str(reply.json()["api_key"]["key"])
