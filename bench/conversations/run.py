"""User–assistant benchmark: each BEAM chat ingested as one user through the real pipeline in
process, then, per probing question and budget, how many of its rubric phrases Tessera's context
holds, beside a BM25 ranking of the raw messages in the same budget and beside the whole chat.

``python -m bench.conversations [--data PATH] [--chats N] [--budgets 1500,3000,6000] [--json OUT]``

Measures, per question: answer in context (every rubric phrase appears, normalised; a phrase that
gives a date is found in any spelling of it); answer items (the share of its phrases that appear);
source messages named (for a question whose source messages the set gives: the share of them
whose ids the context names, as REALTALK's evidence recall). Per ability and in all. Also the
share of Tessera's context spent on beliefs, and ingest throughput in process. Data: BEAM
(Tavakoli et al. 2025), read from ``../shared/data/beam500k`` or ``--data``, never copied here.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rank_bm25 import BM25Okapi

from app.domain.context import MemoryIndex, build_context
from app.domain.context.vectors import Vectors
from app.domain.extraction.extractor import Extraction, ExtractionInput
from app.domain.extraction.rules import RuleExtractor
from app.domain.ingest.payload import IngestLimits, IngestPayload
from bench.conversations.data import DEFAULT_DATA, Chat, DataError, Message, Question, load
from bench.pipeline import InMemoryUser
from bench.questions import QuestionFigure, write_figures
from bench.realtalk.metrics import Answer, Haystack
from bench.realtalk.run import budget_list, provenance
from bench.recall.run import domain_digest, fill_budget, text_table, word_tokens
from bench.semantic import CHOICES, Semantic
from bench.splits import HALVES, of_half

BUDGETS = (1500, 3000, 6000)
# A few BEAM messages are longer than the service's default turn limit (200,000 characters):
# run as an operator would for such chats, with TESSERA_MAX_TURN_CHARS=1000000.
LIMITS = IngestLimits(max_turn_chars=1_000_000, max_total_chars=20_000_000)
TESSERA, BASELINE, WHOLE = "tessera", "bm25", "whole"
SYSTEMS = (TESSERA, BASELINE)
LABELS = {TESSERA: "tessera", BASELINE: "bm25 raw messages", WHOLE: "whole chat"}


def _iso(ts: datetime) -> str:
    return f"{ts.astimezone(UTC):%Y-%m-%dT%H:%M:%SZ}"


# --- ingest ---------------------------------------------------------------------------------------


def payload_of(session: Sequence[Message]) -> IngestPayload:
    """One batch as an agent would POST its message list: role and content, with ids and times."""
    return IngestPayload.model_validate(
        {
            "session_ts": _iso(session[0].ts),
            "turns": [
                {"role": m.role, "content": m.text, "ts": _iso(m.ts), "id": m.id} for m in session
            ],
        }
    )


@dataclass(frozen=True)
class Ingested:
    """A chat's passport, how many segments its batches made, how many failed, and the time."""

    user: InMemoryUser
    segments: int
    failed: int
    seconds: float


async def ingest(chat: Chat) -> Ingested:
    """Every batch as one job with the rule extractor, as the worker runs it."""
    user = InMemoryUser(f"beam-{chat.id}")
    extractor = RuleExtractor()
    segments = failed = 0

    async def extract(request: ExtractionInput) -> Extraction | None:
        nonlocal failed
        try:
            return await extractor.extract(request)
        except Exception:  # the worker records a failed segment and applies the others
            failed += 1
            return None

    started = time.perf_counter()
    for session in chat.sessions:
        segments += await user.ingest(payload_of(session), session[-1].ts, extract, LIMITS)
    return Ingested(user, segments, failed, time.perf_counter() - started)


# --- the contexts ---------------------------------------------------------------------------------


def raw_line(message: Message) -> str:
    """A message as the baseline and the whole chat show it: '[date] role: text'."""
    return f"[{message.ts:%Y-%m-%d}] {message.role}: {message.text}"


