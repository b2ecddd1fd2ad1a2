"""docker-compose.yml runs what the docs promise: real servers, migrations first, health checks."""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from app.cli.main import build_parser
from app.settings import Settings
from workers.main import STOP_WAIT_SECONDS

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = {f"TESSERA_{name.upper()}" for name in Settings.model_fields}


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    data = yaml.safe_load((ROOT / "docker-compose.yml").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def service(compose: dict[str, Any], name: str) -> dict[str, Any]:
    svc = compose["services"][name]
    assert isinstance(svc, dict)
    return svc


def named_volume_at(compose: dict[str, Any], name: str, target: str) -> str:
    """The named volume a service mounts at ``target`` (a bind mount does not count)."""
    for mount in service(compose, name).get("volumes", []):
        source, _, path = mount.partition(":")
        if path == target:
            assert source in compose["volumes"], f"{source} is not a named volume"
            return source
    raise AssertionError(f"{name} mounts nothing at {target}")


def seconds(duration: str) -> int:
    match = re.fullmatch(r"(?:(\d+)m)?(?:(\d+)s)?", duration)
    assert match and duration, duration
    return int(match.group(1) or 0) * 60 + int(match.group(2) or 0)


def test_postgres_16_with_a_tcp_healthcheck_and_a_volume(compose):
    pg = service(compose, "postgres")
    assert pg["image"].startswith("postgres:16")
    test = pg["healthcheck"]["test"]
    # Over TCP: during first-time init the temporary server listens on the socket only.
    assert "pg_isready" in test
    assert test[test.index("-h") + 1] == "127.0.0.1"
    named_volume_at(compose, "postgres", "/var/lib/postgresql/data")


def test_redis_7_append_only_with_a_volume(compose):
    rd = service(compose, "redis")
    assert rd["image"].startswith("redis:7")
    command = rd["command"]
    assert command[command.index("--appendonly") + 1] == "yes"
    assert "healthcheck" in rd
    named_volume_at(compose, "redis", "/data")


def test_migrations_run_once_before_the_service(compose):
    migrate = service(compose, "migrate")
    assert migrate["command"] == ["migrate"]
    assert migrate["restart"] == "no"
    assert migrate["depends_on"]["postgres"]["condition"] == "service_healthy"
    for name in ("api", "worker"):
        needs = service(compose, name)["depends_on"]
        assert needs["postgres"]["condition"] == "service_healthy", name
        assert needs["redis"]["condition"] == "service_healthy", name
        assert needs["migrate"]["condition"] == "service_completed_successfully", name


def test_the_worker_healthcheck_is_a_real_command(compose):
    test = service(compose, "worker")["healthcheck"]["test"]
    assert test[:2] == ["CMD", "tessera"]
    assert test[2:] == ["worker", "--check"]
    assert build_parser().parse_args(test[2:]).check is True


def test_stopping_leaves_running_jobs_time_to_finish(compose):
    for name in ("api", "worker"):
        grace = seconds(service(compose, name)["stop_grace_period"])
        # The worker's own wait must run out (and the worker exit) before Compose kills it.
        assert grace > STOP_WAIT_SECONDS, name


def test_service_containers_read_dot_env(compose):
    for name in ("migrate", "api", "worker"):
        files = service(compose, name)["env_file"]
        paths = [f["path"] if isinstance(f, dict) else f for f in files]
        assert ".env" in paths, name


def test_the_variables_compose_and_env_example_set_are_settings(compose):
    for name in ("migrate", "api", "worker"):
        environment = service(compose, name).get("environment", {})
        stray = {var for var in environment if var.startswith("TESSERA_")} - SETTINGS
        assert not stray, f"{name} sets variables that are no setting: {sorted(stray)}"
    example = (ROOT / ".env.example").read_text(encoding="utf-8")
    assigned = set(re.findall(r"^#?\s*(TESSERA_[A-Z0-9_]+)=", example, flags=re.MULTILINE))
    assert assigned, ".env.example sets nothing"
    assert assigned <= SETTINGS, sorted(assigned - SETTINGS)


def _ignored(path: str, patterns: list[str]) -> bool:
    """Whether .dockerignore keeps ``path`` out of the build context (the last match wins)."""
    parts = path.split("/")
    # A pattern names a file or a folder (and so all under it); one with "**/" can start anywhere.
    rooted = ["/".join(parts[:n]) for n in range(1, len(parts) + 1)]
    anywhere = [
        "/".join(parts[i:n]) for i in range(len(parts)) for n in range(i + 1, len(parts) + 1)
    ]
    ignored = False
    for pattern in patterns:
        glob = pattern.removeprefix("!")
        candidates = anywhere if glob.startswith("**/") else rooted
        if any(fnmatch.fnmatchcase(c, glob.removeprefix("**/")) for c in candidates):
            ignored = not pattern.startswith("!")
    return ignored


def test_the_image_gets_the_sdk_and_the_lock_it_installs_from():
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    patterns = [
        line.strip()
        for line in (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    copied = [
        source
        for line in dockerfile.splitlines()
        if line.startswith("COPY ") and "--from=" not in line
        for source in line.split()[1:-1]
    ]
    assert "requirements.lock" in copied
    assert "sdk/python/tessera_client" in copied
    assert "-c requirements.lock" in dockerfile
    files = [
        path.relative_to(ROOT).as_posix()
        for source in copied
        for path in (
            [ROOT / source] if (ROOT / source).is_file() else (ROOT / source).rglob("*.py")
        )
    ]
    assert "sdk/python/tessera_client/client.py" in files
    left_out = [path for path in files if _ignored(path, patterns)]
    assert not left_out, f".dockerignore keeps out what the Dockerfile copies: {left_out[:5]}"
    assert _ignored("sdk/python/tessera_client/__pycache__/client.cpython-311.pyc", patterns)
    assert _ignored("tests/conftest.py", patterns)
