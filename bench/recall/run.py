"""Recall benchmark: ingest synthetic conversations through the real pipeline, then measure how
much of each question's evidence and answer Tessera's budgeted context holds, beside a baseline
that fills the same budget with raw turns ranked by ``rank_bm25``.

``python -m bench.recall.run [--seed 1] [--conversations 5] [--data FILE] [--json PATH]``

In process, no database, no HTTP: each session becomes one ``IngestPayload`` (subject and
session_ts) ingested as the worker does it, on an in-memory log (``bench.pipeline``). Then, per
question, ``build_context(user.index(), q, budget)`` at each budget.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import platform
import re
import sys
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from rank_bm25 import BM25Okapi

from app.domain.context import MemoryIndex, build_context
from app.domain.dates import MONTHS
from app.domain.extraction.extractor import Extraction, ExtractionInput
from app.domain.extraction.rules import RuleExtractor
from app.domain.ingest.payload import IngestPayload, parse_timestamp
from app.domain.passport import Passport
from bench.pipeline import InMemoryUser
from bench.recall.generate import QUESTION_TYPES, generate

BUDGETS = (1500, 3000, 6000)
UNLIMITED = 10**8  # "everything the query reaches": the ceiling of ranking
TESSERA = "tessera"
BASELINE = "bm25"  # the baseline of issue 4: whitespace-lowercase tokens
WORDS = "bm25-words"  # an extra, stronger baseline: word tokens without punctuation
SYSTEMS = (TESSERA, BASELINE, WORDS)
LABELS = {
    TESSERA: "tessera",
    BASELINE: "bm25 raw turns (baseline)",
    WORDS: "bm25 raw turns, \\w+ tokens (extra)",
}
_DAY_ANSWER = re.compile(r"(\d{1,2}) ([A-Z][a-z]+) (\d{4})")
_MONTH_ANSWER = re.compile(r"([A-Z][a-z]+) (\d{4})")


# --- answer matching ------------------------------------------------------------------------------


def _norm(text: str) -> str:
    return " ".join(text.replace("’", "'").casefold().split())


def answer_forms(answer: str) -> list[str]:
    """The answer as written, plus its other date spellings ('2023-05-08', 'May 8, 2023')."""
    day = _DAY_ANSWER.fullmatch(answer)
    if day and day[2] in MONTHS:
        d = date(int(day[3]), MONTHS.index(day[2]) + 1, int(day[1]))
        return [answer, f"{d:%Y-%m-%d}", f"{d.day} {d:%B}, {d.year}", f"{d:%B} {d.day}, {d.year}"]
    month = _MONTH_ANSWER.fullmatch(answer)
    if month and month[1] in MONTHS:
        return [answer, f"{month[2]}-{MONTHS.index(month[1]) + 1:02d}"]
    return [answer]


def answer_pattern(answer: str) -> re.Pattern[str]:
    """Any form of the answer as a whole token run: '2023-04' does not match '2023-04-17'."""
    forms = "|".join(re.escape(_norm(f)) for f in answer_forms(answer))
    return re.compile(rf"(?<![\w-])(?:{forms})(?![\w-])")


def contains(text: str, pattern: re.Pattern[str]) -> bool:
    """Case-insensitive, whitespace-normalised search for the answer in ``text``."""
    return pattern.search(_norm(text)) is not None


# --- ingest ---------------------------------------------------------------------------------------


@dataclass
class Ingested:
    """A conversation's passport after ingesting every session, and what it took."""

    user: InMemoryUser
    segments: int
    seconds: float


ExtractFn = Callable[[ExtractionInput], Awaitable[Extraction | None]]


