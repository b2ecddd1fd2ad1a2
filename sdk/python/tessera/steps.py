"""Work of several calls, written once for both clients: a generator that yields each ``Call``.

An integration's operation (a store's put: forget the old item, remember the new one) is a
generator: it yields the calls it needs in order and receives each result (or, where a call
fails, the ``TesseraError`` thrown in at the ``yield``). ``run_steps`` drives it with ``Tessera``,
``arun_steps`` with ``AsyncTessera``, so the sync and async paths cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any, TypeVar

from tessera.calls import Call
from tessera.client import AsyncTessera, Tessera
from tessera.errors import TesseraError

R = TypeVar("R")
Steps = Generator[Call[Any], Any, R]


def run_steps(client: Tessera, steps: Steps[R]) -> R:
    """Drive ``steps`` to its result with the sync client."""
    try:
        call = next(steps)
        while True:
            try:
                result = client.run(call)
            except TesseraError as error:
                call = steps.throw(error)
            else:
                call = steps.send(result)
    except StopIteration as done:
        return done.value


async def arun_steps(client: AsyncTessera, steps: Steps[R]) -> R:
    """Drive ``steps`` to its result with the async client."""
    try:
        call = next(steps)
        while True:
            try:
                result = await client.run(call)
            except TesseraError as error:
                call = steps.throw(error)
            else:
                call = steps.send(result)
    except StopIteration as done:
        return done.value
