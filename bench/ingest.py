"""Ingest benchmark: end-to-end turns per second, and what one merge costs as a passport grows.

Run ``make bench`` or ``.venv/bin/python -m bench.ingest`` (``--quick`` for a smoke run,
``--json PATH`` to keep the figures). No network, no API key: the stack runs on the embedded
Postgres and Redis (or on TESSERA_DATABASE_URL / TESSERA_REDIS_URL, each when set).

Three parts, printed together at the end:

1. End to end with the rule extractor: POST /users/{key}/ingest -> arq worker -> merged version,
   with the API (one process per core) and one worker, as `make dev` runs them: 1 user, 4 users,
   bigger requests, a user with a long history, lone requests with ?wait, and (--beam, --realtalk)
   real chats posted one session per request.
2. The cost of one merge in process (pure domain) at passports of 100, 1,000 and 10,000
   episodes: everything the worker does in Python while it holds the passport's row lock.
3. The Python work of one 20-turn request in process, per step, to set against the CPU that
   part 1 measures per job (the rest is the framework, the drivers and the database).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import gc
import hashlib
import json
import os
import platform
import secrets
import shlex
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from random import Random
from typing import Any

import httpx
import orjson

from app.domain.extraction.extractor import Extraction, ExtractionInput
from app.domain.extraction.rules import RuleExtractor, extract_rules
from app.domain.ids import sha256_hex
from app.domain.ingest.payload import IngestPayload
from app.domain.ingest.turns import Segment
from app.domain.memory import delta
from app.domain.memory.merge import merge_extraction
from app.domain.passport import Passport, Source

REPO = Path(__file__).resolve().parent.parent
SEED = 20240501
TURNS_PER_REQUEST = 20
# Each user checks its oldest unfinished job this often, as an importing agent would now and
# then; throughput is timed from the jobs' own finished_at, and the polls (client and API CPU on
# the same two cores) are load the figure carries.
POLL_SECONDS = 1.0
SCENARIO_TIMEOUT = 300.0
BEAM_SCENARIO = "user–assistant chats (BEAM)"
REALTALK_SCENARIO = "two-person chats (REALTALK)"

# --- synthetic multi-session chat -------------------------------------------------------------

SPEAKER_PAIRS = (
    ("Melanie", "Caroline"),
    ("Jon", "Gina"),
    ("Priya", "Tendai"),
    ("Luis", "Aiko"),
    ("Farai", "Nadia"),
    ("Sam", "Olu"),
)
PLACES = (
    "Kwekwe",
    "Harare",
    "Lisbon",
    "Nairobi",
    "Cape Town",
    "Osaka",
    "Lake Tahoe",
    "Porto",
    "Bulawayo",
    "Vancouver",
    "Victoria Falls",
    "New York City",
)
ACTIVITIES = (
    "pottery class",
    "charity race",
    "book club",
    "guitar lessons",
    "hiking trip",
    "cooking course",
    "volunteer shift at the animal shelter",
    "photography workshop",
    "salsa class",
    "chess tournament",
    "LGBTQ support group",
    "community garden",
)
PEOPLE = (
    "my sister Rudo",
    "my neighbour Mr Patel",
    "my manager Sarah",
    "my friend Tom",
    "our coach Daniel",
    "my grandmother",
    "my cousin Tariro",
    "the kids",
)
JOBS = (
    "a nurse at Parirenyatwa Hospital",
    "a data analyst at Econet Wireless",
    "a teacher at Hope Street Primary",
    "a barista at Blue Bottle Coffee",
    "a junior architect at Studio Mosi",
    "a counsellor at the youth centre",
)
THINGS = (
    "a second-hand Toyota Corolla",
    "a new laptop",
    "a sourdough starter",
    "a road bike",
    "a Kindle",
    "a tent for camping",
    "an old piano",
)
PETS = (("golden retriever", "Biscuit"), ("tabby cat", "Oliver"), ("rabbit", "Luna"))
FOODS = ("sadza and stew", "lasagne", "ramen", "a lemon cake", "jollof rice", "tacos")
TOPICS = ("astronomy", "gardening", "adoption agencies", "marathon training", "Stoic philosophy")
WHEN = (
    "last Saturday",
    "yesterday",
    "two weeks ago",
    "on Friday",
    "this morning",
    "last month",
    "on 12 June",
    "over the weekend",
)
MONTHS = ("March", "July", "September", "December")

STATEMENTS = (
    "I moved to {place} {when} for a new job.",
    "I started a {activity} {when} and I really love it.",
    "I finally bought {thing} {when}.",
    "{Person} came to visit {when} and we drove out to {place}.",
    "I'm working as {job} now, the hours are long but the team is lovely.",
    "We adopted a {pet} named {pet_name} {when}.",
    "I need to call {person} about the wedding before {month}.",
    "The {activity} was harder than I expected, but I want to keep going.",
    "I've been reading a lot about {topic} lately.",
    "My favourite part of the weekend was cooking {food} with {person}.",
    "I'm thinking about visiting {place} in {month} with {person}.",
    "I ran {km} kilometres {when} to raise money for the {activity}.",
    "{Person} says I should apply for the job in {place}, but I'm not sure yet.",
    "I went to the {activity} {when} and met a woman who grew up in {place}.",
    "We finally took {person} camping near {place} and it rained the whole time.",
    "I signed up for the {activity} again, it starts in {month}.",
)
QUESTIONS = (
    "How was the {activity}?",
    "Did you end up going to {place}?",
    "What did {person} say about it?",
    "How is the new job going?",
    "Are you still doing the {activity}?",
    "When are you going back to {place}?",
)
REACTIONS = (
    "Wow, that's great!",
    "Oh no, I'm sorry to hear that.",
    "That sounds amazing.",
    "Haha, classic.",
    "Congrats! You deserve it.",
    "Hey! Good to hear from you.",
    "I'm so happy for you.",
    "Thanks for asking!",
)


def _fill(rng: Random, template: str) -> str:
    pet, pet_name = rng.choice(PETS)
    person = rng.choice(PEOPLE)
    return template.format(
        place=rng.choice(PLACES),
        activity=rng.choice(ACTIVITIES),
        person=person,
        Person=person[:1].upper() + person[1:],
        job=rng.choice(JOBS),
        thing=rng.choice(THINGS),
        pet=pet,
        pet_name=pet_name,
        food=rng.choice(FOODS),
        topic=rng.choice(TOPICS),
        when=rng.choice(WHEN),
        month=rng.choice(MONTHS),
        km=rng.choice((5, 10, 21, 42)),
    )


def _turn_text(rng: Random) -> str:
    parts: list[str] = []
    if rng.random() < 0.35:
        parts.append(rng.choice(REACTIONS))
    for _ in range(rng.choice((1, 1, 2, 2, 3))):
        pool = QUESTIONS if rng.random() < 0.2 else STATEMENTS
        parts.append(_fill(rng, rng.choice(pool)))
    return " ".join(parts)


def chat_payload(
    rng: Random, pair: tuple[str, str], session: int, start: datetime, turns: int, prefix: str
) -> dict[str, Any]:
    """One session of a two-person chat as an ingest body; each turn has ts and id."""
    when = start
    out = []
    speaker = rng.randrange(2)
    for index in range(turns):
        when += timedelta(seconds=rng.randrange(20, 240))
        out.append(
            {
                "speaker": pair[speaker],
                "text": _turn_text(rng),
                "ts": when.strftime("%Y-%m-%dT%H:%M:%SZ"),
                "id": f"{prefix}:s{session}:t{index}",
                "session": f"s{session}",
            }
        )
        if rng.random() < 0.85:  # mostly alternate, sometimes a double message
            speaker = 1 - speaker
    return {"subject": pair[0], "turns": out}


def user_sessions(seed: int, user_key: str, sessions: int, turns: int) -> list[dict[str, Any]]:
    """A user's multi-session chat history: ``sessions`` bodies, a few days apart."""
    rng = Random(f"{seed}:{user_key}")
    pair = rng.choice(SPEAKER_PAIRS)
    day = datetime(2023, 1, 2, tzinfo=UTC) + timedelta(days=rng.randrange(60))
    bodies = []
    for session in range(sessions):
        day += timedelta(days=rng.randrange(1, 6))
        start = day.replace(hour=rng.randrange(8, 21), minute=rng.randrange(60))
        bodies.append(chat_payload(rng, pair, session, start, turns, user_key))
    return bodies


