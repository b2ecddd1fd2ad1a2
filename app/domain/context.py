"""Query-ranked, budgeted context from one passport: the core of GET /context and /search.

``ContextIndex.from_passport`` does the work that depends only on the passport (tokenising every
memory, the BM25 index, date arrays), so the service can cache it per (tenant, user, version).
``rank`` and ``search`` order the memories (observations and episodes) for a query;
``build_context`` renders facts, preferences, entities, open loops, recent changes and the best
memories into text that never exceeds a character budget, plus the same selection as JSON.

Pure: no clock. "Now", for recency, is the newest time the passport itself records.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from app.domain.bm25 import BM25Index
from app.domain.passport import (
    Belief,
    Contradiction,
    Entity,
    Episode,
    Observation,
    OpenLoop,
    Passport,
)
from app.domain.text import tokenize

# --- ranking weights ------------------------------------------------------------------------
# With a query, a memory scores RELEVANCE_WEIGHT * (its BM25 / the best BM25 of this query), so
# the best textual match gets 1.0 whatever the query, and the boosts below mean the same thing
# for every query.
RELEVANCE_WEIGHT = 1.0
# Added, in proportion, when the memory involves the entities or participants the query names
# ("what did Caroline ..."): enough to prefer Caroline's memories among similar matches, not
# enough to let any memory that merely mentions her beat one that answers the question.
ENTITY_LIFT = 0.2
# A small prior for recent memories: with a query it breaks near-ties and nothing more.
RECENCY_WEIGHT = 0.1
RECENCY_HALF_LIFE_DAYS = 30.0
# "When ..." questions: an observation with its own resolved event date holds the answer,
# while an episode only says when the conversation happened.
TEMPORAL_BOOST = 0.25
# The query names the year (and month) the memory's date falls in: "what happened in May 2023".
# Such memories are candidates even when no word matches.
PERIOD_BOOST = 0.5
# Without a query: recency (1 now, halving every RECENCY_HALF_LIFE_DAYS) + this * salience.
BROWSE_SALIENCE_WEIGHT = 0.5
DEFAULT_SALIENCE = 0.5  # observations carry no salience of their own

# --- budget ---------------------------------------------------------------------------------
# First pass: facts and preferences take at most this share of the budget, each side section
# (entities, open loops, changes) at most SIDE_SHARE, memories the rest; whatever memories leave
# unused then goes back to the sections that were cut, in the same order.
BELIEF_SHARE = 0.6
SIDE_SHARE = 0.1
MAX_CHANGES = 5  # "Changed:" shows at most this many, newest first
MAX_VALUE_CHARS = 200  # one long fact value must not crowd out all the others
MAX_MEMORY_CHARS = 500

MemoryKind = Literal["observation", "episode"]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

_MONTH_NAMES = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
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
_YEAR_RE = re.compile(r"\b(1[89]\d\d|2\d\d\d)\b")
_TEMPORAL_RE = re.compile(
    r"\b(?:when|what (?:date|day|time|year|month)|which (?:date|day|year|month)|how long|"
    r"ago|yesterday|today|tonight|tomorrow|recently|"
    r"(?:last|next|this|past) (?:week|weekend|month|year|night|time|summer|winter|spring|fall|"
    r"autumn)|january|february|march|april|june|july|august|september|october|november|"
    r"december|(?:in|on|of|since|until|during|early|late|mid|by) may|may \d|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|1[89]\d\d|2\d\d\d|"
    r"cuándo|cuando|quand|wann|quando|когда)\b|いつ|何時|什么时候|何时|언제"
)
_LEADING_DATE_RE = re.compile(r"^On \d{1,2} [A-Z][a-z]+ \d{4}, ")
_OWNER_RE = re.compile(r"[^\W\d][\w-]*")
_SPACE_RE = re.compile(r"\s+")


# --- dates ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class When:
    """A parsed date: epoch seconds (UTC) of its start, a label, and its year and month."""

    epoch: float
    label: str  # YYYY-MM-DD, YYYY-MM or YYYY: as precise as the input
    year: int
    month: int  # 0 when only the year is known


def _month_number(name: str) -> int:
    return next(i + 1 for i, m in enumerate(_MONTH_NAMES) if m.startswith(name.lower()[:3]))


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


@dataclass(frozen=True, slots=True)
class Memory:
    """One observation or episode, as search sees it, with its provenance."""

    kind: MemoryKind
    text: str
    date: float | None  # epoch seconds: the observation's ``when`` else its ``ts``
    date_label: str | None
    salience: float | None
    participants: tuple[str, ...]
    keywords: tuple[str, ...]
    source: str | None
    turn_ids: tuple[str, ...]  # the client's message ids, from the source
    has_when: bool = False  # an observation with its own event date, not only when it was said

    def to_dict(self) -> dict[str, Any]:
        """JSON form: what it says, when, who, and where it came from."""
        return {
            "kind": self.kind,
            "text": self.text,
            "date": self.date_label,
            "participants": list(self.participants),
            "source": self.source,
            "turn_ids": list(self.turn_ids),
        }


@dataclass(frozen=True, slots=True, eq=False)
class ContextIndex:
    """Everything ranking needs from one passport version; build once, share read-only."""

    passport: Passport  # read-only: the index is shared between requests
    memories: tuple[Memory, ...]
    bm25: BM25Index  # over memory text + keywords + participants
    dates: FloatArray  # epoch seconds, NaN when undated
    salience: FloatArray
    recency: FloatArray  # 1.0 at "now", halving every RECENCY_HALF_LIFE_DAYS, 0 when undated
    has_when: BoolArray
    years: npt.NDArray[np.int32]  # 0 when undated
    months: npt.NDArray[np.int32]  # 0 when undated or only the year is known
    names: Mapping[tuple[str, ...], str]  # tokens of an entity/participant name -> who it is
    now: float | None
    lines: tuple[str, ...]  # each memory as its context line, rendered once per version
    sections: Mapping[str, _Section]  # facts, prefs, entities, open loops, changes: pre-rendered
    size: int = field(default=0)

    @classmethod
    def from_passport(cls, p: Passport) -> ContextIndex:
        """Index a passport's observations and episodes for ranking."""
        turn_ids = {s.id: tuple(str(t) for t in s.turn_ids) for s in p.sources}
        pairs = [_observation(o, turn_ids) for o in p.observations if o.text.strip()]
        pairs += [_episode(e, turn_ids) for e in p.episodes if e.summary.strip()]
        memories = [m for m, _ in pairs]
        whens = [w for _, w in pairs]
        docs = [tokenize(" ".join((m.text, *m.keywords, *m.participants))) for m in memories]
        dates = np.array([np.nan if w is None else w.epoch for w in whens], dtype=np.float64)
        now = _newest_ts(p)
        if now is None and np.isfinite(dates).any():
            now = float(np.nanmax(dates))
        recency = np.zeros(len(memories), dtype=np.float64)
        if now is not None:
            known = np.isfinite(dates)
            age_days = np.maximum(now - dates[known], 0.0) / 86400.0
            recency[known] = 0.5 ** (age_days / RECENCY_HALF_LIFE_DAYS)
        bm25 = BM25Index(docs)
        names = _names(p)
        index = cls(
            passport=p,
            memories=tuple(memories),
            bm25=bm25,
            dates=dates,
            # Clipped: an imported passport may carry salience on another scale.
            salience=np.clip(
                [DEFAULT_SALIENCE if m.salience is None else m.salience for m in memories], 0, 1
            ).astype(np.float64),
            recency=recency,
            has_when=np.array([m.has_when for m in memories], dtype=np.bool_),
            years=np.array([0 if w is None else w.year for w in whens], dtype=np.int32),
            months=np.array([0 if w is None else w.month for w in whens], dtype=np.int32),
            names=names,
            now=now,
            lines=tuple(_memory_line(m) for m in memories),
            sections=_sections(p),
        )
        object.__setattr__(index, "size", _estimate_bytes(index))
        return index

    def approx_bytes(self) -> int:
        """An estimate of the memory this index and its passport hold, for an LRU cache."""
        return self.size


