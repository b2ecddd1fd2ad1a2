"""A streaming replica: a second Postgres fed by the primary's WAL (``pg_basebackup -R``) serves
the API's reads; ``min_version`` keeps them correct while it replays, and the stored index (an
unlogged table a standby cannot read) comes from the primary.

The primary here is a small cluster of its own (made with the same server binaries as the test
servers), so the base backup copies one database, not every test's.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pwd
import shutil
import subprocess
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest

from app.cli.embedded import asyncpg_url
from app.db import engine
from tests.conftest import ADMIN, _libpq
from tests.integration.test_stored_index import api_starter, whole_log_reads

pytestmark = pytest.mark.integration

DATABASE = "tessera_streamed"


@dataclass
class Cluster:
    """A primary and its streaming standby, each on its own socket directory."""

    primary: str  # the application database's URL on the primary
    standby: str  # the same database on the standby


def _bindir(any_url: str) -> Path:
    """Where the running test server's own programs are (initdb, pg_ctl, pg_basebackup)."""
    with psycopg.connect(_libpq(any_url)) as conn:
        found = conn.execute("SELECT setting FROM pg_config WHERE name = 'BINDIR'").fetchone()
    assert found is not None
    return Path(found[0])


def _server_user() -> dict[str, Any]:
    """Postgres refuses to run as root: as root, run its programs as the user pgserver made."""
    if os.geteuid() != 0:
        return {}
    for name in ("pgserver", "postgres"):
        with contextlib.suppress(KeyError):
            pwd.getpwnam(name)
            return {"user": name}
    pytest.skip("running as root with no user to run Postgres as")


def _run(*command: str | Path) -> None:
    subprocess.run(
        [str(c) for c in command], check=True, capture_output=True, timeout=120, **_server_user()
    )


def _start(bindir: Path, data: Path, sockets: Path) -> None:
    options = f"-k {sockets} -c listen_addresses='' -c fsync=off"
    _run(bindir / "pg_ctl", "-D", data, "-o", options, "-l", data / "log", "-w", "start")


@pytest.fixture(scope="module")
def cluster(test_servers) -> Iterator[Cluster]:  # type: ignore[no-untyped-def]
    bindir = _bindir(test_servers.admin_url)
    if not (bindir / "pg_basebackup").exists():
        pytest.skip("the test server's binaries have no pg_basebackup here")
    root = Path(tempfile.mkdtemp(prefix="tsr-"))  # short: Unix socket paths are limited
    primary, standby = root / "primary", root / "standby"
    primary_sockets, standby_sockets = root / "ps", root / "ss"
    primary_sockets.mkdir()
    standby_sockets.mkdir()
    user = _server_user().get("user")
    if user is not None:  # the directories are the server user's, as pgserver makes its own
        owner = pwd.getpwnam(user)
        for path in (root, primary_sockets, standby_sockets):
            os.chown(path, owner.pw_uid, owner.pw_gid)
    started: list[Path] = []
    try:
        _run(bindir / "initdb", "-D", primary, "-U", "postgres", "-A", "trust", "--no-sync")
        _start(bindir, primary, primary_sockets)
        started.append(primary)
        with psycopg.connect(host=str(primary_sockets), user="postgres", dbname="postgres") as c:
            c.autocommit = True
            c.execute(f'CREATE DATABASE "{DATABASE}"')
        primary_url = asyncpg_url(str(primary_sockets), DATABASE)
        engine.upgrade(primary_url)
        # -R: the copy starts as a standby that streams from the primary; -c fast: at once, not
        # after a spread checkpoint.
        _run(
            bindir / "pg_basebackup",
            "-h",
            primary_sockets,
            "-U",
            "postgres",
            "-D",
            standby,
            "-R",
            "-X",
            "stream",
            "-c",
            "fast",
            "--no-sync",
        )
        _start(bindir, standby, standby_sockets)
        started.append(standby)
        yield Cluster(primary_url, asyncpg_url(str(standby_sockets), DATABASE))
    finally:
        for data in reversed(started):
            subprocess.run(
                [str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
                capture_output=True,
                timeout=60,
                **_server_user(),
            )
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
async def start_api(settings, cluster) -> AsyncIterator[Any]:  # type: ignore[no-untyped-def]
    """Start API processes (each with empty caches) on the primary, reading from the standby."""
    own = settings.model_copy(
        update={"database_url": cluster.primary, "database_read_url": cluster.standby}
    )
    async with api_starter(own) as start:
        yield start


def passport(n: int) -> dict[str, Any]:
    turns = [
        {
            "id": f"t{i}",
            "speaker": "Ana",
            "text": f"Day {i}: I keep {i + 2} hives of bees in Evora.",
            "ts": f"2024-03-{i + 1:02d}T10:00:00Z",
            "session": f"s{i}",
        }
        for i in range(n)
    ]
    return {"version": "2.1", "user_key": "ana", "turns": turns}


def standby_version(url: str, user_key: str) -> int | None:
    with psycopg.connect(_libpq(url)) as conn:
        found = conn.execute(
            "SELECT version FROM passport WHERE user_key = %s", (user_key,)
        ).fetchone()
    return None if found is None else int(found[0])


async def test_a_streaming_standby_serves_reads_and_sees_every_write(  # type: ignore[no-untyped-def]
    start_api, cluster
):
    api, _ = await start_api()
    made = await api.post(
        "/admin/tenants", json={"name": f"s-{uuid.uuid4().hex[:6]}"}, headers=ADMIN
    )
    assert made.status_code == 201, made.text
    h = {"Authorization": f"Bearer {made.json()['api_key']['key']}"}
    put = await api.put("/users/ana/passport", json=passport(6), headers=h)
    assert put.status_code == 201, put.text
    version = put.json()["version"]
    # With min_version the write is seen at once, whether the standby replayed it yet or not.
    first = await api.get(
        "/users/ana/context", params={"q": "hives", "min_version": version}, headers=h
    )
    assert first.status_code == 200 and "Day 3" in first.text
    # The standby replays it: the WAL streams.
    deadline = time.monotonic() + 30
    while standby_version(cluster.standby, "ana") != version:
        assert time.monotonic() < deadline, "the standby did not replay the write"
        await asyncio.sleep(0.1)
    # A standby cannot read an unlogged table; the stored index is read from the primary.
    with (
        pytest.raises(psycopg.errors.FeatureNotSupported),
        psycopg.connect(_libpq(cluster.standby)) as conn,
    ):
        conn.execute("SELECT count(*) FROM index_segment").fetchone()
    with psycopg.connect(_libpq(cluster.primary)) as conn:
        stored = conn.execute("SELECT count(*) FROM index_segment").fetchone()
    assert stored == (1,)  # the base the first read stored
    warm = await api.get("/users/ana/context", params={"q": "hives"}, headers=h)
    again, application = await start_api()  # a restart: reads the stored index, not the log
    cold_builds = whole_log_reads(application)
    restarted = await again.get("/users/ana/context", params={"q": "hives"}, headers=h)
    assert restarted.text == warm.text and cold_builds == []
    # A forget on the primary is honoured by the next read that asks for its version.
    gone = await api.delete("/users/ana/turns/t3", headers=h)
    assert gone.status_code == 200, gone.text
    after = gone.json()["version"]
    read = await again.get(
        "/users/ana/context", params={"q": "hives", "min_version": after}, headers=h
    )
    assert read.status_code == 200 and "Day 3" not in read.text and "Day 4" in read.text
