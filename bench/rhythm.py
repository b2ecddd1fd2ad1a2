"""At the agent's rhythm (issue 45): one exchange per request, and where a small job's time goes.

``python -m bench.rhythm [--clients 4] [--exchanges 120] [--no-profile] [--json OUT]``

Agents post as they talk: one exchange (a user message and the assistant's answer) per request.
Against the service as ``make dev`` runs it (embedded Postgres and Redis, an API process per
core, one worker, the default limits), ``--clients`` clients each post one BEAM chat of the
tuning half (``../shared/data/splits.json``), exchange after exchange without waiting, then
follow their jobs to the end. The same exchanges are posted again 20 to a request and a whole
session to a request, and REALTALK's two-person chats a session to a request, side by side:
requests, messages and MB of text per second end to end (to the last job's finish), the accept
and job latencies, the 429s the clients honoured, and each process's CPU per job.

Where the time goes, for the one-exchange run: the database's work per job (transactions, rows
written per table, WAL bytes, from ``pg_stat_database``, ``pg_stat_user_tables`` and
``pg_current_wal_lsn()``; statements from ``pg_stat_statements`` where the server has it loaded),
and, with py-spy (in the dev lock), samples of the API processes and the worker while it runs:
each one's busy samples by where the innermost frame is (self time by component) and the
inclusive share of the project's own functions, turned into CPU milliseconds per request (API)
and per job (worker).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import secrets
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import psycopg

from app.db.engine import sync_url
from bench.conversations.data import DEFAULT_DATA as BEAM_DATA
from bench.conversations.data import load as load_beam
from bench.conversations.run import payload_of
from bench.ingest import log, nproc, run_scenario, running_stack, table, text_chars
from bench.realtalk.data import DEFAULT_DATA as REALTALK_DATA
from bench.realtalk.data import load as load_realtalk
from bench.realtalk.run import payload_of as realtalk_payload
from bench.splits import of_half
from bench.stacks import busy_stacks

SEED = 45
# Exchanges to a request in the batched run: an agent that posts every few minutes.
BATCH = 20
# Where a sample's innermost Python frame lives: its self time.
COMPONENTS = (
    ("app/api + app/mcp (routes, deps, middleware)", ("app/api", "app/mcp")),
    ("app/services", ("app/services",)),
    ("app/db (SQL, queue, signals)", ("app/db",)),
    ("app/domain (segment, extract, merge, index)", ("app/domain",)),
    ("workers (arq jobs)", ("workers",)),
    ("SQLAlchemy", ("sqlalchemy",)),
    ("asyncpg", ("asyncpg",)),
    ("arq + redis client", ("arq", "redis")),
    ("pydantic", ("pydantic", "pydantic_core")),
    ("FastAPI + starlette", ("fastapi", "starlette")),
    ("uvicorn + httptools", ("uvicorn", "httptools")),
    ("logging + structlog", ("logging", "structlog")),
    ("json (orjson, json)", ("orjson", "json")),
    ("asyncio / event loop", ("asyncio",)),
)


def exchanges_of(chat: Any) -> list[list[Any]]:
    """A chat's messages cut before each user message: one exchange each."""
    out: list[list[Any]] = []
    for message in (m for session in chat.sessions for m in session):
        if message.role == "user" or not out:
            out.append([message])
        else:
            out[-1].append(message)
    return out


def beam_runs(clients: int, most: int) -> dict[str, list[list[dict[str, Any]]]]:
    """Per run, each client's request bodies: the same exchanges, one, 20 and a session each."""
    chats = of_half(load_beam(BEAM_DATA), lambda c: c.id, "beam500k", "tune")[:clients]
    runs: dict[str, list[list[dict[str, Any]]]] = {
        "one exchange per request": [],
        f"{BATCH} exchanges per request": [],
        "a session per request": [],
    }
    for chat in chats:
        taken = exchanges_of(chat)[:most]

        def body(messages: list[Any]) -> dict[str, Any]:
            return payload_of(messages).model_dump(mode="json", exclude_none=True)

        runs["one exchange per request"].append([body(x) for x in taken])
        runs[f"{BATCH} exchanges per request"].append(
            [
                body([m for x in taken[i : i + BATCH] for m in x])
                for i in range(0, len(taken), BATCH)
            ]
        )
        kept = {m.id for x in taken for m in x}
        sessions = [[m for m in s if m.id in kept] for s in chat.sessions]
        runs["a session per request"].append([body(s) for s in sessions if s])
    return runs


