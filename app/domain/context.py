"""Query-ranked, budgeted context from one passport: the core of GET /context and /search.

``ContextIndex.from_passport`` does the work that depends only on the passport (tokenising every
memory, the BM25 index, date arrays), so the service can cache it per (tenant, user, version).
``rank`` and ``search`` order the memories (observations and episodes) for a query;
``build_context`` renders facts, preferences, entities, open loops, recent changes and the best
memories into text that never exceeds a character budget, plus the same selection as JSON.

The rules that decide what a small budget holds: a person's name in the query selects and lifts
that person's memories once (``_parse_query``, PERSON_LIFT) instead of scoring as a word that
rewards repetition; an episode that only repeats, for this query, the observations already chosen
from the same turns waits until everything else has had its turn (``_choose_memories``); a line
never states its own date twice (``_without_own_date``); open loops that only end a chat are left
out (``_is_leave_taking``); with a query, the facts, preferences and open loops it does not name
yield to memories first (``_first_pass``). Whatever is left out is counted in the text.

Pure: no clock. "Now", for recency, is the newest time the passport itself records.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache
from typing import Any, Literal, NamedTuple

import numpy as np
import numpy.typing as npt

from app.domain.bm25 import K1 as BM25_K1
from app.domain.bm25 import B as BM25_B
from app.domain.bm25 import BM25Index
from app.domain.dates import MONTH_NUMBERS
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
# Added, in proportion, when the memory involves the people the query names ("what did Caroline
# ..."). A person's name is not a BM25 term (see ``_parse_query``), so this is all that naming
# her does: as much as the whole relevance scale, a soft filter that puts her memories matching
# the question before anyone else's. Her memories that match nothing but her name get at most
# this much, less the longer they are: never more than one of hers that matches the question,
# and more than someone else's only when that one matches weakly.
PERSON_LIFT = 1.0
# The same for other entities the query names ("... in Lisbon"), whose names stay BM25 terms:
# enough to prefer memories of Lisbon among similar matches, no more.
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
# With a query, the facts and preferences it does not name take at most this share in the first
# pass (those it names keep BELIEF_SHARE), and open loops it does not name wait for the second
# pass: at a small budget the memories that answer the question come first. The newest fact and
# preference are shown all the same whenever they fit, and the omitted counts say what is left.
QUERY_BELIEF_SHARE = 0.25
MAX_CHANGES = 5  # "Changed:" shows at most this many, newest first
MAX_VALUE_CHARS = 200  # one long fact value must not crowd out all the others
MAX_MEMORY_CHARS = 500

MemoryKind = Literal["observation", "episode"]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

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
_DATE_TEXT = (
    rf"(?:\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH_RE},?\s+\d{{4}}"
    rf"|{_MONTH_RE}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}})"
)
# "On 8 May 2023, Jon ..." / "On 1 February 2023 Jon ..." / "... the escape room on 6 March 2023."
_LEADING_DATE_RE = re.compile(rf"^On\s+(?P<date>{_DATE_TEXT}),?\s+(?=\S)", re.IGNORECASE)
_TRAILING_DATE_RE = re.compile(rf",?\s+on\s+(?P<date>{_DATE_TEXT})(?P<end>[.!]?)$", re.IGNORECASE)
_DATE_IN_TEXT_RE = re.compile(_DATE_TEXT, re.IGNORECASE)
_ASIDE_RE = re.compile(r"\([^)]*\)")
# A small-talk goodbye: words of leaving, and what may come with them (an errand without object).
_LEAVING_WORDS = "go gonna gotta run head leave bye goodbye later ttyl brb cya"
_LEAVE_TAKING_WORDS = (
    "got need must now quick really bed sleep cook dinner eat shower talk chat speak soon"
)
MAX_LEAVE_TAKING_WORDS = 6
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
    """Everything ranking needs from one passport version; build once, share between reads.

    Only its bounded memos (``plans``, ``involved``, ``lifts``) change after it is built, and
    only from the reads themselves (the API serves them on its event loop, one at a time).
    """

    memories: tuple[Memory, ...]
    bm25: BM25Index  # over memory text + keywords + participants
    dates: FloatArray  # epoch seconds, NaN when undated
    salience: FloatArray
    recency: FloatArray  # 1.0 at "now", halving every RECENCY_HALF_LIFE_DAYS, 0 when undated
    recency_term: FloatArray  # RECENCY_WEIGHT * recency, made once
    when_boost: FloatArray  # TEMPORAL_BOOST for a memory with its own date, made once
    has_when: BoolArray
    mention: FloatArray  # BM25's weight of one occurrence of a term in each memory (length only)
    years: npt.NDArray[np.int32]  # 0 when undated
    months: npt.NDArray[np.int32]  # 0 when undated or only the year is known
    names: Mapping[tuple[str, ...], str]  # tokens of an entity/participant name -> who it is
    people: frozenset[str]  # the ``names`` values that are people (participants, person entities)
    names_by_token: Mapping[str, tuple[tuple[tuple[str, ...], str], ...]]  # first token -> names
    spellings: Mapping[str, tuple[tuple[str, ...], ...]]  # who -> every name that means them
    now: float | None
    lines: tuple[str, ...]  # each memory as its context line, rendered once per version
    line_costs: npt.NDArray[np.int64]  # len(line) + 1 (its newline) per memory
    sections: Mapping[str, _Section]  # facts, prefs, entities, open loops, changes: pre-rendered
    section_words: frozenset[str]  # the words that name items of the sections but open loops
    loop_words: frozenset[str]  # the words that name open loops
    by_line_cost: npt.NDArray[np.intp]  # memory positions, shortest line first
    sorted_line_costs: npt.NDArray[np.int64]  # ``line_costs`` in that order
    shortest_line: int  # the smallest of ``line_costs`` (0 without memories)
    size: int = field(default=0)
    # _planned_sections' memo: the sections before the memories per budget and named words.
    plans: dict[tuple[Any, ...], _Plan] = field(default_factory=dict, compare=False, repr=False)
    # _involving's memo: which memories involve each who a query named (one byte per memory each).
    involved: dict[str, BoolArray] = field(default_factory=dict, compare=False, repr=False)
    # _named's memo: the lift of each set of names a query held (up to 41 bytes per memory).
    lifts: dict[frozenset[str], _Named] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def from_passport(cls, p: Passport) -> ContextIndex:
        """Index a passport's observations and episodes for ranking."""
        turn_ids = {s.id: tuple(str(t) for t in s.turn_ids) for s in p.sources}
        pairs = [_observation(o, turn_ids) for o in p.observations if o.text.strip()]
        pairs += [_episode(e, turn_ids) for e in p.episodes if e.summary.strip()]
        memories = [m for m, _ in pairs]
        whens = [w for _, w in pairs]
        docs = [tokenize(" ".join((m.text, *m.keywords, *m.participants))) for m in memories]
        names = _names(p)
        people = _people(p)
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
        lines = tuple(_memory_line(m) for m in memories)
        line_costs = np.array([len(line) + 1 for line in lines], dtype=np.int64)
        has_when = np.array([m.has_when for m in memories], dtype=np.bool_)
        index = cls(
            memories=tuple(memories),
            bm25=bm25,
            dates=dates,
            # Clipped: an imported passport may carry salience on another scale.
            salience=np.clip(
                [DEFAULT_SALIENCE if m.salience is None else m.salience for m in memories], 0, 1
            ).astype(np.float64),
            recency=recency,
            recency_term=RECENCY_WEIGHT * recency,
            when_boost=np.where(has_when, TEMPORAL_BOOST, 0.0),
            has_when=has_when,
            mention=_mention_weights(docs),
            years=np.array([0 if w is None else w.year for w in whens], dtype=np.int32),
            months=np.array([0 if w is None else w.month for w in whens], dtype=np.int32),
            names=names,
            people=people,
            names_by_token=_by_first_token(names),
            spellings=_spellings(names),
            now=now,
            lines=lines,
            line_costs=line_costs,
            sections=(sections := _sections(p, _name_tokens(names, people))),
            section_words=frozenset(
                t for name, sec in sections.items() if name != "open_loops" for t in sec.postings
            ),
            loop_words=frozenset(sections["open_loops"].postings),
            by_line_cost=(by_cost := np.argsort(line_costs, kind="stable")),
            sorted_line_costs=line_costs[by_cost],
            shortest_line=int(line_costs.min(initial=0)),
        )
        object.__setattr__(index, "size", _estimate_bytes(index))
        return index

    def approx_bytes(self) -> int:
        """An estimate of the memory this index and its passport hold, for an LRU cache."""
        return self.size

    def lines_within(self, cost: int) -> npt.NDArray[np.intp]:
        """The positions of the memories whose line (with its newline) costs at most ``cost``."""
        return self.by_line_cost[: int(np.searchsorted(self.sorted_line_costs, cost, "right"))]


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


