"""Context from the log: BM25 over what was said, each hit with its neighbours.

``EvidenceIndex`` holds a user's log in log order (verbatim turns, and the observations and
episode summaries an LLM extractor made) and grows with ``extend``: a new row adds its
postings and nothing is rebuilt. A posting keeps its term's saturated frequency, normed by the
mean passage length of a sample that is taken again each time the index doubles (the first 1, 2,
4, ... passages); the idf comes from the document count and frequency at query time. An index
grown row by row therefore ranks exactly as one built at once, a query costs one multiply-add
per posting of its terms, and a read after a write costs the new rows, never the history.

A long turn (an assistant's answer of prose and code) is indexed and shown by passage: it is cut
into passages of about ``PASSAGE_TARGET`` characters on paragraph, then sentence, then word
boundaries, and the passage that matches is what a context shows, with its turn's id.

``assemble`` ranks the passages for a query, takes each hit with the turn before and after it in
the same session (a question and its answer), fills the budget greedily in rank order, and shows
the chosen turns in time order as ``[7 May 2023] Speaker: text``, each relative date followed by
the day it was resolved to at ingest: "yesterday (6 May 2023)". Without a query it shows the most
recent turns. Each item names its turn's own client id. Pure: no I/O, no clock, no settings.
"""

from __future__ import annotations

import hashlib
import heapq
import math
import re
import struct
from array import array
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from functools import lru_cache
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from app.domain.bm25 import K1, B, idf, length_norms, normed_weights
from app.domain.columns import StrColumn, StrRuns
from app.domain.dates import format_day, format_month, resolve_relative
from app.domain.text import tokenize

# A turn longer than PASSAGE_MAX is cut into passages of about PASSAGE_TARGET characters: long
# enough for a sentence with its context, short enough that one answer of thousands of
# characters cannot fill a small budget by itself.
PASSAGE_TARGET = 500
PASSAGE_MAX = 600
# Turns shown on each side of a hit: the message it answers and the answer it gets.
NEIGHBOURS = 1
# A neighbour's priority as a share of its hit's score: see ``_by_relevance``.
NEIGHBOUR_WEIGHT = 0.5
# A neighbour shows at most this many characters of its passage (its opening words): it is there
# to say what the hit answers or what answered it, and a long one would crowd out other hits.
NEIGHBOUR_CHARS = 300
# A query that names a speaker lifts that speaker's matching passages by this share of the best
# score: enough to order near-ties, never enough to outrank a clearly better match.
SPEAKER_LIFT = 0.3
# A passage's score takes this share of the passages beside it in the same session: people say
# one thing over several short messages in a row, and the words of a question spread over them.
RUN_SHARE = 0.1
# The run share is added over at least this many of the best passages (and their neighbours):
# more than any budget shows, so only passages that could never be shown are left out of it.
CANDIDATES = 1000
# A speaker's name in a query matches with one typo when the name has at least this many letters.
MIN_TYPO_CHARS = 5
# Below this many characters of room no further line is worth trying.
MIN_LINE = 24
ELLIPSIS = "…"

Order = Literal["relevance", "recency"]
Role = Literal["hit", "neighbour", "recent"]
FloatArray = npt.NDArray[np.float64]
# BM25 scores: single precision halves the memory a query sweeps; a sum of a few terms keeps
# about seven significant digits, and equal inputs still give equal scores.
Scores = npt.NDArray[np.float32]

_PARAGRAPH_RE = re.compile(r"\n[ \t]*\n")
_SENTENCE_RE = re.compile(r"(?<=[.!?…])\s+|\n")
_SPACE_RE = re.compile(r"\s+")


# --- records --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SaidDate:
    """A relative date as it was said and the day it was resolved to when it was said."""

    said: str  # the expression as written: "yesterday", "last Saturday"
    day: str  # ISO: 2023-05-06 for a day (a week or weekend: its first day), 2023-05, 2023

    def to_dict(self) -> dict[str, str]:
        """The passport form: ``{"said": ..., "day": ...}``."""
        return {"said": self.said, "day": self.day}


RecordKind = Literal["turn", "observation", "episode"]


@dataclass(frozen=True, slots=True)
class TurnRecord:
    """One row of the log as context assembly reads it: a turn, an observation or an episode."""

    id: str  # the log row's own id
    turn_id: str | None  # the client's id of a turn: the provenance a context gives
    speaker: str
    text: str
    ts: str | None  # event time, ISO 8601
    session: str | None
    dates: tuple[SaidDate, ...]  # relative dates resolved at ingest, in the order said
    position: int  # order in the log
    kind: RecordKind = "turn"
    # The client ids of the turns it came from: a turn's own id; an observation's turns.
    sources: tuple[str, ...] = ()
    source: str | None = None  # the passport source (segment) it came from

    @property
    def turn_ids(self) -> tuple[str, ...]:
        """The client ids of the turns behind this record."""
        if self.kind == "turn":
            return (self.turn_id,) if self.turn_id is not None else ()
        return self.sources


