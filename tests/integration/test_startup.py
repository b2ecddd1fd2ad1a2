"""A started API process keeps what startup built out of the garbage collector's passes."""

from __future__ import annotations

import gc
import weakref

from app.main import create_app
from app.settings import Settings


class _Node:
    other: _Node | None = None


async def test_while_the_app_runs_collections_leave_startup_objects_alone(
    settings: Settings,
) -> None:
    application = create_app(settings)
    before = len(gc.get_objects())  # what a full collection walks now
    async with application.router.lifespan_context(application):
        # Startup's objects (and all this process held) are frozen: a pass walks far fewer.
        assert gc.get_freeze_count() > 0
        assert len(gc.get_objects()) < before // 2
        # A cycle made while serving (a request's leftovers) is still collected.
        cycle = _Node()
        cycle.other = cycle
        gone = weakref.ref(cycle)
        del cycle
        gc.collect()
        assert gone() is None
    assert gc.get_freeze_count() == 0  # stopped: everything is the collector's again
