"""The agent loop at scale: read the context, post the latest exchange with ?wait, read again.

``python -m bench.agent_loop [--sizes 10,100,1000,10000] [--loops 200] [--processes N]
[--json OUT]``

One user per size, each with a history of that many sessions of 20 turns of synthetic chat
(``bench.ingest.user_sessions``): the history is written the way the worker writes it, in
process on an in-memory log (``bench.pipeline``, the rule extractor), and handed to the service
as one passport import. Then, against the live API and worker (real subprocesses on the embedded
Postgres and Redis), an agent loops over the users in turn: a read with a new question, a write of
a two-turn exchange with ``?wait``, and a read right after the write on a second connection,
with the write's version as ``min_version``. ``--processes N`` runs N API processes
(``tessera api --workers N``) and N workers; the two connections then often reach two
processes. Per size it reports the write round trip and the read-after-write (p50/p99, client
side), the worker's CPU per job, the WAL Postgres writes per job (``pg_current_wal_lsn()``; how
much of it is whole pages logged after a checkpoint, from ``pg_waldump --stats`` where the server
is local) and the API's CPU per read,
with each figure's ratio to its value at the smallest size. The loop starts from a checkpoint, so
every size pays for the first write to each page after one, as a server in steady state does.
After the loop the API processes are restarted and each user's first read is timed (from the
stored index) and compared with the warm process's answer, beside the cold build of the same run.

Targets (issue 12): at 10,000 sessions every figure within 1.5x of its value at 10 sessions,
read-after-write p50 at most 20 ms, the ``?wait`` write p50 at most 150 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from random import Random
from typing import Any

import httpx
import orjson
import psycopg

from app.db.engine import sync_url
from app.domain.extraction.rules import RuleExtractor
from app.domain.ingest.payload import IngestPayload
from bench.ingest import (
    ACTIVITIES,
    PEOPLE,
    PLACES,
    Stack,
    cpu_seconds,
    log,
    nproc,
    percentile,
    running_stack,
    table,
    user_sessions,
)
from bench.pipeline import InMemoryUser

SIZES = (10, 100, 1000, 10_000)
TURNS = 20
SEED = 20261202
USER = "agent"
# What issue 12 measured on the previous design (whole-document passport), same loop.
BEFORE = {30: (78.0, 42.0), 300: (272.0, 333.0), 1000: (571.0, 786.0)}
QUESTIONS = (
    "How did the {activity} go?",
    "What did {person} say about {place}?",
    "When did I go to {place}?",
    "Who came with me to the {activity}?",
    "What do I think about {place}?",
)


@dataclass
class Cell:
    """The loop's figures at one history size."""

    sessions: int
    turns: int
    passport_mb: float
    import_s: float
    first_read_ms: float
    figures: dict[str, float]

    def __getattr__(self, name: str) -> float:
        try:
            return self.figures[name]
        except KeyError:
            raise AttributeError(name) from None


def sizes_of(text: str) -> list[int]:
    """``--sizes``: history sizes in sessions, comma-separated, in ascending order."""
    return sorted(int(size) for size in text.split(",") if size.strip())


def question(rng: Random) -> str:
    """A new question an agent might ask about the synthetic chat."""
    return rng.choice(QUESTIONS).format(
        activity=rng.choice(ACTIVITIES), person=rng.choice(PEOPLE), place=rng.choice(PLACES)
    )


def _exchange(rng: Random, n: int, after: datetime) -> dict[str, Any]:
    """The latest exchange of a live chat: what the user said and the agent's answer."""
    when = after + timedelta(minutes=n)
    place, activity = rng.choice(PLACES), rng.choice(ACTIVITIES)
    return {
        "subject": "Melanie",
        "turns": [
            {
                "speaker": "Melanie",
                "text": f"I signed up for the {activity} in {place} today (loop {n}).",
                "ts": when.strftime("%Y-%m-%dT%H:%M:%SZ"),
                "id": f"loop:{n}:u",
                "session": f"loop{n}",
            },
            {
                "speaker": "assistant",
                "text": f"Great, I'll remember the {activity} in {place}.",
                "ts": (when + timedelta(seconds=5)).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "id": f"loop:{n}:a",
                "session": f"loop{n}",
            },
        ],
    }


