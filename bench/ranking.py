"""Where a context read's time goes as the log grows, in process: BM25, selection, filling.

``python -m bench.ranking [--sizes 10,100,1000,10000] [--questions 300] [--json OUT]``

The histories are ``bench.agent_loop``'s (the same seed, sessions of 20 turns of the synthetic
chat, made into log rows by ingest's own steps), indexed at once in process;
the questions are the loop's. Per size, the median over the questions of each public step of
``build_context`` at a 3,000-character budget, each timed whole (each includes the one before):

- ``scores``: ``EvidenceIndex.scores``, BM25 of every passage (one multiply-add per posting);
- ``rank``: the matches, the best candidates, a named speaker's lift, the run share, the count of
  matching records;
- ``assemble``: repeats set aside, hits and neighbours by priority into the budget, lines
  rendered in time order;
- ``build_context``: the beliefs too (the head here is empty: its cost does not grow).

Each column's ratio to the smallest size is printed beside it, with the postings the questions'
words have and the records that match, and ``gc visits``: the references a full garbage
collection follows through the index (``collector_walk``), what a long history adds to every
collection's pause while the index is cached. No servers; the live loop is ``bench.agent_loop``.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from random import Random
from types import ModuleType
from typing import Any

from app.domain.context import EvidenceIndex, MemoryIndex, TurnRecord, build_context, records_of
from app.domain.context.budget import assemble
from app.domain.context.ranking.question import Question
from app.domain.context.ranking.scorer import rank
from app.domain.ingest.payload import IngestPayload
from app.domain.ingest.segmentation import prepare
from app.domain.memory.log import turn_rows
from app.domain.passport import Passport
from bench.agent_loop import SEED, SIZES, TURNS, USER, question, received_at, sizes_of
from bench.ingest import log, table, user_sessions

BUDGET = 3000
STEPS = ("scores", "rank", "assemble", "build_context")


def records(sessions: list[dict[str, Any]]) -> list[TurnRecord]:
    """The sessions' turns as ingest writes them to the log (dates resolved), in order."""
    rows: list[tuple[int, str, dict[str, Any]]] = []
    for body in sessions:
        segments = prepare(IngestPayload.model_validate(body))
        rows += [
            (len(rows) + n + 1, row.kind, row.item)
            for n, (_, row) in enumerate(turn_rows(segments, received_at(body)))
        ]
    return records_of(rows)


def _ms(step: Callable[[], object]) -> float:
    start = time.perf_counter()
    step()
    return (time.perf_counter() - start) * 1000


def collector_walk(root: object) -> int:
    """The references a full garbage collection follows through what ``root`` holds.

    Each tracked container reachable from ``root`` costs the collector one visit per reference
    it holds, on every full collection, for as long as the index is cached.
    """
    gc.collect()  # tuples and dicts of plain values are untracked once a collection saw them
    seen: set[int] = set()
    todo = [root]
    visits = 0
    while todo:
        obj = todo.pop()
        # Classes, modules and functions are the program's, not the index's.
        if (
            id(obj) in seen
            or not gc.is_tracked(obj)
            or isinstance(obj, ModuleType)
            or callable(obj)
        ):
            continue
        seen.add(id(obj))
        held = gc.get_referents(obj)
        visits += len(held)
        todo.extend(held)
    return visits


def measure(index: MemoryIndex, questions: list[str]) -> dict[str, float]:
    """Median milliseconds of each step over the questions, after one warm-up pass."""
    evidence: EvidenceIndex = index.evidence
    for q in questions:  # warm-up: terms reweighed after the last doubling, caches filled
        build_context(index, q, BUDGET)
    times: dict[str, list[float]] = {step: [] for step in STEPS}
    postings, matching = [], []
    for q in questions:
        asked = Question.of(q)
        assert asked is not None
        tokens = list(asked.tokens)
        steps = (
            partial(evidence.scores, tokens),
            partial(rank, evidence, asked, None, BUDGET),
            partial(assemble, evidence, asked, BUDGET),
            partial(build_context, index, q, BUDGET),
        )
        for name, step in zip(STEPS, steps, strict=True):
            times[name].append(_ms(step))
        postings.append(sum(evidence.document_frequency(t) for t in tokens))
        matching.append(rank(evidence, asked, None, BUDGET).matching)
    out = {step: statistics.median(values) for step, values in times.items()}
    out["postings"] = statistics.median(postings)
    out["matching"] = statistics.median(matching)
    out["passages"] = evidence.n_passages
    out["gc_visits"] = collector_walk(evidence)
    return out


def run(sizes: list[int], n_questions: int) -> dict[int, dict[str, float]]:
    """Each size's step medians, over one history grown to the largest size."""
    history = records(user_sessions(SEED, USER, max(sizes), TURNS))
    rng = Random(SEED)
    questions = [question(rng) for _ in range(n_questions)]
    figures = {}
    for size in sizes:
        log(f"indexing {size:,} sessions")
        index = MemoryIndex.of(Passport.empty(USER), history[: size * TURNS])
        figures[size] = measure(index, questions)
    return figures


def report(figures: dict[int, dict[str, float]]) -> str:
    """The table: each step's median and its ratio to the smallest size."""
    base = figures[min(figures)]
    rows = [
        [
            f"{size:,}",
            f"{cell['passages']:,.0f}",
            f"{cell['postings']:,.0f}",
            f"{cell['matching']:,.0f}",
            *(f"{cell[s]:.2f} ({cell[s] / base[s]:.1f}x)" for s in STEPS),
            f"{cell['gc_visits']:,.0f}",
        ]
        for size, cell in figures.items()
    ]
    headers = [
        "sessions",
        "passages",
        "postings",
        "matching",
        *(f"{s} ms" for s in STEPS),
        "gc visits",
    ]
    return (
        f"build_context at {BUDGET:,} characters, in process, median per question "
        f"(ratio to {min(figures):,} sessions)\n" + table(headers, rows)
    )


def main(argv: list[str] | None = None) -> int:
    """CLI: index the sizes, time the steps, print the table, optionally write the JSON."""
    parser = argparse.ArgumentParser(prog="python -m bench.ranking", description=__doc__)
    parser.add_argument("--sizes", type=sizes_of, default=SIZES, help="sessions, comma-separated")
    parser.add_argument("--questions", type=int, default=300, help="questions per size")
    parser.add_argument("--json", type=Path, help="write every figure here")
    args = parser.parse_args(argv)
    figures = run(list(args.sizes), args.questions)
    print(report(figures))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
