"""Belief precision: what the rule extractor writes about people in real conversations, judged.

``python -m bench.beliefs [--data PATH] [--seed 13] [--per-kind 80] [--pending FILE]
[--add-labels FILE] [--json OUT]``

Each REALTALK conversation is ingested as one user, session by session, through the rule
extractor and the merge (as ``bench.realtalk`` does). From every passport's facts, preferences,
entities and open loops a fixed sample is drawn by the seed: ``--per-kind`` of each kind (a kind
with fewer gives them all, and the rest of the sample is spread over the other kinds). Each sampled
item was judged against the message it came from, and the verdicts live in ``labels.tsv`` beside
this file, by reference only: conversation, message id, kind, key and a short hash of the value,
never the conversation's text. The report gives precision per kind over the labelled items and
says how many sampled items have no label yet; ``--pending FILE`` writes those, with their source
message, to a file outside the repository for judging, and ``--add-labels FILE`` (lines ``ref
0|1``) adds the verdicts.

It also measures recall on the questions about likes, dislikes, hobbies, jobs, places and
relations (``about_people``: keywords in the question, temporal questions left out): the share
of the answer's items found, as normalised text, among the conversation's beliefs. Data: REALTALK
(Lee et al. 2025, arXiv 2502.13270), read from ``../shared/data/realtalk`` or ``--data``.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import re
import sys
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Protocol

from app.domain.extraction.extractor import Extraction, ExtractionInput
from app.domain.extraction.rules import RuleExtractor
from app.domain.passport import Passport
from bench.conversations.data import DEFAULT_DATA as BEAM_DATA
from bench.conversations.data import DataError as ConversationsDataError
from bench.pipeline import InMemoryUser
from bench.realtalk.data import DEFAULT_DATA, Conversation, DataError, Question, load
from bench.realtalk.metrics import Answer, Haystack, normalise
from bench.realtalk.run import payload_of

LABELS = Path(__file__).with_name("labels.tsv")
BEAM_LABELS = Path(__file__).with_name("labels_beam.tsv")
BEAM_PER_KIND = 40
KINDS = ("fact", "pref", "entity", "loop")
SEED = 13
PER_KIND = 80
TARGET = 0.9

# Questions about what people like, do, and who and where they are (matched as words).
_ABOUT_PEOPLE = re.compile(
    r"\b(?:likes?|liked|loves?|enjoys?|favou?rites?|hobby|hobbies|interests?|dislikes?|hates?|"
    r"jobs?|works?|occupation|profession|career|stud(?:y|ies)|major|lives?|from|move[sd]?|city|"
    r"country|hometown|sisters?|brothers?|mother|father|mom|dad|wife|husband|girlfriend|"
    r"boyfriend|partner|pets?|dogs?|cats?|children|kids|family|friends?)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Item:
    """One belief as an agent would see it, and the reference its label is stored under."""

    conversation: str
    message: str  # the id of the message it came from ("" when none is known)
    kind: str  # fact, pref, entity, loop
    key: str  # a belief's key; for entities and loops, a hash (their text is the chat's)
    vhash: str  # a short hash of the value, name or item
    shown: str  # what the passport holds, for the person judging (never stored)

    @property
    def ref(self) -> str:
        """The label's reference: conversation, message, kind, key, value hash."""
        return "|".join((self.conversation, self.message, self.kind, self.key, self.vhash))


class Spoken(Protocol):
    """A message as the sample reads it: its id, who said it and what."""

    @property
    def id(self) -> str: ...
    @property
    def speaker(self) -> str: ...
    @property
    def text(self) -> str: ...


def short_hash(value: object) -> str:
    """Eight hex digits of SHA-256 over the normalised value."""
    return hashlib.sha256(normalise(str(value)).encode()).hexdigest()[:8]


@dataclass
class Extracted:
    """A conversation's passport, the belief keys its extractions wrote, and rule failures."""

    conversation: Conversation
    passport: Passport
    keys: set[tuple[str, str]] = field(default_factory=set)  # (section, key) before the merge
    failures: list[dict[str, str]] = field(default_factory=list)


