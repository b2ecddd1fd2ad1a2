"""Job completion signals: Postgres LISTEN/NOTIFY wakes a request waiting on ``?wait``.

The notifications adapter (DESIGN §7): it listens on a connection of its own and sends no SQL;
the ``pg_notify`` that sends a signal is in ``app.db.system``, in the writing transaction.

A worker that ends a job calls ``pg_notify`` in the transaction that writes the job's end, so the
signal goes out only when that end is committed. Each API process keeps one listening connection
and wakes the requests waiting for that job; they read the job row again, which stays the only
source of truth. Without the listener (the connection dropped, the database restarted) a wait
falls back to reading the row on a short back-off, so a lost signal costs time, never a result.
The signal also names the job's user, so a process can bring what it caches of that user up to
date before the next read asks (``on_done``). A forget or a delete sends a signal of its own on
``FORGOTTEN``, when it commits: every process drops what it holds of that user (``on_forgotten``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
from collections.abc import Callable
from typing import Any

import asyncpg

log = logging.getLogger(__name__)

CHANNEL = "tessera_job_done"
FORGOTTEN = "tessera_forgotten"
# After the listening connection is lost, a wait tries to open it again at most this often.
RECONNECT_SECONDS = 5.0


def job_signal(job_id: uuid.UUID, tenant_id: uuid.UUID, user_key: str) -> str:
    """The payload a job's end is signalled with: the job, and whose passport it wrote."""
    return json.dumps({"job": str(job_id), "tenant": str(tenant_id), "user": user_key})


def user_signal(tenant_id: uuid.UUID, user_key: str) -> str:
    """The payload a forget or a delete is signalled with: whose passport was rewritten."""
    return json.dumps({"tenant": str(tenant_id), "user": user_key})


class JobSignals:
    """Futures of requests waiting for jobs, resolved when a worker commits a job's end."""

    def __init__(
        self,
        dsn: str,
        on_done: Callable[[uuid.UUID, str], None] | None = None,
        on_forgotten: Callable[[uuid.UUID, str], None] | None = None,
    ) -> None:
        self._dsn = dsn  # libpq-style, as asyncpg takes it (``app.db.engine.listen_dsn``)
        self._on_done = on_done
        self._on_forgotten = on_forgotten
        self._waiting: dict[str, list[asyncio.Future[None]]] = {}
        self._conn: Any = None
        self._tried = -RECONNECT_SECONDS

    @property
    def listening(self) -> bool:
        """Whether signals are being received now."""
        return self._conn is not None and not self._conn.is_closed()

    async def start(self) -> None:
        """Open the listening connection; on failure the waits fall back to reading the row."""
        self._tried = time.monotonic()
        try:
            conn = await asyncpg.connect(self._dsn)
            await conn.add_listener(CHANNEL, self._notified)
            await conn.add_listener(FORGOTTEN, self._forgotten)
            conn.add_termination_listener(self._lost)
        except (OSError, asyncpg.PostgresError) as exc:
            log.warning("job signals are off (waits read the job row instead): %s", exc)
            return
        self._conn = conn

    async def stop(self) -> None:
        """Close the listening connection."""
        conn, self._conn = self._conn, None
        if conn is not None and not conn.is_closed():
            await conn.close()

    def expect(self, job_id: uuid.UUID) -> asyncio.Future[None]:
        """A future resolved when the job's end is committed (register before reading the row)."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(str(job_id), []).append(future)
        if not self.listening and time.monotonic() - self._tried >= RECONNECT_SECONDS:
            self._tried = time.monotonic()
            asyncio.get_running_loop().create_task(self.start())
        return future

    def discard(self, job_id: uuid.UUID, future: asyncio.Future[None]) -> None:
        """Stop expecting: the waiter has what it needs or gave up."""
        futures = self._waiting.get(str(job_id))
        if futures is not None:
            if future in futures:
                futures.remove(future)
            if not futures:
                del self._waiting[str(job_id)]
        future.cancel()

    def _notified(self, conn: Any, pid: int, channel: str, payload: str) -> None:
        try:
            signal = json.loads(payload)
            job, tenant, user = signal["job"], uuid.UUID(signal["tenant"]), str(signal["user"])
        except (ValueError, KeyError, TypeError):
            log.warning("a job signal that is not one: %.80s", payload)
            return
        for future in self._waiting.pop(job, ()):
            if not future.done():
                future.set_result(None)
        if self._on_done is not None:
            self._on_done(tenant, user)

    def _forgotten(self, conn: Any, pid: int, channel: str, payload: str) -> None:
        try:
            signal = json.loads(payload)
            tenant, user = uuid.UUID(signal["tenant"]), str(signal["user"])
        except (ValueError, KeyError, TypeError):
            log.warning("a forget signal that is not one: %.80s", payload)
            return
        if self._on_forgotten is not None:
            self._on_forgotten(tenant, user)

    def _lost(self, conn: Any) -> None:
        log.warning("the job signal connection was lost; waits read the job row until it is back")
        self._conn = None
        # A signal sent from now on is not heard: every wait reads its row at once, then on a
        # back-off.
        for futures in self._waiting.values():
            for future in futures:
                if not future.done():
                    future.set_result(None)