async def ingest(conversation: dict[str, Any]) -> Ingested:
    """Every session as one ingest job with the rule extractor."""
    user = InMemoryUser(conversation["id"])
    extractor = RuleExtractor()
    segments = 0
    started = time.perf_counter()
    for session in conversation["sessions"]:
        payload = IngestPayload.model_validate(
            {
                "subject": conversation["subject"],
                "session_ts": session["session_ts"],
                "turns": [
                    {"speaker": t["speaker"], "text": t["text"], "id": t["id"]}
                    for t in session["turns"]
                ],
            }
        )
        # The job is taken to be created when the session ends: what a live agent would do.
        reference = parse_timestamp(session["session_ts"])
        segments += await user.ingest(payload, reference, extractor.extract)
    return Ingested(user, segments, time.perf_counter() - started)


# --- the two contexts -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Selection:
    """What one system put in a context: its text, and the turns it covers (evidence or not)."""

    text: str
    covered: frozenset[str]  # evidence turns
    reach: int  # turns of the conversation behind what is shown: the chance level of recall


def tessera_context(
    index: MemoryIndex, q: str, budget: int, evidence: Sequence[str], answer: re.Pattern[str]
) -> Selection:
    """Covered: evidence turns behind a shown memory, or all of them if a belief answers."""
    ctx = build_context(index, q, budget)
    doc = ctx.to_json()
    wanted = set(evidence)
    behind = {t for m in doc["memories"] for t in m["turn_ids"]}
    covered = behind & wanted
    if any(contains(b["text"], answer) for b in doc["beliefs"]):
        covered = wanted
    return Selection(ctx.text, frozenset(covered), len(behind))


def naive_tokens(text: str) -> list[str]:
    """The baseline's tokenisation: lower case, split on whitespace, punctuation kept."""
    return text.lower().split()


def word_tokens(text: str) -> list[str]:
    """Lower-case word tokens, punctuation dropped."""
    return re.findall(r"\w+", text.lower())


def fill_budget(lines: Sequence[str], scores: Sequence[float], budget: int) -> list[int]:
    """Best-scoring lines first (newer first on ties) while they fit; their places, in order."""
    order = sorted(range(len(lines)), key=lambda i: (-scores[i], -i))
    shortest = min((len(line) for line in lines), default=0)
    chosen: list[int] = []
    used = 0
    for i in order:
        cost = len(lines[i]) + (1 if chosen else 0)  # a newline between lines
        if used + cost <= budget:
            chosen.append(i)
            used += cost
        if budget - used < shortest + 1:
            break
    return sorted(chosen)


class RawTurns:
    """The baseline: every turn as '[date] Speaker: text', ranked by BM25Okapi for the query."""

    def __init__(self, conversation: dict[str, Any], tokens: Callable[[str], list[str]]) -> None:
        self.lines: list[str] = []
        self.ids: list[str] = []
        for session in conversation["sessions"]:
            day = session["session_ts"][:10]
            for turn in session["turns"]:
                self.lines.append(f"[{day}] {turn['speaker']}: {turn['text']}")
                self.ids.append(turn["id"])
        self.tokens = tokens
        self.bm25 = BM25Okapi([tokens(line) for line in self.lines])

    def context(self, q: str, budget: int, evidence: Sequence[str]) -> Selection:
        """Best-scoring turns first (newer first on ties) while they fit; shown in time order."""
        chosen = fill_budget(self.lines, self.bm25.get_scores(self.tokens(q)), budget)
        text = "\n".join(self.lines[i] for i in chosen)
        shown = {self.ids[i] for i in chosen}
        return Selection(text, frozenset(shown & set(evidence)), len(chosen))


# --- scoring --------------------------------------------------------------------------------------


@dataclass
class Tally:
    """Evidence turns covered and answers found, over some questions."""

    questions: int = 0
    evidence: int = 0
    covered: int = 0
    answered: int = 0
    reach: float = 0.0  # sum over questions of the share of all turns the context covers

    def add(self, evidence: int, covered: int, answered: bool, reach: float = 0.0) -> None:
        self.questions += 1
        self.evidence += evidence
        self.covered += covered
        self.answered += answered
        self.reach += reach

    @property
    def recall(self) -> float:
        return self.covered / self.evidence if self.evidence else 0.0

    @property
    def answer_rate(self) -> float:
        return self.answered / self.questions if self.questions else 0.0

    @property
    def mean_reach(self) -> float:
        return self.reach / self.questions if self.questions else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "questions": self.questions,
            "evidence_turns": self.evidence,
            "evidence_covered": self.covered,
            "evidence_recall": round(self.recall, 4),
            "answers_in_context": self.answered,
            "answer_rate": round(self.answer_rate, 4),
            "turn_reach": round(self.mean_reach, 4),
        }


