"""The hash chain's cost: a write's share of it, and the integrity check's rate, as history grows.

``python -m bench.integrity [--sizes 10,1000,10000] [--json OUT]``

One user per size, each with that many sessions of 20 turns written one version per session
through the service's own ``record_version`` (the path every job, import, edit and forget takes),
on the embedded Postgres (or ``TESSERA_DATABASE_URL``), in process. Every tenth session also
changes a belief, so deltas are not all alike. Per size it reports:

- the write: one version's transaction (p50 over the last 100 sessions), and the CPU the chain
  adds to it (hashing the rows written and the link, timed alone on the same rows);
- the check: ``GET /users/{key}/integrity``'s service, over the whole history and over the last
  100 versions, in rows/s, beside a plain read of the same log (``stream_rows``, nothing hashed).

No network, no API key.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from random import Random
from typing import Any

from app.db.engine import create_engine, session_factory, upgrade
from app.db.models import Tenant
from app.db.uow import UowFactory, uow_factory
from app.domain.integrity.canonical import row_hash
from app.domain.integrity.chain import Link, link_hash
from app.domain.memory import delta
from app.domain.memory.log import LogChange, LogRow, log_row
from app.services import integrity, passports
from bench.ingest import ACTIVITIES, PEOPLE, PLACES, log, nproc, table

SIZES = (10, 1000, 10_000)
TURNS = 20
TAIL = 100
START = datetime(2023, 1, 1, tzinfo=UTC)


def session_rows(rng: Random, n: int) -> list[LogRow]:
    """One session's turns as log rows, as the worker stores them."""
    when = START + timedelta(hours=6 * n)
    session = f"s{n}"
    rows = []
    for i in range(TURNS):
        who = PEOPLE[i % 2]
        text = (
            f"{who} said {rng.choice(ACTIVITIES)} near {rng.choice(PLACES)} "
            f"was on for day {n} ({i})."
        )
        item = {
            "id": f"{session}t{i}",
            "speaker": who,
            "text": text,
            "ts": (when + timedelta(minutes=i)).isoformat().replace("+00:00", "Z"),
            "session": session,
            "source": f"seg_{n:06d}",
        }
        rows.append(log_row("turn", item))
    return rows


def next_head(head: dict[str, Any], rng: Random, n: int) -> dict[str, Any]:
    """The head after session ``n``: its time moves; every tenth session a belief changes."""
    new = {**head, "updated_at": (START + timedelta(hours=6 * n)).isoformat()}
    if n % 10 == 0:
        fact = {"key": "ana.city", "value": rng.choice(PLACES), "source": f"seg_{n:06d}"}
        new["facts"] = [fact]
    return new


async def write_history(uows: UowFactory, tenant: uuid.UUID, user: str, sessions: int) -> dict:
    """Write ``sessions`` versions; the last ``TAIL`` writes' times and the chain's CPU on them."""
    rng = Random(sessions)
    now = datetime.now(UTC)
    async with uows() as uow:
        await passports.create_if_missing(uow.tenant(tenant), user, now)
        await uow.commit()
    seconds: list[float] = []
    chain_cpu: list[float] = []
    for n in range(sessions):
        rows = session_rows(rng, n)
        started = time.perf_counter()
        async with uows() as uow:
            repo = uow.tenant(tenant)
            row = await repo.passport(user, lock=True)
            assert row is not None
            new = passports.NewVersion(
                row.doc,
                next_head(row.doc, rng, n),
                row.version,
                "ingest",
                now,
                LogChange(added=rows),
                old_root=row.root,
                actor="bench",
            )
            await passports.record_version(repo, user, new, snapshot_every=50)
            await uow.commit()
        if n >= sessions - TAIL:
            seconds.append(time.perf_counter() - started)
            cpu = time.process_time()
            link = Link.of(
                [delta.diff(row.doc, new.new_head), None],
                [row_hash(r.kind, r.item) for r in rows],
                [],
                "bench",
            )
            link_hash(row.root, row.version + 1, "ingest", link)
            chain_cpu.append(time.process_time() - cpu)
    return {
        "write_p50_ms": 1000 * statistics.median(seconds),
        "chain_cpu_ms": 1000 * statistics.median(chain_cpu),
    }


