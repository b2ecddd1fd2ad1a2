"""The ``tessera`` command: run the service, manage tenants and keys, print the spec."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

from app.cli import client
from app.cli.embedded import EmbeddedServers
from app.db.engine import DatabaseError
from app.services.errors import ServiceError
from app.settings import Settings

T = TypeVar("T")


def _resolve(settings: Settings, servers: EmbeddedServers, *, redis: bool) -> Settings:
    """Fill in missing URLs from the embedded servers (attaching to running ones)."""
    updates: dict[str, Any] = {}
    if not settings.database_url:
        updates["database_url"] = servers.postgres.start()
    if redis and not settings.redis_url:
        updates["redis_url"] = servers.redis.start()
    return settings.model_copy(update=updates) if updates else settings


def _with_db(settings: Settings, work: Callable[[Any], Awaitable[T]]) -> T:
    """Run an async function with the units of work of an admin runtime (the database only)."""
    from app.runtime import admin_runtime

    async def runner() -> T:
        async with admin_runtime(settings) as runtime:
            return await work(runtime.uows)

    return asyncio.run(runner())


def cmd_migrate(settings: Settings, args: argparse.Namespace) -> int:
    """Apply (or with --downgrade, revert) the Alembic migrations."""
    from app.db import engine

    if args.downgrade:
        engine.downgrade(settings.require_database_url(), args.downgrade)
    else:
        engine.upgrade(settings.require_database_url(), args.revision)
    print(f"migrations: at {args.downgrade or args.revision}", file=sys.stderr)
    return 0


def cmd_tenants_create(settings: Settings, args: argparse.Namespace) -> int:
    """Create a tenant and print its first API key (shown once)."""
    from app.services import tenants

    async def work(uows: Any) -> Any:
        return await tenants.create_tenant(uows, args.name)

    tenant, issued = _with_db(settings, work)
    print(f"tenant {tenant.name} {tenant.id}", file=sys.stderr)
    print("API key (shown once, store it now):", file=sys.stderr)
    print(issued.key)
    return 0


def cmd_tenants_list(settings: Settings, args: argparse.Namespace) -> int:
    """List tenants."""
    from app.services import tenants

    async def work(uows: Any) -> Any:
        return await tenants.list_tenants(uows)

    for tenant in _with_db(settings, work):
        print(f"{tenant.id}\t{tenant.name}\t{tenant.created_at.isoformat()}")
    return 0


def cmd_keys_create(settings: Settings, args: argparse.Namespace) -> int:
    """Issue another key for a tenant (by id or name); printed once."""
    from app.services import tenants

    async def work(uows: Any) -> Any:
        return await tenants.create_key(uows, args.tenant, args.name)

    print(_with_db(settings, work).key)
    return 0


def cmd_keys_revoke(settings: Settings, args: argparse.Namespace) -> int:
    """Revoke a key by its prefix."""
    from app.services import tenants

    async def work(uows: Any) -> None:
        await tenants.revoke_key(uows, args.prefix)

    _with_db(settings, work)
    print(f"revoked {args.prefix}", file=sys.stderr)
    return 0


def cmd_openapi(settings: Settings, args: argparse.Namespace) -> int:
    """Print the OpenAPI spec (no servers needed)."""
    from app.main import create_app

    spec = create_app(settings).openapi()
    print(json.dumps(spec, indent=2, sort_keys=True))
    return 0


def cmd_api(settings: Settings, args: argparse.Namespace) -> int:
    """Serve the HTTP API with uvicorn."""
    from app.main import api_processes, run_api

    workers = args.workers if args.workers is not None else api_processes(settings)
    run_api(settings, args.host or settings.host, args.port or settings.port, workers)
    return 0


def cmd_worker(settings: Settings, args: argparse.Namespace) -> int:
    """Run an arq worker that processes ingest jobs and sweeps the outbox."""
    from app.main import check_worker, run_worker

    if args.check:
        return check_worker(settings)
    run_worker(settings)
    return 0


def _dev_secret(path: Path, make: Callable[[], str]) -> str:
    if path.exists():
        return path.read_text().strip()
    value = make()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(value + "\n")
    path.chmod(0o600)
    return value


def _ensure_dev_tenant(settings: Settings, key_file: Path) -> tuple[str, bool]:
    """The dev tenant's key: the one on file if it still works, else a new tenant's."""
    from app.services import tenants

    known = key_file.read_text().strip() if key_file.exists() else None

    async def work(uows: Any) -> tuple[str, bool]:
        if known and await tenants.authenticate(uows, known) is not None:
            return known, False
        _, issued = await tenants.create_tenant(uows, "dev")
        return issued.key, True

    key, created = _with_db(settings, work)
    if created:
        key_file.write_text(key + "\n")
        key_file.chmod(0o600)
    return key, created


def cmd_dev(settings: Settings, args: argparse.Namespace) -> int:
    """Everything for local work: servers, migrations, dev tenant, API and worker; Ctrl-C stops."""
    from app.db import engine

    data_dir = settings.data_dir
    data_dir.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env["TESSERA_DATABASE_URL"] = settings.require_database_url()
    env["TESSERA_REDIS_URL"] = settings.require_redis_url()
    # One API process per core unless the environment says otherwise.
    env.setdefault("TESSERA_API_WORKERS", "0")
    if settings.admin_token is None:
        admin = _dev_secret(data_dir / "admin-token", lambda: "adm_" + secrets.token_urlsafe(24))
        env["TESSERA_ADMIN_TOKEN"] = admin
    if settings.receipt_secret is None:
        secret = _dev_secret(data_dir / "receipt-secret", lambda: secrets.token_urlsafe(32))
        env["TESSERA_RECEIPT_SECRET"] = secret
    engine.upgrade(settings.require_database_url())
    key, created = _ensure_dev_tenant(settings, data_dir / "dev-api-key")
    host, port = args.host or settings.host, args.port or settings.port
    print(
        f"\nTessera dev: http://{host}:{port}  (docs at /docs)\n"
        f"  passport inspector: http://{host}:{port}/ui   MCP: http://{host}:{port}/mcp\n"
        f"  dev tenant API key{' (new)' if created else ''}: {key}\n"
        f"  also in {data_dir / 'dev-api-key'}; admin token in {data_dir / 'admin-token'}\n"
        "  Ctrl-C stops everything.\n",
        file=sys.stderr,
        flush=True,
    )
    base = [sys.executable, "-m", "app.cli.main"]
    children = [
        subprocess.Popen([*base, "api", "--host", host, "--port", str(port)], env=env),
        subprocess.Popen([*base, "worker"], env=env),
    ]
    stopping = False

    def stop(signum: int, frame: Any) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    code = 0
    try:
        while not stopping:
            for child in children:
                if child.poll() is not None:
                    print(f"tessera dev: a child exited with {child.returncode}", file=sys.stderr)
                    stopping, code = True, child.returncode or 1
            time.sleep(0.2)
    finally:
        for child in children:
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)
        for child in children:
            try:
                child.wait(timeout=20)
            except subprocess.TimeoutExpired:
                child.kill()
    return code


def _group(
    add_parser: Callable[..., argparse.ArgumentParser], name: str, helptext: str
) -> Callable[..., argparse.ArgumentParser]:
    """Add a command group; what it returns adds the group's actions, named in ``args.action``."""
    actions = add_parser(name, help=helptext).add_subparsers(dest="action", required=True)
    return actions.add_parser


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``tessera`` command."""
    parser = argparse.ArgumentParser(prog="tessera", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    for name, helptext in (("dev", "run everything locally"), ("api", "serve the HTTP API")):
        p = sub.add_parser(name, help=helptext)
        p.add_argument("--host", default=None)
        p.add_argument("--port", type=int, default=None)
        if name == "api":
            p.add_argument(
                "--workers",
                type=int,
                default=None,
                metavar="N",
                help="API processes on the port (default TESSERA_API_WORKERS; 0: one per core)",
            )
    p = sub.add_parser("worker", help="run an ingest worker")
    p.add_argument(
        "--check", action="store_true", help="exit 0 if a worker of the queue is alive, else 1"
    )
    p = sub.add_parser("migrate", help="apply database migrations")
    p.add_argument("revision", nargs="?", default="head")
    p.add_argument("--downgrade", metavar="REVISION", default=None)
    sub.add_parser("openapi", help="print the OpenAPI spec")

    tenant_action = _group(sub.add_parser, "tenants", "manage tenants")
    tenant_action("create", help="create a tenant and print its key").add_argument("name")
    tenant_action("list", help="list tenants")

    key_action = _group(sub.add_parser, "keys", "manage API keys")
    p = key_action("create", help="issue a key for a tenant (id or name)")
    p.add_argument("tenant")
    p.add_argument("--name", default="")
    key_action("revoke", help="revoke a key by its prefix").add_argument("prefix")
    client.add_parsers(sub)
    return parser


_COMMANDS: dict[str, Callable[[Settings, argparse.Namespace], int]] = {
    "dev": cmd_dev,
    "api": cmd_api,
    "worker": cmd_worker,
    "migrate": cmd_migrate,
    "openapi": cmd_openapi,
    "tenants create": cmd_tenants_create,
    "tenants list": cmd_tenants_list,
    "keys create": cmd_keys_create,
    "keys revoke": cmd_keys_revoke,
}


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script."""
    args = build_parser().parse_args(argv)
    name = f"{args.command} {args.action}" if getattr(args, "action", None) else args.command
    settings = Settings()
    if name in client.COMMANDS:
        return client.run(args, settings.data_dir)
    if name == "openapi":
        return cmd_openapi(settings, args)
    servers = EmbeddedServers(settings.data_dir)
    try:
        needs_redis = name in ("dev", "api", "worker")
        settings = _resolve(settings, servers, redis=needs_redis)
        return _COMMANDS[name](settings, args)
    except DatabaseError as exc:
        print(
            f"tessera: database error: {exc.orig}. Is the schema migrated? Run `tessera migrate`.",
            file=sys.stderr,
        )
        return 1
    except ServiceError as exc:
        print(f"tessera: {exc.detail}", file=sys.stderr)
        return 1
    except RuntimeError as exc:
        print(f"tessera: {exc}", file=sys.stderr)
        return 2
    finally:
        servers.stop()


if __name__ == "__main__":
    sys.exit(main())