def received_at(body: dict[str, Any]) -> datetime:
    """When a synthetic session reaches the service: the time of its last turn."""
    return datetime.fromisoformat(body["turns"][-1]["ts"].replace("Z", "+00:00"))


async def grow(user: InMemoryUser, sessions: list[dict[str, Any]]) -> None:
    """Ingest sessions into the in-memory log as the worker would, each as one job."""
    extractor = RuleExtractor()
    for body in sessions:
        await user.ingest(IngestPayload.model_validate(body), received_at(body), extractor.extract)


def connect(database_url: str) -> psycopg.Connection[Any]:
    """An autocommit connection to the database the stack runs on."""
    return psycopg.connect(sync_url(database_url).replace("+psycopg", "", 1), autocommit=True)


def wal_position(conn: psycopg.Connection[Any]) -> tuple[int, str]:
    """Where Postgres's write-ahead log stands: in bytes, and as the LSN pg_waldump reads."""
    row = conn.execute(
        "SELECT pg_current_wal_lsn() - '0/0'::pg_lsn, pg_current_wal_lsn()::text"
    ).fetchone()
    return (int(row[0]), str(row[1])) if row else (0, "0/0")


# pg_waldump --stats ends with: Total <records> <record bytes> [..%] <page image bytes> [..%] ...
_TOTAL = re.compile(r"^Total\s+\d+\s+(\d+)\s+\[[^]]*\]\s+(\d+)", re.MULTILINE)


class WalDump:
    """Reads how much of a stretch of WAL is full-page images, with the server's own pg_waldump.

    Only where the server's files are on this machine (the embedded Postgres, a local one): the
    split is then reported beside the WAL per job; elsewhere it is left out.
    """

    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self.command: list[str] | None = None
        try:
            bindir = conn.execute("SELECT setting FROM pg_config WHERE name = 'BINDIR'").fetchone()
            datadir = conn.execute("SHOW data_directory").fetchone()
        except psycopg.Error:
            return
        if not (bindir and datadir):
            return
        tool = shutil.which("pg_waldump", path=str(bindir[0]))
        wal_dir = Path(str(datadir[0])) / "pg_wal"
        if tool and wal_dir.is_dir():
            self.command = [tool, "--stats", "-p", str(wal_dir)]

    def page_images(self, start: str, end: str) -> int | None:
        """Bytes of full-page images logged between two LSNs; None if it cannot be read."""
        if self.command is None:
            return None
        if start == end:
            return 0
        done = subprocess.run(
            [*self.command, "-s", start, "-e", end], capture_output=True, text=True, check=False
        )
        found = _TOTAL.search(done.stdout)
        return int(found.group(2)) if found else None


def _analyze(database_url: str) -> None:
    with connect(database_url) as conn:
        conn.execute("ANALYZE")


@dataclass
class Samples:
    """What the loop measured for one user."""

    writes: list[float]
    reads: list[float]
    after_writes: list[float]
    worker_cpu: float = 0.0
    api_cpu: float = 0.0
    wal: int = 0
    page_images: int | None = 0


def one_loop(
    clients: tuple[httpx.Client, httpx.Client],
    stack: Stack,
    db: psycopg.Connection[Any],
    dump: WalDump,
    user: str,
    n: int,
    rng: Random,
    out: Samples,
) -> None:
    """Read with a new question, write the latest exchange with ?wait, read again (on the
    second client's connection: with several API processes, often another process)."""
    client, other = clients
    pids = stack.cpu_pids()
    base = datetime(2031, 1, 1, tzinfo=UTC)
    wal, start = wal_position(db)
    worker, api = cpu_of(pids, "worker"), cpu_of(pids, "api")
    t0 = time.perf_counter()
    client.get(f"/users/{user}/context", params={"q": question(rng)}).raise_for_status()
    t1 = time.perf_counter()
    job = client.post(f"/users/{user}/ingest?wait=30", json=_exchange(rng, n, base))
    t2 = time.perf_counter()
    assert job.json()["status"] == "done", job.text
    # The write's version: with several API processes, the read may land on another one.
    after = {"q": question(rng), "min_version": job.json()["job"]["version_after"]}
    other.get(f"/users/{user}/context", params=after).raise_for_status()
    t3 = time.perf_counter()
    out.worker_cpu += cpu_of(pids, "worker") - worker
    out.api_cpu += cpu_of(pids, "api") - api
    wal_end, end = wal_position(db)
    out.wal += wal_end - wal
    images = dump.page_images(start, end)
    out.page_images = (
        None if images is None or out.page_images is None else (out.page_images + images)
    )
    out.reads.append((t1 - t0) * 1000)
    out.writes.append((t2 - t1) * 1000)
    out.after_writes.append((t3 - t2) * 1000)