async def extract(conversation: Conversation) -> Extracted:
    """Every session as one job with the rule extractor, as ``bench.realtalk`` runs it."""
    done = Extracted(conversation, Passport.empty(conversation.id))
    extractor = RuleExtractor()

    async def one(request: ExtractionInput) -> Extraction:
        out = await extractor.extract(request)
        done.keys.update(("facts", b.key) for b in out.facts)
        done.keys.update(("prefs", b.key) for b in out.prefs)
        done.failures.extend(out.failures)
        return out

    user = InMemoryUser(conversation.id)
    for session in conversation.sessions:
        await user.ingest(payload_of(conversation, session), session[-1].ts, one)
    done.passport = Passport.from_dict(user.document())
    return done


def first_turn(data: Mapping[str, object]) -> str:
    """The first client turn id an item names, or "" when it names none."""
    turn_ids = data.get("turn_ids")
    return str(turn_ids[0]) if isinstance(turn_ids, list) and turn_ids else ""


def message_naming(names: Sequence[str], messages: Sequence[Spoken]) -> str:
    """The first message that names the entity (or, for a speaker, that they wrote)."""
    wanted = [normalise(n) for n in names if normalise(n)]
    # A name may have been said with a possessive ("Taylor Swift's" normalises to "swifts").
    said = [re.compile(rf" {re.escape(w)}s? ") for w in wanted]
    for m in messages:
        if normalise(m.speaker) in wanted:
            return m.id
        text = f" {normalise(m.text)} "
        if any(p.search(text) for p in said):
            return m.id
    return ""


def items_of(done: Extracted) -> list[Item]:
    """Every fact, preference, entity and open loop of a passport, with its reference."""
    return belief_items(done.conversation.id, done.passport, done.conversation.messages)


def belief_items(cid: str, p: Passport, messages: Sequence[Spoken]) -> list[Item]:
    """A passport's facts, preferences, entities and open loops, each with its reference."""
    items: list[Item] = []
    for kind, beliefs in (("fact", p.facts), ("pref", p.prefs)):
        for b in beliefs:
            data = b.to_dict()
            shown = f"{b.key} = {b.value}"
            items.append(Item(cid, first_turn(data), kind, b.key, short_hash(b.value), shown))
    for e in p.entities:
        where = message_naming([e.name, *e.aliases], messages)
        shown = f"{e.name} ({e.type}; aliases: {', '.join(e.aliases) or '-'})"
        items.append(Item(cid, where, "entity", short_hash(e.type), short_hash(e.name), shown))
    for o in p.open_loops:
        data = o.to_dict()
        items.append(Item(cid, first_turn(data), "loop", "", short_hash(o.item), o.item))
    return items


def sample(
    items: Sequence[Item],
    seed: int = SEED,
    per_kind: int = PER_KIND,
    kinds: Sequence[str] = KINDS,
) -> list[Item]:
    """``per_kind`` items of each kind ranked by ``seed``; a short kind's rest goes to others."""
    by_kind = {k: sorted((i for i in items if i.kind == k), key=lambda i: i.ref) for k in kinds}
    quota = {k: min(per_kind, len(v)) for k, v in by_kind.items()}
    spare = per_kind * len(kinds) - sum(quota.values())
    while spare > 0:
        open_kinds = [k for k in kinds if quota[k] < len(by_kind[k])]
        if not open_kinds:
            break
        for k in open_kinds:
            if spare > 0 and quota[k] < len(by_kind[k]):
                quota[k] += 1
                spare -= 1
    chosen: list[Item] = []
    for k in kinds:
        ranked = sorted(by_kind[k], key=lambda i: _rank(seed, i))
        chosen += ranked[: quota[k]]
    return chosen


def _rank(seed: int, item: Item) -> str:
    # Each item's place is fixed by the seed and its own reference, so a change of extractor
    # that keeps an item keeps its place: its label stays in use.
    return hashlib.sha256(f"{seed}|{item.ref}".encode()).hexdigest()


def read_labels(path: Path = LABELS) -> dict[str, bool]:
    """Verdicts by reference, from the TSV file (header, then one labelled item a line)."""
    if not path.exists():
        return {}
    labels: dict[str, bool] = {}
    for line in path.read_text(encoding="utf-8").splitlines()[1:]:
        if line.strip():
            *ref, verdict = line.split("\t")
            labels["|".join(ref)] = verdict.strip() == "1"
    return labels