class RawMessages:
    """The baseline: every message as a raw line, ranked by ``BM25Okapi`` for the question."""

    def __init__(self, chat: Chat) -> None:
        self.lines = [raw_line(m) for m in chat.messages]
        self.ids = [m.id for m in chat.messages]
        self.bm25 = BM25Okapi([word_tokens(line) for line in self.lines])

    def context(self, q: str, budget: int) -> tuple[str, set[str]]:
        """Best-scoring lines first (newer first on ties) while they fit, shown in time order;
        and the ids of their messages."""
        chosen = fill_budget(self.lines, self.bm25.get_scores(word_tokens(q)), budget)
        return "\n".join(self.lines[i] for i in chosen), {self.ids[i] for i in chosen}

    def whole(self) -> str:
        """The chat, every message."""
        return "\n".join(self.lines)


# --- scoring --------------------------------------------------------------------------------------


@dataclass
class Tally:
    """Sums over some questions: answers wholly in context, shares of phrases, belief chars."""

    questions: int = 0
    answered: int = 0
    items_sum: float = 0.0
    chars: int = 0
    belief_chars: int = 0
    sourced: int = 0  # questions whose source messages are given, and a context that names ids
    sources_sum: float = 0.0  # per such question: the share of its source messages named

    def add(
        self, found: Sequence[bool], chars: int, beliefs: int, sources: Shown | None = None
    ) -> None:
        """One question: which of its phrases the context holds, its length, its beliefs'."""
        self.questions += 1
        self.answered += all(found)
        self.items_sum += sum(found) / len(found)
        self.chars += chars
        self.belief_chars += beliefs
        share = sources.share if sources is not None else None
        if share is not None:
            self.sourced += 1
            self.sources_sum += share

    @property
    def answer(self) -> float:
        return self.answered / self.questions if self.questions else 0.0

    @property
    def items(self) -> float:
        return self.items_sum / self.questions if self.questions else 0.0

    @property
    def source_recall(self) -> float:
        return self.sources_sum / self.sourced if self.sourced else 0.0

    @property
    def belief_share(self) -> float:
        return self.belief_chars / self.chars if self.chars else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "questions": self.questions,
            "answer_in_context": round(self.answer, 4),
            "answer_items": round(self.items, 4),
            "belief_share": round(self.belief_share, 4),
            "source_recall": round(self.source_recall, 4),
        }


@dataclass(frozen=True)
class Shown:
    """The ids of a question's source messages, and those a context names."""

    asked: frozenset[str]
    named: frozenset[str]

    @property
    def share(self) -> float | None:
        """The share of the source messages named; None when the set gives none."""
        return len(self.asked & self.named) / len(self.asked) if self.asked else None


@dataclass
class Results:
    """Tallies per (system, budget, ability); 'all' is every ability, budget 0 is unbounded."""

    tallies: dict[tuple[str, int, str], Tally] = field(default_factory=dict)
    abilities: list[str] = field(default_factory=list)
    per_question: list[QuestionFigure] = field(default_factory=list)  # Tessera's

    def tally(self, system: str, budget: int, ability: str) -> Tally:
        return self.tallies.setdefault((system, budget, ability), Tally())

    def add(
        self,
        system: str,
        budget: int,
        question: Question,
        text: str | Haystack,
        belief_chars: int = 0,
        named: set[str] | None = None,
    ) -> None:
        if question.ability not in self.abilities:
            self.abilities.append(question.ability)
        phrases = [Answer.of(p) for p in question.phrases]
        hay = text if isinstance(text, Haystack) else Haystack.of(text)
        chars = 0 if isinstance(text, Haystack) else len(text)
        shown = Shown(frozenset(question.sources), frozenset(named)) if named is not None else None
        found = [p.in_context(hay) for p in phrases]
        for key in (question.ability, "all"):
            self.tally(system, budget, key).add(found, chars, belief_chars, shown)
        if system == TESSERA:
            self.per_question.append(
                QuestionFigure(
                    question.question,
                    question.ability,
                    budget,
                    all(found),
                    sum(found) / len(found),
                    shown.share if shown is not None else None,
                )
            )


