"""The date resolver and the rule extractor of an older checkout, timed as ``bench.linear_time``.

``bench.linear_time`` imports modules older commits do not have; this script uses only what
93b7db4 (before issue 24) already had, so the "before" table can be measured again:

``git worktree add /tmp/old 93b7db4 && cd /tmp/old && \\
PYTHONPATH=. /path/to/.venv/bin/python /path/to/bench/linear_time_before.py 2,4,8,16``

It prints milliseconds per KB at each size (a size past 60 s ends its row) and ``x``, the last
size's time per KB over the first's.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime

from app.domain.dates import turn_dates
from app.domain.extraction import ExtractionInput
from app.domain.extraction.rules import extract_rules
from app.domain.ingest import Turn
from app.domain.ingest.segmentation import make_segment

ANCHOR = datetime(2024, 5, 8, 13, 56, tzinfo=UTC)
INPUTS = {
    "date phrases": "on 12 May ",
    "pets and people": "my dog Max and my sister Ann, ",
    "chat": "I moved to Kwekwe last week for a new job at Zimplats! ",
}


def _rules(text: str) -> object:
    turn = Turn("Ann", text, ts=ANCHOR, id="t1")
    request = ExtractionInput(segment=make_segment([turn]), subject="Ann", reference_ts=ANCHOR)
    return extract_rules(request)


STAGES: dict[str, Callable[[str], object]] = {
    "dates": lambda text: turn_dates(text, ANCHOR),
    "rules": _rules,
}


def main(sizes: list[int]) -> None:
    """One table row per stage and input."""
    for stage, run in STAGES.items():
        for name, unit in INPUTS.items():
            per_kb: list[float] = []
            for kb in sizes:
                text = (unit * (kb * 1000 // len(unit) + 1))[: kb * 1000]
                started = time.perf_counter()
                run(text)
                seconds = time.perf_counter() - started
                per_kb.append(seconds * 1000 / kb)
                if seconds > 60:
                    break
            cells = " | ".join(f"{v:.2f}" for v in per_kb)
            print(f"| {stage} | {name} | {cells} | {per_kb[-1] / per_kb[0]:.1f} |", flush=True)


if __name__ == "__main__":
    main([int(size) for size in (sys.argv[1] if len(sys.argv) > 1 else "2,4,8,16").split(",")])