def write_labels(labels: dict[str, bool], path: Path = LABELS) -> None:
    """The verdicts in a stable order, one reference a line."""
    header = "conversation\tmessage\tkind\tkey\tvhash\tcorrect"
    rows = [f"{ref.replace('|', chr(9))}\t{int(ok)}" for ref, ok in sorted(labels.items())]
    path.write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")


def about_people(question: Question) -> bool:
    """A question on likes, hobbies, jobs, places or relations, not about when."""
    return question.category != "temporal" and _ABOUT_PEOPLE.search(question.question) is not None


def belief_haystack(passport: Passport) -> Haystack:
    """Every belief's key, value, name and item as one text to look answers up in."""
    parts: list[str] = []
    parts += [f"{b.key} {b.value}" for b in (*passport.facts, *passport.prefs)]
    parts += [" ".join([e.name, *e.aliases]) for e in passport.entities]
    parts += [o.item for o in passport.open_loops]
    return Haystack.of("\n".join(parts))


@dataclass
class Report:
    """The figures ``main`` prints and writes."""

    precision: dict[str, dict[str, float | int]] = field(default_factory=dict)
    recall: dict[str, float | int] = field(default_factory=dict)
    per_conversation: list[dict[str, object]] = field(default_factory=list)
    failures: int = 0


def precision(
    chosen: Iterable[Item],
    labels: dict[str, bool],
    totals: Counter[str],
    kinds: Sequence[str] = KINDS,
) -> dict:
    """Per kind: items, sampled, labelled, correct, precision, unlabelled."""
    table: dict[str, dict[str, float | int]] = {}
    chosen = list(chosen)
    for kind in (*kinds, "all"):
        mine = [i for i in chosen if kind in (i.kind, "all")]
        judged = [labels[i.ref] for i in mine if i.ref in labels]
        table[kind] = {
            "items": totals[kind] if kind != "all" else sum(totals.values()),
            "sampled": len(mine),
            "labelled": len(judged),
            "correct": sum(judged),
            "precision": round(sum(judged) / len(judged), 3) if judged else 0.0,
            "unlabelled": len(mine) - len(judged),
        }
    return table


def measure(
    done: Sequence[Extracted], labels: dict[str, bool], seed: int, per_kind: int
) -> tuple[Report, list[Item]]:
    """Precision on the sample, recall on the questions, beliefs per conversation."""
    items = [i for d in done for i in items_of(d)]
    chosen = sample(items, seed, per_kind)
    report = Report(precision=precision(chosen, labels, Counter(i.kind for i in items)))
    shares: list[float] = []
    for d in done:
        hay = belief_haystack(d.passport)
        questions = [q for q in d.conversation.questions if about_people(q)]
        mine = [Answer.of(q.answer).item_share(hay) for q in questions]
        shares += mine
        p = d.passport
        report.per_conversation.append(
            {
                "conversation": d.conversation.id,
                "facts": len(p.facts),
                "prefs": len(p.prefs),
                "entities": len(p.entities),
                "open_loops": len(p.open_loops),
                "beliefs_before_dedupe": len(d.keys),
                "beliefs_after_dedupe": len(p.facts) + len(p.prefs),
                "questions": len(questions),
                "recall": round(sum(mine) / len(mine), 3) if mine else 0.0,
                "failures": len(d.failures),
            }
        )
        report.failures += len(d.failures)
    report.recall = {
        "questions": len(shares),
        "answer_items": round(sum(shares) / len(shares), 3) if shares else 0.0,
    }
    return report, chosen


