"""A soak at the agent's rhythm (issue 45, step 4): hours of agent loops, nothing lost.

``python -m bench.soak [--minutes 20] [--tenants 3] [--users 100] [--loops 16] [--pause S]
[--history N] [--json OUT]`` (``--smoke``: one minute, small; the test suite runs the same loops
for seconds).

Against the service as ``make dev`` runs it (an API process per core, one worker, embedded
Postgres and Redis, the default limits), ``--loops`` agents loop over the users of several
tenants, each user spoken to by one loop at a time, through the Python client
(``tessera.AsyncTessera``, which honours 429's ``Retry-After``): remember one exchange with
``?wait``, read the context for the user's next question at the version the write reported, now
and then a search, a forget of one of the user's turns, an export. With ``--pause S`` every user
is an agent of its own that waits between its steps (S seconds on average, at random: the person
reading the answer and typing the next message), so the load is what that many people make, not
the machine's ceiling; ``--history N`` gives each user N earlier exchanges before the loops start
(one request each, then one context read, as an agent reads after it writes; not timed), so
the caches and the stored indexes meet histories as a service that has run for a while does
(``--unread-history``: no read, as after a bulk import, so each user's first read in each API
process indexes its log or loads what the other stored). Every ``--interval`` seconds it prints
the calls made, p50 and p99 of each kind, the resident memory of the API processes and the
worker, each process's CPU, the queue depth, how long the jobs finished meanwhile waited to be
claimed and then ran, and the errors by kind (``--workers N``: N worker processes;
``--forget-share F``: the share of steps that also forget a turn, 0.03). At the end
it checks every user: each turn whose write was acknowledged is in the user's passport, and
each turn forgotten is in neither the passport nor a search.

Targets (issue 45): no errors but 429s the client honoured, no acknowledged turn missing, no
forgotten turn found, each process's memory flat after warm-up (at most 10% growth over the
last three quarters of the run), p99 of context reads at most 50 ms and of ``?wait`` writes at
most 250 ms in every interval.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import httpx
import psycopg

from app.db.engine import sync_url
from bench.ingest import cpu_seconds, log, percentile, running_stack, table
from tessera import AsyncTessera, Retry, TesseraError

SEED = 45
TOPICS = (
    ("my allotment", "The beans are climbing the fence now.", "How are the beans doing?"),
    ("my sister's wedding", "It moved to the last Saturday of June.", "When is the wedding?"),
    (
        "the bike repair",
        "The shop said the new chain arrives on Thursday.",
        "When is the chain due?",
    ),
    ("my choir", "We rehearse the spring concert on Tuesdays at six.", "When is choir practice?"),
    ("the flat search", "We are looking at two flats near the river this week.", "Which flats?"),
)
ANSWER = (
    "That sounds like a good plan. A few thoughts on it: keep a short list of what matters most, "
    "note the dates somewhere you will see them, and check back in a week to see how it went. "
)


class Exchange(NamedTuple):
    """One exchange a loop sends: its number for the user, its topic, the question that follows
    it, and its two turns."""

    n: int
    topic: str
    question: str
    turns: list[dict[str, str]]


@dataclass
class Tally:
    """What the loops did in one interval: latencies by kind, errors by kind, 429s honoured."""

    ms: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: Counter[str] = field(default_factory=Counter)
    refused: int = 0


@dataclass
class User:
    """One user's truth as the loops know it: turns acknowledged, turns forgotten."""

    tenant: int
    key: str
    said: list[str] = field(default_factory=list)
    forgotten: set[str] = field(default_factory=set)
    topics: dict[str, str] = field(default_factory=dict)  # a turn's topic: what finds it
    exchanges: int = 0  # exchanges sent: numbers each one's ids, never the same twice
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class Counting(httpx.AsyncBaseTransport):
    """The HTTP transport under the client's retries: it sees, and counts, every 429."""

    def __init__(self, soak: Soak) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.soak = soak

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Send it; count a 429 (the client waits its Retry-After and sends it again)."""
        response = await self.inner.handle_async_request(request)
        if response.status_code == 429:
            self.soak.tally.refused += 1
        return response

    async def aclose(self) -> None:
        """Close the real transport."""
        await self.inner.aclose()


class Soak:
    """The loops, the users they speak to, and what each interval saw."""

    def __init__(
        self, url: str, keys: list[str], users: int, loops: int, pause: float = 0.0
    ) -> None:
        self.rng = random.Random(SEED)
        self.loops = loops
        self.pause = pause  # mean seconds a user's agent waits between steps; 0: loops never wait
        self.forget_share = 0.03  # of the steps that also forget one of the user's turns
        retry = Retry(attempts=8, max_wait=30)
        self.clients = [
            AsyncTessera(url, key, retry=retry, transport=Counting(self)) for key in keys
        ]
        self.users = [User(t, f"soak-{t}-{n}") for t in range(len(keys)) for n in range(users)]
        self.tally = Tally()
        self.intervals: list[dict[str, Any]] = []

    async def timed(self, kind: str, call: Any) -> Any:
        """Await a call, its latency under ``kind``; an error counted by its kind, not raised."""
        started = time.perf_counter()
        try:
            result = await call
        except (TesseraError, httpx.HTTPError) as error:
            self.tally.errors[f"{kind}: {type(error).__name__}"] += 1
            return None
        self.tally.ms[kind].append((time.perf_counter() - started) * 1000)
        return result

    def exchange(self, user: User) -> Exchange:
        """The user's next exchange (ids numbered per user, never the same twice)."""
        n, user.exchanges = user.exchanges, user.exchanges + 1
        topic, fact, question = TOPICS[n % len(TOPICS)]
        ids = [f"{user.key}-m{n}-u", f"{user.key}-m{n}-a"]
        user.topics.update(dict.fromkeys(ids, topic))
        turns = [
            {"role": "user", "content": f"About {topic} ({n}): {fact}", "id": ids[0]},
            {"role": "assistant", "content": ANSWER * 4, "id": ids[1]},
        ]
        return Exchange(n, topic, question, turns)

    async def seed(self, exchanges: int, at_once: int = 8, *, read: bool = True) -> None:
        """Give every user ``exchanges`` earlier exchanges, in one request each, and with
        ``read`` one context read after it (not timed)."""
        gate = asyncio.Semaphore(at_once)

        async def one(user: User) -> None:
            turns: list[dict[str, str]] = []
            for _ in range(exchanges):
                turns += self.exchange(user).turns
            client = self.clients[user.tenant]
            async with gate:
                job = await client.remember(user.key, turns, session="history", wait=60)
                if job.status != "done":
                    raise RuntimeError(f"seeding {user.key}: job {job.status}")
                if read:
                    await client.context(user.key, TOPICS[0][2], min_version=job.version_after)
            user.said += [turn["id"] for turn in turns]

        await asyncio.gather(*(one(user) for user in self.users))

    async def step(self, user: User) -> None:
        """One exchange with ``user``, then what an agent reads and sometimes does."""
        client = self.clients[user.tenant]
        n, topic, question, exchange = self.exchange(user)
        ids = [turn["id"] for turn in exchange]
        job = await self.timed(
            "write ?wait", client.remember(user.key, exchange, session=f"s{n // 10}", wait=30)
        )
        if job is None or job.status != "done":
            if job is not None:
                self.tally.errors[f"write: job {job.status}"] += 1
            return
        user.said += ids
        version = job.version_after if isinstance(job.version_after, int) else None
        await self.timed("context", client.context(user.key, question, min_version=version))
        roll = self.rng.random()
        if roll < 0.1:
            await self.timed("search", client.search(user.key, topic, limit=5))
        elif roll < 0.1 + self.forget_share and len(user.said) > 4:
            gone = self.rng.choice([t for t in user.said if t not in user.forgotten])
            if await self.timed("forget", client.forget_turn(user.key, gone)) is not None:
                user.forgotten.add(gone)
        elif roll < 0.11 + self.forget_share:
            await self.timed("export", client.export(user.key))

    async def loop(self, deadline: float) -> None:
        """An agent: a free user, one step with them, again, until the deadline."""
        while time.monotonic() < deadline:
            user = self.rng.choice(self.users)
            if user.lock.locked():
                await asyncio.sleep(0)
                continue
            async with user.lock:
                await self.step(user)

    async def agent(self, user: User, deadline: float) -> None:
        """One user's agent: a step, a pause of ``pause`` seconds on average, until the deadline."""
        await asyncio.sleep(self.rng.uniform(0, self.pause))  # users do not start in step
        while time.monotonic() < deadline:
            async with user.lock:
                await self.step(user)
            await asyncio.sleep(min(self.rng.expovariate(1 / self.pause), 10 * self.pause))

    def agents(self, deadline: float) -> list[asyncio.Task[None]]:
        """The loops of the run: ``loops`` over every user, or an agent per user with a pause."""
        if self.pause > 0:
            return [asyncio.create_task(self.agent(user, deadline)) for user in self.users]
        return [asyncio.create_task(self.loop(deadline)) for _ in range(self.loops)]

    async def verify(self) -> dict[str, int]:
        """Every acknowledged turn kept, every forgotten one gone, user by user."""
        missing = found = 0
        for user in self.users:
            if not user.said:
                continue
            client = self.clients[user.tenant]
            doc = await client.export(user.key)
            kept = {t.get("id") for t in doc.get("turns", [])}
            missing += len(set(user.said) - user.forgotten - kept)
            found += len(user.forgotten & kept)
            for gone in user.forgotten:
                hits = await client.search(user.key, user.topics[gone], limit=50)
                found += sum(gone in hit.turn_ids for hit in hits)
        return {
            "acknowledged": sum(len(u.said) for u in self.users),
            "missing": missing,
            "forgotten": sum(len(u.forgotten) for u in self.users),
            "found": found,
        }

    async def close(self) -> None:
        """Close every client."""
        for client in self.clients:
            await client.aclose()