@dataclass
class Results:
    """Tallies per (system, budget, question type); 'all' is every type."""

    tallies: dict[tuple[str, int, str], Tally] = field(default_factory=dict)
    details: list[dict[str, Any]] = field(default_factory=list)

    def tally(self, system: str, budget: int, qtype: str) -> Tally:
        return self.tallies.setdefault((system, budget, qtype), Tally())

    def add(
        self,
        system: str,
        budget: int,
        qtype: str,
        evidence: int,
        covered: int,
        hit: bool,
        reach: float = 0.0,
    ) -> None:
        for key in (qtype, "all"):
            self.tally(system, budget, key).add(evidence, covered, hit, reach)


def passport_lines(p: Passport) -> list[str]:
    """Everything the passport says, one line per item, to ask whether an answer is in it at all."""
    lines = [f"{b.key.replace('_', ' ')}: {b.value}" for b in (*p.facts, *p.prefs)]
    lines += [f"{c.key.replace('_', ' ')}: {c.old} -> {c.new}" for c in p.contradictions]
    lines += [f"{o.when or ''}: {o.text}" for o in p.observations]
    lines += [f"{(e.ts or '')[:10]}: {e.summary}" for e in p.episodes]
    lines += [f"{(t.ts or '')[:10]}: {t.text}" for t in p.turns]
    lines += [loop.item for loop in p.open_loops]
    lines += [", ".join((e.name, *e.aliases)) for e in p.entities]
    return lines


def evaluate(
    conversation: dict[str, Any], user: InMemoryUser, results: Results, keep_text: bool
) -> None:
    """Every question of one conversation, at every budget, for every system."""
    index = user.index()
    passport = Passport.from_dict(user.document())
    baselines = {
        BASELINE: RawTurns(conversation, naive_tokens),
        WORDS: RawTurns(conversation, word_tokens),
    }
    everything = "\n".join(passport_lines(passport))
    turns = sum(len(s["turns"]) for s in conversation["sessions"])
    for question in conversation["questions"]:
        q, evidence, qtype = question["q"], question["evidence"], question["type"]
        pattern = answer_pattern(question["answer"])
        row: dict[str, Any] = {
            "conversation": conversation["id"],
            **question,
            "in_passport": contains(everything, pattern),
            "tessera_unlimited": contains(build_context(index, q, UNLIMITED).text, pattern),
            "budgets": {},
        }
        results.add("ceiling", 0, qtype, 0, 0, row["tessera_unlimited"])
        results.add("passport", 0, qtype, 0, 0, row["in_passport"])
        for budget in BUDGETS:
            shown: dict[str, Selection] = {
                TESSERA: tessera_context(index, q, budget, evidence, pattern),
                **{name: b.context(q, budget, evidence) for name, b in baselines.items()},
            }
            per: dict[str, Any] = {}
            for system, selection in shown.items():
                hit = contains(selection.text, pattern)
                covered = len(selection.covered)
                reach = selection.reach / turns
                results.add(system, budget, qtype, len(evidence), covered, hit, reach)
                per[system] = {"covered": sorted(selection.covered), "answer": hit}
                if keep_text:
                    per[system]["text"] = selection.text
            row["budgets"][str(budget)] = per
        results.details.append(row)


# --- output ---------------------------------------------------------------------------------------