# --- small helpers ----------------------------------------------------------------------------


def text_chars(body: dict[str, Any]) -> int:
    """Characters of what was said in an ingest body (``text`` or ``content`` of its turns)."""
    total = 0
    for turn in body.get("turns") or []:
        said = turn.get("text", turn.get("content", ""))
        total += len(said) if isinstance(said, str) else 0
    return total


def beam_bodies(chats: int) -> list[list[dict[str, Any]]]:
    """The first BEAM chats' sessions as agents post them (``bench.conversations``'s payload)."""
    from bench.conversations.data import DEFAULT_DATA, load
    from bench.conversations.run import payload_of

    return [
        [payload_of(session).model_dump(mode="json", exclude_none=True) for session in c.sessions]
        for c in load(DEFAULT_DATA, chats)
    ]


def realtalk_bodies(chats: int) -> list[list[dict[str, Any]]]:
    """The first REALTALK chats' sessions as agents post them (``bench.realtalk``'s payload)."""
    from bench.realtalk.data import DEFAULT_DATA, load
    from bench.realtalk.run import payload_of

    return [
        [
            payload_of(c, session).model_dump(mode="json", exclude_none=True)
            for session in c.sessions
        ]
        for c in load(DEFAULT_DATA)[:chats]
    ]


GIVEN_BODIES = {BEAM_SCENARIO: beam_bodies, REALTALK_SCENARIO: realtalk_bodies}


def percentile(values: list[float], p: float) -> float:
    """The p-th percentile (0-100), linear between ranks; NaN for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = (len(ordered) - 1) * p / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def table(headers: list[str], rows: list[list[Any]]) -> str:
    """A plain text table, numbers right-aligned."""

    def cell(value: Any) -> str:
        if isinstance(value, float):
            if value != value:  # NaN
                return "-"
            return f"{value:,.1f}" if abs(value) >= 10 else f"{value:.2f}"
        if isinstance(value, int):
            return f"{value:,}"
        return str(value)

    cells = [[cell(v) for v in row] for row in rows]
    widths = [max([len(h), *(len(r[i]) for r in cells)]) for i, h in enumerate(headers)]
    left = [not isinstance(rows[0][i], int | float) if rows else True for i in range(len(headers))]

    def line(values: list[str]) -> str:
        return "  ".join(
            v.ljust(w) if is_left else v.rjust(w)
            for v, w, is_left in zip(values, widths, left, strict=True)
        ).rstrip()

    out = [line(headers), line(["-" * w for w in widths])]
    out += [line(r) for r in cells]
    return "\n".join(out)


def nproc() -> int:
    """Cores this process may run on (what ``nproc`` prints)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def log(message: str) -> None:
    """Progress goes to stderr; the tables go to stdout."""
    print(f"[bench] {message}", file=sys.stderr, flush=True)


# --- part 2: the cost of one merge, in process ------------------------------------------------

ENTITY_FIRST = ("Rudo", "Tom", "Sarah", "Daniel", "Tariro", "Amara", "Kofi", "Mei", "Ivan", "Zoe")
ENTITY_LAST = ("Moyo", "Patel", "Ncube", "Silva", "Tanaka", "Okafor", "Brown", "Dube", "Kim")