def _by_first_token(
    names: Mapping[tuple[str, ...], str],
) -> dict[str, tuple[tuple[tuple[str, ...], str], ...]]:
    """Names by their first token: a query finds the names it holds without reading them all."""
    found: dict[str, list[tuple[tuple[str, ...], str]]] = {}
    for name, who in names.items():
        found.setdefault(name[0], []).append((name, who))
    return {token: tuple(pairs) for token, pairs in found.items()}


def _spellings(names: Mapping[tuple[str, ...], str]) -> dict[str, tuple[tuple[str, ...], ...]]:
    """Every name of each who ("Mel" and "Melanie")."""
    found: dict[str, list[tuple[str, ...]]] = {}
    for name, who in names.items():
        found.setdefault(who, []).append(name)
    return {who: tuple(spelled) for who, spelled in found.items()}


def _mention_weights(docs: Sequence[Sequence[str]]) -> FloatArray:
    """BM25's term-frequency factor for a single occurrence: 1 / (1 + k1 * length norm)."""
    lengths = np.array([len(d) for d in docs], dtype=np.float64)
    avgdl = float(lengths.mean()) if len(docs) and lengths.sum() else 1.0
    return 1.0 / (1.0 + BM25_K1 * (1.0 - BM25_B + BM25_B * lengths / avgdl))


def _name_tokens(names: Mapping[tuple[str, ...], str], people: frozenset[str]) -> frozenset[str]:
    """Every token of every name of a person."""
    return frozenset(t for name, who in names.items() if who in people for t in name)


def _people(p: Passport) -> frozenset[str]:
    """The ``_names`` keys of people: every participant and every entity typed as a person."""
    people = {e.name.casefold() for e in p.entities if e.type == "person"}
    people.update(who.casefold() for o in p.observations for who in o.participants)
    people.update(who.casefold() for e in p.episodes for who in e.participants)
    return frozenset(people)


# Measured with tracemalloc on a 6,600-memory passport: a parsed passport item (pydantic model,
# its dict and small lists) takes ~1,500 bytes beyond its text; a Memory record with its rendered
# line ~350 bytes beyond the line's characters.
_PASSPORT_ITEM_BYTES = 1500
_MEMORY_BYTES = 350
_PLAN_BYTES = 4000  # five blocks, and reordered lists for the sections a query names


