"""Query-ranked, budgeted context for one user: the core of GET /context and /search.

A context is two blocks within one character budget. First the beliefs that matter: a small core
of facts always, then the facts, preferences and open loops the question's words match
(``app.domain.beliefs``), in at most ``BELIEF_SHARE`` of the budget. Then the memories BM25 ranks
highest over the log (verbatim turns with their neighbours; observations and episode summaries
where an extractor made them), in time order with date and speaker (``app.domain.evidence``).
Whatever is left out is counted in the text.

``MemoryIndex`` holds what does not depend on the question: the head's belief lines and the
log's BM25 index. It grows with the log (``extend``) and takes a new head (``with_head``), so a
read after a write costs the change, not the history. Pure: no I/O, no clock.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from app.domain.beliefs import BeliefIndex, BeliefLine
from app.domain.bm25 import idf
from app.domain.dates import MONTH_NUMBERS
from app.domain.evidence import (
    Evidence,
    EvidenceIndex,
    TurnRecord,
    allowed_records,
    assemble,
    rank,
    records_of,
)
from app.domain.log import split
from app.domain.passport import Passport
from app.domain.text import tokenize

# With a question, beliefs take at most this share of the budget; without one, CORE_SHARE.
BELIEF_SHARE = 0.2
BELIEFS_HEADER = "Beliefs:"
MEMORIES_HEADER = "Memories:"

_MONTH_RE = (
    r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_ISO_DATE_RE = re.compile(r"(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?")
_DAY_MONTH_YEAR_RE = re.compile(
    rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+{_MONTH_RE},?\s+(\d{{4}})\b", re.IGNORECASE
)
_MONTH_DAY_YEAR_RE = re.compile(
    rf"\b{_MONTH_RE}\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.IGNORECASE
)
_MONTH_YEAR_RE = re.compile(rf"\b{_MONTH_RE},?\s+(\d{{4}})\b", re.IGNORECASE)


# --- dates ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class When:
    """A parsed date: epoch seconds (UTC) of its start, a label, and its year and month."""

    epoch: float
    label: str  # YYYY-MM-DD, YYYY-MM or YYYY: as precise as the input
    year: int
    month: int  # 0 when only the year is known


def _month_number(name: str) -> int:
    # Only ever called on what _MONTH_RE matched: every form it matches is a key.
    return MONTH_NUMBERS[name.lower().rstrip(".")]


def _make_when(year: int, month: int, day: int) -> When | None:
    try:
        start = datetime(year, month or 1, day or 1, tzinfo=UTC)
    except ValueError:
        return None
    label = f"{year:04d}" + (f"-{month:02d}" if month else "") + (f"-{day:02d}" if day else "")
    return When(start.timestamp(), label, year, month)


def parse_when(value: object) -> When | None:
    """Parse an ISO date or datetime, ``YYYY-MM``, ``YYYY``, or "8 May 2023"-style text."""
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    iso = _ISO_DATE_RE.fullmatch(text)
    if iso:
        return _make_when(int(iso[1]), int(iso[2] or 0), int(iso[3] or 0))
    try:
        instant = datetime.fromisoformat(text)
    except ValueError:
        pass
    else:
        if instant.tzinfo is None:  # a naive time is taken to be UTC, as everywhere in Tessera
            instant = instant.replace(tzinfo=UTC)
        day = instant.astimezone(UTC)
        return When(instant.timestamp(), day.strftime("%Y-%m-%d"), day.year, day.month)
    if m := _DAY_MONTH_YEAR_RE.search(text):
        return _make_when(int(m[3]), _month_number(m[2]), int(m[1]))
    if m := _MONTH_DAY_YEAR_RE.search(text):
        return _make_when(int(m[3]), _month_number(m[1]), int(m[2]))
    if m := _MONTH_YEAR_RE.search(text):
        return _make_when(int(m[2]), _month_number(m[1]), 0)
    return None


# --- the index ------------------------------------------------------------------------------


class MemoryIndex:
    """What a context needs of one user that does not depend on the question."""

    def __init__(self, head: Passport, evidence: EvidenceIndex | None = None) -> None:
        self.evidence = evidence if evidence is not None else EvidenceIndex()
        self.head = head
        self.beliefs = BeliefIndex.of(head)

    @classmethod
    def of(cls, head: Passport, records: Iterable[TurnRecord]) -> MemoryIndex:
        """An index of a head and the log's records, in log order."""
        return cls(head, EvidenceIndex(records))

    @classmethod
    def of_document(cls, doc: dict[str, Any]) -> MemoryIndex:
        """An index of a whole passport document (its log sections numbered in order)."""
        head, rows = split(doc)
        records = records_of((n, r.kind, r.item) for n, r in enumerate(rows, start=1))
        return cls.of(Passport.from_dict(head), records)

    def with_head(self, head: Passport) -> None:
        """Take a newer head: its beliefs are rendered again, their words reused where unchanged."""
        self.head = head
        self.beliefs = BeliefIndex.of(head, known=self.beliefs.words())

    def extend(self, records: Iterable[TurnRecord]) -> int:
        """Add log records that came after the newest held; how many were added."""
        return self.evidence.extend(records)

    def approx_bytes(self) -> int:
        """A rough size of the index, for a cache bounded in bytes."""
        return self.evidence.approx_bytes() + self.beliefs.approx_bytes()

    def word_weights(self, tokens: Iterable[str]) -> dict[str, float]:
        """Each query word's weight for matching beliefs: rarer in the log, heavier.

        A speaker's name weighs nothing: nearly every belief names its person, so a question
        that names someone would otherwise match them all.
        """
        n = max(self.evidence.n_passages, 1)
        names = self.evidence.speaker_words()
        out = {}
        for token in set(tokens):
            df = self.evidence.document_frequency(token)
            out[token] = 0.0 if token in names else float(idf(n, df))
        return out