async def timed_check(
    uows: UowFactory, tenant: uuid.UUID, user: str, from_version: int
) -> tuple[float, integrity.Integrity]:
    started = time.perf_counter()
    found = await integrity.check(uows, tenant, user, from_version)
    assert found.valid, found
    return time.perf_counter() - started, found


async def plain_read(uows: UowFactory, tenant: uuid.UUID, user: str) -> tuple[float, int]:
    """Every row the user's log holds now, read and decoded, nothing hashed."""
    started = time.perf_counter()
    count = 0
    async with uows() as uow:
        async for _ in uow.tenant(tenant).stream_rows(user, version=None):
            count += 1
    return time.perf_counter() - started, count


async def measure(database_url: str, sizes: list[int]) -> list[dict[str, Any]]:
    engine = create_engine(database_url, pool_size=2)
    uows = uow_factory(session_factory(engine))
    tenant = uuid.uuid4()
    async with uows() as uow:
        await uow.system.add_tenant(Tenant(id=tenant, name="bench-integrity", limits={}))
        await uow.commit()
    cells = []
    try:
        for size in sizes:
            user = f"u{size}"
            log(f"{size} sessions: writing {size} versions")
            wrote = await write_history(uows, tenant, user, size)
            log(f"{size} sessions: checking")
            whole, found = await timed_check(uows, tenant, user, 0)
            tail, tail_found = await timed_check(uows, tenant, user, max(0, size + 1 - TAIL))
            read, rows = await plain_read(uows, tenant, user)
            cells.append(
                {
                    "sessions": size,
                    "versions": found.versions,
                    "rows": found.rows,
                    **wrote,
                    "check_s": whole,
                    "check_rows_per_s": found.rows / whole,
                    "check_versions_per_s": found.versions / whole,
                    "tail_ms": 1000 * tail,
                    "tail_versions": tail_found.versions,
                    "read_s": read,
                    "read_rows_per_s": rows / read,
                }
            )
    finally:
        await engine.dispose()
    return cells


def report(cells: list[dict[str, Any]]) -> str:
    header = [
        "sessions",
        "versions",
        "rows",
        "write p50",
        "chain CPU/write",
        "check (whole)",
        "check rows/s",
        "plain read rows/s",
        f"check of last {TAIL}",
    ]
    lines = [
        [
            f"{c['sessions']:,}",
            f"{c['versions']:,}",
            f"{c['rows']:,}",
            f"{c['write_p50_ms']:.2f} ms",
            f"{c['chain_cpu_ms']:.3f} ms",
            f"{c['check_s']:.2f} s",
            f"{c['check_rows_per_s']:,.0f}",
            f"{c['read_rows_per_s']:,.0f}",
            f"{c['tail_ms']:.0f} ms",
        ]
        for c in cells
    ]
    out = [table(header, lines)]
    if len(cells) > 1:
        first, last = cells[0], cells[-1]
        ratio = last["write_p50_ms"] / first["write_p50_ms"]
        out.append(
            f"write p50 at {last['sessions']:,} sessions / at {first['sessions']:,}: {ratio:.2f}x"
            f"; tail check {last['tail_ms']:.0f} ms against {first['tail_ms']:.0f} ms"
        )
    out.append(f"nproc {nproc()}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=",".join(str(s) for s in SIZES))
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s]
    database_url = os.environ.get("TESSERA_DATABASE_URL")
    servers = None
    root = Path(tempfile.mkdtemp(prefix="tsri-"))
    try:
        if not database_url:
            from app.cli.embedded import EmbeddedServers

            servers = EmbeddedServers(root)
            log(f"starting embedded Postgres in {root}")
            database_url = servers.postgres.start()
        upgrade(database_url)
        cells = asyncio.run(measure(database_url, sizes))
    finally:
        if servers is not None:
            servers.stop()
        shutil.rmtree(root, ignore_errors=True)
    print(report(cells))
    if args.json is not None:
        args.json.write_text(json.dumps(cells, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