def _estimate_bytes(index: ContextIndex) -> int:
    """Rough by design: arrays and BM25 postings exactly, Python objects at measured sizes."""
    # The parsed passport is not kept: only the section items (for JSON) and the memory records.
    items = sum(len(section.items) for section in index.sections.values())
    arrays = (
        index.dates,
        index.salience,
        index.recency,
        index.recency_term,
        index.when_boost,
        index.has_when,
        index.mention,
        index.years,
        index.months,
        index.line_costs,
        index.by_line_cost,
        index.sorted_line_costs,
    )
    passport = _PASSPORT_ITEM_BYTES * items + sum(len(m.text) for m in index.memories)
    records = sum(len(line) + _MEMORY_BYTES for line in index.lines)
    # The memos, full: a plan is a few lists of references; an involvement a byte per memory, a
    # lift 41 (its float and flag; a position, a lift, a weight, a penalty for each it reaches).
    memos = _PLANS_KEPT * _PLAN_BYTES + _INVOLVED_KEPT * (1 + 41) * len(index.memories)
    return index.bm25.approx_bytes() + sum(a.nbytes for a in arrays) + records + passport + memos


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
    mask = _any_equal(index.years, years)
    months = [_month_number(m[0]) for m in re.finditer(_MONTH_RE, text) if _is_word(text, m)]
    if months:
        mask &= _any_equal(index.months, months)
    return mask


def _any_equal(values: npt.NDArray[np.int32], wanted: Sequence[int]) -> BoolArray:
    # np.isin sorts; a question names one or two years or months.
    mask = values == wanted[0]
    for other in wanted[1:]:
        mask |= values == other
    return mask


def _is_word(text: str, m: re.Match[str]) -> bool:
    before = text[m.start() - 1] if m.start() else " "
    after = text[m.end()] if m.end() < len(text) else " "
    return not before.isalnum() and not after.isalnum()


@dataclass(frozen=True, slots=True)
class _Query:
    """A query's tokens split into what BM25 scores and who it names."""

    content: tuple[str, ...]  # BM25 terms: the tokens minus the names of people it names
    named: frozenset[str]  # ``ContextIndex.names`` values whose every name token is in the query


def _parse_query(index: ContextIndex, tokens: Sequence[str]) -> _Query:
    """Take the names of people out of the BM25 terms; they select memories, they do not match.

    The third-person rewrite repeats a person's name ("Ruth turned it off and on, Ruth shook it"),
    and every memory of a two-person chat names one of them, so as a BM25 term a name rewards
    repetition and short lines, not answers. It lifts (or, alone, selects) that person's memories
    instead, counted once. A name that is all the query says stays the only thing it asks about.
    """
    present = set(tokens)
    held = [
        (name, who)
        for token in present
        for name, who in index.names_by_token.get(token, ())
        if all(t in present for t in name)
    ]
    person_tokens = {t for name, who in held if who in index.people for t in name}
    content = tuple(t for t in tokens if t not in person_tokens)
    return _Query(content, frozenset(who for _, who in held))


@dataclass(frozen=True, slots=True)
class _Named:
    """The memories a query's named people and things reach, with their lift."""

    lift: FloatArray  # per memory: PERSON_LIFT or ENTITY_LIFT for each named it involves, averaged
    mask: BoolArray  # lift > 0
    ids: npt.NDArray[np.intp]  # where ``mask`` holds, by mention weight, highest first
    lift_ids: FloatArray  # ``lift`` at ``ids``
    mention_ids: FloatArray  # ``ContextIndex.mention`` at ``ids``
    full_penalty: FloatArray  # ``penalty`` when none of ``ids`` matches the question otherwise

    def penalty(self, bm25: npt.NDArray[np.float32], allowed: BoolArray | None) -> FloatArray:
        """What each of ``ids`` gives back of its lift when it matches only by the name.

        A memory that matches only by naming the person keeps less of the lift the longer it is
        (BM25's length normalisation of a single mention): at most what one of theirs that
        matches the question gets, and the budget buys many short memories, not a few long.
        """
        only = bm25[self.ids] == 0
        if allowed is not None:
            only &= allowed[self.ids]
        # The largest weight among them: ``ids`` are by weight, so the first that is one of them.
        first = int(only.argmax())
        if not only[first]:
            return np.zeros(self.ids.size, dtype=np.float64)
        if first == 0:  # the usual case: the shortest of them does not match the question
            return np.where(only, self.full_penalty, 0.0)
        penalty = self.lift_ids * (1 - self.mention_ids / self.mention_ids[first])
        penalty[~only] = 0.0
        return penalty


def _named(index: ContextIndex, named: frozenset[str]) -> _Named:
    """``_Named`` for a set of names, remembered per index (most questions name the same few)."""
    found = index.lifts.get(named)
    if found is None:
        lift = _lift(index, named)
        mask = lift > 0
        ids = np.flatnonzero(mask)
        ids = ids[np.argsort(-index.mention[ids], kind="stable")]
        lift_ids, mention_ids = lift[ids], index.mention[ids]
        full = lift_ids * (1 - mention_ids / mention_ids[0]) if ids.size else lift_ids
        found = _Named(lift, mask, ids, lift_ids, mention_ids, full)
        if len(index.lifts) >= _INVOLVED_KEPT:
            index.lifts.clear()
        index.lifts[named] = found
    return found