def text_table(headers: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A plain text table: the first column left-aligned, the others right-aligned."""
    body = [list(row) for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in body)) for i, h in enumerate(headers)]
    fmt = [
        (lambda s, w: s.ljust(w)) if i == 0 else (lambda s, w: s.rjust(w))
        for i in range(len(headers))
    ]
    out = ["  ".join(f(h, w) for f, h, w in zip(fmt, headers, widths, strict=True))]
    out.append("  ".join("-" * w for w in widths))
    out += ["  ".join(f(c, w) for f, c, w in zip(fmt, r, widths, strict=True)) for r in body]
    return "\n".join(out)


def report(results: Results, meta: dict[str, Any]) -> str:
    """The side-by-side table, the verdict and the per-type breakdown."""
    lines = [
        f"Recall benchmark: {meta['conversations']} conversations, {meta['sessions']} sessions, "
        f"{meta['turns']:,} turns, {meta['questions']} questions (seed {meta['seed']})",
        f"ingest {meta['ingest_seconds']:.1f} s ({meta['segments']} segments), "
        f"evaluation {meta['eval_seconds']:.1f} s; nproc {meta['nproc']}; "
        f"app/domain {meta['domain_sha256']}",
        "",
        "evidence recall = share of evidence turns covered; answer = answer string in context;",
        "turn reach = share of all turns behind what the context shows (chance level of recall)",
    ]
    rows: list[list[str]] = []
    for budget in BUDGETS:
        for system in SYSTEMS:
            t = results.tally(system, budget, "all")
            rows.append(
                [
                    f"{budget:,}",
                    LABELS[system],
                    f"{t.recall:.3f}",
                    f"{t.answer_rate:.3f}",
                    f"{t.mean_reach:.3f}",
                ]
            )
    headers = ["budget", "system", "evidence recall", "answer in context", "turn reach"]
    lines.append(text_table(headers, rows))
    ceiling = results.tally("ceiling", 0, "all").answer_rate
    anywhere = results.tally("passport", 0, "all").answer_rate
    lines.append(
        f"tessera, unlimited budget: answer in context {ceiling:.3f}; "
        f"answer anywhere in the passport {anywhere:.3f}"
    )
    lines += ["", verdict(results), ""]
    lines += [_by_type(results, "Evidence recall", lambda t: t.recall, extra=False), ""]
    lines += [_by_type(results, "Answer in context", lambda t: t.answer_rate, extra=True), ""]
    return "\n".join(lines)


def _by_type(results: Results, title: str, value: Callable[[Tally], float], *, extra: bool) -> str:
    """One measure per question type: T/B/W at each budget, then Tessera's ceilings if asked."""
    headers = ["type", "n"]
    for budget in BUDGETS:
        headers += [f"{budget // 100 / 10:g}k T", "B", "W"]
    if extra:
        headers += ["T unltd", "in passport"]
    types = [t for t in QUESTION_TYPES if results.tally(TESSERA, BUDGETS[0], t).questions]
    rows: list[list[str]] = []
    for qtype in [*types, "all"]:
        row = [qtype, str(results.tally(TESSERA, BUDGETS[0], qtype).questions)]
        for budget in BUDGETS:
            row += [f"{value(results.tally(s, budget, qtype)):.2f}" for s in SYSTEMS]
        if extra:
            row += [
                f"{results.tally('ceiling', 0, qtype).answer_rate:.2f}",
                f"{results.tally('passport', 0, qtype).answer_rate:.2f}",
            ]
        rows.append(row)
    legend = "(T = tessera, B = bm25 baseline, W = bm25 word tokens)"
    return f"{title} by question type {legend}\n" + text_table(headers, rows)


def verdict(results: Results) -> str:
    """Whether Tessera beats the baseline on both measures at every budget."""
    losses = []
    for budget in BUDGETS:
        t, b = results.tally(TESSERA, budget, "all"), results.tally(BASELINE, budget, "all")
        if t.recall <= b.recall:
            losses.append(f"evidence recall at {budget:,} ({t.recall:.3f} vs {b.recall:.3f})")
        if t.answer_rate <= b.answer_rate:
            losses.append(f"answer rate at {budget:,} ({t.answer_rate:.3f} vs {b.answer_rate:.3f})")
    if not losses:
        return "VERDICT: tessera beats the bm25 baseline on both measures at every budget."
    return "VERDICT: tessera does NOT beat the bm25 baseline on: " + "; ".join(losses) + "."


def figures(results: Results, meta: dict[str, Any]) -> dict[str, Any]:
    """Every tally as JSON."""
    out: dict[str, Any] = {"meta": meta, "systems": {}}
    for system in SYSTEMS:
        out["systems"][system] = {
            str(budget): {
                qtype: results.tally(system, budget, qtype).to_dict()
                for qtype in (*QUESTION_TYPES, "all")
                if results.tally(system, budget, qtype).questions
            }
            for budget in BUDGETS
        }
    out["tessera_unlimited"] = {
        k[2]: v.to_dict() for k, v in results.tallies.items() if k[0] == "ceiling"
    }
    out["answer_in_passport"] = {
        k[2]: v.to_dict() for k, v in results.tallies.items() if k[0] == "passport"
    }
    out["verdict"] = verdict(results)
    return out


# --- main -----------------------------------------------------------------------------------------


def domain_digest() -> str:
    """A digest of app/domain's source: which extractor and ranking produced the figures."""
    digest = hashlib.sha256()
    domain = Path(__file__).resolve().parents[2] / "app" / "domain"
    # Every module, sub-packages included: the rules and the ranking live in them.
    for path in sorted(domain.rglob("*.py")):
        digest.update(path.relative_to(domain).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


async def run(data: dict[str, Any], seed: int | None, keep_text: bool) -> tuple[Results, dict]:
    """Ingest and evaluate every conversation of a data set."""
    results = Results()
    ingest_seconds = eval_seconds = 0.0
    segments = 0
    for conversation in data["conversations"]:
        done = await ingest(conversation)
        ingest_seconds += done.seconds
        segments += done.segments
        started = time.perf_counter()
        evaluate(conversation, done.user, results, keep_text)
        eval_seconds += time.perf_counter() - started
    conversations = data["conversations"]
    meta = {
        "seed": seed if seed is not None else data.get("seed"),
        "conversations": len(conversations),
        "sessions": sum(len(c["sessions"]) for c in conversations),
        "turns": sum(len(s["turns"]) for c in conversations for s in c["sessions"]),
        "questions": sum(len(c["questions"]) for c in conversations),
        "segments": segments,
        "budgets": list(BUDGETS),
        "ingest_seconds": round(ingest_seconds, 2),
        "eval_seconds": round(eval_seconds, 2),
        "nproc": os.cpu_count(),
        "python": platform.python_version(),
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "domain_sha256": domain_digest(),
    }
    return results, meta


def main(argv: Sequence[str] | None = None) -> int:
    """CLI: generate (or load) the data, run, print the tables, optionally write JSON."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.recall.run", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--conversations", type=int, help="how many to generate (default 5) or to take from --data"
    )
    parser.add_argument("--sessions", type=int, default=30, help="sessions per generated one")
    parser.add_argument("--data", type=Path, help="a data set file instead of generating one")
    parser.add_argument("--json", type=Path, help="write every figure here")
    parser.add_argument(
        "--details", type=Path, help="write per-question outcomes and contexts here (JSON)"
    )
    args = parser.parse_args(argv)
    if args.data:
        data = json.loads(args.data.read_text(encoding="utf-8"))
        if args.conversations:
            data["conversations"] = data["conversations"][: args.conversations]
        seed = data.get("seed")
    else:
        data = generate(args.seed, sessions=args.sessions, conversations=args.conversations or 5)
        seed = args.seed
    results, meta = asyncio.run(run(data, seed, keep_text=args.details is not None))
    print(report(results, meta))
    if args.json:
        args.json.write_text(json.dumps(figures(results, meta), indent=1) + "\n", encoding="utf-8")
    if args.details:
        args.details.write_text(
            json.dumps(results.details, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