def _observation(
    o: Observation, turn_ids: Mapping[str, tuple[str, ...]]
) -> tuple[Memory, When | None]:
    event = parse_when(o.when)
    when = event or parse_when(o.ts)
    if event is not None:
        label: str | None = event.label
    elif o.when:  # a date we cannot parse still tells the reader something; rank by ``ts``
        label = _clip(str(o.when), 40)
    else:
        label = None if when is None else when.label
    memory = Memory(
        kind="observation",
        text=o.text,
        date=None if when is None else when.epoch,
        date_label=label,
        salience=None,
        participants=tuple(o.participants),
        keywords=(),
        source=o.source,
        turn_ids=turn_ids.get(o.source, ()) if o.source else (),
        has_when=event is not None,
    )
    return memory, when


def _episode(e: Episode, turn_ids: Mapping[str, tuple[str, ...]]) -> tuple[Memory, When | None]:
    when = parse_when(e.ts)
    memory = Memory(
        kind="episode",
        text=e.summary,
        date=None if when is None else when.epoch,
        date_label=None if when is None else when.label,
        salience=e.salience,
        participants=tuple(e.participants),
        keywords=tuple(e.keywords),
        source=e.source,
        turn_ids=turn_ids.get(e.source, ()) if e.source else (),
    )
    return memory, when