def _lift(index: ContextIndex, named: frozenset[str]) -> FloatArray:
    """Per memory: PERSON_LIFT or ENTITY_LIFT for each of the named it involves, averaged."""
    if len(named) == 1:  # the usual question: one person (what the general sum gives, exactly)
        (who,) = named
        weight = PERSON_LIFT if who in index.people else ENTITY_LIFT
        return np.where(_involving(index, who), weight, 0.0)
    lift = np.zeros(len(index.memories), dtype=np.float64)
    for who in named:
        lift += (PERSON_LIFT if who in index.people else ENTITY_LIFT) * _involving(index, who)
    return lift / max(len(named), 1)


_INVOLVED_KEPT = 32  # per index; past it the memo starts over


def _involving(index: ContextIndex, who: str) -> BoolArray:
    """The memories that name ``who`` by any of their names, remembered per index."""
    found = index.involved.get(who)
    if found is None:
        found = np.zeros(len(index.memories), dtype=np.bool_)
        for name in index.spellings.get(who, ()):  # "Mel" in the query: "Melanie" counts too
            # A memory involves a name when it holds all its tokens (participants are indexed).
            docs = index.bm25.docs_with(name[0])
            for token in name[1:]:
                docs = np.intersect1d(docs, index.bm25.docs_with(token), assume_unique=True)
            found[docs] = True
        if len(index.involved) >= _INVOLVED_KEPT:
            index.involved.clear()
        index.involved[who] = found
    return found


class Ranking:
    """Candidate memories and their scores; ordered (best first) only as far as they are read.

    A context shows a few dozen of possibly thousands of matches: ``split`` sorts the best k
    (every candidate scoring at least the k-th best: exactly the first k of the full order,
    with any ties) and leaves the rest unordered.
    """

    __slots__ = ("_candidate_scores", "_mask", "_scores", "candidates")

    def __init__(
        self, candidates: npt.NDArray[np.intp], scores: FloatArray, mask: BoolArray | None = None
    ) -> None:
        self.candidates = candidates  # memory positions, ascending
        self._scores = scores  # per memory position
        self._mask = mask  # per memory position: is it a candidate (made when needed if None)
        self._candidate_scores: FloatArray | None = None  # ``_scores`` of ``candidates``

    def __len__(self) -> int:
        return int(self.candidates.size)

    def __iter__(self) -> Iterator[tuple[int, float]]:
        return iter(self.top(len(self)))

    def split(
        self, k: int
    ) -> tuple[npt.NDArray[np.intp], Callable[[npt.NDArray[np.intp]], npt.NDArray[np.intp]]]:
        """The best ``k`` candidates (or more, on ties) best first, and a filter for the others.

        The filter keeps, of some memory positions, the candidates not among the best: most
        reads never get past the best, and those that do look only among a few short lines.
        """
        candidates = self.candidates
        size = candidates.size
        if k * 2 >= size and k > 0:
            return _best_first(candidates, self._scores), lambda some: some[:0]
        if k <= 0:
            return candidates[:0], lambda some: some[self.mask[some]]
        scores = self._candidate_scores = self._scores[candidates]
        # Methods, not np.partition and the like: numpy's Python wrappers cost more than the
        # work on a few thousand numbers.
        part = scores.copy()
        part.partition(size - k)
        kth = part[size - k]
        best = candidates[scores >= kth]
        return _best_first(best, self._scores), lambda some: some[
            self.mask[some] & (self._scores[some] < kth)
        ]

    @property
    def mask(self) -> BoolArray:
        """Per memory position: whether it is a candidate."""
        if self._mask is None:
            self._mask = np.zeros(self._scores.size, dtype=np.bool_)
            self._mask[self.candidates] = True
        return self._mask

    def top(self, limit: int) -> list[tuple[int, float]]:
        """The first ``limit`` (position, score) pairs."""
        ids = self.split(limit)[0][: max(limit, 0)]
        return list(zip(ids.tolist(), self._scores[ids].tolist(), strict=True))

    def scores_of(self, positions: npt.NDArray[np.intp]) -> list[float]:
        """The scores of the memories at ``positions``."""
        return self._scores[positions].tolist()

    def score(self, position: int) -> float:
        """The score of the memory at ``position``."""
        return float(self._scores[position])

    def best_of(self, some: npt.NDArray[np.intp]) -> int:
        """The best-ranked of some candidates (not empty)."""
        scores = self._scores[some]
        return int(np.maximum.reduce(some[scores == np.maximum.reduce(scores)]))

    def rank_of(self, position: int) -> int:
        """The 1-based place of a candidate in the full order."""
        if self._candidate_scores is None:
            self._candidate_scores = self._scores[self.candidates]
        scores, s = self._candidate_scores, self._scores[position]
        ahead = np.count_nonzero(scores > s)
        ties = scores == s
        return int(ahead + np.count_nonzero(self.candidates[ties] > position)) + 1


def _best_first(ids: npt.NDArray[np.intp], scores: FloatArray) -> npt.NDArray[np.intp]:
    # Best first; among equal scores the later item in the passport (the newer one) first:
    # ``ids`` ascend, so a stable sort of them reversed keeps the later first among ties.
    backwards = ids[::-1]
    return backwards[(-scores[backwards]).argsort(kind="stable")]


_NO_RANKING = Ranking(np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.float64))


def rank(
    index: ContextIndex, q: str | None, *, since: float | None = None, until: float | None = None
) -> Ranking:
    """Memory indices with scores, best first: relevance to ``q``, or recency and salience."""
    tokens = tokenize(q) if q else []
    period = _period(index, q) if q else None
    return _rank(index, q, _parse_query(index, tokens), period, since, until)


_NO_QUERY = _Query((), frozenset())