def _segment_of(body: dict[str, Any]) -> Segment:
    from app.domain.ingest.segmentation import prepare

    segments = prepare(IngestPayload.model_validate(body))
    assert len(segments) == 1, "a benchmark session should make one segment"
    return segments[0]


def _source(segment: Segment) -> Source:
    # What app.services.ingest.source_of builds; kept here so the domain part needs no services.
    when = segment.end_ts or segment.start_ts
    return Source(
        id=segment.id,
        kind=segment.kind,
        ts=when.strftime("%Y-%m-%dT%H:%M:%SZ") if when else None,
        hash=segment.hash,
        turn_ids=list(segment.turn_ids),
    )


POOL_SESSIONS = 40  # sessions extracted and merged for real; later ones repeat their growth
# List sections that grow with every session; facts and preferences are keyed, so they do not.
GROWING = ("open_loops", "contradictions", "observations", "episodes", "sources")


def build_passport(n: int, seed: int) -> dict[str, Any]:
    """A passport after ``n`` chat sessions, grown the way the rule extractor grows one.

    The first sessions (up to 40) are extracted and merged for real. Each later session ``i``
    repeats what session ``i % 40`` added to every growing section, with fresh ids, hashes and
    dates (and a numbered open-loop text, so dedupe sees new items), so item counts and sizes grow
    as they would, in seconds rather than ``n`` merges. Facts and preferences are keyed, so they
    come from the real merges only; entities are topped up to one per ten sessions.
    """
    pool = min(n, POOL_SESSIONS)
    passport = Passport.empty(f"bench-{n}")
    added: list[dict[str, list[dict[str, Any]]]] = []
    for body in user_sessions(seed, f"pool-{n}", pool, TURNS_PER_REQUEST):
        segment = _segment_of(body)
        request = ExtractionInput(
            segment=segment, subject=body["subject"], known_keys=tuple(passport.known_keys())
        )
        extraction = extract_rules(request)
        before = {section: len(getattr(passport, section)) for section in GROWING}
        merge_extraction(passport, extraction, _source(segment), now="2029-01-01T00:00:00Z")
        added.append(
            {
                section: [item.to_dict() for item in getattr(passport, section)[before[section] :]]
                for section in GROWING
            }
        )
    doc = passport.to_dict()
    base = datetime(2019, 1, 1, tzinfo=UTC)  # before any date the chat generator writes
    for i in range(pool, n):
        digest = hashlib.sha256(f"{seed}:{n}:{i}".encode()).hexdigest()
        seg_id = f"seg_{digest[:16]}"
        when = base + timedelta(hours=7 * i)
        ts, day = when.strftime("%Y-%m-%dT%H:%M:%SZ"), when.strftime("%Y-%m-%d")
        fresh: dict[str, dict[str, Any]] = {
            "episodes": {"id": seg_id, "source": seg_id, "ts": ts},
            "sources": {"id": seg_id, "hash": f"sha256:{digest}", "ts": ts},
            "observations": {"source": seg_id, "ts": ts, "when": day},
            "open_loops": {"source": seg_id, "ts": ts},
            "contradictions": {"source_new": seg_id, "ts_new": ts},
        }
        for section, items in added[i % pool].items():
            for item in items:
                copy = {**item, **fresh[section]}
                if section == "open_loops":
                    copy["item"] = f"{item['item']} (#{i})"
                doc[section].append(copy)
    entities = {e["name"].casefold(): e for e in doc.get("entities", [])}
    rng = Random(f"{seed}:entities:{n}")
    while len(entities) < n // 10:
        name = f"{rng.choice(ENTITY_FIRST)} {rng.choice(ENTITY_LAST)} {len(entities)}"
        entities[name.casefold()] = {"name": name, "type": "person", "aliases": []}
    doc["entities"] = list(entities.values())
    # Every item is already in its stored form; the JSON round trip only unshares the copies.
    result: dict[str, Any] = orjson.loads(orjson.dumps(doc))
    return result


MERGE_STEPS = ("decode", "from_dict", "merge", "to_dict", "diff", "summarize", "encode")


@dataclasses.dataclass
class MergeFigures:
    """Timings (ms) of one merge at one passport size."""

    episodes: int
    doc_kb: float
    observations: int
    repeats: int
    steps_median_ms: dict[str, float]
    total_median_ms: float
    total_p95_ms: float
    extract_ms: float  # the rule extractor on the new segment (outside the lock)


