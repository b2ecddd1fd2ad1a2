"""ReadPool's bookkeeping with fake connections: bounded, reused, replaced, never leaked."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from app.db.reads import DatabaseUnavailable, ReadPool


class FakeConnection:
    """Answers fetchrow after an optional pause; can be told to fail like a lost server."""

    def __init__(self, number: int) -> None:
        self.number = number
        self.closed = False
        self.fail: BaseException | None = None
        self.pause = 0.0

    async def fetchrow(self, sql: str, *args: Any) -> tuple[int, str]:
        await asyncio.sleep(self.pause)
        if self.fail is not None:
            self.closed = True
            raise self.fail
        return (self.number, sql)

    def is_closed(self) -> bool:
        return self.closed

    def terminate(self) -> None:
        self.closed = True

    async def close(self) -> None:
        self.closed = True


class Connector:
    """Counts the connections it opens; can refuse, or take a while."""

    def __init__(self) -> None:
        self.opened: list[FakeConnection] = []
        self.refuse = False
        self.delay = 0.0

    async def __call__(self) -> FakeConnection:
        await asyncio.sleep(self.delay)
        if self.refuse:
            raise ConnectionRefusedError("no server")
        conn = FakeConnection(len(self.opened))
        self.opened.append(conn)
        return conn


async def test_concurrent_reads_share_at_most_size_connections() -> None:
    connect = Connector()
    pool = ReadPool(connect, 2)
    connect.delay = 0.01
    rows = await asyncio.gather(*(pool.fetchrow("q") for _ in range(20)))
    assert len(rows) == 20 and len(connect.opened) == 2
    assert pool.open_connections == 2
    await pool.fetchrow("q")
    assert len(connect.opened) == 2  # reused


async def test_a_lost_connection_fails_one_read_and_is_replaced() -> None:
    connect = Connector()
    pool = ReadPool(connect, 1)
    first = (await pool.fetchrow("q"))[0]
    connect.opened[first].fail = ConnectionResetError("reset")
    with pytest.raises(DatabaseUnavailable):
        await pool.fetchrow("q")
    assert connect.opened[first].closed and pool.open_connections == 0
    assert (await pool.fetchrow("q"))[0] == first + 1
    assert pool.open_connections == 1


async def test_an_unreachable_server_is_database_unavailable_and_frees_the_slot() -> None:
    connect = Connector()
    connect.refuse = True
    pool = ReadPool(connect, 1)
    with pytest.raises(DatabaseUnavailable):
        await pool.fetchrow("q")
    assert pool.open_connections == 0
    connect.refuse = False
    assert (await pool.fetchrow("q"))[0] == 0


async def test_a_waiter_cancelled_while_its_connection_opens_leaks_nothing() -> None:
    connect = Connector()
    pool = ReadPool(connect, 1)
    first = (await pool.fetchrow("q"))[0]
    connect.opened[first].pause = 0.02
    connect.opened[first].fail = ConnectionResetError("reset")
    holder = asyncio.ensure_future(pool.fetchrow("q"))  # takes the one connection, then fails
    await asyncio.sleep(0)
    waiter = asyncio.ensure_future(pool.fetchrow("q"))  # waits for a connection
    await asyncio.sleep(0)
    connect.delay = 0.05  # the replacement opened for the waiter takes a while
    with pytest.raises(DatabaseUnavailable):
        await holder
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    await asyncio.sleep(0.1)  # the replacement finishes opening
    assert pool.open_connections == 1
    opened = len(connect.opened)
    await asyncio.wait_for(pool.fetchrow("q"), 1)  # a leaked slot would wait here for ever
    assert len(connect.opened) == opened  # the replacement was kept, not leaked or reopened


async def test_old_connections_are_replaced_at_their_next_use() -> None:
    connect = Connector()
    now = [0.0]
    pool = ReadPool(connect, 1, recycle_seconds=300, clock=lambda: now[0])
    await pool.fetchrow("q")
    now[0] = 301.0
    assert (await pool.fetchrow("q"))[0] == 1
    assert connect.opened[0].closed and pool.open_connections == 1


async def test_a_closed_pool_refuses_reads() -> None:
    pool = ReadPool(Connector(), 1)
    await pool.fetchrow("q")
    await pool.close()
    with pytest.raises(DatabaseUnavailable):
        await pool.fetchrow("q")