def _rank(
    index: ContextIndex,
    q: str | None,
    query: _Query,
    period: BoolArray | None,
    since: float | None,
    until: float | None,
) -> Ranking:
    n = len(index.memories)
    if n == 0:
        return _NO_RANKING
    allowed: BoolArray | None = None
    # NaN compares False, so an undated memory is left out whenever a date filter is given.
    if since is not None:
        allowed = index.dates >= since
    if until is not None:
        allowed = index.dates <= until if allowed is None else allowed & (index.dates <= until)
    named = _named(index, query.named) if query.named else None
    if not query.content and period is None:
        # No query, or only names: the most recent and salient memories (of those people).
        scores = index.recency + BROWSE_SALIENCE_WEIGHT * index.salience
        candidates = named.mask.copy() if named is not None else np.ones(n, dtype=np.bool_)
    else:
        bm25 = index.bm25.scores(query.content)
        best = float(np.maximum.reduce(bm25 if allowed is None else bm25[allowed], initial=0.0))
        scores = np.divide(bm25, best, dtype=np.float64) if best > 0 else bm25.astype(np.float64)
        scores *= RELEVANCE_WEIGHT
        scores += index.recency_term
        if named is not None:
            scores += named.lift
        if q and is_temporal(q):
            scores += index.when_boost
        candidates = bm25 > 0
        if named is not None:
            candidates |= named.mask
            scores[named.ids] -= named.penalty(bm25, allowed)
        if period is not None:
            scores += PERIOD_BOOST * period
            candidates |= period
    if allowed is not None:
        candidates &= allowed
    return Ranking(candidates.nonzero()[0], scores, candidates)


class ScoredMemory(NamedTuple):
    """A ranked memory with its score and its 1-based rank, and where it came from."""

    # A named tuple: a read makes a few dozen, and a tuple is made in a third of the time.

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
    ranked = rank(index, q, since=since, until=until).top(limit)
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
    item = _clip(loop.item, MAX_VALUE_CHARS)
    when = parse_when(loop.ts)
    if when is None or any(_is_label(m[0], when.label) for m in _DATE_IN_TEXT_RE.finditer(item)):
        return f"- {item}"  # "... (said 24 June 2023)" already names the day it was said
    return f"- {item} ({when.label})"


def _is_leave_taking(item: str, names: frozenset[str]) -> bool:
    """Is the loop a way of ending a chat ("needs to go cook, talk later", "gotta run")?

    Conservative: every word, names and asides in brackets aside, is one of leaving, a chore
    named without an object, or "talk later"; "needs to go to the dentist" stays.
    """
    words = [t for t in tokenize(_ASIDE_RE.sub(" ", item)) if t not in names]
    leaving, allowed = _leave_taking()
    return (
        0 < len(words) <= MAX_LEAVE_TAKING_WORDS
        and set(words) <= allowed
        and not leaving.isdisjoint(words)
    )


@cache
def _leave_taking() -> tuple[frozenset[str], frozenset[str]]:
    """The leaving words, and all the words a goodbye may hold, as (stemmed) search tokens."""
    leaving = frozenset(tokenize(_LEAVING_WORDS))
    return leaving, leaving | frozenset(tokenize(_LEAVE_TAKING_WORDS))


def _entity_item(e: Entity) -> str:
    name = _clip(e.name, MAX_VALUE_CHARS)
    return name if e.type == "other" else f"{name} ({e.type})"


def _memory_line(m: Memory) -> str:
    text = _without_own_date(_SPACE_RE.sub(" ", m.text).strip(), m.date_label)
    text = _clip(text, MAX_MEMORY_CHARS)
    return f"- {m.date_label}: {text}" if m.date_label else f"- {text}"


def _without_own_date(text: str, label: str | None) -> str:
    """``text`` without an opening "On <date>" or closing "on <date>" that is its line's date.

    The line starts with the memory's date already; a date in the text that names another day
    (or is more precise than the label) is information and stays.
    """
    if not label:
        return text
    lead = _LEADING_DATE_RE.match(text)
    if lead and _is_label(lead["date"], label):
        text = text[lead.end() :]
        text = text[:1].upper() + text[1:]
    tail = _TRAILING_DATE_RE.search(text)
    if tail and tail.start() > 0 and _is_label(tail["date"], label):
        text = text[: tail.start()] + tail["end"]
    return text


def _is_label(date_text: str, label: str) -> bool:
    when = parse_when(date_text)
    return when is not None and when.label == label


def _prefix_sums(lines: Sequence[str], inline: bool) -> list[int]:
    """Characters of the first k lines, for every k (with a newline each unless inline)."""
    per_line = 0 if inline else 1  # every block line ends with a newline
    prefix = [0]
    for line in lines:
        prefix.append(prefix[-1] + len(line) + per_line)
    return prefix