def print_precision(report: Report) -> None:
    """The precision table."""
    print("Precision by kind (sample judged against its source message)")
    print("| kind | items | sampled | labelled | correct | precision | unlabelled |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for kind, row in report.precision.items():
        print(
            f"| {kind} | {row['items']} | {row['sampled']} | {row['labelled']} | "
            f"{row['correct']} | {row['precision']:.3f} | {row['unlabelled']} |"
        )
    print()


def _print(report: Report) -> None:
    print_precision(report)
    r = report.recall
    print(f"Recall on {r['questions']} questions about people: {r['answer_items']:.3f}")
    print()
    print(
        "| conversation | facts | prefs | entities | open loops | beliefs before dedupe | after |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for row in report.per_conversation:
        print(
            f"| {row['conversation']} | {row['facts']} | {row['prefs']} | {row['entities']} | "
            f"{row['open_loops']} | {row['beliefs_before_dedupe']} | "
            f"{row['beliefs_after_dedupe']} |"
        )
    print()
    print(f"Rule failures recorded: {report.failures}")


def write_pending(
    chosen: Sequence[Item],
    labels: dict[str, bool],
    messages: Mapping[tuple[str, str], Spoken],
    path: Path,
) -> int:
    """The sampled items without a verdict, each with its source message, for judging."""
    lines: list[str] = []
    for item in chosen:
        if item.ref in labels:
            continue
        m = messages.get((item.conversation, item.message))
        said = f"{m.speaker}: {' / '.join(m.text.splitlines())}" if m else "(no source message)"
        lines.append(f"{item.ref}\n  {item.kind}: {item.shown}\n  << {said}\n")
    path.write_text("\n".join(lines), encoding="utf-8")
    return len(lines)


def add_labels(path: Path, labels: dict[str, bool]) -> int:
    """Read ``ref verdict`` lines (verdict 1 or 0) into ``labels``; returns how many."""
    added = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.rsplit(maxsplit=1)  # a key may hold spaces; the verdict is the last word
        if len(parts) == 2 and parts[1] in ("0", "1"):
            labels[parts[0]] = parts[1] == "1"
            added += 1
    return added


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; 0 when every kind meets the precision target and nothing is unlabelled."""
    parser = argparse.ArgumentParser(prog="python -m bench.beliefs", description=__doc__)
    parser.add_argument("--set", choices=("realtalk", "beam"), default="realtalk")
    parser.add_argument("--data", type=Path, help="the set's directory (default: ../shared/data)")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--per-kind", type=int, help=f"default {PER_KIND}; beam: {BEAM_PER_KIND}")
    parser.add_argument("--labels", type=Path, help="default labels.tsv or labels_beam.tsv")
    parser.add_argument("--pending", type=Path, help="write unlabelled sampled items here")
    parser.add_argument("--add-labels", type=Path, help="add verdicts from this file")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args(argv)
    beam = args.set == "beam"
    path = args.labels or (BEAM_LABELS if beam else LABELS)
    labels = read_labels(path)
    if args.add_labels:
        print(f"added {add_labels(args.add_labels, labels)} verdicts")
        write_labels(labels, path)
    try:
        if beam:
            report, chosen, messages = _beam(args.data or BEAM_DATA, labels, args)
        else:
            report, chosen, messages = _realtalk(args.data or DEFAULT_DATA, labels, args)
    except (OSError, DataError, ConversationsDataError) as error:
        print(f"SKIPPED: {error}", file=sys.stderr)
        return 2
    if args.pending:
        pending = write_pending(chosen, labels, messages, args.pending)
        print(f"{pending} unlabelled items in {args.pending}")
    if args.json:
        args.json.write_text(json.dumps(asdict(report), indent=2) + "\n", encoding="utf-8")
    judged = report.precision["all"]
    # The target is met in every kind, and in all.
    met = all(row["precision"] >= TARGET for k, row in report.precision.items() if k != "all")
    return 0 if met and judged["unlabelled"] == 0 else 1


def _realtalk(
    data: Path, labels: dict[str, bool], args: argparse.Namespace
) -> tuple[Report, list[Item], dict[tuple[str, str], Spoken]]:
    done = [asyncio.run(extract(c)) for c in load(data)]
    report, chosen = measure(done, labels, args.seed, args.per_kind or PER_KIND)
    _print(report)
    messages = {(d.conversation.id, m.id): m for d in done for m in d.conversation.messages}
    return report, chosen, dict(messages)


def _beam(
    data: Path, labels: dict[str, bool], args: argparse.Namespace
) -> tuple[Report, list[Item], dict[tuple[str, str], Spoken]]:
    from bench.beliefs import beam

    chats = beam.chats_of(data)
    items = [i for c in chats for i in beam.items_of(c)]
    chosen = sample(items, args.seed, args.per_kind or BEAM_PER_KIND, beam.KINDS)
    totals = Counter(i.kind for i in items)
    report = Report(precision=precision(chosen, labels, totals, beam.KINDS))
    print_precision(report)
    return report, chosen, dict(beam.messages_by_ref(chats))