def _newest_ts(p: Passport) -> float | None:
    """The newest moment the passport records something being said or changed."""
    stamps = [
        *(o.ts for o in p.observations),
        *(e.ts for e in p.episodes),
        *(s.ts for s in p.sources),
        *(b.ts for b in (*p.facts, *p.prefs)),
        *(c.ts_new for c in p.contradictions),
        *(loop.ts for loop in p.open_loops),
    ]
    parsed = [w.epoch for w in map(parse_when, stamps) if w is not None]
    return max(parsed, default=None)


def _names(p: Passport) -> dict[tuple[str, ...], str]:
    """Name tokens of every entity (with aliases) and participant, mapped to one key per who."""
    names: dict[tuple[str, ...], str] = {}
    for e in p.entities:
        for name in (e.name, *e.aliases):
            tokens = tuple(tokenize(name))
            if tokens:
                names.setdefault(tokens, e.name.casefold())
    participants = {who for o in p.observations for who in o.participants}
    participants.update(who for e in p.episodes for who in e.participants)
    for who in sorted(participants):
        tokens = tuple(tokenize(who))
        if tokens:
            names.setdefault(tokens, who.casefold())
    return names


# Measured with tracemalloc on a 6,600-memory passport: a parsed passport item (pydantic model,
# its dict and small lists) takes ~1,500 bytes beyond its text; a Memory record with its rendered
# line ~350 bytes beyond the line's characters.
_PASSPORT_ITEM_BYTES = 1500
_MEMORY_BYTES = 350
_SECTIONS = ("facts", "prefs", "entities", "open_loops", "contradictions", "observations")


def _estimate_bytes(index: ContextIndex) -> int:
    """Rough by design: arrays and BM25 postings exactly, Python objects at measured sizes."""
    p = index.passport
    items = sum(len(getattr(p, name)) for name in _SECTIONS) + len(p.episodes) + len(p.sources)
    arrays = (index.dates, index.salience, index.recency, index.has_when, index.years, index.months)
    passport = _PASSPORT_ITEM_BYTES * items + sum(len(m.text) for m in index.memories)
    records = sum(len(line) + _MEMORY_BYTES for line in index.lines)
    return index.bm25.approx_bytes() + sum(a.nbytes for a in arrays) + records + passport