@dataclass(slots=True)
class _Block:
    """A section shown as a ranked prefix of its candidates, costed exactly in characters."""

    header: str
    lines: Sequence[str]  # ranked candidates (for an inline block, the items of its one line)
    total: int  # items the passport holds, so the omitted count covers those never candidates
    note: Callable[[int], str]
    named: int  # how many of the first ``lines`` the query names (all of them without a query)
    prefix: Sequence[int]  # _prefix_sums of ``lines``
    inline: bool = False
    shown: int = 0
    note_fixed: int = 0  # the note's length without the digits of its count
    rendered: tuple[str, ...] | None = None  # ``render``'s answer, once asked (plans are shared)
    next_cost: int | None = None  # ``step_cost``'s answer, once asked

    def __post_init__(self) -> None:
        self.note_fixed = len(self.note(0)) - 1

    def showing(self, k: int) -> _Block:
        """The same block showing its first ``k`` lines (lines and sums shared, never changed)."""
        twin = object.__new__(_Block)
        for name in _BLOCK_FIELDS:
            object.__setattr__(twin, name, getattr(self, name))
        twin.shown = k
        twin.rendered = None
        twin.next_cost = None
        return twin

    def step_cost(self) -> int | None:
        """What one more line adds (negative if the note goes); None when all are shown."""
        if self.next_cost is None and self.shown < len(self.lines):
            self.next_cost = self.cost(self.shown + 1) - self.cost(self.shown)
        return self.next_cost

    def cost(self, k: int) -> int:
        """Characters (newlines included) the section takes with its first ``k`` candidates."""
        k = min(k, len(self.lines))
        if k == 0:
            return 0
        omitted = self.total - k
        note = self.note_fixed + len(str(omitted)) if omitted else 0
        if self.inline:  # "Header: a, b, c (+2 more)\n"
            return len(self.header) + 1 + self.prefix[k] + 2 * (k - 1) + note + 1
        return len(self.header) + 1 + self.prefix[k] + (note + 1 if note else 0)

    def render(self) -> tuple[str, ...]:
        """The section's lines as shown."""
        if self.rendered is None:
            self.rendered = self._render()
        return self.rendered

    def _render(self) -> tuple[str, ...]:
        if not self.shown:
            return ()
        omitted = self.total - self.shown
        if self.inline:
            line = f"{self.header} {', '.join(self.lines[: self.shown])}"
            return (line + (self.note(omitted) if omitted else ""),)
        tail = (self.note(omitted),) if omitted else ()
        return (self.header, *self.lines[: self.shown], *tail)


@dataclass(slots=True)
class _Budget:
    cap: int  # budget_chars + 1: every line is costed with a newline, the last one is not printed
    used: int = 0

    def fit(self, block: _Block, limit: float, upto: int | None = None) -> int:
        """How many of ``block``'s lines to show, in rank order, while it stays within ``limit``
        and the cap (never fewer than it shows); the budget then counts them."""
        end = len(block.lines) if upto is None else min(len(block.lines), upto)
        k = block.shown
        if k >= end:
            return k
        now = block.cost(k)
        # What the block may cost: its limit, and what the cap leaves beside everything else.
        most = min(limit, self.cap - (self.used - now))
        cost = now
        while k < end:
            after = block.cost(k + 1)
            if after > most:
                break
            k, cost = k + 1, after
        self.used += cost - now
        return k

    def grow(self, block: _Block, limit: float, upto: int | None = None) -> None:
        """Show more of ``block`` (one of the read's own), as ``fit`` says."""
        block.shown = self.fit(block, limit, upto)


_BLOCK_FIELDS = tuple(f.name for f in dataclasses.fields(_Block))


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
    inline: bool = False
    prefix: tuple[int, ...] = ()  # _prefix_sums of ``lines``, in the query-free order
    postings: Mapping[str, tuple[int, ...]] = field(default_factory=dict)  # token -> items

    @classmethod
    def of(
        cls,
        items: Sequence[Any],
        lines: Sequence[str],
        terms: tuple[tuple[frozenset[str], ...], ...],
        total: int,
        inline: bool = False,
    ) -> _Section:
        """A section with its prefix sums and its token -> items map made once."""
        postings: dict[str, list[int]] = {}
        for i, sets in enumerate(terms):
            for token in sorted(set().union(*sets)):
                postings.setdefault(token, []).append(i)
        return cls(
            tuple(items),
            tuple(lines),
            terms,
            total,
            inline,
            tuple(_prefix_sums(lines, inline)),
            {token: tuple(ids) for token, ids in postings.items()},
        )

    def named_first(
        self, query: set[str] | frozenset[str], named: Callable[[tuple[frozenset[str], ...]], bool]
    ) -> tuple[Sequence[Any], Sequence[str], Sequence[int], int]:
        """Items the query names first, then the rest, each group in the query-free order.

        Only items holding a query token are tested; when none is named, the query-free order
        and its prefix sums are reused as they are.
        """
        candidates = {i for token in query for i in self.postings.get(token, ())}
        first = sorted(i for i in candidates if named(self.terms[i]))
        if not first:
            return self.items, self.lines, self.prefix, 0
        chosen = set(first)
        order = first + [i for i in range(len(self.items)) if i not in chosen]
        lines = [self.lines[i] for i in order]
        return [self.items[i] for i in order], lines, _prefix_sums(lines, self.inline), len(first)


def _belief_section(beliefs: Sequence[Belief]) -> _Section:
    """Newest first, then most confident; ties by key."""

    def key(b: Belief) -> tuple[float, float, str]:
        return (-_ts_key(b.ts), -(0.0 if b.confidence is None else b.confidence), b.key)

    items = sorted(beliefs, key=key)
    terms = tuple((frozenset(tokenize(f"{b.key} {_value_text(b.value)}")),) for b in items)
    return _Section.of(items, tuple(map(_belief_line, items)), terms, len(items))