def record_of(
    row_id: int,
    kind: str,
    item: Mapping[str, Any],
    source_turns: Mapping[str, tuple[str, ...]] | None = None,
) -> TurnRecord | None:
    """A log row as a record to index (a source row, or an empty one, is not indexed).

    An observation or episode that names no turns of its own takes its source's, from
    ``source_turns`` (source id -> the client ids of its turns).
    """
    if kind == "turn":
        text = item.get("text")
        if not isinstance(text, str) or not text.strip():
            return None
        dates = tuple(
            SaidDate(str(d.get("said", "")), str(d.get("day", "")))
            for d in item.get("dates") or ()
            if isinstance(d, Mapping)
        )
        turn_id = item.get("id")
        session = item.get("session")
        return TurnRecord(
            id=str(row_id),
            turn_id=str(turn_id) if turn_id is not None else None,
            speaker=str(item.get("speaker") or ""),
            text=text,
            ts=_text_or_none(item.get("ts")),
            session=str(session) if session is not None else None,
            dates=dates,
            position=row_id,
            source=_text_or_none(item.get("source")),
        )
    if kind not in ("observation", "episode"):
        return None
    text = item.get("text") if kind == "observation" else item.get("summary")
    if not isinstance(text, str) or not text.strip():
        return None
    ids = item.get("turn_ids")
    if not isinstance(ids, list) and source_turns is not None:
        ids = list(source_turns.get(str(item.get("source")), ()))
    when = item.get("when") if kind == "observation" else None
    return TurnRecord(
        id=str(row_id),
        turn_id=None,
        speaker="",
        text=text,
        ts=_text_or_none(when) or _text_or_none(item.get("ts")),
        session=None,
        dates=(),
        position=row_id,
        kind="observation" if kind == "observation" else "episode",
        sources=tuple(str(i) for i in ids) if isinstance(ids, list) else (),
        source=_text_or_none(item.get("source")),
    )


def records_of(rows: Iterable[tuple[int, str, Mapping[str, Any]]]) -> list[TurnRecord]:
    """Log rows (id, kind, item) in log order as records; source rows lend their turn ids."""
    rows = list(rows)
    source_turns: dict[str, tuple[str, ...]] = {}
    for _, kind, item in rows:
        if kind == "source" and isinstance(item.get("turn_ids"), list):
            source_turns[str(item.get("id"))] = tuple(str(t) for t in item["turn_ids"])
    return [
        record
        for row_id, kind, item in rows
        if (record := record_of(row_id, kind, item, source_turns)) is not None
    ]


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def turn_dates(text: str, ts: datetime | None) -> tuple[SaidDate, ...]:
    """The relative dates of ``text`` resolved against the time it was said (none without it)."""
    if ts is None:
        return ()
    try:
        found = resolve_relative(text, ts)
    except Exception:  # a faulty date rule must cost the turn its dates, never the turn itself
        return ()
    return tuple(SaidDate(r.expression, r.iso) for r in found if r.relative)


@lru_cache(maxsize=4096)
def day_label(iso: str) -> str:
    """``7 May 2023`` for ``2023-05-07``, ``May 2023`` for ``2023-05``; anything else as is."""
    try:
        if len(iso) == 10:
            return format_day(date.fromisoformat(iso))
        if len(iso) == 7:
            return format_month(date.fromisoformat(iso + "-01"))
    except ValueError:
        pass
    return iso


def _ts_day(ts: str | None) -> str | None:
    if not ts:
        return None
    try:
        when = datetime.fromisoformat(ts)
    except ValueError:
        return None
    if when.tzinfo is not None:
        when = when.astimezone(UTC)
    return format_day(when.date())


# --- passages -------------------------------------------------------------------------------


def _pieces(text: str, start: int, end: int, pattern: re.Pattern[str]) -> list[tuple[int, int]]:
    """``text[start:end]`` cut at ``pattern``'s matches, as spans without the separators."""
    spans: list[tuple[int, int]] = []
    cursor = start
    for m in pattern.finditer(text, start, end):
        if m.start() > cursor:
            spans.append((cursor, m.start()))
        cursor = m.end()
    if cursor < end:
        spans.append((cursor, end))
    return spans