def realtalk_runs(clients: int) -> list[list[dict[str, Any]]]:
    """Each client's REALTALK chat of the tuning half, a session to a request."""
    chats = of_half(load_realtalk(REALTALK_DATA), lambda c: c.id, "realtalk", "tune")[:clients]
    return [
        [realtalk_payload(c, s).model_dump(mode="json", exclude_none=True) for s in c.sessions]
        for c in chats
    ]


# --- the database's side ------------------------------------------------------------------------


def db_counters(database_url: str) -> dict[str, Any]:
    """The database's cumulative counters now: transactions, rows by table, WAL position."""
    with psycopg.connect(sync_url(database_url).replace("+psycopg", ""), autocommit=True) as conn:
        (xacts,) = conn.execute(
            "SELECT xact_commit + xact_rollback FROM pg_stat_database "
            "WHERE datname = current_database()"
        ).fetchone() or (0,)
        (wal,) = conn.execute(
            "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint"
        ).fetchone() or (0,)
        tables = {
            name: (ins, upd, dele)
            for name, ins, upd, dele in conn.execute(
                "SELECT relname, n_tup_ins, n_tup_upd, n_tup_del FROM pg_stat_user_tables"
            ).fetchall()
        }
        statements: dict[str, tuple[int, float]] = {}
        has = conn.execute(
            "SELECT count(*) FROM pg_extension WHERE extname = 'pg_stat_statements'"
        ).fetchone()
        if has and has[0]:
            for query, calls, total in conn.execute(
                "SELECT query, calls, total_exec_time FROM pg_stat_statements "
                "WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())"
            ).fetchall():
                statements[str(query)] = (int(calls), float(total))
    return {"xacts": int(xacts), "wal": int(wal), "tables": tables, "statements": statements}


def db_per_job(before: dict[str, Any], after: dict[str, Any], jobs: int) -> dict[str, Any]:
    """What the database did per job between two counter snapshots."""
    rows = {}
    for name, (ins, upd, dele) in after["tables"].items():
        was = before["tables"].get(name, (0, 0, 0))
        moved = (ins - was[0], upd - was[1], dele - was[2])
        if any(moved):
            rows[name] = {k: v / jobs for k, v in zip(("ins", "upd", "del"), moved, strict=True)}
    statements = {}
    for query, (calls, total) in after["statements"].items():
        was_calls, was_total = before["statements"].get(query, (0, 0.0))
        if calls > was_calls:
            statements[query] = {
                "calls": (calls - was_calls) / jobs,
                "ms": (total - was_total) / jobs,
            }
    top = dict(sorted(statements.items(), key=lambda kv: -kv[1]["ms"])[:12])
    return {
        "transactions": (after["xacts"] - before["xacts"]) / jobs,
        "wal_kb": (after["wal"] - before["wal"]) / 1024 / jobs,
        "rows": rows,
        "statements": top,
    }


# --- py-spy -------------------------------------------------------------------------------------