# --- ranking --------------------------------------------------------------------------------


def is_temporal(q: str) -> bool:
    """Does the query ask when something happened (or name a date)?"""
    return bool(_TEMPORAL_RE.search(q.casefold()))


def _period(index: ContextIndex, q: str) -> BoolArray | None:
    """Memories dated in the year (and month) the query names; None if it names no year."""
    text = q.casefold()
    years = [int(y) for y in _YEAR_RE.findall(text)]
    if not years:
        return None
    mask = np.isin(index.years, years)
    months = [_month_number(m[0]) for m in re.finditer(_MONTH_RE, text) if _is_word(text, m)]
    if months:
        mask &= np.isin(index.months, months)
    return mask


def _is_word(text: str, m: re.Match[str]) -> bool:
    before = text[m.start() - 1] if m.start() else " "
    after = text[m.end()] if m.end() < len(text) else " "
    return not before.isalnum() and not after.isalnum()


def _entity_lift(index: ContextIndex, tokens: Sequence[str]) -> FloatArray | None:
    """ENTITY_LIFT times the share of the entities named in the query that each memory involves."""
    present = set(tokens)
    named = {who for name, who in index.names.items() if all(t in present for t in name)}
    if not named:
        return None
    spellings: dict[str, list[tuple[str, ...]]] = {who: [] for who in named}
    for name, who in index.names.items():
        if who in spellings:  # "Mel" in the query: memories naming "Melanie" count too
            spellings[who].append(name)
    lift = np.zeros(len(index.memories), dtype=np.float64)
    for names in spellings.values():
        involved = np.zeros(len(index.memories), dtype=np.bool_)
        for name in names:
            # A memory involves a name when it holds all its tokens (participants are indexed).
            docs = index.bm25.docs_with(name[0])
            for token in name[1:]:
                docs = np.intersect1d(docs, index.bm25.docs_with(token), assume_unique=True)
            involved[docs] = True
        lift += involved
    return ENTITY_LIFT * lift / len(named)


def rank(
    index: ContextIndex, q: str | None, *, since: float | None = None, until: float | None = None
) -> list[tuple[int, float]]:
    """Memory indices with scores, best first: relevance to ``q``, or recency and salience."""
    n = len(index.memories)
    if n == 0:
        return []
    allowed = np.ones(n, dtype=np.bool_)
    # NaN compares False, so an undated memory is left out whenever a date filter is given.
    if since is not None:
        allowed &= index.dates >= since
    if until is not None:
        allowed &= index.dates <= until
    tokens = tokenize(q) if q else []
    period = _period(index, q) if q else None
    if not tokens and period is None:
        scores = index.recency + BROWSE_SALIENCE_WEIGHT * index.salience
        candidates = allowed
    else:
        bm25 = index.bm25.scores(tokens).astype(np.float64)
        best = float(bm25[allowed].max(initial=0.0))
        scores = RELEVANCE_WEIGHT * (bm25 / best if best > 0 else bm25)
        scores = scores + RECENCY_WEIGHT * index.recency
        lift = _entity_lift(index, tokens)
        if lift is not None:
            scores += lift
        if q and is_temporal(q):
            scores += TEMPORAL_BOOST * index.has_when
        matched = bm25 > 0
        if period is not None:
            scores += PERIOD_BOOST * period
            matched |= period
        candidates = allowed & matched
    ids = np.flatnonzero(candidates)
    # Best first; among equal scores the later item in the passport (the newer one) first.
    order = ids[np.lexsort((-ids, -scores[ids]))]
    return [(int(i), float(scores[i])) for i in order]


