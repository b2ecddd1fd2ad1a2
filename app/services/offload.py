"""CPU work off the worker's event loop: a pool of processes, each call within a time limit.

The rule extractor and the preparation of a payload (normalise, prune, segment, resolve dates)
are pure Python: run on the event loop, one long turn would stall arq's heartbeats, the sweeper
and every other job of the process. They run in a pool of processes instead. Each call is given
``seconds``: past them the process interrupts the call (a timer signal, which Python's regex
engine also heeds) and the caller gets ``TimeLimitExceeded``. A process that still does not
answer (stuck where no signal reaches) is killed with its pool, and the pool is started again.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import signal
from collections.abc import Callable
from multiprocessing.pool import Pool
from typing import Any, TypeVar

from app.domain.extraction import Extraction, ExtractionInput

log = logging.getLogger(__name__)

T = TypeVar("T")
# How long past its limit a call may go before its process is taken to be stuck and killed.
GRACE_SECONDS = 5.0


class TimeLimitExceeded(Exception):
    """A call ran past its time limit and was stopped."""

    def __init__(self, seconds: float) -> None:
        super().__init__(seconds)  # its one argument, so it comes back whole from the process
        self.seconds = seconds

    def __str__(self) -> str:
        return f"stopped after {self.seconds:g} s (TESSERA_CPU_SECONDS)"


class PoolRestarted(Exception):
    """The pool was started again while this call waited: it never ran to its end."""


def _stop(signum: int, frame: object) -> None:
    raise _Interrupted


class _Interrupted(BaseException):
    """Raised in the worker process by the timer; a BaseException, so no rule swallows it."""


def _limited(seconds: float, function: Callable[..., T], args: tuple[Any, ...]) -> T:
    """Run ``function(*args)`` in this (pool) process, interrupted after ``seconds``."""
    signal.signal(signal.SIGALRM, _stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return function(*args)
    except _Interrupted:
        raise TimeLimitExceeded(seconds) from None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


class CpuPool:
    """A pool of ``processes`` processes that run pure functions, each call within ``seconds``."""

    def __init__(self, processes: int, seconds: float) -> None:
        self.processes = max(1, processes)
        self.seconds = seconds
        # forkserver: a fresh process forks the workers, so none inherits this one's threads,
        # connections or event loop.
        self._context = multiprocessing.get_context("forkserver")
        self._pool: Pool = self._start()
        self._waiting: set[asyncio.Future[Any]] = set()

    def _start(self) -> Pool:
        return self._context.Pool(self.processes)

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` in a pool process; TimeLimitExceeded past the limit."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()

        def done(value: T) -> None:
            loop.call_soon_threadsafe(_settle, future, value, None)

        def failed(error: BaseException) -> None:
            loop.call_soon_threadsafe(_settle, future, None, error)

        self._waiting.add(future)
        try:
            self._pool.apply_async(
                _limited, (self.seconds, function, args), callback=done, error_callback=failed
            )
            return await asyncio.wait_for(asyncio.shield(future), self.seconds + GRACE_SECONDS)
        except TimeoutError:
            log.warning(
                "a pool process did not stop after %.0f s: the pool is restarted", self.seconds
            )
            self.restart()
            raise TimeLimitExceeded(self.seconds) from None
        finally:
            self._waiting.discard(future)

    def restart(self) -> None:
        """Kill the pool's processes and start new ones; calls waiting on them fail."""
        old, self._pool = self._pool, self._start()
        old.terminate()
        for future in list(self._waiting):
            if not future.done():
                future.set_exception(PoolRestarted("the pool was restarted"))

    def close(self) -> None:
        """Stop the processes (at shutdown): whatever runs is abandoned."""
        self._pool.terminate()
        self._pool.join()


def _settle(future: asyncio.Future[Any], value: Any, error: BaseException | None) -> None:
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(value)


def _extract(request: ExtractionInput) -> Extraction:
    """The rule extractor's work on one segment (imported here, in the pool's process)."""
    from app.domain.extraction.rules import extract_rules

    return extract_rules(request)


class PooledRules:
    """The rule extractor, run in the pool: one segment a call, within the pool's time limit."""

    name = "rules"

    def __init__(self, pool: CpuPool) -> None:
        self.pool = pool

    async def extract(self, request: ExtractionInput) -> Extraction:
        """Extract one segment in a pool process."""
        return await self.pool.run(_extract, request)
