"""The spec tells the truth: schemathesis, every check and the stateful links, on a live server.

One `tessera api` and one `tessera worker` subprocess on this run's database and Redis. The
schemathesis command line runs against the served /openapi.json with a fixed seed, so a failure
reproduces; it must find nothing.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

pytestmark = [pytest.mark.integration, pytest.mark.slow]

ADMIN_TOKEN = "conformance-admin-token"
SEED = 20261201
# A precondition that fails is the answer RFC 9110 gives to If-Match on a user that does not
# exist: schema-valid, and still refused.
PRECONDITION_OPS = ("PUT /users/{key}/passport",)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_ready(url: str, procs: dict[str, subprocess.Popen[bytes]], logs: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for role, proc in procs.items():
            if proc.poll() is not None:
                tail = (logs / f"{role}.log").read_text(errors="replace")[-3000:]
                raise AssertionError(f"tessera {role} exited early:\n{tail}")
        try:
            if httpx.get(f"{url}/readyz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise AssertionError("the API did not become ready in 60 s")


@pytest.fixture(scope="module")
def live_url(settings, tmp_path_factory) -> Iterator[str]:  # type: ignore[no-untyped-def]
    """`tessera api` on a free port and a worker, on this run's servers."""
    logs = tmp_path_factory.mktemp("conformance-live")
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("TESSERA_")}
    env.update(
        {
            "TESSERA_DATABASE_URL": settings.database_url,
            "TESSERA_REDIS_URL": settings.redis_url,
            "TESSERA_QUEUE_NAME": f"tessera-conformance:{uuid.uuid4().hex[:8]}",
            "TESSERA_ADMIN_TOKEN": ADMIN_TOKEN,
            "TESSERA_DATA_DIR": str(logs / "data"),
            "TESSERA_LOG_LEVEL": "warning",
        }
    )
    base = [sys.executable, "-m", "app.cli.main"]
    procs: dict[str, subprocess.Popen[bytes]] = {}
    for role, argv in (("api", ["api", "--port", str(port)]), ("worker", ["worker"])):
        with (logs / f"{role}.log").open("wb") as log:
            procs[role] = subprocess.Popen(
                [*base, *argv], env=env, stdout=log, stderr=subprocess.STDOUT
            )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(url, procs, logs)
        yield url
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in procs.values():
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _config(tenant_key: str) -> str:
    expected = ", ".join(
        str(s) for s in (200, 201, 202, 204, 304, 401, 403, 404, 409, 412, 429, 500, 503)
    )
    lines = [
        f'headers = {{ Authorization = "Bearer {tenant_key}" }}',
        "",
        "[[operations]]",
        'include-path-regex = "^/admin"',
        f'headers = {{ Authorization = "Bearer {ADMIN_TOKEN}" }}',
    ]
    for name in PRECONDITION_OPS:
        lines += [
            "",
            "[[operations]]",
            f'include-name = "{name}"',
            f"checks.positive_data_acceptance.expected-statuses = [{expected}]",
        ]
    return "\n".join(lines) + "\n"


def test_schemathesis_finds_nothing(live_url: str, tmp_path: Path) -> None:
    """Every check, every phase (examples, coverage, fuzzing, stateful links): no failure."""
    created = httpx.post(
        f"{live_url}/admin/tenants",
        json={"name": "conformance"},
        headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
        timeout=10,
    )
    assert created.status_code == 201, created.text
    config = tmp_path / "schemathesis.toml"
    config.write_text(_config(created.json()["api_key"]["key"]))
    argv = [
        sys.executable,
        "-m",
        "schemathesis.cli",
        "--no-color",
        "--config-file",
        str(config),
        "run",
        f"{live_url}/openapi.json",
        "--checks",
        "all",
        "--seed",
        str(SEED),
        "--max-examples",
        "25",
        "--workers",
        "1",
    ]
    run = subprocess.run(argv, capture_output=True, text=True, timeout=600, cwd=tmp_path)
    output = run.stdout + run.stderr
    assert run.returncode == 0, output[-12000:]
    assert "No issues found" in output or " passed" in output, output[-4000:]