def rss_mb(pid: int) -> float:
    """Resident memory of a process and its children, in MB (NaN if unknown)."""
    try:
        import psutil
    except ImportError:
        return float("nan")
    try:
        proc = psutil.Process(pid)
        total = proc.memory_info().rss
        for child in proc.children(recursive=True):
            with contextlib.suppress(psutil.Error):
                total += child.memory_info().rss
        return total / 1e6
    except psutil.Error:
        return float("nan")


def queue_depth(database_url: str) -> int:
    """Jobs queued or running now."""
    with psycopg.connect(sync_url(database_url).replace("+psycopg", "")) as conn:
        row = conn.execute(
            "SELECT count(*) FROM ingest_job WHERE status IN ('queued', 'running')"
        ).fetchone()
    return int(row[0]) if row else 0


JOB_STAGES = ("queued_p50", "running_p50", "queued_p99", "running_p99")


def job_stages(database_url: str, seconds: float) -> dict[str, float]:
    """p50 and p99 of the time jobs finished in the last ``seconds`` waited to be claimed and
    then ran, in ms: what of a write's latency is the queue and what is the worker."""
    query = """
        WITH done AS (
            SELECT extract(epoch FROM started_at - created_at) * 1000 AS queued,
                   extract(epoch FROM finished_at - started_at) * 1000 AS running
            FROM ingest_job
            WHERE finished_at > now() - make_interval(secs => %s) AND started_at IS NOT NULL
        )
        SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY queued),
               percentile_cont(0.5) WITHIN GROUP (ORDER BY running),
               percentile_cont(0.99) WITHIN GROUP (ORDER BY queued),
               percentile_cont(0.99) WITHIN GROUP (ORDER BY running)
        FROM done
    """
    with psycopg.connect(sync_url(database_url).replace("+psycopg", "")) as conn:
        row = conn.execute(query, (seconds,)).fetchone()
    return {n: float(v) for n, v in zip(JOB_STAGES, row or (), strict=False) if v is not None}