def time_merge(n: int, seed: int, max_repeats: int, budget_s: float) -> MergeFigures:
    """Time every in-lock step of merging one new segment into a passport of ``n`` episodes.

    Repeats until ``max_repeats`` or the budget; at least three unless one repeat alone takes a
    third of the budget (a large passport: there one repeat is all the time allows).
    """
    doc = build_passport(n, seed)
    doc_bytes = orjson.dumps(doc)  # what asyncpg hands over, as JSON text
    observations = len(doc["observations"])
    known = tuple(b["key"] for section in ("facts", "prefs") for b in doc[section])
    del doc
    body = user_sessions(seed, f"new-{n}", 1, TURNS_PER_REQUEST)[0]
    segment = _segment_of(body)
    source = _source(segment)
    request = ExtractionInput(segment=segment, subject=body["subject"], known_keys=known)
    extractor = RuleExtractor()
    started = time.perf_counter()
    extraction: Extraction = asyncio.run(extractor.extract(request))
    extract_ms = (time.perf_counter() - started) * 1000
    now = "2030-01-01T00:00:00Z"

    def once() -> dict[str, float]:
        marks = [time.perf_counter()]
        old_doc = orjson.loads(doc_bytes)
        marks.append(time.perf_counter())
        passport = Passport.from_dict(old_doc)
        marks.append(time.perf_counter())
        report = merge_extraction(passport, extraction, source, now=now)
        marks.append(time.perf_counter())
        new_doc = passport.to_dict()
        marks.append(time.perf_counter())
        change = delta.diff(old_doc, new_doc)
        marks.append(time.perf_counter())
        delta.summarize_delta(old_doc, change)  # what record_version does
        marks.append(time.perf_counter())
        orjson.dumps(new_doc)
        orjson.dumps(change)
        marks.append(time.perf_counter())
        # The rule extractor writes no episode: the merge adds the segment's source.
        assert report.changed and len(new_doc["sources"]) == len(old_doc.get("sources", [])) + 1
        return {name: (marks[i + 1] - marks[i]) * 1000 for i, name in enumerate(MERGE_STEPS)}

    if len(doc_bytes) < 20_000_000:
        once()  # warm-up, not counted (a big passport has no start-up cost worth a repeat)
    runs: list[dict[str, float]] = []
    deadline = time.perf_counter() + budget_s
    while len(runs) < max_repeats:
        gc.collect()  # each repeat starts from the same heap, not the last one's garbage
        runs.append(once())
        if time.perf_counter() >= deadline and (
            len(runs) >= 3 or sum(runs[0].values()) / 1000 > budget_s / 3
        ):
            break
    totals = [sum(r.values()) for r in runs]
    return MergeFigures(
        episodes=n,
        doc_kb=len(doc_bytes) / 1024,
        observations=observations,
        repeats=len(runs),
        steps_median_ms={s: statistics.median(r[s] for r in runs) for s in MERGE_STEPS},
        total_median_ms=statistics.median(totals),
        total_p95_ms=percentile(totals, 95),
        extract_ms=extract_ms,
    )


# --- part 3: the Python work of one request, in process ---------------------------------------


def time_request_steps(seed: int, repeats: int) -> dict[str, float]:
    """Median ms of the domain steps one 20-turn request costs the API and the worker."""
    from app.domain.memory.log import source_of
    from app.services import ingest
    from app.settings import Settings

    settings = Settings()
    bodies = user_sessions(seed, "steps", 21, TURNS_PER_REQUEST)
    raw = orjson.dumps(bodies[-1])
    # The worker merges into the user's passport as it is by then: here 20 earlier sessions.
    passport = Passport.empty("steps")
    for body in bodies[:-1]:
        segment = _segment_of(body)
        extraction = extract_rules(ExtractionInput(segment=segment, subject=body["subject"]))
        merge_extraction(passport, extraction, _source(segment), now="2030-01-01T00:00:00Z")
    small_doc = orjson.dumps(passport.to_dict())

    def api_accept() -> None:
        payload = IngestPayload.model_validate_json(raw)
        body = ingest.stored_payload(payload)
        sha256_hex(body)
        ingest.plan(payload, settings)

    stored = orjson.loads(
        orjson.dumps(ingest.stored_payload(IngestPayload.model_validate_json(raw)))
    )

    def worker_prepare() -> None:
        ingest.segments_of(IngestPayload.model_validate(stored), settings)

    segment = ingest.segments_of(IngestPayload.model_validate_json(raw), settings)[0]
    request = ExtractionInput(segment=segment, subject=bodies[-1]["subject"])
    extraction = extract_rules(request)

    def worker_extract() -> None:
        extract_rules(request)

    source = source_of(segment, datetime(2030, 1, 1, tzinfo=UTC))

    def worker_merge() -> None:
        old_doc = orjson.loads(small_doc)
        p = Passport.from_dict(old_doc)
        p.known_keys()
        p = Passport.from_dict(orjson.loads(small_doc))  # parsed again under the lock
        merge_extraction(p, extraction, source, now="2030-01-01T00:00:00Z")
        new_doc = p.to_dict()
        delta.summarize_delta(old_doc, delta.diff(old_doc, new_doc))
        orjson.dumps(new_doc)

    steps: dict[str, Callable[[], None]] = {
        "API: validate, hash, segment (plan)": api_accept,
        "worker: reload payload, segment": worker_prepare,
        "worker: rule extraction (1 segment)": worker_extract,
        "worker: parse x2, merge, diff, encode (21 ep.)": worker_merge,
    }
    out: dict[str, float] = {}
    for name, step in steps.items():
        step()
        samples = []
        for _ in range(repeats):
            t = time.perf_counter()
            step()
            samples.append((time.perf_counter() - t) * 1000)
        out[name] = statistics.median(samples)
    return out


# --- part 1: end to end -----------------------------------------------------------------------


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def cpu_seconds(pid: int, tree: bool) -> float:
    """CPU seconds of a process (and, with ``tree``, its children, live and reaped); NaN if
    unknown. psutil comes with pgserver (the embedded extra)."""
    try:
        import psutil
    except ImportError:
        return float("nan")
    try:
        proc = psutil.Process(pid)
        times = proc.cpu_times()
        total = times.user + times.system
        if tree:
            total += times.children_user + times.children_system
            for child in proc.children(recursive=True):
                with contextlib.suppress(psutil.Error):
                    t = child.cpu_times()
                    total += t.user + t.system
        return total
    except psutil.Error:
        return float("nan")


