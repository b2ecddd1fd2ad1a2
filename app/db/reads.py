"""Hot-path reads: one statement on a few asyncpg connections of their own, no ORM, no pool events.

A cached context read does one query (the passport's version). Through SQLAlchemy's pool that
query cost more API CPU than the rest of the request together: a greenlet switch, the pool's
checkout and reset events, and under concurrency its queue. `ReadPool` keeps a handful of plain
asyncpg connections instead (`TESSERA_READ_POOL_SIZE`), made with the engine's own connect
arguments, recycled like the engine's (300 s), and dropped on any error.
"""

from __future__ import annotations

import asyncio
import functools
import time
import uuid
from collections import deque
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any, NamedTuple

import asyncpg
from sqlalchemy.ext.asyncio import AsyncEngine

# asyncpg prepares a statement once per connection and caches it by its text.
_PASSPORT_STAMP = "SELECT version, created_at FROM passport WHERE tenant_id = $1 AND user_key = $2"

# Connections older than this are replaced at their next use (the engine's pool_recycle).
RECYCLE_SECONDS = 300.0


class DatabaseUnavailable(Exception):
    """The database could not be reached (or the connection was lost) for a hot read."""


class PassportStamp(NamedTuple):
    """What identifies a passport's content: its version, and when this user's row was created.

    Versions restart at 0 when a user is deleted and created again; the creation time tells
    the new passport's version 3 from the old one's, so no cache serves the deleted user.
    """

    version: int
    created_at: datetime


Connector = Callable[[], Awaitable[Any]]


class ReadPool:
    """Up to ``size`` asyncpg connections, handed out LIFO, for single-statement reads."""

    def __init__(
        self,
        connect: Connector,
        size: int,
        *,
        recycle_seconds: float = RECYCLE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if size < 1:
            raise ValueError("a read pool needs at least one connection")
        self._connect = connect
        self.size = size
        self._recycle = recycle_seconds
        self._clock = clock
        self._idle: list[tuple[Any, float]] = []  # (connection, when it was opened)
        self._count = 0  # connections open or being opened, idle or in use
        self._waiters: deque[asyncio.Future[tuple[Any, float]]] = deque()
        self._closed = False

    @property
    def open_connections(self) -> int:
        """Connections open now, idle or in use."""
        return self._count

    async def fetchrow(self, sql: str, *args: Any) -> Any:
        """Run one statement and return its first row (or None)."""
        conn, born = await self._acquire()
        try:
            # No BEGIN/ROLLBACK: asyncpg runs a lone statement in its own implicit transaction.
            row = await conn.fetchrow(sql, *args)
        except BaseException as exc:
            # After an error or a cancellation the protocol may be mid-way: never reuse it.
            lost = conn.is_closed()
            self._discard(conn)
            if lost:
                # The server went away: the idle ones are most likely gone too.
                self._drop_idle()
            if isinstance(exc, (OSError, asyncpg.InterfaceError)) or lost:
                raise DatabaseUnavailable("the database connection was lost") from exc
            raise
        self._release(conn, born)
        return row

    async def close(self) -> None:
        """Close the idle connections; ones in use close when they come back."""
        self._closed = True
        idle, self._idle = self._idle, []
        for conn, _ in idle:
            self._count -= 1
            await conn.close()
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_exception(DatabaseUnavailable("the read pool is closed"))

    async def _acquire(self) -> tuple[Any, float]:
        if self._closed:
            raise DatabaseUnavailable("the read pool is closed")
        while self._idle:
            conn, born = self._idle.pop()
            if self._clock() - born < self._recycle and not conn.is_closed():
                return conn, born
            self._discard(conn)
        if self._count < self.size:
            return await self._open()
        waiter: asyncio.Future[tuple[Any, float]] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            return await waiter
        except asyncio.CancelledError:
            # Handed a connection just as this request was cancelled: pass it on.
            if waiter.done() and not waiter.cancelled() and waiter.exception() is None:
                self._release(*waiter.result())
            raise

    async def _open(self) -> tuple[Any, float]:
        born = self._clock()
        self._count += 1  # the slot is held while connecting
        try:
            conn = await self._connect()
        except BaseException as exc:
            self._count -= 1
            self._wake_one_to_open()
            unreachable = (
                OSError,
                asyncpg.PostgresConnectionError,
                asyncpg.TooManyConnectionsError,
                asyncio.TimeoutError,
            )
            if isinstance(exc, unreachable):
                raise DatabaseUnavailable("cannot connect to the database") from exc
            raise
        return conn, born

    def _release(self, conn: Any, born: float) -> None:
        if self._closed:
            self._discard(conn)
            return
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result((conn, born))
                return
        self._idle.append((conn, born))

    def _discard(self, conn: Any) -> None:
        self._count -= 1
        conn.terminate()  # no round trip: the connection may be dead or mid-statement
        self._wake_one_to_open()

    def _drop_idle(self) -> None:
        idle, self._idle = self._idle, []
        for conn, _ in idle:
            self._count -= 1
            conn.terminate()

    def _wake_one_to_open(self) -> None:
        # A slot came free: the first waiter opens a connection of its own.
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                task = asyncio.ensure_future(self._open())
                task.add_done_callback(functools.partial(self._settle, waiter))
                return

    def _settle(
        self, waiter: asyncio.Future[tuple[Any, float]], task: asyncio.Task[tuple[Any, float]]
    ) -> None:
        # The connection opened for a waiter: handed over, or kept if it was cancelled meanwhile.
        if task.cancelled():
            if not waiter.done():
                waiter.cancel()
            return
        error = task.exception()
        if error is not None:
            if not waiter.done():
                waiter.set_exception(error)
            return
        if waiter.done():
            self._release(*task.result())
        else:
            waiter.set_result(task.result())


def engine_connector(engine: AsyncEngine) -> Connector:
    """Open asyncpg connections exactly as the engine would (host, user, password, ssl...)."""
    args, kwargs = engine.dialect.create_connect_args(engine.url)
    for adapter_only in (
        "prepared_statement_cache_size",
        "prepared_statement_name_func",
        "async_creator_fn",
        "async_fallback",
    ):
        kwargs.pop(adapter_only, None)

    async def connect() -> Any:
        return await asyncpg.connect(*args, **kwargs)

    return connect


class HotReads:
    """Reads made on every warm request, where an ORM session costs more than the query."""

    def __init__(self, engine: AsyncEngine, pool_size: int = 4) -> None:
        self._pool = ReadPool(engine_connector(engine), pool_size)

    async def passport_stamp(self, tenant_id: uuid.UUID, user_key: str) -> PassportStamp | None:
        """The user's current passport stamp (tenant-scoped), or None if there is no user."""
        row = await self._pool.fetchrow(_PASSPORT_STAMP, tenant_id, user_key)
        return None if row is None else PassportStamp(row[0], row[1])

    async def close(self) -> None:
        """Close the connections."""
        await self._pool.close()
