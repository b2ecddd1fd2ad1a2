"""CPU work off the worker's event loop: a pool of processes, each call within a time limit.

The rule extractor and the preparation of a payload (normalise, prune, segment, resolve dates)
are pure Python: run on the event loop, one long turn would stall arq's heartbeats, the sweeper
and every other job of the process. They run in a pool of processes instead. Each call is given
``seconds``: past them the process interrupts the call (a timer signal, which Python's regex
engine also heeds) and the caller gets ``TimeLimitExceeded``. A process that still does not
answer (stuck where no signal reaches) is left behind with its pool, a new pool takes the next
calls, and the kernel ends the stuck process at its CPU limit (``RLIMIT_CPU``, set per call), so
nothing waits on it and nothing runs on forever.

``concurrent.futures.ProcessPoolExecutor`` rather than ``multiprocessing.Pool``: a process that
dies fails the calls it held (``BrokenProcessPool``) instead of leaving them waiting, and shutting
it down never blocks on a process that does not answer.
"""

from __future__ import annotations

import asyncio
import logging
import math
import multiprocessing
import multiprocessing.connection
import os
import resource
import signal
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from app.domain.extraction import Extraction, ExtractionInput

log = logging.getLogger(__name__)

T = TypeVar("T")
# How long past its limit a call may go before its process is taken to be stuck and left behind.
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


class _Interrupted(BaseException):
    """Raised in the pool process by the timer; a BaseException, so no rule swallows it."""


def _stop(signum: int, frame: object) -> None:
    raise _Interrupted


def _start_process() -> None:
    """In each new pool process: no core file when the kernel ends a stuck call, and an end of
    its own when the process that started the pool is gone."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    owner = multiprocessing.parent_process()
    if owner is not None:
        # The thread starts with every signal blocked, so the time limit's timer still reaches
        # the call's thread alone: a call deaf to it stays deaf, and the CPU limit ends it.
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
        try:
            threading.Thread(target=_end_with, args=(owner.sentinel,), daemon=True).start()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def _end_with(sentinel: int) -> None:
    """Wait for the pool's owner to end, then end this process.

    A worker killed outright (SIGKILL, the OOM killer) shuts nothing down, and its pool's
    processes would wait forever on a call queue they hold themselves, and its forkserver with
    them.
    """
    multiprocessing.connection.wait([sentinel])
    os._exit(1)


def _ready() -> None:
    """Nothing: a call that makes the pool start a process."""


def _limited(seconds: float, grace: float, function: Callable[..., T], args: tuple[Any, ...]) -> T:
    """Run ``function(*args)`` in this (pool) process, interrupted after ``seconds``."""
    try:
        return _timed(seconds, grace, function, args)
    except _Interrupted:
        # Caught here, outside the timed frame: the one-shot timer may fire as late as the
        # moment it is being cleared, and the call still ends as a time limit.
        raise TimeLimitExceeded(seconds) from None


def _timed(seconds: float, grace: float, function: Callable[..., T], args: tuple[Any, ...]) -> T:
    used = resource.getrusage(resource.RUSAGE_SELF)
    spent = used.ru_utime + used.ru_stime
    # The kernel's last word: past this much more CPU time the process gets SIGXCPU and ends,
    # even inside code that never lets the timer's handler run.
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    soft = math.ceil(spent + seconds + grace)
    resource.setrlimit(
        resource.RLIMIT_CPU, (soft if hard == resource.RLIM_INFINITY else min(soft, hard), hard)
    )
    signal.signal(signal.SIGALRM, _stop)
    try:
        signal.setitimer(signal.ITIMER_REAL, seconds)
        return function(*args)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


class CpuPool:
    """A pool of ``processes`` processes that run pure functions, each call within ``seconds``."""

    def __init__(
        self,
        processes: int,
        seconds: float,
        grace: float = GRACE_SECONDS,
        preload: Sequence[str] = (),
    ) -> None:
        self.processes = max(1, processes)
        self.seconds = seconds
        self.grace = grace
        # forkserver: a fresh process forks the workers, so none inherits this one's threads,
        # connections or event loop. It imports ``preload`` (the modules the calls need) once,
        # so each process it forks, at start-up or after one ended at its limit, starts ready.
        self._context = multiprocessing.get_context("forkserver")
        if preload:
            self._context.set_forkserver_preload(list(preload))
        self._executor = self._start()

    async def start(self) -> None:
        """Start every process now (a worker's start-up), not when the first jobs come."""
        loop = asyncio.get_running_loop()
        executor = self._executor
        await asyncio.gather(
            *(loop.run_in_executor(executor, _ready) for _ in range(self.processes))
        )

    def _start(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            self.processes, mp_context=self._context, initializer=_start_process
        )

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` in a pool process; TimeLimitExceeded past the limit."""
        loop = asyncio.get_running_loop()
        executor = self._executor
        try:
            call = loop.run_in_executor(
                executor, _limited, self.seconds, self.grace, function, args
            )
            return await asyncio.wait_for(call, self.seconds + self.grace)
        except TimeoutError:
            log.warning("a pool process did not stop after %.0f s: a new pool", self.seconds)
            self._replace(executor)
            raise TimeLimitExceeded(self.seconds) from None
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # this call was cancelled by its caller
            # The pool was replaced before this call ran, and its queue cancelled.
            raise PoolRestarted("the pool was replaced before this call ran") from None
        except BrokenProcessPool:
            # A process of this pool died (killed, or ended at its CPU limit): every call it
            # held fails, and the next ones go to a new pool.
            self._replace(executor)
            raise PoolRestarted("a process of the pool ended") from None

    def restart(self) -> None:
        """Leave the current processes behind and start new ones; calls waiting on them fail."""
        self._replace(self._executor)

    def _replace(self, executor: ProcessPoolExecutor) -> None:
        if self._executor is not executor:
            return  # another call already replaced it
        self._executor = self._start()
        executor.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        """Stop the processes (at shutdown): whatever runs is abandoned."""
        self._executor.shutdown(wait=False, cancel_futures=True)


def _extract(request: ExtractionInput) -> Extraction:
    """The rule extractor's work on one segment (imported here, in the pool's process)."""
    from app.domain.extraction.rules import extract_rules

    return extract_rules(request)


class PooledRules:
    """The rule extractor, run in the pool: one segment a call, within the pool's time limit."""

    name = "rules"

    def __init__(self, pool: CpuPool) -> None:
        # Imported here, not with the module: a pool process imports this module to run any
        # call, and a new one must start quickly.
        from app.domain.extraction.rules import RuleExtractor

        self.pool = pool
        self.here = RuleExtractor()  # the same rules, in this process, for small work

    async def extract(self, request: ExtractionInput) -> Extraction:
        """Extract one segment in a pool process."""
        return await self.pool.run(_extract, request)
