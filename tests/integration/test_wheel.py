"""The built wheel on its own: installed into a fresh venv, its `tessera` serves and reads context.

The wheel is built from the files the Docker image copies, without network or build isolation,
and installed with `--no-deps --no-index`. Third-party packages come from this test run's venv
through a `.pth` path line (a plain path: the editable installs' own `.pth` hooks there stay
unprocessed), so `app` and `tessera_client` can only come from the wheel.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import uuid
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.integration.live import free_port, service_env, serving

pytestmark = [pytest.mark.integration, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
# What the Dockerfile copies into its build stage.
SOURCES = [
    "pyproject.toml",
    "README.md",
    "app",
    "workers",
    "migrations",
    "sdk/python/tessera_client",
    "sdk/python/tessera",
]
ADMIN_TOKEN = "wheel-admin-token"


@dataclass
class Installed:
    """A fresh venv holding only the wheel, and the wheel itself."""

    venv: Path
    wheel: Path

    def bin(self, name: str) -> str:
        """A script of the venv."""
        return str(self.venv / "bin" / name)


def _run(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    run = subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=120
    )
    assert run.returncode == 0, f"{argv[:4]} failed:\n{run.stdout[-2000:]}{run.stderr[-3000:]}"
    return run.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """Build the wheel from a copy of the sources and install it into a fresh venv."""
    base = tmp_path_factory.mktemp("wheel")
    src = base / "src"
    litter = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", ".pdm-build")
    for name in SOURCES:
        origin = ROOT / name
        if origin.is_dir():
            shutil.copytree(origin, src / name, ignore=litter)
        else:
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(origin, src / name)
    dist = base / "dist"
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
    _run(
        [*pip, "wheel", "--no-deps", "--no-index", "--no-build-isolation", "-w", str(dist), "."],
        cwd=src,
    )
    (wheel,) = dist.glob("tessera-*.whl")

    venv = base / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=base)
    python = venv / "bin" / "python"
    _run([*pip, "--python", str(python), "install", "--no-deps", "--no-index", str(wheel)], base)
    # Only after the install, so pip never sees this venv's own editable tessera as installed.
    site = Path(
        _run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], base
        ).strip()
    )
    ours = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    (site / "test_venv_deps.pth").write_text("".join(f"{p}\n" for p in sorted(ours)))
    return Installed(venv=venv, wheel=wheel)


@pytest.fixture(scope="module")
def server(installed: Installed, settings, tmp_path_factory) -> Iterator[str]:  # type: ignore[no-untyped-def]
    """The wheel's `tessera api` on a free port, on this run's database and Redis."""
    logs = tmp_path_factory.mktemp("wheel-api")
    port = free_port()
    env = service_env(settings, logs, "tessera-wheel", ADMIN_TOKEN)
    env.pop("PYTHONPATH", None)
    commands = {"api": [installed.bin("tessera"), "api", "--port", str(port)]}
    with serving(commands, env, logs, port, cwd=logs, ready_seconds=45) as url:
        yield url


def test_the_wheel_carries_the_sdk_and_the_migration_template(installed: Installed) -> None:
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    assert "tessera_client/client.py" in names
    assert "tessera_client/py.typed" in names
    assert "app/cli/client.py" in names
    assert "migrations/script.py.mako" in names
    assert {"app/ui/templates/page.html", "app/ui/static/inspector.js"} <= names
    assert not any(name.startswith(("tests/", "bench/", "openapi/")) for name in names)


def test_app_and_the_sdk_are_imported_from_the_wheel(installed: Installed, tmp_path: Path) -> None:
    code = "import app, tessera_client; print(app.__file__); print(tessera_client.__file__)"
    out = _run([installed.bin("python"), "-c", code], cwd=tmp_path)
    for line in out.splitlines():
        assert Path(line).is_relative_to(installed.venv), line


def test_the_wheels_tessera_context_reads_a_live_server(
    installed: Installed, server: str, tmp_path: Path
) -> None:
    created = httpx.post(
        f"{server}/admin/tenants",
        json={"name": f"wheel-{uuid.uuid4().hex[:6]}"},
        headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
        timeout=10,
    )
    assert created.status_code == 201, created.text
    key = created.json()["api_key"]["key"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("TESSERA_")}
    env.update({"TESSERA_URL": server, "TESSERA_API_KEY": key})
    passport = tmp_path / "passport.json"
    passport.write_text(
        json.dumps({"version": "2.1", "facts": [{"key": "city", "value": "Kwekwe"}]})
    )
    _run([installed.bin("tessera"), "import", "mel", str(passport)], cwd=tmp_path, env=env)

    out = _run(
        [installed.bin("tessera"), "context", "mel", "-q", "Where does she live?"],
        cwd=tmp_path,
        env=env,
    )
    assert "Kwekwe" in out


def test_the_wheels_server_serves_the_inspector_page(server: str) -> None:
    page = httpx.get(f"{server}/ui", timeout=10)
    script = httpx.get(f"{server}/ui/static/inspector.js", timeout=10)
    assert page.status_code == script.status_code == 200
    assert "passport inspector" in page.text and "sessionStorage" in script.text