def cpu_of(pids: dict[str, tuple[int, bool]], role: str) -> float:
    """CPU seconds of every process of a role (``worker``, ``worker-2``, ...)."""
    return sum(cpu_seconds(*pid) for name, pid in pids.items() if name.split("-")[0] == role)


def figures(samples: Samples, loops: int) -> dict[str, float]:
    """The cell's figures from its samples."""
    return {
        "write_p50": percentile(samples.writes, 50),
        "write_p99": percentile(samples.writes, 99),
        "read_p50": percentile(samples.reads, 50),
        "read_after_write_p50": percentile(samples.after_writes, 50),
        "read_after_write_p99": percentile(samples.after_writes, 99),
        "worker_cpu_ms": samples.worker_cpu * 1000 / loops,
        "wal_kb": samples.wal / 1024 / loops,
        "page_images_kb": (
            float("nan") if samples.page_images is None else samples.page_images / 1024 / loops
        ),
        "api_cpu_ms": samples.api_cpu * 1000 / (2 * loops),
    }


def run(sizes: list[int], loops: int, processes: int = 1) -> tuple[list[Cell], dict[str, Any]]:
    """One user per size, grown to it; then the loop, round-robin over the users.

    Taking turns (one loop of each user per round) means a machine that is faster or slower
    for a while affects every size alike, so the figures of different sizes compare.
    """
    rng = Random(SEED)
    history = user_sessions(SEED, USER, max(sizes), TURNS)
    cells: dict[int, dict[str, Any]] = {}
    with running_stack(api_processes=processes, workers=processes) as stack:
        admin = {"Authorization": f"Bearer {stack.admin_token}"}
        created = httpx.post(
            f"{stack.base_url}/admin/tenants", json={"name": "agent-loop"}, headers=admin
        )
        headers = {"Authorization": f"Bearer {created.json()['api_key']['key']}"}
        grown = InMemoryUser("grown")
        done = 0
        for size in sizes:
            log(f"growing a history of {size:,} sessions")
            asyncio.run(grow(grown, history[done:size]))
            done = size
            body = orjson.dumps(grown.document())
            t0 = time.perf_counter()
            resp = httpx.put(
                f"{stack.base_url}/users/{USER}-{size}/passport",
                content=body,
                headers={**headers, "Content-Type": "application/json"},
                timeout=1800,
            )
            resp.raise_for_status()
            cells[size] = {
                "turns": len(grown.document()["turns"]),
                "passport_mb": len(body) / 1e6,
                "import_s": time.perf_counter() - t0,
            }
            log(f"imported {len(body) / 1e6:.1f} MB in {cells[size]['import_s']:.1f} s")
        # Planner statistics as autovacuum would leave them shortly after bulk imports: the
        # loop measures the steady state, not the minutes after a large load.
        _analyze(stack.database_url)
        samples = {size: Samples([], [], []) for size in sizes}
        with (
            httpx.Client(base_url=stack.base_url, headers=headers, timeout=120) as client,
            httpx.Client(base_url=stack.base_url, headers=headers, timeout=120) as other,
            connect(stack.database_url) as db,
        ):
            clients = (client, other)
            dump = WalDump(db)
            for size in sizes:  # the first read builds the index (a cold start), then warm up
                t0 = time.perf_counter()
                client.get(f"/users/{USER}-{size}/context", params={"q": question(rng)})
                cells[size]["first_read_ms"] = (time.perf_counter() - t0) * 1000
                # Each connection's process builds its own index (several API processes).
                other.get(f"/users/{USER}-{size}/context", params={"q": question(rng)})
                for n in range(3):
                    warm = Samples([], [], [])
                    one_loop(clients, stack, db, dump, f"{USER}-{size}", n, rng, warm)
            # From a checkpoint, as a server in steady state runs: whether the imports' pages
            # were already logged whole since the last one must not decide the WAL figures.
            db.execute("CHECKPOINT")
            log(f"looping {loops} times over {len(sizes)} users in turn")
            for n in range(3, 3 + loops):
                for size in sizes:
                    one_loop(clients, stack, db, dump, f"{USER}-{size}", n, rng, samples[size])
            warm = {size: read_fixed(client, size) for size in sizes}
        restarted_reads(stack, headers, cells, warm)
        with httpx.Client(base_url=stack.base_url, headers=headers, timeout=1800) as client:
            try:
                round_trip = export_and_import(client, f"{USER}-{max(sizes)}")
            except httpx.HTTPError as exc:  # a side figure: the loop's are reported anyway
                round_trip = {"failed": repr(exc)}
                log(f"export and re-import failed; the API log ends:\n{stack.tail('api', 20)}")
            log(f"export and re-import of {max(sizes):,} sessions: {round_trip}")
    measured = [
        Cell(
            sessions=size,
            turns=int(cells[size]["turns"]),
            passport_mb=float(cells[size]["passport_mb"]),
            import_s=float(cells[size]["import_s"]),
            first_read_ms=float(cells[size]["first_read_ms"]),
            figures={
                **figures(samples[size], loops),
                **{k: float(cells[size][k]) for k in ("restart_read_ms", "segments", "same")},
            },
        )
        for size in sizes
    ]
    return measured, round_trip


