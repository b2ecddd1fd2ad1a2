"""The Tessera worker with another arq poll delay: the benchmark's what-if, not for production.

``python -m bench.worker SECONDS`` runs exactly what ``tessera worker`` runs (the URLs come from
TESSERA_* in the environment), except that arq polls its queue every SECONDS instead of every
0.5 s, its default, which the app does not change.
"""

from __future__ import annotations

import logging
import sys

from app.settings import Settings
from workers.main import build_worker


def main(argv: list[str]) -> int:
    """Run the worker until SIGINT/SIGTERM."""
    settings = Settings()
    logging.basicConfig(level=settings.log_level.upper(), format="%(asctime)s %(name)s %(message)s")
    worker = build_worker(settings)
    worker.poll_delay_s = float(argv[0])
    worker.run()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