def belief_chars(
    index: MemoryIndex, q: str, budget: int, vector: Vectors | None = None
) -> tuple[str, int, set[str]]:
    """Tessera's text context, how many of its characters its beliefs take, and the message
    ids its JSON form names."""
    ctx = build_context(index, q, budget, vector=vector)
    spent = sum(len(line.text) + 3 for line in ctx.beliefs)  # "- " and a newline each
    named = set(provenance(ctx.to_json()))
    return ctx.text, spent + (len("Beliefs:\n") if ctx.beliefs else 0), named


def evaluate(
    chat: Chat,
    index: MemoryIndex,
    budgets: Sequence[int],
    results: Results,
    semantic: Semantic | None = None,
) -> None:
    """Every question of one chat, at every budget, for every system."""
    raw = RawMessages(chat)
    whole = Haystack.of(raw.whole())
    everything = set(raw.ids)
    for question in chat.questions:
        results.add(WHOLE, 0, question, whole, named=everything)
        vector = semantic.vector(question.question) if semantic is not None else None
        for budget in budgets:
            text, beliefs, named = belief_chars(index, question.question, budget, vector)
            results.add(TESSERA, budget, question, text, beliefs, named)
            raw_text, raw_named = raw.context(question.question, budget)
            results.add(BASELINE, budget, question, raw_text, named=raw_named)


# --- output ---------------------------------------------------------------------------------------


def report(results: Results, budgets: Sequence[int], meta: dict[str, Any]) -> str:
    """The side-by-side table, then each measure by ability."""
    lines = [
        f"BEAM: {meta['chats']} chats, {meta['messages']:,} messages "
        f"({meta['text_kb']:,} KB of text), {meta['questions']} questions with rubric phrases; "
        f"ingest {meta['ingest_seconds']:.1f} s ({meta['messages_per_second']:.0f} messages/s, "
        f"{meta['kb_per_second']:.0f} KB/s; {meta['segments']} segments, "
        f"{meta['failed_segments']} failed), evaluation {meta['eval_seconds']:.1f} s; "
        f"app/domain {meta['domain_sha256']}",
        "",
        "answer = every rubric phrase of the question in the text (dates in any spelling);",
        "items = the share of its phrases in the text; beliefs = share of the context's",
        "characters spent on beliefs",
        "",
    ]
    headers = ["budget", "system", "answer in context", "answer items", "beliefs"]
    rows: list[list[str]] = []
    for budget in budgets:
        for system in SYSTEMS:
            t = results.tally(system, budget, "all")
            share = f"{t.belief_share:.3f}" if system == TESSERA else "-"
            rows.append([f"{budget:,}", LABELS[system], f"{t.answer:.3f}", f"{t.items:.3f}", share])
    w = results.tally(WHOLE, 0, "all")
    rows.append(["all", LABELS[WHOLE], f"{w.answer:.3f}", f"{w.items:.3f}", "-"])
    lines += [text_table(headers, rows), ""]
    measures = (("Answer in context", _answer), ("Answer items", _items))
    for title, value in (*measures, ("Source messages named", _sources)):
        headers = ["ability", "n"]
        for budget in budgets:
            headers += [f"{budget / 1000:g}k T", "B"]
        headers.append("whole")
        rows = []
        for ability in [*sorted(results.abilities), "all"]:
            row = [ability, str(results.tally(WHOLE, 0, ability).questions)]
            for budget in budgets:
                row += [f"{value(results.tally(s, budget, ability)):.3f}" for s in SYSTEMS]
            row.append(f"{value(results.tally(WHOLE, 0, ability)):.3f}")
            rows.append(row)
        lines += [
            f"{title} by ability (T = tessera, B = bm25 baseline)",
            text_table(headers, rows),
            "",
        ]
    return "\n".join(lines)