def _sections(p: Passport, people: frozenset[str]) -> dict[str, _Section]:
    """Everything before the memories, ordered and rendered once per passport version.

    Open loops that only end a chat ("needs to go cook, talk later") are left out, newest first
    for the rest; the omitted count still counts them. ``people``: tokens of people's names,
    which every loop holds and so do not make a query name it.
    """
    entity_terms = tuple(
        tuple(frozenset(tokenize(n)) for n in (e.name, *e.aliases)) for e in p.entities
    )
    kept = [loop for loop in p.open_loops if not _is_leave_taking(loop.item, people)]
    loops = sorted(kept, key=lambda loop: -_ts_key(loop.ts))
    loop_terms = tuple((frozenset(tokenize(loop.item)) - people,) for loop in loops)
    changes = sorted(p.contradictions, key=lambda c: -_ts_key(c.ts_new))[:MAX_CHANGES]
    return {
        "facts": _belief_section(p.facts),
        "prefs": _belief_section(p.prefs),
        "entities": _Section.of(
            p.entities,
            tuple(map(_entity_item, p.entities)),
            entity_terms,
            len(p.entities),
            inline=True,
        ),
        "open_loops": _Section.of(
            loops, tuple(map(_loop_line, loops)), loop_terms, len(p.open_loops)
        ),
        "contradictions": _Section.of(
            changes, tuple(map(_change_line, changes)), (), len(p.contradictions)
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


def _blocks(
    index: ContextIndex, query: set[str], content: frozenset[str]
) -> tuple[dict[str, _Block], dict[str, Sequence[Any]]]:
    """The sections before the memories as blocks, what the query names first.

    Facts and preferences are named by any query word (their keys carry the person: "caroline.
    location"), open loops only by ``content``, the query's words other than people's names.
    """

    def names_belief(terms: tuple[frozenset[str], ...]) -> bool:
        return any(not t.isdisjoint(query) for t in terms)

    def names_loop(terms: tuple[frozenset[str], ...]) -> bool:
        return any(not t.isdisjoint(content) for t in terms)

    def names_entity(terms: tuple[frozenset[str], ...]) -> bool:
        return any(t and t <= query for t in terms)

    predicates = {"entities": names_entity, "open_loops": names_loop}
    blocks: dict[str, _Block] = {}
    items: dict[str, Sequence[Any]] = {}
    for name, section in index.sections.items():
        if query:
            words = content if name == "open_loops" else query
            predicate = predicates.get(name, names_belief)
            items[name], lines, prefix, named = section.named_first(words, predicate)
        else:
            items[name], lines, prefix = section.items, section.lines, section.prefix
            named = len(lines)
        blocks[name] = _Block(
            _HEADERS[name], lines, section.total, _NOTES[name], named, prefix, section.inline
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
    tokens = tokenize(q) if q else []
    query = set(tokens)
    parsed = _parse_query(index, tokens)
    content = frozenset(parsed.content)
    blocks, items, budget = _planned_sections(index, query, content, budget_chars)

    period = _period(index, q) if q else None
    ranked = _rank(index, q, parsed, period, since, until)
    searched = bool(q) and (bool(query) or period is not None)
    memory_order: Literal["relevance", "recency"] = "relevance" if searched else "recency"
    if searched and not ranked:  # nothing matches: recent memories are still better than none
        ranked = _rank(index, None, _NO_QUERY, None, since, until)
        memory_order = "recency"
    header = (
        "Memories (most relevant, in time order):"
        if memory_order == "relevance"
        else "Memories (most recent, in time order):"
    )
    chosen = _choose_memories(index, ranked, header, budget, content)
    # Second pass: what memories left goes back to the sections the first pass cut. The
    # blocks are the plan's, shared between reads: one that grows is replaced, not changed.
    for name in ("facts", "prefs", "open_loops", "contradictions", "entities"):
        block = blocks[name]
        step = block.step_cost()
        if step is None or step > budget.cap - budget.used:
            continue  # nothing more fits: most reads leave less room than one more line
        count = budget.fit(block, math.inf)
        if count != block.shown:
            blocks[name] = block.showing(count)

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


@dataclass(frozen=True, slots=True)
class _Plan:
    """The sections' blocks after the first pass, shared by the reads that use it (read-only)."""

    blocks: tuple[tuple[str, _Block], ...]
    items: dict[str, Sequence[Any]]
    used: int


_PLANS_KEPT = 128  # per index; past it the memo starts over


def _planned_sections(
    index: ContextIndex, query: set[str], content: frozenset[str], budget_chars: int
) -> tuple[dict[str, _Block], dict[str, Sequence[Any]], _Budget]:
    """``_blocks`` and ``_first_pass``, remembered per index by all that decides them.

    That is the budget, whether there is a query, and which of each section's own words the
    query holds: most questions about a user name the same few facts and people, or none.
    """
    # Which words of the sections the query holds: open loops are named by its content words.
    key = (budget_chars, bool(query), index.section_words & query, index.loop_words & content)
    plan = index.plans.get(key)
    if plan is None:
        blocks, items = _blocks(index, query, content)
        budget = _Budget(cap=max(budget_chars, 0) + 1)
        _first_pass(blocks, budget, budget_chars, bool(query))
        if len(index.plans) >= _PLANS_KEPT:
            index.plans.clear()
        plan = _Plan(tuple(blocks.items()), items, budget.used)
        index.plans[key] = plan
    return dict(plan.blocks), plan.items, _Budget(cap=max(budget_chars, 0) + 1, used=plan.used)


def _first_pass(
    blocks: Mapping[str, _Block], budget: _Budget, budget_chars: int, query: bool
) -> None:
    """Each section up to its share, before the memories; facts and preferences by what they need.

    With a query, the facts and preferences it does not name share QUERY_BELIEF_SHARE (those it
    names may use BELIEF_SHARE), and only the open loops it names are shown now. The entity line
    keeps its share: a roster of the people, places and things, many of them answers, is a lot of
    meaning per character.
    """
    f, pr = blocks["facts"], blocks["prefs"]
    belief_cap = BELIEF_SHARE * budget_chars
    if query:
        named = f.cost(f.named) + pr.cost(pr.named)
        belief_cap = min(belief_cap, max(named, QUERY_BELIEF_SHARE * budget_chars))
    need_f, need_p = f.cost(len(f.lines)), pr.cost(len(pr.lines))
    # The newest fact and preference are shown even past the share, whenever the budget allows.
    budget.grow(f, max(belief_cap * need_f / max(need_f + need_p, 1), f.cost(1)))
    budget.grow(pr, max(belief_cap - f.cost(f.shown), pr.cost(1)))
    budget.grow(f, belief_cap - pr.cost(pr.shown))
    budget.grow(blocks["contradictions"], SIDE_SHARE * budget_chars)
    loops = blocks["open_loops"]
    budget.grow(loops, SIDE_SHARE * budget_chars, upto=loops.named)
    budget.grow(blocks["entities"], SIDE_SHARE * budget_chars)


_RANKED_WINDOW = 48  # memories ranked in full order before the rest is read best-fitting first


def _choose_memories(
    index: ContextIndex,
    ranked: Ranking,
    header: str,
    budget: _Budget,
    terms: frozenset[str],
) -> list[ScoredMemory]:
    """The best-ranked memories that fit, skipping one that is too long for a shorter next one.

    An episode waits until every other memory has had its turn when the observations already
    chosen from its source (the same turns) match every query term it matches: for this query it
    would only repeat them, at several times the length. A large budget still shows it; one it
    does not fit counts among the memories not shown. Without query terms nothing waits: an
    episode's other lines are then what it adds.

    The work follows what is shown, not how many memories match: the best few dozen are put in
    order, and past them each step takes the best-ranked of the memories whose line still fits.
    """
    chosen: list[ScoredMemory] = []
    seen: set[str] = set()
    said: dict[str, list[int]] = {}  # source -> its chosen observations (when terms wait)
    later: list[tuple[int, int, float]] = []  # (rank, position, score) of the episodes waiting
    held = _HeldTerms(index, terms)
    memories, lines = index.memories, index.lines
    total = len(ranked)
    # What the memory section may take: the header line, the lines, the "(+N more ...)" note.
    free = budget.cap - budget.used - (len(header) + 1)
    lines_cost = 0  # the chosen lines with their newlines

    def room_after(k: int) -> int:
        # The longest line (with its newline) a (k+1)-th memory may have and still fit.
        return free - lines_cost - (_MEMORY_NOTE + len(str(total - k - 1)) if total > k + 1 else 0)

    def step(r: int, i: int, score: float) -> bool:
        # Show memory i (its line fits) unless it waits or repeats a line; whether it was shown.
        nonlocal lines_cost
        memory = memories[i]
        source = memory.source
        # An episode that adds no term its source's chosen observations did not waits.
        if memory.kind == "episode" and source in said and held.within(i, said[source]):
            later.append((r, i, score))
            return False
        line = lines[i]
        if line in seen:  # the same memory stored twice is shown once
            return False
        chosen.append(ScoredMemory(memory, score, r, i))
        seen.add(line)
        lines_cost += len(line) + 1
        if terms and memory.kind == "observation" and source is not None:
            said.setdefault(source, []).append(i)
        return True

    ordered, others = ranked.split(_RANKED_WINDOW)
    room = room_after(0)
    costs = index.line_costs[ordered].tolist()
    for r, (i, cost, score) in enumerate(
        zip(ordered.tolist(), costs, ranked.scores_of(ordered), strict=True), start=1
    ):
        if cost <= room and step(r, i, score):
            room = room_after(len(chosen))
            if room < index.shortest_line:  # full: no other line can fit
                break
    # Past the ordered few: the best-ranked of those whose line still fits, while any does.
    if room >= index.shortest_line:
        rest = others(index.lines_within(room))  # each line fits the room as it is now
        while rest.size:
            i = ranked.best_of(rest)
            rest = rest[rest != i]
            if step(ranked.rank_of(i), i, ranked.score(i)):
                room = room_after(len(chosen))
                rest = rest[index.line_costs[rest] <= room]
    for r, i, score in later:
        line = lines[i]
        if len(line) + 1 <= room_after(len(chosen)) and line not in seen:
            chosen.append(ScoredMemory(memories[i], score, r, i))
            seen.add(line)
            lines_cost += len(line) + 1
    if chosen:
        note = _MEMORY_NOTE + len(str(total - len(chosen))) if total > len(chosen) else 0
        budget.used += len(header) + 1 + lines_cost + note
    return chosen


# The "(+N more ...)" line without N's digits but with its newline: the "0" stands for "\n".
_MEMORY_NOTE = len(_count_note("memories")(0))


class _HeldTerms:
    """Which of the query's terms a memory holds, looked up when first asked."""

    def __init__(self, index: ContextIndex, terms: frozenset[str]) -> None:
        self._bm25 = index.bm25
        self._terms = terms
        self._ids: set[int] | None = None
        self._known: dict[int, set[int]] = {}

    def of(self, i: int) -> set[int]:
        """The term ids of the query that memory ``i`` holds."""
        found = self._known.get(i)
        if found is None:
            if self._ids is None:
                self._ids = self._bm25.term_ids(self._terms)
            found = self._ids.intersection(self._bm25.terms_in(i))
            self._known[i] = found
        return found

    def within(self, i: int, others: Sequence[int]) -> bool:
        """Whether every query term memory ``i`` holds is held by one of ``others``."""
        left = self.of(i)
        for other in others:
            if not left:
                break
            left = left - self.of(other)
        return not left