class Stack:
    """Embedded Postgres and Redis (unless given), migrations, the API and one worker."""

    def __init__(
        self, poll_delay: float | None = None, api_processes: int = 1, workers: int = 1
    ) -> None:
        self.poll_delay = poll_delay  # None: the app's worker as it ships
        self.api_processes = api_processes  # `tessera api --workers N`
        self.workers = workers  # worker processes on the one queue
        self.root = Path(tempfile.mkdtemp(prefix="tsrb-"))  # short: Unix socket path limit
        self.servers: Any = None
        self.children: dict[str, subprocess.Popen[bytes]] = {}
        self.logs: dict[str, Path] = {}
        self.admin_token = "adm_bench_" + secrets.token_urlsafe(16)
        self.base_url = ""
        self.database_url = ""
        self.embedded = False
        self.commands: dict[str, list[str]] = {}
        self.env: dict[str, str] = {}

    def start(self) -> None:
        """Start everything; raises with the child's log tail if it dies on the way."""
        from app.db.engine import upgrade

        db_url = os.environ.get("TESSERA_DATABASE_URL")
        redis_url = os.environ.get("TESSERA_REDIS_URL")
        if not (db_url and redis_url):
            from app.cli.embedded import EmbeddedServers

            self.servers = EmbeddedServers(self.root)
        if not db_url:
            log(f"starting embedded Postgres in {self.root}")
            db_url = self.servers.postgres.start()
            self.embedded = True
        if not redis_url:
            redis_url = self.servers.redis.start()
        log("migrating")
        upgrade(db_url)
        self.database_url = db_url
        port = free_port()
        self.base_url = f"http://127.0.0.1:{port}"
        env = dict(os.environ)
        env.update(
            TESSERA_DATABASE_URL=db_url,
            TESSERA_REDIS_URL=redis_url,
            TESSERA_ADMIN_TOKEN=self.admin_token,
            # Our own queue: a dev worker on the same Redis must not take our jobs.
            TESSERA_QUEUE_NAME=f"tessera-bench:{secrets.token_hex(4)}",
            TESSERA_DATA_DIR=str(self.root),
            # BEAM has a few messages longer than the default turn limit: as an operator would.
            TESSERA_MAX_TURN_CHARS="1000000",
            TESSERA_MAX_BODY_BYTES="20000000",
        )
        base = [sys.executable, "-m", "app.cli.main"]
        api = [*base, "api", "--host", "127.0.0.1", "--port", str(port)]
        worker = (
            [*base, "worker"]
            if self.poll_delay is None
            else [sys.executable, "-m", "bench.worker", str(self.poll_delay)]
        )
        commands = {"api": [*api, "--workers", str(self.api_processes)], "worker": worker}
        for n in range(2, self.workers + 1):
            commands[f"worker-{n}"] = worker
        self.commands, self.env = commands, env
        for name in commands:
            self.logs[name] = self.root / f"{name}.log"
            self.logs[name].write_bytes(b"")
            self._spawn(name)
        self._wait_ready()

    def _spawn(self, name: str) -> None:
        with self.logs[name].open("ab") as out:
            self.children[name] = subprocess.Popen(
                self.commands[name], env=self.env, cwd=REPO, stdout=out, stderr=subprocess.STDOUT
            )

    def restart_api(self) -> None:
        """Stop the API process(es) and start them again, as a deploy does: no cache survives."""
        child = self.children["api"]
        child.terminate()
        child.wait(timeout=30)
        self._spawn("api")
        self._wait_ready()

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            self.check_alive()
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.base_url}/readyz", timeout=2).status_code == 200:
                    return
            time.sleep(0.2)
        raise RuntimeError(f"the API did not become ready\n{self.tail('api')}")

    def check_alive(self) -> None:
        """Raise if the API or the worker has exited."""
        for name, child in self.children.items():
            if child.poll() is not None:
                raise RuntimeError(f"{name} exited with {child.returncode}\n{self.tail(name)}")

    def tail(self, name: str, lines: int = 30) -> str:
        """The end of a child's log."""
        path = self.logs.get(name)
        if path is None or not path.exists():
            return ""
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])

    def cpu_pids(self) -> dict[str, tuple[int, bool]]:
        """Processes whose CPU we account: name -> (pid, include children)."""
        # With several API processes, uvicorn's supervisor is the child: count its children too;
        # a worker runs the rule extractor in a pool of child processes: count them too.
        pids = {
            name: (child.pid, name != "api" or self.api_processes > 1)
            for name, child in self.children.items()
        }
        if self.embedded:
            pidfile = self.root / "pg" / "postmaster.pid"
            with contextlib.suppress(OSError, ValueError, IndexError):
                pids["postgres"] = (int(pidfile.read_text().splitlines()[0]), True)
        redis_proc = getattr(getattr(self.servers, "redis", None), "_process", None)
        if redis_proc is not None:
            pids["redis"] = (redis_proc.pid, False)
        pids["client"] = (os.getpid(), False)
        return pids

    def stop(self) -> None:
        """Stop the children, then the servers, then remove the temp dir; never raises."""
        for child in self.children.values():
            if child.poll() is None:
                child.terminate()
        for child in self.children.values():
            try:
                child.wait(timeout=20)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait(timeout=5)
        if self.servers is not None:
            try:
                self.servers.stop()
            except Exception as exc:  # keep cleaning up
                log(f"stopping the embedded servers failed: {exc}")
        shutil.rmtree(self.root, ignore_errors=True)


@contextlib.contextmanager
def running_stack(
    poll_delay: float | None = None, api_processes: int = 1, workers: int = 1
) -> Iterator[Stack]:
    """A started Stack, always stopped afterwards (even on error or Ctrl-C)."""
    stack = Stack(poll_delay, api_processes, workers)
    try:
        stack.start()
        yield stack
    except BaseException:
        for name in stack.children:  # the logs go with the temp dir: show their ends now
            log(f"last lines of the {name} log:\n{stack.tail(name, 15)}")
        raise
    finally:
        log("stopping the API, the worker and the servers")
        stack.stop()


def _parse_time(value: str) -> float:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()


