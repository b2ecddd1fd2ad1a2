"""A worker's first job and its CPU pool: started by the first call, or at start-up, preloaded.

``python -m bench.pool_start [--processes 2] [--repeats 3]``

Each variant runs in a fresh interpreter (a forkserver's preload holds for its interpreter): a
``CpuPool`` of ``--processes`` processes, then what a one-exchange job asks of the pool first,
preparing its payload (``ingest.segments_of``) and extracting its segment with the rules
(``PooledRules``), each timed; then the same two calls again. "first call starts": no preload and
no ``start()`` (the worker before this change); "started at start-up": ``runtime.POOL_MODULES``
preloaded and ``start()`` called first, timed on its own (the worker as it ships).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time

VARIANTS = {"first call starts": False, "started at start-up": True}


def _payload() -> object:
    from app.domain.ingest import IngestPayload

    turns = [
        {"role": "user", "text": "My pottery class moved to Thursday evenings in March."},
        {"role": "assistant", "text": "Noted: Thursday evenings from March on. Want a reminder?"},
    ]
    return IngestPayload.model_validate({"subject": "Rui", "turns": turns})


async def _variant(preloaded: bool, processes: int) -> dict[str, float]:
    """Milliseconds: the start-up, then the job's two calls, first and again."""
    from app.domain.extraction import ExtractionInput
    from app.runtime import POOL_MODULES
    from app.services.ingest import segments_of
    from app.services.offload import CpuPool, PooledRules
    from app.settings import Settings

    settings = Settings()
    began = time.perf_counter()
    pool = CpuPool(processes, 30.0, preload=POOL_MODULES if preloaded else ())
    if preloaded:
        await pool.start()
    out = {"start-up": (time.perf_counter() - began) * 1000}
    rules = PooledRules(pool)
    payload = _payload()
    try:
        for round_name in ("first", "again"):
            began = time.perf_counter()
            segments = await pool.run(segments_of, payload, settings)
            await rules.extract(ExtractionInput(segment=segments[0], subject="Rui"))
            out[round_name] = (time.perf_counter() - began) * 1000
    finally:
        pool.close()
    return out


def main(argv: list[str] | None = None) -> int:
    """Run each variant ``--repeats`` times in a fresh interpreter; print the medians."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--variant", choices=list(VARIANTS), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.variant is not None:
        figures = asyncio.run(_variant(VARIANTS[args.variant], args.processes))
        print(json.dumps(figures))
        return 0
    print(f"{'variant':<22} {'start-up ms':>12} {'first job ms':>13} {'next job ms':>12}")
    for name in VARIANTS:
        runs = []
        for _ in range(args.repeats):
            command = [sys.executable, "-m", "bench.pool_start", "--variant", name]
            command += ["--processes", str(args.processes)]
            done = subprocess.run(command, capture_output=True, text=True, check=True)
            runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
        med = {k: statistics.median(r[k] for r in runs) for k in ("start-up", "first", "again")}
        print(f"{name:<22} {med['start-up']:>12.0f} {med['first']:>13.0f} {med['again']:>12.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