@dataclass(frozen=True, slots=True)
class ScoredMemory:
    """A ranked memory with its score and its 1-based rank, and where it came from."""

    memory: Memory
    score: float
    rank: int
    position: int  # where the memory sits in ``ContextIndex.memories``

    @property
    def source(self) -> str | None:
        """The id of the source the memory came from."""
        return self.memory.source

    @property
    def turn_ids(self) -> tuple[str, ...]:
        """The client's message ids behind the memory."""
        return self.memory.turn_ids

    def to_dict(self) -> dict[str, Any]:
        """JSON form: the memory, its score and rank."""
        return {**self.memory.to_dict(), "score": round(self.score, 4), "rank": self.rank}


def search(
    index: ContextIndex,
    q: str | None,
    limit: int,
    since: float | None = None,
    until: float | None = None,
) -> list[ScoredMemory]:
    """The ``limit`` best memories for ``q`` (or the most recent and salient), with provenance."""
    ranked = rank(index, q, since=since, until=until)[: max(limit, 0)]
    return [ScoredMemory(index.memories[i], s, r, i) for r, (i, s) in enumerate(ranked, start=1)]


# --- rendering ------------------------------------------------------------------------------


def _clip(text: str, limit: int) -> str:
    text = _SPACE_RE.sub(" ", text).strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _value_text(value: Any) -> str:
    if value is None or value is True:
        return ""
    if value is False:
        return "no"
    if isinstance(value, str):
        return _clip(value, MAX_VALUE_CHARS)
    if isinstance(value, list):
        return _clip(", ".join(_value_text(v) or "yes" for v in value), MAX_VALUE_CHARS)
    if isinstance(value, dict):
        dumped = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        return _clip(dumped, MAX_VALUE_CHARS)
    return _clip(str(value), MAX_VALUE_CHARS)


def key_label(key: str) -> str:
    """A key as words: ``caroline.favorite_color`` reads "Caroline's favorite color"."""
    owner, dot, rest = key.partition(".")
    if dot and rest and _OWNER_RE.fullmatch(owner):
        who = " ".join(w.capitalize() for w in owner.replace("_", " ").split())
        return f"{who}'s {key_label(rest)}"
    return _clip(key.replace("_", " ").replace(".", " "), MAX_VALUE_CHARS)


def _belief_line(b: Belief) -> str:
    value = _value_text(b.value)
    return f"- {key_label(b.key)}: {value}" if value else f"- {key_label(b.key)}"


def _day(ts: str | None) -> str:
    when = parse_when(ts)
    return f" ({when.label})" if when else ""


def _change_line(c: Contradiction) -> str:
    old = _value_text(c.old) or "(none)"
    new = _value_text(c.new) or "(none)"
    return f"- {key_label(c.key)}: {old} → {new}{_day(c.ts_new)}"


def _loop_line(loop: OpenLoop) -> str:
    return f"- {_clip(loop.item, MAX_VALUE_CHARS)}{_day(loop.ts)}"


def _entity_item(e: Entity) -> str:
    name = _clip(e.name, MAX_VALUE_CHARS)
    return name if e.type == "other" else f"{name} ({e.type})"


def _memory_line(m: Memory) -> str:
    text = _SPACE_RE.sub(" ", m.text).strip()
    if m.date_label and _LEADING_DATE_RE.match(text):
        # The rule extractor opens summaries with "On 8 May 2023, "; the line already has it.
        text = _LEADING_DATE_RE.sub("", text, count=1)
        text = text[:1].upper() + text[1:]
    text = _clip(text, MAX_MEMORY_CHARS)
    return f"- {m.date_label}: {text}" if m.date_label else f"- {text}"