async def run_scenario(
    stack: Stack,
    client: httpx.AsyncClient,
    headers: dict[str, str],
    *,
    name: str,
    users: int,
    requests: int,
    turns: int,
    seed: int,
    passport_episodes: int = 0,
    given: list[list[dict[str, Any]]] | None = None,
) -> dict[str, Any]:
    """Each user POSTs its sessions back to back (no ?wait), then polls its jobs to the end.

    ``given`` holds each user's request bodies; by default they are made up (``user_sessions``).
    """
    tag = secrets.token_hex(3)
    keys = [f"bench-{tag}-u{i}" for i in range(users)]
    made = given or [user_sessions(seed, f"{name}-u{i}", requests, turns) for i in range(users)]
    chars = sum(text_chars(b) for bodies_of in made for b in bodies_of)
    bodies = {key: [orjson.dumps(b) for b in made[i]] for i, key in enumerate(keys)}
    post_headers = {**headers, "Content-Type": "application/json"}
    start_version = dict.fromkeys(keys, 0)
    if passport_episodes:
        # A user with history: import a grown passport first (not timed).
        doc = build_passport(passport_episodes, seed)
        for key in keys:
            resp = await client.put(
                f"/users/{key}/passport",
                content=orjson.dumps({**doc, "user_key": key}),
                headers=post_headers,
            )
            if resp.status_code not in (200, 201):
                raise RuntimeError(f"import answered {resp.status_code}: {resp.text[:300]}")
            start_version[key] = resp.json()["version"]
    accept_ms: list[float] = []
    jobs: list[dict[str, Any]] = []
    refused = [0]

    async def send(method: str, url: str, **kwargs: Any) -> httpx.Response:
        """One request, sent again after Retry-After while the tenant's rate limit refuses it."""
        while True:
            resp = await client.request(method, url, **kwargs)
            if resp.status_code != 429:
                return resp
            refused[0] += 1
            await asyncio.sleep(float(resp.headers.get("Retry-After", "1")))

    async def user(key: str) -> None:
        ids = []
        for body in bodies[key]:
            started = time.perf_counter()
            resp = await send("POST", f"/users/{key}/ingest", content=body, headers=post_headers)
            accept_ms.append((time.perf_counter() - started) * 1000)
            if resp.status_code not in (200, 202):
                raise RuntimeError(f"ingest answered {resp.status_code}: {resp.text[:300]}")
            ids.append(resp.json()["job_id"])
        pending = list(ids)
        while pending:
            resp = await send("GET", f"/jobs/{pending[0]}", headers=headers)
            resp.raise_for_status()
            job = resp.json()
            if job["status"] in ("done", "failed"):
                jobs.append(job)
                pending.pop(0)
                continue
            stack.check_alive()
            await asyncio.sleep(POLL_SECONDS)

    pids = stack.cpu_pids()
    cpu_before = {n: cpu_seconds(pid, tree) for n, (pid, tree) in pids.items()}
    wall_start = time.time()
    started = time.perf_counter()
    await asyncio.wait_for(asyncio.gather(*(user(k) for k in keys)), SCENARIO_TIMEOUT)
    observed = time.perf_counter() - started
    cpu = {n: cpu_seconds(pid, tree) - cpu_before[n] for n, (pid, tree) in pids.items()}

    failed = [j for j in jobs if j["status"] != "done"]
    if failed:
        raise RuntimeError(f"{len(failed)} jobs failed, first: {failed[0]['error']}")
    last_version: dict[str, int] = {}
    for job in jobs:
        last_version[job["user_key"]] = max(
            last_version.get(job["user_key"], 0), job["version_after"]
        )
    # Every job lands in a version written after the run began (jobs run together share one).
    early = [j for j in jobs if j["version_after"] <= start_version[j["user_key"]]]
    if set(last_version) != set(keys) or early:
        raise RuntimeError(f"jobs without a new version: {len(early)}, last: {last_version}")
    # The jobs' own clocks: end = the last merge, not the next poll that saw it.
    elapsed = max(_parse_time(j["finished_at"]) for j in jobs) - wall_start
    n_jobs = len(jobs)
    n_turns = sum(j["result"]["plan"]["interactions"] for j in jobs)
    segments = sum(j["progress"]["total"] for j in jobs)
    job_ms = [(_parse_time(j["finished_at"]) - _parse_time(j["created_at"])) * 1000 for j in jobs]
    run_ms = [(_parse_time(j["finished_at"]) - _parse_time(j["started_at"])) * 1000 for j in jobs]
    wait_ms = [(_parse_time(j["started_at"]) - _parse_time(j["created_at"])) * 1000 for j in jobs]
    return {
        "scenario": name,
        "passport_episodes": passport_episodes,
        "users": users,
        "requests_per_user": round(sum(len(b) for b in made) / len(made), 1),
        "turns_per_request": turns,
        "jobs": n_jobs,
        "turns": n_turns,
        "segments": segments,
        "elapsed_s": elapsed,
        "observed_s": observed,
        "turns_per_s": n_turns / elapsed,
        "text_kb_per_s": chars / 1000 / elapsed,
        "jobs_per_s": n_jobs / elapsed,
        "accept_p50_ms": percentile(accept_ms, 50),
        "accept_p95_ms": percentile(accept_ms, 95),
        "rate_limited": refused[0],
        "job_p50_ms": percentile(job_ms, 50),
        "job_p95_ms": percentile(job_ms, 95),
        "wait_p50_ms": percentile(wait_ms, 50),
        "run_p50_ms": percentile(run_ms, 50),
        "cpu_ms_per_job": {n: s * 1000 / n_jobs for n, s in cpu.items()},
        # Per job, seconds after the first POST: accepted, claimed, merged (by finish time).
        "timeline": sorted(
            [
                round(_parse_time(j[k]) - wall_start, 4)
                for k in ("created_at", "started_at", "finished_at")
            ]
            for j in jobs
        ),
        "cpu_busy_cores": sum(v for v in cpu.values() if v == v) / observed,
    }