def cpu_shares(
    pids: dict[str, tuple[int, bool]], before: dict[str, float], seconds: float
) -> dict[str, float]:
    """Each process's CPU over the last ``seconds``, in percent of one core; ``before`` is
    updated to now."""
    out = {}
    for name, (pid, tree) in pids.items():
        now = cpu_seconds(pid, tree)
        out[name] = 100 * (now - before.get(name, now)) / seconds if seconds else 0.0
        before[name] = now
    return out


async def run(
    soak: Soak,
    database_url: str,
    seconds: float,
    every: float,
    pids: dict[str, int] | None = None,
    cpu_pids: dict[str, tuple[int, bool]] | None = None,
) -> dict[str, Any]:
    """The loops for ``seconds``, an interval's figures every ``every`` seconds, then the check;
    ``pids`` are the processes whose memory each interval reports, ``cpu_pids`` (name -> pid,
    with children) those whose CPU it does."""
    pids, cpu_pids = pids or {}, cpu_pids or {}
    cpu_before: dict[str, float] = {}
    cpu_shares(cpu_pids, cpu_before, 0.0)
    started = last = time.monotonic()
    deadline = started + seconds
    loops = soak.agents(deadline)
    while time.monotonic() < deadline:
        await asyncio.sleep(min(every, max(deadline - time.monotonic(), 0.1)))
        seen, soak.tally = soak.tally, Tally()
        now = time.monotonic()
        took, last = now - last, now
        soak.intervals.append(
            {
                "at_s": round(time.monotonic() - started, 1),
                "calls": {k: len(v) for k, v in seen.ms.items()},
                "p50_ms": {k: percentile(v, 50) for k, v in seen.ms.items()},
                "p99_ms": {k: percentile(v, 99) for k, v in seen.ms.items()},
                "errors": dict(seen.errors),
                "refused_429": seen.refused,
                "rss_mb": {name: rss_mb(pid) for name, pid in pids.items()},
                "cpu_percent": cpu_shares(cpu_pids, cpu_before, took),
                "queue": await asyncio.to_thread(queue_depth, database_url),
                "jobs_ms": await asyncio.to_thread(job_stages, database_url, took),
            }
        )
        log(f"{soak.intervals[-1]['at_s']:.0f} s: {sum(len(v) for v in seen.ms.values())} calls")
    await asyncio.gather(*loops)
    checked = await soak.verify()
    await soak.close()
    return {"intervals": soak.intervals, "check": checked, "seconds": seconds}