def _answer(t: Tally) -> float:
    return t.answer


def _items(t: Tally) -> float:
    return t.items


def _sources(t: Tally) -> float:
    return t.source_recall


def figures(results: Results, budgets: Sequence[int], meta: dict[str, Any]) -> dict[str, Any]:
    """Every tally as JSON."""
    keys = [*sorted(results.abilities), "all"]
    systems = {
        system: {str(b): {k: results.tally(system, b, k).to_dict() for k in keys} for b in budgets}
        for system in SYSTEMS
    }
    systems[WHOLE] = {"all": {k: results.tally(WHOLE, 0, k).to_dict() for k in keys}}
    return {"meta": meta, "systems": systems}


# --- main -----------------------------------------------------------------------------------------


async def run(
    chats: Sequence[Chat], budgets: Sequence[int], semantic: Semantic | None = None
) -> tuple[Results, dict[str, Any]]:
    """Ingest and evaluate every chat (``semantic``: with an embedding model)."""
    semantic = semantic or Semantic("off")
    results = Results()
    ingest_seconds = eval_seconds = 0.0
    segments = failed = 0
    for chat in chats:
        done = await ingest(chat)
        segments += done.segments
        failed += done.failed
        ingest_seconds += done.seconds
        index = done.user.index()
        await semantic.embed_passages(index)
        started = time.perf_counter()
        evaluate(chat, index, budgets, results, semantic)
        eval_seconds += time.perf_counter() - started
    messages = sum(len(c.messages) for c in chats)
    text = sum(len(m.text) for c in chats for m in c.messages)
    meta = {
        "data": "BEAM (Tavakoli et al. 2025), chats/500K",
        "chats": len(chats),
        "messages": messages,
        "text_kb": text // 1000,
        "questions": sum(len(c.questions) for c in chats),
        "segments": segments,
        "failed_segments": failed,
        "budgets": list(budgets),
        "ingest_seconds": round(ingest_seconds, 2),
        "messages_per_second": messages / ingest_seconds if ingest_seconds else 0.0,
        "kb_per_second": text / 1000 / ingest_seconds if ingest_seconds else 0.0,
        "eval_seconds": round(eval_seconds, 2),
        "embeddings": "local" if semantic.embedder is not None else "off",
        "embedding_seconds": round(semantic.seconds, 2),
        "nproc": os.cpu_count(),
        "python": platform.python_version(),
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "domain_sha256": domain_digest(),
    }
    return results, meta


def main(argv: Sequence[str] | None = None) -> int:
    """CLI: load the chats, run, print the tables, optionally write the JSON."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.conversations", description=(__doc__ or "").splitlines()[0]
    )
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the chats' directory")
    parser.add_argument("--chats", type=int, default=None, help="only the first N chats")
    parser.add_argument(
        "--budgets", type=budget_list, default=BUDGETS, help="comma-separated chars"
    )
    parser.add_argument("--json", type=Path, help="write every figure here")
    parser.add_argument(
        "--questions", type=Path, help="write Tessera's figures per question here (JSON lines)"
    )
    parser.add_argument(
        "--half", choices=HALVES, default="all", help="the chats of one half of splits.json"
    )
    parser.add_argument(
        "--embeddings", choices=CHOICES, default="off", help="rank with the local embedding model"
    )
    args = parser.parse_args(argv)
    try:
        chats = of_half(load(args.data, args.chats), lambda c: c.id, "beam500k", args.half)
    except (OSError, DataError, json.JSONDecodeError, KeyError) as exc:
        print(f"cannot read the chats: {exc}", file=sys.stderr)
        return 2
    results, meta = asyncio.run(run(chats, args.budgets, Semantic(args.embeddings)))
    print(report(results, args.budgets, meta))
    if args.json:
        args.json.write_text(json.dumps(figures(results, args.budgets, meta), indent=1) + "\n")
    if args.questions:
        write_figures(args.questions, results.per_question)
    return 0