async def one_at_a_time(
    client: httpx.AsyncClient, headers: dict[str, str], requests: int
) -> dict[str, Any]:
    """POST ?wait=30 one request after another on an idle stack: what a lone agent waits for."""
    key = f"bench-{secrets.token_hex(3)}-solo"
    post_headers = {**headers, "Content-Type": "application/json"}
    round_trip, queued, job = [], [], []
    for body in user_sessions(SEED, "solo", requests, TURNS_PER_REQUEST):
        started = time.perf_counter()
        resp = await client.post(
            f"/users/{key}/ingest",
            content=orjson.dumps(body),
            headers=post_headers,
            params={"wait": 30},
        )
        round_trip.append((time.perf_counter() - started) * 1000)
        out = resp.json()["job"]
        if out["status"] != "done":
            raise RuntimeError(f"a job did not finish within ?wait=30: {resp.text[:300]}")
        created, claimed, merged = (
            _parse_time(out[k]) for k in ("created_at", "started_at", "finished_at")
        )
        queued.append((claimed - created) * 1000)
        job.append((merged - created) * 1000)
    return {
        "requests": requests,
        "round_trip_p50_ms": percentile(round_trip, 50),
        "round_trip_p95_ms": percentile(round_trip, 95),
        "queued_p50_ms": percentile(queued, 50),
        "queued_p95_ms": percentile(queued, 95),
        "job_p50_ms": percentile(job, 50),
        "job_p95_ms": percentile(job, 95),
    }


Scenario = tuple[str, int, int, int, int]  # name, users, requests per user, turns, episodes