@dataclass(slots=True)
class _Block:
    """A section shown as a ranked prefix of its candidates, costed exactly in characters."""

    header: str
    lines: list[str]  # ranked candidates (for an inline block, the items of its one line)
    total: int  # items the passport holds, so the omitted count covers those never candidates
    note: Callable[[int], str]
    inline: bool = False
    shown: int = 0
    prefix: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        per_line = 0 if self.inline else 1  # every block line ends with a newline
        self.prefix = [0]
        for line in self.lines:
            self.prefix.append(self.prefix[-1] + len(line) + per_line)

    def cost(self, k: int) -> int:
        """Characters (newlines included) the section takes with its first ``k`` candidates."""
        k = min(k, len(self.lines))
        if k == 0:
            return 0
        omitted = self.total - k
        note = len(self.note(omitted)) if omitted else 0
        if self.inline:  # "Header: a, b, c (+2 more)\n"
            return len(self.header) + 1 + self.prefix[k] + 2 * (k - 1) + note + 1
        return len(self.header) + 1 + self.prefix[k] + (note + 1 if note else 0)

    def render(self) -> list[str]:
        """The section's lines as shown."""
        if not self.shown:
            return []
        omitted = self.total - self.shown
        if self.inline:
            line = f"{self.header} {', '.join(self.lines[: self.shown])}"
            return [line + (self.note(omitted) if omitted else "")]
        tail = [self.note(omitted)] if omitted else []
        return [self.header, *self.lines[: self.shown], *tail]


@dataclass(slots=True)
class _Budget:
    cap: int  # budget_chars + 1: every line is costed with a newline, the last one is not printed
    used: int = 0

    def grow(self, block: _Block, limit: float) -> None:
        """Show more of ``block``, in rank order, while it stays within ``limit`` and the cap."""
        while block.shown < len(block.lines):
            now, after = block.cost(block.shown), block.cost(block.shown + 1)
            if after > limit or self.used - now + after > self.cap:
                return
            self.used += after - now
            block.shown += 1


def _count_note(noun: str) -> Callable[[int], str]:
    return lambda n: f"(+{n} more {noun} not shown)"


@dataclass(frozen=True, slots=True)
class Context:
    """The selection ``build_context`` made, as text for a prompt or as JSON."""

    query: str | None
    budget_chars: int
    facts: tuple[Belief, ...]
    prefs: tuple[Belief, ...]
    entities: tuple[Entity, ...]
    open_loops: tuple[OpenLoop, ...]
    contradictions: tuple[Contradiction, ...]
    memories: tuple[ScoredMemory, ...]  # in time order, as printed
    omitted: Mapping[str, int]  # per section: items the passport holds that are not shown
    memory_order: Literal["relevance", "recency"]
    text: str

    def render_text(self) -> str:
        """The context as compact text, at most ``budget_chars`` characters."""
        return self.text

    def to_json(self) -> dict[str, Any]:
        """The same selection as structured sections, memories with score and provenance."""
        return {
            "query": self.query,
            "budget_chars": self.budget_chars,
            "chars": len(self.text),
            "facts": [b.to_dict() for b in self.facts],
            "prefs": [b.to_dict() for b in self.prefs],
            "entities": [e.to_dict() for e in self.entities],
            "open_loops": [loop.to_dict() for loop in self.open_loops],
            "contradictions": [c.to_dict() for c in self.contradictions],
            "memory_order": self.memory_order,
            "memories": [m.to_dict() for m in self.memories],
            "omitted": dict(self.omitted),
        }


def _ts_key(ts: str | None) -> float:
    when = parse_when(ts)
    return -math.inf if when is None else when.epoch


@dataclass(frozen=True, slots=True)
class _Section:
    """A passport section in its query-free order, with each item's line and search terms."""

    items: tuple[Any, ...]
    lines: tuple[str, ...]
    terms: tuple[tuple[frozenset[str], ...], ...]  # token sets a query can name the item by
    total: int  # items the passport holds (more than ``items`` for capped sections)

    def named_first(
        self, named: Callable[[tuple[frozenset[str], ...]], bool]
    ) -> tuple[list[Any], list[str]]:
        """Items the query names first, then the rest, each group in the query-free order."""
        first = [i for i, t in enumerate(self.terms) if named(t)]
        if not first:
            return list(self.items), list(self.lines)
        chosen = set(first)
        order = first + [i for i in range(len(self.items)) if i not in chosen]
        return [self.items[i] for i in order], [self.lines[i] for i in order]