# --- the context ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Context:
    """The selection ``build_context`` made, as text for a prompt or as JSON."""

    query: str | None
    budget_chars: int
    beliefs: tuple[BeliefLine, ...]
    beliefs_omitted: int
    evidence: Evidence
    text: str

    def render_text(self) -> str:
        """The context as compact text, at most ``budget_chars`` characters."""
        return self.text

    def to_json(self) -> dict[str, Any]:
        """The same selection: beliefs with their sentence, memories with exact turn ids."""
        return {
            "query": self.query,
            "budget_chars": self.budget_chars,
            "chars": len(self.text),
            "beliefs": [b.to_dict() for b in self.beliefs],
            "beliefs_omitted": self.beliefs_omitted,
            "memory_order": self.evidence.order,
            "memories": [i.to_dict() for i in self.evidence.items],
            "memories_omitted": self.evidence.omitted,
        }


def _beliefs_block(lines: list[BeliefLine], omitted: int) -> str:
    if not lines:
        return ""
    out = [BELIEFS_HEADER, *(f"- {line.text}" for line in lines)]
    if omitted:
        out.append(f"(+{omitted} more beliefs not shown)")
    return "\n".join(out)


def build_context(
    index: MemoryIndex,
    q: str | None,
    budget_chars: int,
    *,
    since: float | None = None,
    until: float | None = None,
) -> Context:
    """Beliefs that matter for ``q``, then the memories that answer it, within the budget."""
    budget = max(budget_chars, 0)
    tokens = tokenize(q) if q else []
    weights = index.word_weights(tokens)
    # The note of what was left out must fit beside the lines: room is kept for it.
    note_room = len("(+99999 more beliefs not shown)") + 1
    room = int(budget * BELIEF_SHARE) - len(BELIEFS_HEADER) - 1 - note_room
    lines, omitted = index.beliefs.choose(tokens, max(room, 0), weights)
    block = _beliefs_block(lines, omitted)
    if len(block) > budget:  # a budget too small for any belief with its header
        lines, block = [], ""
    # What is left goes to the memories, after a blank line and their header.
    used = len(block) + 2 if block else 0
    memory_room = budget - used - len(MEMORIES_HEADER) - 1
    evidence = assemble(index.evidence, q, max(memory_room, 0), since=since, until=until)
    parts = [block] if block else []
    if evidence.items:
        parts.append(f"{MEMORIES_HEADER}\n{evidence.text}")
    text = "\n\n".join(parts)
    assert len(text) <= budget, (len(text), budget)
    return Context(q, budget_chars, tuple(lines), omitted if lines else 0, evidence, text)


# --- search ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hit:
    """One passage of the log that matches a query, with its provenance."""

    record: TurnRecord
    text: str
    score: float
    rank: int

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        r = self.record
        return {
            "kind": r.kind,
            "id": r.id,
            "text": self.text,
            "speaker": r.speaker,
            "ts": r.ts,
            "score": round(self.score, 6),
            "turn_ids": list(r.turn_ids),
        }


def search(
    index: MemoryIndex,
    q: str,
    limit: int,
    *,
    since: float | None = None,
    until: float | None = None,
) -> list[Hit]:
    """The ``limit`` best-matching passages of the log for ``q``, best first, one per record."""
    ev = index.evidence
    tokens = tokenize(q)
    if not tokens:
        return []
    found = rank(ev, tokens, allowed_records(ev, since, until), limit * 48)
    scores = found.scores
    hits: list[Hit] = []
    seen: set[int] = set()
    for doc in found.order:
        turn = ev.turn_of(doc)
        if turn in seen:
            continue
        seen.add(turn)
        start, end = ev.span(doc)
        record = ev.record(turn)
        hits.append(Hit(record, record.text[start:end].strip(), float(scores[doc]), len(hits) + 1))
        if len(hits) == limit:
            break
    return hits