async def end_to_end(
    stack: Stack, plan: list[Scenario], solo_requests: int
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Create a tenant, warm up, time lone requests, then run each scenario (episodes: of an
    imported passport)."""
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=60) as client:
        resp = await client.post(
            "/admin/tenants",
            json={"name": f"bench-{secrets.token_hex(3)}"},
            headers={"Authorization": f"Bearer {stack.admin_token}"},
        )
        if resp.status_code != 201:
            raise RuntimeError(f"creating a tenant answered {resp.status_code}: {resp.text}")
        headers = {"Authorization": f"Bearer {resp.json()['api_key']['key']}"}

        # Warm-up: imports, connection pools, the worker's first jobs; not measured. Several at
        # once, so every process of the worker's pool has started (and imported) before timing.
        async def warm(user: int) -> None:
            for body in user_sessions(SEED, f"warmup{user}", 3, TURNS_PER_REQUEST):
                resp = await client.post(
                    f"/users/bench-warmup-{user}/ingest",
                    json=body,
                    headers=headers,
                    params={"wait": 30},
                )
                if resp.json().get("status") != "done":
                    stack.check_alive()
                    raise RuntimeError(f"warm-up job did not finish: {resp.text[:300]}")

        await asyncio.gather(*(warm(user) for user in range(4)))
        log(f"end to end: {solo_requests} requests one at a time with ?wait")
        solo = await one_at_a_time(client, headers, solo_requests)
        results = []
        for name, users, requests, turns, episodes in plan:
            made = GIVEN_BODIES.get(name)
            given = made(users) if made else None
            shape = f"{requests} requests of {turns} turns" if given is None else "real chats"
            log(f"end to end: {name} ({users} users, {shape})")
            results.append(
                await run_scenario(
                    stack,
                    client,
                    headers,
                    name=name,
                    users=users,
                    requests=requests,
                    turns=turns,
                    passport_episodes=episodes,
                    seed=SEED,
                    given=given,
                )
            )
        return results, solo


# --- report -----------------------------------------------------------------------------------


def report(
    e2e: list[dict[str, Any]],
    solo: dict[str, Any],
    merges: list[MergeFigures],
    steps: dict[str, float],
    poll_delay: float | None = None,
) -> str:
    """The tables of the three parts."""
    parts = ["", "1. End to end, rule extractor: POST /ingest -> worker -> merged version"]
    if poll_delay is not None:
        parts.append(f"   WHAT-IF: the worker polls its queue every {poll_delay} s (arq: 0.5 s)")
    if not e2e:
        parts.append("   (skipped)")
    else:
        heads = ["scenario", "users", "req/user", "turns", "segs", "jobs", "elapsed s", "turns/s"]
        heads += ["text KB/s", "jobs/s", "accept p50 ms", "accept p95 ms", "429s"]
        keys = ["scenario", "users", "requests_per_user", "turns", "segments", "jobs", "elapsed_s"]
        keys += ["turns_per_s", "text_kb_per_s", "jobs_per_s", "accept_p50_ms", "accept_p95_ms"]
        keys += ["rate_limited"]
        parts.append(table(heads, [[r[k] for k in keys] for r in e2e]))
        parts.append(
            "   elapsed = first POST -> last merge; accept = the POST's round trip (202), waits"
            " after a 429 included;\n   429s = requests the tenant's rate limit refused (sent"
            " again after Retry-After)."
        )
        parts += [
            "",
            f"   One request at a time, idle stack ({solo['requests']} x POST ?wait=30), ms",
        ]
        heads = ["", "p50", "p95"]
        rows = [
            [label, solo[f"{key}_p50_ms"], solo[f"{key}_p95_ms"]]
            for label, key in (
                ("round trip of the POST", "round_trip"),
                ("accepted -> merged", "job"),
                ("of which queued", "queued"),
            )
        ]
        parts.append(table(heads, rows))
        parts += ["", "   Where a job's time goes (ms): queued = accepted -> claimed by the worker"]
        heads = ["scenario", "queued p50", "running p50", "job p50", "job p95"]
        keys = ["scenario", "wait_p50_ms", "run_p50_ms", "job_p50_ms", "job_p95_ms"]
        parts.append(table(heads, [[r[k] for k in keys] for r in e2e]))
        names = list(e2e[0]["cpu_ms_per_job"])
        parts += ["", "   CPU per job (ms) by process; busy = cores in use on average"]
        rows = []
        for r in e2e:
            cpu = r["cpu_ms_per_job"]
            total = sum(v for v in cpu.values() if v == v)
            rows.append([r["scenario"], *(cpu[n] for n in names), total, r["cpu_busy_cores"]])
        parts.append(table(["scenario", *names, "total", "busy"], rows))
    parts += ["", "2. One merge in process: the work done under the row lock (ms, median)"]
    heads = ["episodes", "doc KB", "obs.", *MERGE_STEPS, "total p50", "total p95", "repeats"]
    rows = [
        [
            m.episodes,
            m.doc_kb,
            m.observations,
            *(m.steps_median_ms[s] for s in MERGE_STEPS),
            m.total_median_ms,
            m.total_p95_ms,
            m.repeats,
        ]
        for m in merges
    ]
    parts.append(table(heads, rows) if merges else "   (skipped)")
    if merges:
        parts.append(
            "   Each job also parses the passport once before the lock (process_job): about"
            " decode + from_dict again."
        )
    parts += ["", "3. Python work of one 20-turn request, in process (ms, median)"]
    rows = [[k, v] for k, v in steps.items()]
    parts.append(table(["step", "ms"], rows) if rows else "   (skipped)")
    return "\n".join(parts) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print the tables."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.ingest", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    parser.add_argument("--json", metavar="PATH", help="also write the figures to this file")
    parser.add_argument(
        "--parts",
        default="1,2,3",
        help="which parts to run, comma-separated (default 1,2,3; 2,3 needs no servers)",
    )
    parser.add_argument(
        "--merge-sizes",
        metavar="N,N,...",
        help="passport sizes (episodes) for part 2; default 100,1000,10000 (--quick: 100,1000)",
    )
    parser.add_argument(
        "--beam",
        type=int,
        default=0,
        metavar="CHATS",
        help="also post this many BEAM user–assistant chats (../shared/data/beam500k), one user "
        "each, every session one request",
    )
    parser.add_argument(
        "--realtalk",
        type=int,
        default=0,
        metavar="CHATS",
        help="also post this many REALTALK two-person chats (../shared/data/realtalk), one user "
        "each, every session one request",
    )
    parser.add_argument(
        "--api-processes",
        type=int,
        default=os.cpu_count() or 1,
        metavar="N",
        help="API processes (default: one per core, as `make dev` runs them)",
    )
    parser.add_argument(
        "--worker-poll-delay",
        type=float,
        metavar="SECONDS",
        help="what-if: run the worker with this arq poll delay (arq's default, which the app "
        "keeps, is 0.5 s)",
    )
    args = parser.parse_args(argv)

    if args.quick:
        scenarios: list[Scenario] = [
            ("1 user", 1, 6, TURNS_PER_REQUEST, 0),
            ("4 users", 4, 3, TURNS_PER_REQUEST, 0),
            ("1 user, 100-turn requests", 1, 2, 100, 0),
            ("1 user, 100-session passport", 1, 2, TURNS_PER_REQUEST, 100),
        ]
        merge_sizes = [100, 1000]
        step_repeats = 5
        solo_requests = 3
    else:
        scenarios = [
            ("1 user", 1, 40, TURNS_PER_REQUEST, 0),
            ("4 users", 4, 15, TURNS_PER_REQUEST, 0),
            ("1 user, 100-turn requests", 1, 6, 100, 0),
            ("1 user, 300-session passport", 1, 4, TURNS_PER_REQUEST, 300),
        ]
        merge_sizes = [100, 1000, 10_000]
        step_repeats = 50
        solo_requests = 8

    if args.beam:
        scenarios.append((BEAM_SCENARIO, args.beam, 10, 0, 0))
    if args.realtalk:
        scenarios.append((REALTALK_SCENARIO, args.realtalk, 0, 0, 0))
    parts = {p.strip() for p in args.parts.split(",")}
    if not parts <= {"1", "2", "3"}:
        parser.error("--parts takes 1, 2 and 3")
    started = time.perf_counter()
    # The in-process parts first, while no servers run beside them.
    merges = []
    if args.merge_sizes:
        merge_sizes = [int(v) for v in args.merge_sizes.split(",")]
    for n in merge_sizes if "2" in parts else []:
        # (most repeats, seconds) by size; --quick shrinks both
        repeats, budget = (100, 4.0) if n <= 100 else (20, 8.0) if n <= 1000 else (10, 15.0)
        if args.quick:
            repeats, budget = max(repeats // 5, 3), budget / 4
        log(f"merge cost at {n:,} episodes")
        merges.append(time_merge(n, SEED, repeats, budget))
    steps: dict[str, float] = {}
    if "3" in parts:
        log("per-request steps")
        steps = time_request_steps(SEED, step_repeats)
    e2e: list[dict[str, Any]] = []
    solo: dict[str, Any] = {}
    if "1" in parts:
        with running_stack(args.worker_poll_delay, api_processes=args.api_processes) as stack:
            e2e, solo = asyncio.run(end_to_end(stack, scenarios, solo_requests))
    total = time.perf_counter() - started

    print(report(e2e, solo, merges, steps, args.worker_poll_delay))
    print(f"({'quick run, ' if args.quick else ''}{total:.0f} s in all; nproc {nproc()})")
    if args.json:
        figures = {
            "date": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "command": shlex.join([Path(sys.executable).name, "-m", "bench.ingest", *sys.argv[1:]]),
            "nproc": nproc(),
            "python": platform.python_version(),
            "quick": args.quick,
            "worker_poll_delay": args.worker_poll_delay,
            "end_to_end": e2e,
            "one_at_a_time": solo,
            "merge": [dataclasses.asdict(m) for m in merges],
            "request_steps_ms": steps,
            "seconds": total,
        }
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