FIXED_QUESTION = "What did Caroline say about the museum?"


def read_fixed(client: httpx.Client, size: int) -> str:
    """The context for one fixed question: what a warm and a restarted process must agree on."""
    resp = client.get(f"/users/{USER}-{size}/context", params={"q": FIXED_QUESTION})
    resp.raise_for_status()
    return resp.text


def restarted_reads(
    stack: Stack, headers: dict[str, str], cells: dict[int, dict[str, float]], warm: dict[int, str]
) -> None:
    """Restart the API processes, then time each user's first read (from the stored index)."""
    log("restarting the API processes")
    stack.restart_api()
    with (
        httpx.Client(base_url=stack.base_url, headers=headers, timeout=600) as client,
        connect(stack.database_url) as db,
    ):
        for size, answer in warm.items():
            t0 = time.perf_counter()
            got = read_fixed(client, size)
            cells[size]["restart_read_ms"] = (time.perf_counter() - t0) * 1000
            cells[size]["same"] = float(got == answer)
            found = db.execute(
                "SELECT count(*) FROM index_segment WHERE user_key = %s", (f"{USER}-{size}",)
            ).fetchone()
            cells[size]["segments"] = float(found[0] if found else 0)
            log(f"first read after restart at {size:,}: {cells[size]['restart_read_ms']:.0f} ms")


def export_and_import(client: httpx.Client, user: str) -> dict[str, Any]:
    """The whole passport out (streamed) and back in (one import): sizes, times, what changed."""
    t0 = time.perf_counter()
    with client.stream("GET", f"/users/{user}/passport") as resp:
        resp.raise_for_status()
        version = resp.headers["etag"]
        body = b"".join(resp.iter_bytes())
    t1 = time.perf_counter()
    back = client.put(
        f"/users/{user}/passport",
        content=body,
        headers={"Content-Type": "application/json", "If-Match": version},
        timeout=1800,
    )
    t2 = time.perf_counter()
    back.raise_for_status()
    return {
        "export_mb": round(len(body) / 1e6, 1),
        "export_s": round(t1 - t0, 1),
        "reimport_s": round(t2 - t1, 1),
        "reimport_changed": back.json()["changed"],
    }


RATIO_FIGURES = (
    "write_p50",
    "write_p99",
    "read_after_write_p50",
    "read_after_write_p99",
    "worker_cpu_ms",
    "wal_kb",
    "api_cpu_ms",
)


