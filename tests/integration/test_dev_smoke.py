"""`tessera dev` on a bare machine: embedded servers, migrations, dev tenant, API, clean stop."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import pytest

from tests.integration.live import free_port

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def wait_ready(base: str, proc: subprocess.Popen, seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert proc.poll() is None, "tessera dev exited early"
        try:
            if httpx.get(f"{base}/readyz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise AssertionError("tessera dev did not become ready")


def test_dev_serves_the_passport_flow_and_stops_cleanly():
    data_dir = Path(tempfile.mkdtemp(prefix="tsr-dev-"))
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("TESSERA_")}
    env.update({"TESSERA_DATA_DIR": str(data_dir), "TESSERA_ADMIN_TOKEN": "smoke-admin"})
    proc = subprocess.Popen(
        [sys.executable, "-m", "app.cli.main", "dev", "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_ready(base, proc)
        dev_key = (data_dir / "dev-api-key").read_text().strip()
        assert dev_key.startswith("tsr_")
        admin = {"Authorization": "Bearer smoke-admin"}
        created = httpx.post(f"{base}/admin/tenants", json={"name": "smoke"}, headers=admin)
        assert created.status_code == 201
        auth = {"Authorization": f"Bearer {created.json()['api_key']['key']}"}
        doc = {
            "version": "2.1",
            "user_key": "u1",
            "facts": [{"key": "city", "value": "Kwekwe"}],
            "prefs": [],
            "meta": {},
        }
        body = json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()
        put = httpx.put(
            f"{base}/users/u1/passport",
            content=body,
            headers={**auth, "Content-Type": "application/json"},
        )
        assert put.status_code == 201
        got = httpx.get(f"{base}/users/u1/passport", headers=auth)
        sealed = {**doc, "witness": got.json()["witness"]}
        assert got.content == json.dumps(sealed, sort_keys=True, separators=(",", ":")).encode()
        gone = httpx.delete(f"{base}/users/u1", headers=auth)
        # `tessera dev` made a receipt secret: the deletion's receipt is signed.
        assert gone.status_code == 200 and gone.json()["algorithm"] == "HMAC-SHA256"
        assert httpx.get(f"{base}/users/u1/passport", headers=auth).status_code == 404
        # The dev tenant's key works too.
        assert (
            httpx.get(f"{base}/users", headers={"Authorization": f"Bearer {dev_key}"}).status_code
            == 200
        )
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            out, _ = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, _ = proc.communicate()
    assert proc.returncode == 0, out.decode(errors="replace")[-3000:]
    # Everything it started is stopped: no Postgres, no Redis left on the data directory.
    assert not (data_dir / "pg" / "postmaster.pid").exists()
    with pytest.raises(httpx.HTTPError):
        httpx.get(f"{base}/livez", timeout=1)
