"""What a long-running process does once it has started: keep its startup out of every collection.

An API or worker process builds tens of thousands of long-lived objects before it serves
(modules, classes, schemas, routes). Every full garbage collection would walk them all, a pause
that lands on whichever request is running. ``gc.freeze`` moves what exists into the collector's
permanent generation: those objects are still freed by reference counting, and what is made
afterwards (requests, caches, indexes) is collected as before.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


def freeze_startup() -> None:
    """Collect what startup left behind, then keep the rest out of later collections."""
    gc.collect()
    gc.freeze()


def thaw() -> None:
    """Give the frozen objects back to the collector (at shutdown)."""
    gc.unfreeze()


@contextmanager
def startup_frozen() -> Iterator[None]:
    """While the block runs, what existed before it is left out of garbage collections."""
    freeze_startup()
    try:
        yield
    finally:
        thaw()