@contextmanager
def sampled(pids: dict[str, int], out: Path) -> Iterator[dict[str, Path]]:
    """py-spy recording each named process (and its children) until the block ends."""
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    if not Path(spy).exists():
        log("py-spy not found (it is in the dev lock: make .venv/.installed): no profile")
        yield {}
        return
    files = {name: out / f"{name}.txt" for name in pids}
    procs = [
        subprocess.Popen(
            [
                *(spy, "record", "--pid", str(pid), "--subprocesses", "--rate", "200"),
                *("--format", "raw", "--output", str(files[name]), "--nonblocking"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for name, pid in pids.items()
    ]
    time.sleep(1.0)  # py-spy attaches
    try:
        yield files
    finally:
        for proc in procs:
            proc.send_signal(signal.SIGINT)  # py-spy writes its file on Ctrl-C
        for proc in procs:
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()


def summarize(path: Path, cpu_ms: float) -> dict[str, Any]:
    """py-spy's stacks as CPU ms per unit: self time by component, our functions inclusive."""
    if not path.exists():
        return {}
    total = 0
    components: Counter[str] = Counter()
    ours: Counter[str] = Counter()
    leaves: Counter[str] = Counter()
    for frames, count in busy_stacks(path):
        leaf_name, leaf_path = frames[-1]
        total += count
        leaves[f"{leaf_name} ({leaf_path[1:]})"] += count
        label = next(
            (lab for lab, dirs in COMPONENTS if any(f"/{d}/" in leaf_path for d in dirs)),
            "other",
        )
        components[label] += count
        seen = {
            f"{name} ({p[1:]})"
            for name, p in frames
            if p.startswith(("/app/", "/workers/")) and name != "<module>"
        }
        for function in seen:
            ours[function] += count
    if not total:
        return {}
    per = cpu_ms / total
    return {
        "samples": total,
        "self_ms": {k: v * per for k, v in components.most_common()},
        "inclusive_ms": {k: v * per for k, v in ours.most_common(25)},
        "top_self_ms": {k: v * per for k, v in leaves.most_common(12)},
    }


# --- the runs -------------------------------------------------------------------------------------


async def _tenant(stack: Any, client: httpx.AsyncClient) -> dict[str, str]:
    resp = await client.post(
        "/admin/tenants",
        json={"name": f"rhythm-{secrets.token_hex(3)}"},
        headers={"Authorization": f"Bearer {stack.admin_token}"},
    )
    resp.raise_for_status()
    return {"Authorization": f"Bearer {resp.json()['api_key']['key']}"}


async def run_all(
    stack: Any, runs: dict[str, list[list[dict[str, Any]]]], profile: Path | None
) -> list[dict[str, Any]]:
    """Each run on users of its own, one after another; the first one measured inside too."""
    out = []
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=120) as client:
        headers = await _tenant(stack, client)
        warm = [[b] for b in next(iter(runs.values()))[0][:4]]  # imports, pools: not measured
        await run_scenario(
            stack,
            client,
            headers,
            name="warm-up",
            users=1,
            requests=0,
            turns=0,
            seed=SEED,
            given=warm,
        )
        for n, (name, given) in enumerate(runs.items()):
            log(f"{name}: {len(given)} clients, {sum(len(b) for b in given)} requests")
            before = db_counters(stack.database_url)
            pids = {"api": stack.children["api"].pid, "worker": stack.children["worker"].pid}
            inside = n == 0 and profile is not None
            with sampled(pids, profile) if inside and profile else _nothing() as files:
                figures = await run_scenario(
                    stack,
                    client,
                    headers,
                    name=name,
                    users=len(given),
                    requests=0,
                    turns=0,
                    seed=SEED,
                    given=given,
                )
            figures["requests"] = sum(len(b) for b in given)
            figures["messages"] = sum(len(body["turns"]) for b in given for body in b)
            figures["text_mb"] = sum(text_chars(body) for b in given for body in b) / 1e6
            figures["db_per_job"] = db_per_job(
                before, db_counters(stack.database_url), figures["jobs"]
            )
            if files:
                cpu = figures["cpu_ms_per_job"]
                figures["profile"] = {
                    "api_per_request": summarize(files["api"], cpu.get("api", 0.0)),
                    "worker_per_job": summarize(files["worker"], cpu.get("worker", 0.0)),
                }
            out.append(figures)
    return out


@contextmanager
def _nothing() -> Iterator[dict[str, Path]]:
    yield {}


def report(results: list[dict[str, Any]]) -> str:
    """The runs side by side, then where the one-exchange run's time went."""
    rows = []
    for r in results:
        s = r["elapsed_s"]
        cpu = r["cpu_ms_per_job"]
        rows.append(
            [
                r["scenario"],
                f"{r['requests']:,}",
                f"{r['requests'] / s:,.1f}",
                f"{r['messages'] / s:,.0f}",
                f"{r['text_mb'] / s:.3f}",
                f"{r['accept_p50_ms']:.0f}",
                f"{r['job_p50_ms']:.0f}",
                f"{r['rate_limited']:,}",
                f"{cpu.get('api', 0):.1f}",
                f"{cpu.get('worker', 0):.1f}",
                f"{cpu.get('postgres', float('nan')):.1f}",
            ]
        )
    lines = [
        table(
            [
                "run",
                "requests",
                "req/s",
                "messages/s",
                "MB/s",
                "accept p50 ms",
                "job p50 ms",
                "429s",
                "API CPU ms/req",
                "worker ms/job",
                "postgres ms/job",
            ],
            rows,
        )
    ]
    for r in results:
        db = r["db_per_job"]
        lines.append(
            f"\n{r['scenario']}: per job {db['transactions']:.1f} transactions, "
            f"{db['wal_kb']:.1f} KB of WAL; rows "
            + ", ".join(
                f"{t} +{v['ins']:.1f}/~{v['upd']:.1f}/-{v['del']:.1f}"
                for t, v in sorted(db["rows"].items())
            )
        )
        for query, v in list(db["statements"].items())[:8]:
            lines.append(f"  {v['ms']:.2f} ms/job, {v['calls']:.1f} calls: {query[:90]}")
        for who, prof in r.get("profile", {}).items():
            if not prof:
                continue
            lines.append(f"  {who} ({prof['samples']:,} samples), self ms by component:")
            lines += [f"    {ms:7.2f}  {k}" for k, ms in list(prof["self_ms"].items())[:12]]
            lines.append(f"  {who}, the busiest innermost frames (self ms):")
            lines += [f"    {ms:7.2f}  {k}" for k, ms in list(prof["top_self_ms"].items())[:8]]
            lines.append(f"  {who}, the project's functions (inclusive ms):")
            lines += [f"    {ms:7.2f}  {k}" for k, ms in list(prof["inclusive_ms"].items())[:18]]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """CLI: start the stack, run each rhythm, print and optionally write the figures."""
    parser = argparse.ArgumentParser(prog="python -m bench.rhythm", description=__doc__)
    parser.add_argument("--clients", type=int, default=4, help="clients, one chat each")
    parser.add_argument("--exchanges", type=int, default=120, help="exchanges per client")
    parser.add_argument("--no-profile", action="store_true", help="skip py-spy")
    parser.add_argument("--json", type=Path, help="write every figure here")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    runs = beam_runs(args.clients, args.exchanges)
    runs["two-person chat, a session per request"] = realtalk_runs(args.clients)
    profile = (
        None
        if args.no_profile
        else Path(os.environ.get("TMPDIR", "/tmp")) / (f"rhythm-{secrets.token_hex(3)}")
    )
    if profile:
        profile.mkdir(parents=True)
    with running_stack(api_processes=os.cpu_count() or 1) as stack:
        results = asyncio.run(run_all(stack, runs, profile))
    print(report(results))
    total = time.perf_counter() - started
    print(f"({total:.0f} s in all; nproc {nproc()})")
    if args.json:
        figures = {
            "date": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "command": shlex.join([Path(sys.executable).name, "-m", "bench.rhythm", *sys.argv[1:]]),
            "nproc": nproc(),
            "python": platform.python_version(),
            "runs": results,
            "seconds": total,
        }
        args.json.write_text(json.dumps(figures, indent=1, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