def _belief_section(beliefs: Sequence[Belief]) -> _Section:
    """Newest first, then most confident; ties by key."""

    def key(b: Belief) -> tuple[float, float, str]:
        return (-_ts_key(b.ts), -(0.0 if b.confidence is None else b.confidence), b.key)

    items = sorted(beliefs, key=key)
    terms = tuple((frozenset(tokenize(f"{b.key} {_value_text(b.value)}")),) for b in items)
    return _Section(tuple(items), tuple(map(_belief_line, items)), terms, len(items))


def _sections(p: Passport) -> dict[str, _Section]:
    """Everything before the memories, ordered and rendered once per passport version."""
    entity_terms = tuple(
        tuple(frozenset(tokenize(n)) for n in (e.name, *e.aliases)) for e in p.entities
    )
    loops = sorted(p.open_loops, key=lambda loop: -_ts_key(loop.ts))
    changes = sorted(p.contradictions, key=lambda c: -_ts_key(c.ts_new))[:MAX_CHANGES]
    return {
        "facts": _belief_section(p.facts),
        "prefs": _belief_section(p.prefs),
        "entities": _Section(
            tuple(p.entities),
            tuple(map(_entity_item, p.entities)),
            entity_terms,
            len(p.entities),
        ),
        "open_loops": _Section(tuple(loops), tuple(map(_loop_line, loops)), (), len(loops)),
        "contradictions": _Section(
            tuple(changes), tuple(map(_change_line, changes)), (), len(p.contradictions)
        ),
    }


_HEADERS = {
    "facts": "Facts:",
    "prefs": "Preferences:",
    "entities": "People and things:",
    "open_loops": "Open loops:",
    "contradictions": "Changed:",
}
_NOTES: dict[str, Callable[[int], str]] = {
    "facts": _count_note("facts"),
    "prefs": _count_note("preferences"),
    "entities": lambda n: f" (+{n} more)",
    "open_loops": _count_note("open loops"),
    "contradictions": _count_note("older changes"),
}


def _blocks(index: ContextIndex, query: set[str]) -> tuple[dict[str, _Block], dict[str, list[Any]]]:
    """The sections before the memories as blocks, what the query names first."""

    def names_belief(terms: tuple[frozenset[str], ...]) -> bool:
        return any(not t.isdisjoint(query) for t in terms)

    def names_entity(terms: tuple[frozenset[str], ...]) -> bool:
        return any(t and t <= query for t in terms)

    blocks: dict[str, _Block] = {}
    items: dict[str, list[Any]] = {}
    for name, section in index.sections.items():
        predicate = names_entity if name == "entities" else names_belief
        items[name], lines = (
            section.named_first(predicate)
            if query
            else (
                list(section.items),
                list(section.lines),
            )
        )
        blocks[name] = _Block(
            _HEADERS[name], lines, section.total, _NOTES[name], inline=name == "entities"
        )
    return blocks, items