def verdict(result: dict[str, Any]) -> dict[str, bool]:
    """Each of the issue's targets, met or not."""
    intervals = result["intervals"]
    errors = sum(sum(i["errors"].values()) for i in intervals)
    check = result["check"]
    growth = {}
    later = intervals[len(intervals) // 4 :] or intervals
    for name in intervals[0]["rss_mb"] if intervals else ():
        first, last = later[0]["rss_mb"][name], later[-1]["rss_mb"][name]
        growth[name] = (last - first) / first if first else 0.0
    p99 = {
        kind: max((i["p99_ms"].get(kind, 0.0) for i in intervals), default=0.0)
        for kind in ("context", "write ?wait")
    }
    return {
        "no errors but honoured 429s": errors == 0,
        "no acknowledged turn missing": check["missing"] == 0,
        "no forgotten turn found": check["found"] == 0,
        "memory flat (<= 10% over the last three quarters)": all(
            g <= 0.10 for g in growth.values()
        ),
        "context p99 <= 50 ms in every interval": p99["context"] <= 50,
        "?wait write p99 <= 250 ms in every interval": p99["write ?wait"] <= 250,
    }


def report(result: dict[str, Any]) -> str:
    """The intervals, then the check and the verdict."""
    rows = []
    for i in result["intervals"]:
        kinds = ("write ?wait", "context", "search")
        rows.append(
            [
                f"{i['at_s']:.0f}",
                f"{sum(i['calls'].values()):,}",
                *(f"{i['p50_ms'].get(k, 0):.0f}/{i['p99_ms'].get(k, 0):.0f}" for k in kinds),
                f"{i['refused_429']}",
                f"{sum(i['errors'].values())}",
                *(f"{mb:.0f}" for mb in i["rss_mb"].values()),
                f"{i['queue']}",
                " ".join(f"{v:.0f}" for v in i.get("cpu_percent", {}).values()),
                "/".join(f"{i.get('jobs_ms', {}).get(k, 0):.0f}" for k in JOB_STAGES),
            ]
        )
    first = result["intervals"][0] if result["intervals"] else {}
    names = list(first.get("rss_mb", {}))
    lines = [
        table(
            [
                "at s",
                "calls",
                "write p50/p99 ms",
                "context p50/p99",
                "search p50/p99",
                "429s",
                "errors",
                *(f"{n} MB" for n in names),
                "queue",
                "CPU % " + " ".join(first.get("cpu_percent", {})),
                "job queued/ran p50, p99 ms",
            ],
            rows,
        )
    ]
    check = result["check"]
    lines.append(
        f"turns acknowledged {check['acknowledged']:,}, missing {check['missing']}; "
        f"forgotten {check['forgotten']}, found again {check['found']}"
    )
    errors: Counter[str] = Counter()
    for i in result["intervals"]:
        errors.update(i["errors"])
    if errors:
        lines.append("errors: " + ", ".join(f"{k} {v}" for k, v in errors.most_common()))
    lines += [f"{'PASS' if ok else 'FAIL'}  {name}" for name, ok in verdict(result).items()]
    return "\n".join(lines)


async def tenant_keys(url: str, admin_token: str, tenants: int) -> list[str]:
    """A new tenant's API key for each tenant of the soak."""
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        keys = []
        for n in range(tenants):
            reply = await http.post(
                "/admin/tenants",
                json={"name": f"soak-{n}"},
                headers={"Authorization": f"Bearer {admin_token}"},
            )
            reply.raise_for_status()
            keys.append(str(reply.json()["api_key"]["key"]))
        return keys


def main(argv: list[str] | None = None) -> int:
    """CLI: start the stack, soak it, print the intervals and the verdict."""
    parser = argparse.ArgumentParser(prog="python -m bench.soak", description=__doc__)
    parser.add_argument("--minutes", type=float, default=20.0)
    parser.add_argument("--tenants", type=int, default=3)
    parser.add_argument("--users", type=int, default=100, help="users per tenant")
    parser.add_argument("--loops", type=int, default=16, help="agents looping at once")
    parser.add_argument(
        "--pause",
        type=float,
        default=0.0,
        help="mean seconds each user's agent waits between steps (0: --loops that never wait)",
    )
    parser.add_argument("--history", type=int, default=0, help="earlier exchanges per user")
    parser.add_argument(
        "--unread-history",
        action="store_true",
        help="seed the history without the read that follows each write",
    )
    parser.add_argument("--interval", type=float, default=30.0, help="seconds per line")
    parser.add_argument("--workers", type=int, default=1, help="worker processes")
    parser.add_argument(
        "--forget-share", type=float, default=0.03, help="of the steps that also forget a turn"
    )
    parser.add_argument("--smoke", action="store_true", help="one minute, 2 tenants of 10")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    if args.smoke:
        args.minutes, args.tenants, args.users, args.loops, args.interval = 1, 2, 10, 4, 10
    with running_stack(api_processes=os.cpu_count() or 1, workers=args.workers) as stack:

        async def soaked() -> dict[str, Any]:
            keys = await tenant_keys(stack.base_url, stack.admin_token, args.tenants)
            soak = Soak(stack.base_url, keys, args.users, args.loops, args.pause)
            soak.forget_share = args.forget_share
            if args.history:
                started = time.monotonic()
                await soak.seed(args.history, read=not args.unread_history)
                took = time.monotonic() - started
                log(f"history: {args.history} exchanges per user in {took:.0f} s")
            pids = {name: child.pid for name, child in stack.children.items()}
            seconds = args.minutes * 60
            return await run(
                soak, stack.database_url, seconds, args.interval, pids, stack.cpu_pids()
            )

        result = asyncio.run(soaked())
    print(report(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1, default=str) + "\n")
    return 0 if all(verdict(result).values()) else 1


if __name__ == "__main__":
    sys.exit(main())