def _words(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """A span longer than PASSAGE_MAX cut at the last space before each PASSAGE_TARGET."""
    spans: list[tuple[int, int]] = []
    while end - start > PASSAGE_MAX:
        cut = text.rfind(" ", start + PASSAGE_TARGET // 2, start + PASSAGE_TARGET)
        cut = cut if cut > start else start + PASSAGE_TARGET
        spans.append((start, cut))
        start = cut
    spans.append((start, end))
    return spans


def passages(text: str) -> list[tuple[int, int]]:
    """Character spans of ``text`` to index and show apart: one span unless it is long."""
    stripped = text.strip()
    if len(stripped) <= PASSAGE_MAX:
        return [(0, len(text))]
    units: list[tuple[int, int]] = []
    for p_start, p_end in _pieces(text, 0, len(text), _PARAGRAPH_RE):
        if p_end - p_start <= PASSAGE_MAX:
            units.append((p_start, p_end))
            continue
        for s_start, s_end in _pieces(text, p_start, p_end, _SENTENCE_RE):
            units += _words(text, s_start, s_end)
    # Pack neighbouring units up to the target, so short sentences travel together.
    out: list[tuple[int, int]] = []
    for start, end in units:
        if not text[start:end].strip():
            continue
        if out and end - out[-1][0] <= PASSAGE_TARGET:
            out[-1] = (out[-1][0], end)
        else:
            out.append((start, end))
    return out or [(0, len(text))]


def _one_edit(a: str, b: str) -> bool:
    """Whether two long enough words are one letter added, dropped or changed apart."""
    if min(len(a), len(b)) < MIN_TYPO_CHARS or abs(len(a) - len(b)) > 1 or a == b:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    if len(a) == len(b):
        return a[i + 1 :] == b[i + 1 :]
    return a[i:] == b[i + 1 :]


# --- the index ------------------------------------------------------------------------------


_KINDS: tuple[RecordKind, ...] = ("turn", "observation", "episode")
# Postings are packed little-endian: passage numbers and term frequencies as 32-bit integers,
# weights as 32-bit floats. A tuple of bytearrays holds nothing the garbage collector tracks, so
# the collector stops tracking it (and the dict of them), whatever the vocabulary's size.
_INT = np.dtype("<i4")
_WEIGHT = np.dtype("<f4")
_FLOAT = struct.Struct("<f")


class EvidenceIndex:
    """BM25 over a user's log by passage, grown in log order by ``extend``.

    The index is columns, not objects: per record and per passage, typed arrays and string
    columns; per term, packed byte arrays. A log of hundreds of thousands of turns then costs
    bytes per entry, numpy reads the columns in place, and a full garbage collection walks a few
    dozen containers and open chunks instead of every string. ``record(i)`` makes a record on
    demand.
    """

    def __init__(self, records: Iterable[TurnRecord] = (), *, k1: float = K1, b: float = B) -> None:
        self.k1 = k1
        self.b = b
        # Strings per record are columns the garbage collector does not walk (``StrColumn``).
        self.prefixes: StrColumn[str] = StrColumn()  # per record: "[7 May 2023] Speaker: "
        self._ids: StrColumn[str] = StrColumn()  # per record: the log row's id
        self._turn_ids: StrColumn[str | None] = StrColumn()  # per record: a turn's client id
        self.texts: StrColumn[str] = StrColumn()  # per record: what it says
        self._stamps: StrColumn[str | None] = StrColumn()  # per record: its time as given
        self._origins: StrColumn[str | None] = StrColumn()  # per record: its source (segment)
        self._positions = array("q")  # per record: its place in the log
        self._kinds = array("b")  # per record: its kind, as an index of _KINDS
        self.speaker_codes = array("l")  # per record: its speaker's number
        self._session_codes = array("l")  # per record: its session's number
        self._dates = StrRuns()  # per record: what it said of a relative date, the day; in turn
        self._behind = StrRuns()  # per record: an observation's or episode's turns' ids
        self._starts = array("l")  # per passage: its character span in its record
        self._ends = array("l")
        self._chars = array("l")  # per passage: its length without the spaces around it
        self._turn_of = array("l")  # per passage: its record's place
        self._first_passage = array("l")  # per record: its first passage (they are contiguous)
        self._cut = array("l")  # the passages of records cut into more than one, ascending
        self._speaker_of = array("l")  # per passage: its speaker's number
        self._session_of = array("l")  # per passage: its session's number (-1: not a turn)
        self._joined = bytearray()  # per passage but the first: 1 if it continues the one before
        self._epochs = array("d")  # per record: its time in epoch seconds (NaN: none)
        # Per record: who said what, as a 128-bit digest in two halves, to show a repeat once.
        # Equal digests are taken as equal words (as content hashes are everywhere in Tessera),
        # so a query compares numbers, never texts.
        self._said = array("q")
        self._said_check = array("q")
        self._sessions: dict[str | None, int] = {}
        self._session_names: StrColumn[str | None] = StrColumn()
        self._speakers: dict[str, int] = {}
        self._speaker_names: list[str] = []
        self._speaker_tokens: list[frozenset[str]] = []
        # term -> (its passages, their term frequencies, its saturated weight in each)
        self._postings: dict[str, tuple[bytearray, bytearray, bytearray]] = {}
        self._weighed_at: dict[str, int] = {}  # term -> the sample its weights were computed at
        self._lengths = array("l")
        self._total_length = 0
        # Length norms use the mean length of the first ``_sample`` passages, a power of two: it
        # is taken again each time the index doubles, so a passage's weight is computed once when
        # it is added and once per doubling, and a log ranks the same however it was grown.
        self._sample = 0
        self._sample_avgdl = 1.0
        self._text_chars = 0
        self._posting_bytes = 0
        self.extend(records)
        # Built at once (a cold start, off the event loop): every term weighed at the last sample
        # now, so no read pays for what the build skipped.
        for token in self._postings:
            if self._weighed_at[token] != self._sample:
                self._reweigh(token)

    def __len__(self) -> int:
        return len(self._positions)

    @property
    def records(self) -> list[TurnRecord]:
        """Every record, made anew (for tests and small indexes: reads use ``record``)."""
        return [self.record(i) for i in range(len(self))]

    def record(self, i: int) -> TurnRecord:
        """The record at place ``i``."""
        dates = self.dates(i)
        return TurnRecord(
            id=self._ids[i],
            turn_id=self._turn_ids[i],
            speaker=self._speaker_names[self.speaker_codes[i]],
            text=self.texts[i],
            ts=self._stamps[i],
            session=self._session_names[self._session_codes[i]],
            dates=dates,
            position=self._positions[i],
            kind=_KINDS[self._kinds[i]],
            sources=self._behind[i],
            source=self._origins[i],
        )

    def dates(self, i: int) -> tuple[SaidDate, ...]:
        """The relative dates the record at place ``i`` said, resolved."""
        said = self._dates[i]
        return tuple(SaidDate(said[n], said[n + 1]) for n in range(0, len(said), 2))

    def session(self, i: int) -> str | None:
        """The session of the record at place ``i``."""
        return self._session_names[self._session_codes[i]]

    def same_session(self, a: int, b: int) -> bool:
        """Whether the records at places ``a`` and ``b`` belong to one session."""
        return self._session_codes[a] == self._session_codes[b]

    @property
    def n_passages(self) -> int:
        """How many passages are indexed."""
        return len(self._starts)

    @property
    def last_position(self) -> int | None:
        """The log position of the newest record held, None when empty."""
        return self._positions[-1] if self._positions else None

    def span(self, doc: int) -> tuple[int, int]:
        """The character span of passage ``doc`` in its record's text."""
        return self._starts[doc], self._ends[doc]

    def words_in(self, doc: int) -> int:
        """The characters passage ``doc`` shows at least (its span without spaces around)."""
        return self._chars[doc]

    def turn_of(self, doc: int) -> int:
        """The place of passage ``doc``'s record."""
        return self._turn_of[doc]

    def said_key(self, record: int) -> int:
        """Half of the digest of who said what: equal for records that say the same words."""
        return self._said[record]

    def said_digests(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """Per record: ``said_key``, and the digest's other half that tells colliding keys apart."""
        return self._column(self._said, np.int64), self._column(self._said_check, np.int64)

    def same_words(self, a: int, b: int) -> bool:
        """Whether two records are one speaker saying the same words (any case or spacing)."""
        return self._said[a] == self._said[b] and self._said_check[a] == self._said_check[b]

    def is_turn(self, record: int) -> bool:
        """Whether the record at ``record`` is a verbatim turn."""
        return self._kinds[record] == 0

    def extend(self, records: Iterable[TurnRecord]) -> int:
        """Add the records that come after the newest one held; returns how many were added."""
        last = self.last_position
        added = 0
        for record in sorted(records, key=lambda r: r.position):
            if last is not None and record.position <= last:
                continue  # already held: a cache may ask for rows it has seen
            self._add(record)
            last = record.position
            added += 1
        return added

    def approx_bytes(self) -> int:
        """A rough size of what the index holds, for a cache bounded in bytes."""
        per_record = 8 * 15 + 60  # column entries, the prefix string
        per_passage = 8 * 9
        postings = self._posting_bytes + 120 * len(self._postings)
        return (
            len(self) * per_record
            + 2 * self._text_chars
            + len(self._starts) * per_passage
            + postings
        )

    def _add(self, record: TurnRecord) -> None:
        turn = len(self._ids)
        self._ids.append(record.id)
        self._turn_ids.append(record.turn_id)
        self.texts.append(record.text)
        self._stamps.append(record.ts)
        self._origins.append(record.source)
        self._positions.append(record.position)
        self._kinds.append(_KINDS.index(record.kind))
        self._dates.append(part for d in record.dates for part in (d.said, d.day))
        self._behind.append(record.sources)
        self._first_passage.append(len(self._starts))
        self._text_chars += len(record.text)
        day = _ts_day(record.ts)
        speaker = f"{record.speaker}: " if record.speaker else ""
        self.prefixes.append(f"[{day}] {speaker}" if day else speaker)
        self._epochs.append(_epoch(record.ts))
        key, check = _said_digest(record)
        self._said.append(key)
        self._said_check.append(check)
        is_turn = record.kind == "turn"
        speaker_tokens = tokenize(record.speaker)
        code = self._speakers.get(record.speaker)
        if code is None:
            code = self._speakers[record.speaker] = len(self._speaker_tokens)
            self._speaker_tokens.append(frozenset(speaker_tokens))
            self._speaker_names.append(record.speaker)
        self.speaker_codes.append(code)
        named = self._sessions.get(record.session)
        if named is None:
            named = self._sessions[record.session] = len(self._session_names)
            self._session_names.append(record.session)
        self._session_codes.append(named)
        session = named if is_turn else -1
        spans = passages(record.text)
        if len(spans) > 1:
            self._cut.extend(range(len(self._starts), len(self._starts) + len(spans)))
        for start, end in spans:
            doc = len(self._starts)
            if doc:
                self._joined.append(session >= 0 and self._session_of[-1] == session)
            self._session_of.append(session)
            self._starts.append(start)
            self._ends.append(end)
            self._chars.append(len(record.text[start:end].strip()))
            self._turn_of.append(turn)
            self._speaker_of.append(code)
            # The resolved days are searched too: "what did she do on 6 May" finds "yesterday";
            # and who said it, as a line of a chat reads "Speaker: text".
            tokens = tokenize(_annotate(record.text[start:end], record.dates)) + speaker_tokens
            self._lengths.append(len(tokens))
            self._total_length += len(tokens)
            if doc + 1 >= 2 * self._sample:  # the index doubled: take the mean length again
                self._sample = doc + 1
                self._sample_avgdl = self._total_length / self._sample or 1.0
            # The same arithmetic, in the same order, as ``length_norms`` and ``_reweigh``.
            norm = self.k1 * (1.0 - self.b + self.b * len(tokens) / self._sample_avgdl)
            counts: dict[str, int] = {}
            for token in tokens:
                counts[token] = counts.get(token, 0) + 1
            for token, count in counts.items():
                tf = min(count, 2**31 - 1)
                posting = self._postings.get(token)
                if posting is None:
                    posting = self._postings[token] = (bytearray(), bytearray(), bytearray())
                    self._weighed_at[token] = self._sample
                posting[0].extend(doc.to_bytes(4, "little"))
                posting[1].extend(tf.to_bytes(4, "little"))
                posting[2].extend(_FLOAT.pack(tf / (tf + norm)))
                self._posting_bytes += 12

    def passages_of(self, turn: int) -> range:
        """The passage numbers of the record at ``turn`` in ``records``."""
        end = self._first_passage[turn + 1] if turn + 1 < len(self) else len(self._starts)
        return range(self._first_passage[turn], end)

    def best_score(self, turn: int, scores: Scores) -> float:
        """The best score of the record at ``turn``'s passages (0 when it has none)."""
        own = self.passages_of(turn)
        if len(own) == 1:
            return float(scores[own.start])
        return float(scores[own.start : own.stop].max()) if own else 0.0

    def _column(self, values: array[Any], dtype: Any) -> npt.NDArray[Any]:
        return np.frombuffer(values, dtype=dtype) if len(values) else np.zeros(0, dtype=dtype)

    def same_session_as_next(self) -> npt.NDArray[np.bool_]:
        """Per passage but the last: whether the next passage is a turn of the same session."""
        return np.frombuffer(self._joined, dtype=np.bool_) if self._joined else np.zeros(0, bool)

    def record_epochs(self) -> FloatArray:
        """Per record: its time in epoch seconds, NaN when it has none."""
        return self._column(self._epochs, np.float64)

    def first_passages(self) -> npt.NDArray[np.int64]:
        """Per record: its first passage."""
        return self._column(self._first_passage, np.int64)

    def cut_passages(self) -> npt.NDArray[np.int64]:
        """The passages of records cut into more than one, ascending."""
        return self._column(self._cut, np.int64)

    def passage_turns(self) -> npt.NDArray[np.int64]:
        """Per passage: its record's place in ``records``."""
        return self._column(self._turn_of, np.int64)

    def scores(self, query_tokens: Sequence[str]) -> Scores:
        """BM25 score of every passage for the query: idf as the index is now, norms as sampled."""
        n = len(self._starts)
        out = np.zeros(n, dtype=np.float32)
        if not n:
            return out
        for token in query_tokens:  # a repeated query token counts again, as in BM25Index
            posting = self._postings.get(token)
            if posting is None:
                continue
            if self._weighed_at[token] != self._sample:
                posting = self._reweigh(token)
            docs = np.frombuffer(posting[0], dtype=_INT)
            weights = np.frombuffer(posting[2], dtype=_WEIGHT)
            # numpy's unbuffered scatter-add reads the packed ids as they are, and since numpy 2
            # is faster than ``out[docs] += w`` (bench/bm25.py measures both).
            np.add.at(out, docs, np.float32(idf(n, len(docs))) * weights)
        return out

    def _reweigh(self, token: str) -> tuple[bytearray, bytearray, bytearray]:
        """A term's weights at the mean length sampled now (the index doubled since they were)."""
        old = self._postings[token]
        docs = np.frombuffer(old[0], dtype=_INT)
        tf = np.frombuffer(old[1], dtype=_INT)
        lengths = self._column(self._lengths, np.int64)
        norms = length_norms(lengths[docs], self._sample_avgdl, self.k1, self.b)
        weights = normed_weights(np.ones(1), tf, norms).astype(_WEIGHT)
        posting = self._postings[token] = (old[0], old[1], bytearray(weights.tobytes()))
        self._weighed_at[token] = self._sample
        return posting

    def speaker_words(self) -> frozenset[str]:
        """Every word of every speaker's name."""
        return frozenset(t for toks in self._speaker_tokens for t in toks)

    def vocabulary(self) -> list[str]:
        """Every term indexed."""
        return list(self._postings)

    def document_frequency(self, token: str) -> int:
        """How many passages hold ``token``."""
        posting = self._postings.get(token)
        return len(posting[0]) // 4 if posting is not None else 0

    def speakers_named(self, query_tokens: Iterable[str]) -> set[int]:
        """The speakers (by number) whose whole name the query holds, in any case or one typo."""
        held = set(query_tokens)
        return {
            code
            for code, toks in enumerate(self._speaker_tokens)
            if toks and all(t in held or any(_one_edit(t, h) for h in held) for t in toks)
        }

    def speaker_mask(self, codes: set[int]) -> npt.NDArray[np.bool_]:
        """Which passages those speakers said."""
        return np.isin(self._column(self._speaker_of, np.int64), sorted(codes))


def _epoch(ts: str | None) -> float:
    if not ts:
        return math.nan
    try:
        when = datetime.fromisoformat(ts)
    except ValueError:
        return math.nan
    return (when if when.tzinfo else when.replace(tzinfo=UTC)).timestamp()


# --- assembly -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EvidenceItem:
    """One record a context shows: whole, or the passages of it that were chosen."""

    id: str
    turn_id: str | None
    speaker: str
    ts: str | None
    session: str | None
    text: str  # what the line shows after the date and speaker, dates annotated
    role: Role  # a ranked hit, a neighbour of one, or (without a query) a recent turn
    cut: bool  # only part of the record is shown
    kind: RecordKind = "turn"
    turn_ids: tuple[str, ...] = ()  # the client ids of the turns behind it
    source: str | None = None
    score: float = 0.0  # its best passage's score for the query (0 without one)

    def to_dict(self) -> dict[str, Any]:
        """JSON form, with the exact client turn ids behind it as its provenance."""
        return {
            "kind": self.kind,
            "id": self.id,
            "turn_ids": list(self.turn_ids),
            "source": self.source,
            "score": round(self.score, 6),
            "speaker": self.speaker,
            "ts": self.ts,
            "session": self.session,
            "text": self.text,
            "role": self.role,
            "cut": self.cut,
        }


@dataclass(frozen=True, slots=True)
class Evidence:
    """The turns chosen for a query, in time order, and the text they render to."""

    query: str | None
    budget_chars: int
    items: tuple[EvidenceItem, ...]
    text: str
    omitted: int  # matching (or, without a query, older) turns left out
    order: Order

    @property
    def turn_ids(self) -> tuple[str, ...]:
        """The client ids of every turn behind what is shown, in time order."""
        return tuple(t for i in self.items for t in i.turn_ids)

    def to_json(self) -> dict[str, Any]:
        """JSON form of the selection."""
        return {
            "query": self.query,
            "budget_chars": self.budget_chars,
            "order": self.order,
            "omitted": self.omitted,
            "memories": [i.to_dict() for i in self.items],
        }


def _annotate(text: str, dates: Sequence[SaidDate]) -> str:
    """``text`` with each resolved date written after what was said: "yesterday (6 May 2023)"."""
    if not dates:
        return text
    parts: list[str] = []
    cursor = 0
    for said in dates:
        at = text.find(said.said, cursor)
        if at < 0 or not said.said:
            continue  # said in a part of the turn that is not shown
        end = at + len(said.said)
        parts.append(f"{text[cursor:end]} ({day_label(said.day)})")
        cursor = end
    parts.append(text[cursor:])
    return "".join(parts)


class _Selection:
    """The passages chosen so far, per turn, and what their lines cost."""

    def __init__(self, index: EvidenceIndex, room: int, clip_chars: int) -> None:
        self.index = index
        self.room = room  # characters left, newlines between lines included
        self.clip_chars = clip_chars
        self.chosen: dict[int, set[int]] = {}  # turn -> its passages shown
        self.clipped: set[int] = set()  # turns shown only as a neighbour: their opening words
        self.roles: dict[int, Role] = {}
        self.lines: dict[int, tuple[str, str, bool]] = {}  # turn -> its line as chosen

    def line(self, turn: int, shown: set[int], clip: bool) -> tuple[str, str, bool]:
        """(the line, its text after the prefix, whether it is cut) for those passages."""
        index = self.index
        text = index.texts[turn]
        runs: list[list[int]] = []
        for doc in sorted(shown):
            if runs and runs[-1][-1] == doc - 1:
                runs[-1].append(doc)
            else:
                runs.append([doc])
        pieces = [text[index.span(run[0])[0] : index.span(run[-1])[1]].strip() for run in runs]
        own = index.passages_of(turn)
        dates = index.dates(turn)
        body = f" {ELLIPSIS} ".join(_annotate(p, dates) for p in pieces)
        cut = len(shown) < len(own)
        if cut and runs[0][0] != own.start:
            body = f"{ELLIPSIS} {body}"
        ends_cut = cut and runs[-1][-1] != own.stop - 1
        if clip and len(body) > self.clip_chars:
            space = body.rfind(" ", 0, self.clip_chars)
            body = body[: space if space > 0 else self.clip_chars].rstrip()
            cut = ends_cut = True
        if ends_cut:
            body = f"{body} {ELLIPSIS}"
        return index.prefixes[turn] + body, body, cut

    def add(self, turn: int, docs: Iterable[int], role: Role) -> bool:
        """Show ``docs`` of ``turn`` too if the budget allows; whether they are shown now."""
        before = self.chosen.get(turn, set())
        shown = before | set(docs)
        # A neighbour is clipped to its opening words; a hit, or a turn shown as one, is not.
        clip = role == "neighbour" and (turn in self.clipped or turn not in self.chosen)
        if shown == before and clip == (turn in self.clipped):
            return turn in self.chosen
        if not clip and turn not in self.chosen:
            # A line holds at least its prefix and its passages' words (annotations only add):
            # what cannot fit is skipped before it is rendered.
            words = self.index.words_in
            least = len(self.index.prefixes[turn]) + sum(words(d) for d in shown)
            if least > self.room:
                return False
        rendered = self.line(turn, shown, clip)
        old = self.lines.get(turn)
        # A new line adds its newline.
        cost = len(rendered[0]) - (len(old[0]) if old is not None else -1)
        if cost > self.room:
            return False
        self.room -= cost
        self.chosen[turn] = shown
        self.roles.setdefault(turn, role)
        self.lines[turn] = rendered
        if clip:
            self.clipped.add(turn)
        else:
            self.clipped.discard(turn)
        return True

    def render(self, turn: int) -> tuple[str, str, bool]:
        """The turn's line as chosen: (line, text after the prefix, cut)."""
        return self.lines[turn]


def _neighbour_passage(index: EvidenceIndex, turn: int, scores: Scores, side: int) -> int:
    """The passage of a neighbour to show: its best match, else its end nearest the hit."""
    own = index.passages_of(turn)
    if len(own) == 1:
        return own.start
    best = max(own, key=lambda d: scores[d])
    if scores[best] > 0:
        return best
    return own.stop - 1 if side < 0 else own.start


def _window(index: EvidenceIndex, turn: int, side: int, n: int) -> list[int]:
    """Up to ``n`` turns on one side of a turn in the same session, nearest first.

    Observations and episodes between them are passed over; they are nobody's neighbours.
    """
    if not index.is_turn(turn):
        return []
    out: list[int] = []
    other = turn + side
    while len(out) < n and 0 <= other < len(index):
        if index.is_turn(other):
            if not index.same_session(other, turn):
                break
            out.append(other)
        other += side
    return out


def _note(count: int, order: Order) -> str:
    what = "more matching" if order == "relevance" else "older"
    return f"(+{count} {what} memories not shown)"


def _said_digest(record: TurnRecord) -> tuple[int, int]:
    """Who said what, case and spacing aside, as two signed 64-bit halves of a BLAKE2b digest."""
    words = _SPACE_RE.sub(" ", record.text.strip().casefold())
    digest = hashlib.blake2b(f"{record.speaker}\0{words}".encode(), digest_size=16).digest()
    return (
        int.from_bytes(digest[:8], "little", signed=True),
        int.from_bytes(digest[8:], "little", signed=True),
    )


def assemble(
    index: EvidenceIndex,
    q: str | None,
    budget_chars: int,
    *,
    since: float | None = None,
    until: float | None = None,
    neighbours: int = NEIGHBOURS,
    neighbour_weight: float = NEIGHBOUR_WEIGHT,
    neighbour_chars: int = NEIGHBOUR_CHARS,
) -> Evidence:
    """The records that best answer ``q`` with their neighbours, in time order, within budget.

    ``since`` and ``until`` (epoch seconds, inclusive) keep only records dated within them.
    """
    budget = max(budget_chars, 0)
    tokens = tokenize(q) if q else []
    allowed = allowed_records(index, since, until)
    found = rank(index, tokens, allowed, budget)
    scores = found.scores
    if found.order:
        selection, omitted = _by_relevance(
            index,
            found.order,
            scores,
            budget,
            neighbours,
            neighbour_weight,
            neighbour_chars,
            allowed,
            found.matching,
        )
        order: Order = "relevance"
    else:
        selection, omitted = _by_recency(index, budget, allowed)
        order = "recency"
    items: list[EvidenceItem] = []
    lines: list[str] = []
    epochs = index.record_epochs()
    # Time order; a record without a time keeps its place in the log.
    for turn in sorted(selection.chosen, key=lambda t: (_sort_time(float(epochs[t])), t)):
        record = index.record(turn)
        line, body, cut = selection.render(turn)
        lines.append(line)
        items.append(
            EvidenceItem(
                id=record.id,
                turn_id=record.turn_id,
                speaker=record.speaker,
                ts=record.ts,
                session=record.session,
                text=body,
                role=selection.roles[turn],
                cut=cut,
                kind=record.kind,
                turn_ids=record.turn_ids,
                source=record.source,
                score=index.best_score(turn, scores),
            )
        )
    if omitted and items:
        lines.append(_note(omitted, order))
    text = "\n".join(lines)
    assert len(text) <= budget, (len(text), budget)
    return Evidence(q, budget_chars, tuple(items), text, omitted, order)


@dataclass(frozen=True)
class Ranked:
    """A query's ranking: each passage's score, the candidates best first, how many records match.

    ``order`` holds at least every passage a budget could show, best first; ``matching`` counts
    the records whose words the query holds (and those its run share reaches near the top).
    """

    scores: Scores
    order: list[int]
    matching: int


def rank(
    index: EvidenceIndex,
    tokens: Sequence[str],
    allowed: npt.NDArray[np.bool_] | None = None,
    budget: int = 100_000,
) -> Ranked:
    """BM25, a named speaker's lift, then the run share, over the candidates a budget can use.

    The run share (a passage takes RUN_SHARE of its session neighbours' scores) is added to the
    best ``CANDIDATES`` passages and their neighbours only: the rest could not reach the top, and
    a log of any length is then ranked at the cost of its matches, not of its length.
    """
    scores = index.scores(tokens) if tokens else np.zeros(index.n_passages, dtype=np.float32)
    if allowed is not None:
        scores = np.where(allowed[index.passage_turns()], scores, 0.0)
    hits = np.flatnonzero(scores > 0)
    if not hits.size:
        return Ranked(scores, [], 0)
    named = index.speakers_named(tokens)
    if named:
        lifted = hits[index.speaker_mask(named)[hits]]
        scores[lifted] += SPEAKER_LIFT * float(scores[hits].max())
    wanted = max(CANDIDATES, max(budget // MIN_LINE, 1) * 4)
    top = hits if hits.size <= wanted else _best(hits, scores, wanted)
    back, ahead = _lenders(index, top)
    lent = _lent(index, back, ahead, allowed)
    extra = lent[scores[lent] <= 0]
    matching = _count_turns(index, hits, scores) + _extra_turns(index, scores, extra)
    _add_run_share(index, scores, back, ahead, allowed)
    candidates = _distinct(np.concatenate((top, extra)))
    candidates = candidates[scores[candidates] > 0]
    return Ranked(scores, best_first(candidates, scores, budget), matching)


def _best(hits: npt.NDArray[np.intp], scores: Scores, k: int) -> npt.NDArray[np.intp]:
    """The ``k`` best scoring of ``hits`` (more than ``k`` of them), in no order."""
    # Selecting the largest in place costs less than negating every score to take the smallest.
    return hits[np.argpartition(scores[hits], hits.size - k)[hits.size - k :]]


def _distinct(values: npt.NDArray[np.intp]) -> npt.NDArray[np.intp]:
    """The values sorted, each once."""
    ordered = np.sort(values)
    return (
        ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))] if ordered.size else ordered
    )


def _sort_time(epoch: float) -> float:
    return -math.inf if math.isnan(epoch) else epoch


def allowed_records(
    index: EvidenceIndex, since: float | None, until: float | None
) -> npt.NDArray[np.bool_] | None:
    """Per record: whether it is dated within [since, until]; None when nothing is excluded."""
    if since is None and until is None:
        return None
    epochs = index.record_epochs()
    keep = ~np.isnan(epochs)
    if since is not None:
        keep &= epochs >= since
    if until is not None:
        keep &= epochs <= until
    return np.asarray(keep, dtype=np.bool_)


def best_first(hits: npt.NDArray[np.intp], scores: Scores, budget: int) -> list[int]:
    """The hit passages best first (the newer among equals), as many as a budget could show."""
    # A line costs at least MIN_LINE characters, so no budget shows more hits than this; the
    # rest need not be sorted. Neighbours come from the hits themselves.
    most = max(budget // MIN_LINE, 1) * 2
    if hits.size > most:
        hits = _best(hits, scores, most)
    # Best first; among equals the newer, as a chat's latest word on a thing is likelier.
    ordered: list[int] = hits[np.lexsort((-hits, -scores[hits]))].tolist()
    return ordered


def _count_turns(index: EvidenceIndex, hits: npt.NDArray[np.intp], scores: Scores) -> int:
    """How many records the hit passages (those scoring above 0, ascending) belong to."""
    # Only a record cut into passages can hold several hits: when those passages are fewer than
    # the hits, each other hit is a record of its own, and only the cut ones need looking up.
    cut = index.cut_passages()
    if cut.size < hits.size:
        cut_hits = cut[scores[cut] > 0]
        return hits.size - cut_hits.size + _records_of(index, cut_hits)
    return _records_of(index, hits)


def _records_of(index: EvidenceIndex, docs: npt.NDArray[np.intp]) -> int:
    """How many records passages (ascending) belong to."""
    # A record's passages are contiguous, so the records of ascending passages never decrease.
    turns = index.passage_turns()[docs]
    return int(np.count_nonzero(turns[1:] != turns[:-1])) + 1 if turns.size else 0


def _lenders(
    index: EvidenceIndex, top: npt.NDArray[np.intp]
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """The top passages that lend back (to the passage before) and ahead, in one session."""
    same = index.same_session_as_next()  # same[i]: passages i and i + 1 are one session's
    back = top[top > 0]
    ahead = top[top < index.n_passages - 1]
    return back[same[back - 1]], ahead[same[ahead]]


def _lent(
    index: EvidenceIndex,
    back: npt.NDArray[np.intp],
    ahead: npt.NDArray[np.intp],
    allowed: npt.NDArray[np.bool_] | None,
) -> npt.NDArray[np.intp]:
    """The passages the lenders lend part of their score to (allowed ones)."""
    lent = _distinct(np.concatenate((back - 1, ahead + 1)))
    if allowed is not None:
        lent = lent[allowed[index.passage_turns()[lent]]]
    return lent


def _add_run_share(
    index: EvidenceIndex,
    scores: Scores,
    back: npt.NDArray[np.intp],
    ahead: npt.NDArray[np.intp],
    allowed: npt.NDArray[np.bool_] | None,
) -> None:
    """Lend RUN_SHARE of each lender's score to its session neighbour, in place."""
    # What each lends is read before anything is added: a neighbour may be a lender too.
    to_back, to_ahead = RUN_SHARE * scores[back], RUN_SHARE * scores[ahead]
    if allowed is not None:
        turns = index.passage_turns()
        to_back *= allowed[turns[back - 1]]
        to_ahead *= allowed[turns[ahead + 1]]
    # Each lender lends to a different passage on each side, so indexed adds are exact.
    scores[back - 1] += to_back
    scores[ahead + 1] += to_ahead


def _extra_turns(index: EvidenceIndex, scores: Scores, lent: npt.NDArray[np.intp]) -> int:
    """Records that only the run share made candidates (none of their passages matched)."""
    turns = _distinct(index.passage_turns()[lent])
    firsts = index.first_passages()
    after = turns + 1
    ends = np.where(
        after < firsts.size, firsts[np.minimum(after, firsts.size - 1)], index.n_passages
    )
    # A one-passage record of a lent (unmatched) passage matched nothing; a longer one may have.
    single = (ends - firsts[turns]) == 1
    longer = turns[~single]
    matched = sum(1 for t in longer.tolist() if index.best_score(t, scores) > 0)
    return int(single.sum()) + len(longer) - matched


def _by_relevance(
    index: EvidenceIndex,
    ranked: list[int],
    scores: Scores,
    budget: int,
    neighbours: int,
    neighbour_weight: float,
    neighbour_chars: int,
    allowed: npt.NDArray[np.bool_] | None,
    matching: int,
) -> tuple[_Selection, int]:
    """Hits and their neighbours by priority while they fit; and the matching records left out.

    A hit's priority is its score; once it is shown, each neighbour waits with
    ``neighbour_weight`` times that score (less again for each further step), so the context
    of a strong match comes before a weak match, and a weak match before the context of another.
    """
    # Room for the note at its longest, so whatever is chosen, the note still fits.
    room = budget + 1 - (len(_note(matching, "relevance")) + 1)
    selection = _Selection(index, room, neighbour_chars)
    seen: dict[int, int] = {}  # a turn said again word for word is shown once
    twins = 0
    hit_turns: set[int] = set()
    ranked, repeats = _first_sayings(index, ranked)
    turns = index.passage_turns()[ranked].tolist()
    # (-priority, order, passage, turn, is a hit); order keeps rank order among equals.
    priorities = scores[ranked].tolist()
    queue: list[tuple[float, int, int, int, bool]] = [
        (-priority, rank, doc, turn, True)
        for rank, (priority, doc, turn) in enumerate(zip(priorities, ranked, turns, strict=True))
    ]
    heapq.heapify(queue)
    order = len(queue)
    while queue and selection.room >= MIN_LINE:
        priority, _, doc, turn, hit = heapq.heappop(queue)
        key = index.said_key(turn)
        twin = seen.get(key, turn)
        if twin != turn and index.same_words(twin, turn):
            if hit and turn not in hit_turns:
                twins += 1  # its twin is shown
                hit_turns.add(turn)
            continue
        if hit:
            hit_turns.add(turn)
        if not selection.add(turn, (doc,), "hit" if hit else "neighbour"):
            continue
        seen[key] = turn
        if not hit:
            continue
        for side in (-1, 1):
            weight = -priority
            for other in _window(index, turn, side, neighbours):
                if allowed is not None and not allowed[other]:
                    break
                weight *= neighbour_weight
                passage = _neighbour_passage(index, other, scores, side)
                order += 1
                heapq.heappush(queue, (-weight, order, passage, other, False))
    shown = sum(1 for t in selection.chosen if index.best_score(t, scores) > 0)
    # A hit that repeats a shown turn word for word was not left out: it is there.
    chosen = selection.chosen
    twins += sum(1 for turn, first in repeats.items() if first in chosen and turn not in chosen)
    omitted = max(matching - shown - twins, 0)
    return selection, omitted


def _first_sayings(index: EvidenceIndex, ranked: list[int]) -> tuple[list[int], dict[int, int]]:
    """The ranked passages without those of turns that repeat a better ranked turn's words.

    Also returns each repeating turn's first saying. A long chat says the same short things
    again and again; taking the repeats out at once keeps them from being weighed one by one.
    """
    if len(ranked) < 2:
        return ranked, {}
    docs = np.asarray(ranked, dtype=np.intp)
    turns = index.passage_turns()[docs]
    keys, checks = index.said_digests()
    _, first_at, which = np.unique(keys[turns], return_index=True, return_inverse=True)
    first_turns = turns[first_at[which.ravel()]]
    # Another passage of the same turn stays; so does a turn whose key only collides.
    later = np.flatnonzero((turns != first_turns) & (checks[turns] == checks[first_turns]))
    if not later.size:
        return ranked, {}
    repeats = dict(zip(turns[later].tolist(), first_turns[later].tolist(), strict=True))
    keep = np.ones(docs.size, dtype=np.bool_)
    keep[later] = False
    return docs[keep].tolist(), repeats


def _by_recency(
    index: EvidenceIndex, budget: int, allowed: npt.NDArray[np.bool_] | None
) -> tuple[_Selection, int]:
    """The newest records that fit, whole or by their last passage, until one does not."""
    total = len(index) if allowed is None else int(allowed.sum())
    selection = _Selection(index, budget + 1 - (len(_note(total, "recency")) + 1), PASSAGE_MAX)
    for turn in range(len(index) - 1, -1, -1):
        if allowed is not None and not allowed[turn]:
            continue
        own = index.passages_of(turn)
        if not (
            selection.add(turn, own, "recent") or selection.add(turn, (own.stop - 1,), "recent")
        ):
            break
    return selection, total - len(selection.chosen)