def build_context(
    index: ContextIndex,
    q: str | None,
    budget_chars: int,
    *,
    since: float | None = None,
    until: float | None = None,
) -> Context:
    """Facts, preferences, entities, open loops, changes and the best memories, within budget."""
    query = set(tokenize(q)) if q else set()
    blocks, items = _blocks(index, query)
    budget = _Budget(cap=max(budget_chars, 0) + 1)
    # First pass: each section up to its share, facts and preferences split by what they need.
    belief_cap = BELIEF_SHARE * budget_chars
    f, pr = blocks["facts"], blocks["prefs"]
    need_f, need_p = f.cost(len(f.lines)), pr.cost(len(pr.lines))
    # The newest fact and preference are shown even past the share, whenever the budget allows.
    budget.grow(f, max(belief_cap * need_f / max(need_f + need_p, 1), f.cost(1)))
    budget.grow(pr, max(belief_cap - f.cost(f.shown), pr.cost(1)))
    budget.grow(f, belief_cap - pr.cost(pr.shown))
    for name in ("contradictions", "open_loops", "entities"):
        budget.grow(blocks[name], SIDE_SHARE * budget_chars)

    ranked = rank(index, q, since=since, until=until)
    searched = bool(q) and (bool(query) or _period(index, q or "") is not None)
    memory_order: Literal["relevance", "recency"] = "relevance" if searched else "recency"
    if searched and not ranked:  # nothing matches: recent memories are still better than none
        ranked = rank(index, None, since=since, until=until)
        memory_order = "recency"
    header = (
        "Memories (most relevant, in time order):"
        if memory_order == "relevance"
        else "Memories (most recent, in time order):"
    )
    chosen = _choose_memories(index, ranked, header, budget)
    # Second pass: what memories left goes back to the sections the first pass cut.
    for name in ("facts", "prefs", "open_loops", "contradictions", "entities"):
        budget.grow(blocks[name], math.inf)

    lines: list[str] = []
    for name in ("facts", "prefs", "entities", "open_loops", "contradictions"):
        lines += blocks[name].render()
    shown = sorted(chosen, key=lambda c: (c.memory.date is None, c.memory.date or 0.0, c.rank))
    if shown:
        lines.append(header)
        lines += [index.lines[c.position] for c in shown]
        if len(ranked) > len(shown):
            lines.append(_count_note("memories")(len(ranked) - len(shown)))
    text = "\n".join(lines)
    assert len(text) <= max(budget_chars, 0), (len(text), budget_chars)
    omitted = {name: block.total - block.shown for name, block in blocks.items()}
    omitted["memories"] = len(ranked) - len(shown)
    return Context(
        query=q,
        budget_chars=budget_chars,
        facts=tuple(items["facts"][: blocks["facts"].shown]),
        prefs=tuple(items["prefs"][: blocks["prefs"].shown]),
        entities=tuple(items["entities"][: blocks["entities"].shown]),
        open_loops=tuple(items["open_loops"][: blocks["open_loops"].shown]),
        contradictions=tuple(items["contradictions"][: blocks["contradictions"].shown]),
        memories=tuple(shown),
        omitted=omitted,
        memory_order=memory_order,
        text=text,
    )


def _choose_memories(
    index: ContextIndex, ranked: list[tuple[int, float]], header: str, budget: _Budget
) -> list[ScoredMemory]:
    """The best-ranked memories that fit, skipping one that is too long for a shorter next one."""
    chosen: list[ScoredMemory] = []
    seen: set[str] = set()
    lines_cost = 0
    current = 0  # what the memory section costs now: header + lines + omitted note
    note_base = len(_count_note("memories")(0)) - 1  # without the digits of the count
    shortest = min((len(line) + 1 for line in index.lines), default=0)

    def cost(k: int, lines: int) -> int:
        omitted = len(ranked) - k
        note = note_base + len(str(omitted)) + 1 if omitted else 0
        return len(header) + 1 + lines + note

    for r, (i, score) in enumerate(ranked, start=1):
        # Stop scanning once not even the shortest line could fit, were the note to vanish.
        if budget.cap - budget.used + (current - lines_cost) < shortest:
            break
        line = index.lines[i]
        if line in seen:  # the same memory stored twice is shown once
            continue
        after = cost(len(chosen) + 1, lines_cost + len(line) + 1)
        if budget.used - current + after <= budget.cap:
            budget.used += after - current
            current, lines_cost = after, lines_cost + len(line) + 1
            seen.add(line)
            chosen.append(ScoredMemory(index.memories[i], score, r, i))
    return chosen