def verdict(cells: list[Cell]) -> list[str]:
    """Issue 12's targets, one line each: PASS or FAIL with the figure."""
    first, last = cells[0], cells[-1]
    lines = []
    for name in RATIO_FIGURES:
        ratio = getattr(last, name) / getattr(first, name) if getattr(first, name) else float("nan")
        ok = "PASS" if ratio <= 1.5 else "FAIL"
        lines.append(
            f"{ok} {name} at {last.sessions:,} sessions is {ratio:.2f}x its value at "
            f"{first.sessions:,} (target at most 1.5x)"
        )
    raw = last.read_after_write_p50
    lines.append(f"{'PASS' if raw <= 20 else 'FAIL'} read-after-write p50 {raw:.1f} ms (<= 20 ms)")
    w = last.write_p50
    lines.append(f"{'PASS' if w <= 150 else 'FAIL'} ?wait write round trip p50 {w:.1f} ms (<= 150)")
    r = last.restart_read_ms
    same = all(c.same for c in cells)
    lines.append(
        f"{'PASS' if r <= 1000 and same else 'FAIL'} first read after a restart at "
        f"{last.sessions:,} sessions {r:.0f} ms (<= 1000), answers "
        f"{'identical to' if same else 'NOT the same as'} a warm read's"
    )
    return lines


def report(cells: list[Cell], loops: int, round_trip: dict[str, Any]) -> str:
    """The table, the ratios to the smallest size, the previous design's figures, the verdict."""
    headers = [
        "sessions",
        "turns",
        "passport MB",
        "write p50",
        "write p99",
        "read p50",
        "RAW p50",
        "RAW p99",
        "worker ms/job",
        "WAL KB/job",
        "page images KB/job",
        "API ms/read",
        "first read ms",
        "after restart ms",
        "segments",
        "same answer",
    ]
    rows = [
        [
            c.sessions,
            c.turns,
            c.passport_mb,
            c.write_p50,
            c.write_p99,
            c.read_p50,
            c.read_after_write_p50,
            c.read_after_write_p99,
            c.worker_cpu_ms,
            c.wal_kb,
            c.page_images_kb,
            c.api_cpu_ms,
            c.first_read_ms,
            c.restart_read_ms,
            int(c.segments),
            "yes" if c.same else "NO",
        ]
        for c in cells
    ]
    first = cells[0]
    ratios = [
        [c.sessions, *(getattr(c, n) / getattr(first, n) for n in RATIO_FIGURES)] for c in cells
    ]
    before = [[s, w, r] for s, (w, r) in BEFORE.items()]
    return "\n".join(
        [
            f"Agent loop: read -> write (?wait, 2 turns) -> read, {loops} loops per size; "
            f"{nproc()} cores; {datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
            "times in ms, client side; RAW = the read right after the write; CPU per job or "
            "read; WAL per job, and how much of it is pages logged whole after a checkpoint",
            "",
            table(headers, rows),
            "",
            "Each figure as a multiple of its value at the smallest size:",
            table(["sessions", *RATIO_FIGURES], ratios),
            "",
            f"The largest passport exported and imported back unchanged: {round_trip}",
            "",
            "The previous design (whole-document passport), as issue 12 measured it:",
            table(["sessions", "write p50", "RAW p50"], before),
            "",
            *verdict(cells),
        ]
    )


def main(argv: list[str] | None = None) -> int:
    """CLI: run the sizes, print the report, optionally write the JSON."""
    parser = argparse.ArgumentParser(prog="python -m bench.agent_loop", description=__doc__)
    parser.add_argument("--sizes", type=sizes_of, default=SIZES, help="sessions, comma-separated")
    # A p99 needs well over 100 samples to be more than the slowest one.
    parser.add_argument("--loops", type=int, default=200, help="loops measured per size")
    parser.add_argument("--json", type=Path, help="write every figure here")
    parser.add_argument(
        "--processes", type=int, default=1, help="API processes (--workers) and worker processes"
    )
    args = parser.parse_args(argv)
    cells, round_trip = run(list(args.sizes), args.loops, args.processes)
    print(f"{args.processes} API process(es) and {args.processes} worker(s)")
    print(report(cells, args.loops, round_trip))
    if args.json:
        args.json.write_text(json.dumps([asdict(c) for c in cells], indent=1) + "\n")
    return 0 if all(line.startswith("PASS") for line in verdict(cells)) else 1


if __name__ == "__main__":
    sys.exit(main())
