"""The per-user index a context reads: BM25 over the log by passage, and the head's beliefs.

``EvidenceIndex`` holds a user's log in log order (verbatim turns, and the observations and
episode summaries an LLM extractor made) and grows with ``extend``: a new row adds its
postings and nothing is rebuilt. A posting keeps its term's saturated frequency, normed by the
mean passage length of a sample that is taken again each time the index doubles (the first 1, 2,
4, ... passages); the idf comes from the document count and frequency at query time. An index
grown row by row therefore ranks exactly as one built at once, a query costs one multiply-add
per posting of its terms, and a read after a write costs the new rows, never the history.

``MemoryIndex`` holds what a context needs of one user that does not depend on the question:
the head's belief lines and the log's ``EvidenceIndex``. It grows with the log (``extend``) and
takes a new head (``with_head``).
"""

from __future__ import annotations

import re
import struct
from array import array
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from app.domain.bm25 import K1, B, idf, length_norms, normed_weights
from app.domain.columns import StrColumn, StrRuns
from app.domain.context.beliefs import BeliefIndex
from app.domain.context.passages import (
    MACHINE_PASSAGE_MAX,
    MACHINE_PASSAGE_TARGET,
    PASSAGE_MAX,
    PASSAGE_TARGET,
    PROMPT_PASSAGE_MAX,
    PROMPT_PASSAGE_TARGET,
    annotated,
    passages,
)
from app.domain.context.records import RecordKind, TurnRecord, records_of
from app.domain.context.segments import DTYPES, Segment, merged, with_vectors
from app.domain.context.sessions import SessionIndex
from app.domain.context.vectors import Embedding, PassageVectors
from app.domain.dates import SaidDate, epoch_day, stamp_epoch
from app.domain.ingest.turns import MACHINE_ROLES, role_of
from app.domain.memory.log import split
from app.domain.passport import Passport
from app.domain.text import tokenize

# A speaker's name in a query matches with one typo when the name has at least this many letters.
MIN_TYPO_CHARS = 5


FloatArray = npt.NDArray[np.float64]
# BM25 scores: single precision halves the memory a query sweeps; a sum of a few terms keeps
# about seven significant digits, and equal inputs still give equal scores.
Scores = npt.NDArray[np.float32]


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

    def __init__(self, records: Iterable[TurnRecord] = (), *, weighed: bool = True) -> None:
        # Strings per record are columns the garbage collector does not walk (``StrColumn``).
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
        self._speaker_of = array("l")  # per passage: its speaker's number
        self._session_of = array("l")  # per passage: its session's number (-1: not a turn)
        self._joined = bytearray()  # per passage but the first: 1 if it continues the one before
        self._epochs = array("d")  # per record: its time in epoch seconds (NaN: none)
        self._sessions: dict[str | None, int] = {}
        self._session_names: StrColumn[str | None] = StrColumn()
        self._speakers: dict[str, int] = {}
        self._speaker_names: list[str] = []
        self._speaker_tokens: list[frozenset[str]] = []
        # Per speaker: whether it is an assistant, a system prompt or a tool (its role says so).
        self._speaker_machine: list[bool] = []
        self._machines = 0
        self._machine_of = np.zeros(0, dtype=np.bool_)  # per passage, as last read (it only grows)
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
        # The passages' vectors when an embedding model is on (filled by the caller, who holds
        # the model); None when off.
        self.vectors: PassageVectors | None = None
        self.extend(records)
        # Built at once (a cold start, off the event loop): every term weighed at the last sample
        # now, so no read pays for what the build skipped. Not for a stored segment (``weighed``
        # False), which keeps term frequencies only: its loader weighs them.
        if weighed:
            for token in self._postings:
                if self._weighed_at[token] != self._sample:
                    self._reweigh(token)

    def __len__(self) -> int:
        return len(self._positions)

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

    def heading(self, i: int) -> tuple[str, str]:
        """How a context shows the record at place ``i``: the heading of its day ("[7 May
        2023]"; "" without a time) and its line's prefix ("Speaker: "; "" without one)."""
        day, speaker = epoch_day(self._epochs[i]), self._speaker_names[self.speaker_codes[i]]
        return f"[{day}]" if day else "", f"{speaker}: " if speaker else ""

    def same_session(self, a: int, b: int) -> bool:
        """Whether the records at places ``a`` and ``b`` belong to one session."""
        return self._session_codes[a] == self._session_codes[b]

    @property
    def n_passages(self) -> int:
        """How many passages are indexed."""
        return len(self._starts)

    def span(self, doc: int) -> tuple[int, int]:
        """The character span of passage ``doc`` in its record's text."""
        return self._starts[doc], self._ends[doc]

    def passage_text(self, doc: int) -> str:
        """What passage ``doc`` says: its span of its record's text."""
        start, end = self._starts[doc], self._ends[doc]
        return self.texts[self._turn_of[doc]][start:end]

    def words_in(self, doc: int) -> int:
        """The characters passage ``doc`` shows at least (its span without spaces around)."""
        return self._chars[doc]

    def turn_of(self, doc: int) -> int:
        """The place of passage ``doc``'s record."""
        return self._turn_of[doc]

    def is_turn(self, record: int) -> bool:
        """Whether the record at ``record`` is a verbatim turn."""
        return self._kinds[record] == 0

    def extend(self, records: Iterable[TurnRecord]) -> int:
        """Add the records that come after the newest one held; returns how many were added."""
        last = self._positions[-1] if self._positions else None
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
        per_record = 8 * 15  # column entries
        per_passage = 8 * 9
        postings = self._posting_bytes + 120 * len(self._postings)
        return (
            len(self) * per_record
            + 2 * self._text_chars
            + len(self._starts) * per_passage
            + postings
            + (self.vectors.approx_bytes() if self.vectors is not None else 0)
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
        self._epochs.append(stamp_epoch(record.ts))
        is_turn = record.kind == "turn"
        speaker_tokens = tokenize(record.speaker)
        code = self._speakers.get(record.speaker)
        if code is None:
            code = self._speakers[record.speaker] = len(self._speaker_tokens)
            self._speaker_tokens.append(frozenset(speaker_tokens))
            self._speaker_names.append(record.speaker)
            self._speaker_machine.append(False)
        role = role_of(record.speaker, record.role) if is_turn else None
        machine = role in MACHINE_ROLES
        if machine and not self._speaker_machine[code]:
            self._speaker_machine[code] = True
            self._machines += 1
        self.speaker_codes.append(code)
        named = self._sessions.get(record.session)
        if named is None:
            named = self._sessions[record.session] = len(self._session_names)
            self._session_names.append(record.session)
        self._session_codes.append(named)
        session = named if is_turn else -1
        spans = _passages_of(record.text, role)
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
            tokens = tokenize(annotated(record.text[start:end], record.dates)) + speaker_tokens
            self._lengths.append(len(tokens))
            self._total_length += len(tokens)
            if doc + 1 >= 2 * self._sample:  # the index doubled: take the mean length again
                self._sample = doc + 1
                self._sample_avgdl = self._total_length / self._sample or 1.0
            # The same arithmetic, in the same order, as ``length_norms`` and ``_reweigh``.
            norm = K1 * (1.0 - B + B * len(tokens) / self._sample_avgdl)
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

    def to_segment(self, episodes: Sequence[TurnRecord] = ()) -> Segment:
        """What it holds as a stored segment's columns (with a session index's episodes)."""
        numbers: dict[str, array[Any]] = {name.lstrip("_"): getattr(self, name) for name in _ARRAYS}
        numbers.update(
            dates_ends=self._dates.ends,
            behind_ends=self._behind.ends,
            joined=array("b", self._joined),
            speaker_machine=array("b", self._speaker_machine),
        )
        columns = {
            name: self._column(values, values.typecode).astype(DTYPES[name])
            for name, values in numbers.items()
        }
        postings = self._postings.values()
        columns["df"] = np.array([len(p[0]) // 4 for p in postings], dtype=np.int64)
        columns["docs"] = np.frombuffer(b"".join(p[0] for p in postings), dtype=_INT)
        columns["tf"] = np.frombuffer(b"".join(p[1] for p in postings), dtype=_INT)
        texts: dict[str, list[Any]] = {
            name.lstrip("_"): list(getattr(self, name)) for name in _STRINGS
        }
        texts.update(
            dates_values=list(self._dates.values),
            behind_values=list(self._behind.values),
            speakers=list(self._speaker_names),
            sessions=list(self._session_names),
            vocabulary=list(self._postings),
        )
        segment = Segment(columns, texts, tuple(episodes))
        held = self.vectors
        if held is None or not len(held):
            return segment
        return with_vectors(segment, held.model, held.matrix())

    @classmethod
    def of_segments(cls, parts: Sequence[Segment]) -> EvidenceIndex:
        """The index stored segments hold, in log order, weighed as if built at once."""
        index = cls()
        parts = [part for part in parts if part.records]
        segment = merged(parts, postings=False)
        n, texts = segment.numbers, segment.texts
        for name in _STRINGS:
            setattr(index, name, StrColumn.of(texts[name.lstrip("_")]))
        index._dates = StrRuns.of(texts["dates_values"], _typed("q", n["dates_ends"]))
        index._behind = StrRuns.of(texts["behind_values"], _typed("q", n["behind_ends"]))
        for name in _ARRAYS:
            setattr(index, name, _typed(getattr(index, name).typecode, n[name.lstrip("_")]))
        index._joined = bytearray(np.asarray(n["joined"], np.bool_).tobytes())
        index._text_chars = sum(map(len, index.texts))
        index._speaker_names = list(texts["speakers"])
        index._speakers = {name: code for code, name in enumerate(index._speaker_names)}
        index._speaker_tokens = [frozenset(tokenize(s)) for s in index._speaker_names]
        index._speaker_machine = [bool(m) for m in n["speaker_machine"]]
        index._machines = sum(index._speaker_machine)
        index._session_names = StrColumn.of(texts["sessions"])
        index._sessions = {name: code for code, name in enumerate(texts["sessions"])}
        lengths = index._column(index._lengths, np.int64)
        index._total_length = int(lengths.sum())
        count = len(lengths)
        # The sample ``_add`` would have reached: the largest power of two up to the count.
        index._sample = 1 << (count.bit_length() - 1) if count else 0
        if index._sample:
            index._sample_avgdl = int(lengths[: index._sample].sum()) / index._sample or 1.0
        offset = 0
        for part in parts:
            index._add_postings(part, offset, lengths)
            offset += part.passages
        index._weighed_at = dict.fromkeys(index._postings, index._sample)
        stored = segment.vectors()
        if stored is not None:
            index.vectors = PassageVectors(stored[0], stored[1].shape[1])
            index.vectors.extend(stored[1])
        return index

    def _add_postings(self, part: Segment, offset: int, lengths: npt.NDArray[Any]) -> None:
        """A segment's postings, its passages from ``offset`` on, weighed at the sample now."""
        n = part.numbers
        docs = (n["docs"].astype(np.int64) + offset).astype(_INT)
        tf = np.asarray(n["tf"], dtype=_INT)
        norms = length_norms(lengths[docs], self._sample_avgdl, K1, B)
        weights = normed_weights(np.ones(1), tf, norms).astype(_WEIGHT)
        columns = [memoryview(column.tobytes()) for column in (docs, tf, weights)]
        ends = (np.cumsum(n["df"], dtype=np.int64) * 4).tolist()
        start = 0
        postings = self._postings
        for token, end in zip(part.texts["vocabulary"], ends, strict=True):
            posting = postings.get(token)
            if posting is None:
                doc_of, tf_of, weight_of = columns
                postings[token] = (
                    bytearray(doc_of[start:end]),
                    bytearray(tf_of[start:end]),
                    bytearray(weight_of[start:end]),
                )
            else:
                for held, column in zip(posting, columns, strict=True):
                    held.extend(column[start:end])
            start = end
        self._posting_bytes += 3 * len(columns[0])

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

    def passage_turns(self) -> npt.NDArray[np.int64]:
        """Per passage: its record's place in ``records``."""
        return self._column(self._turn_of, np.int64)

    def _postings_of(
        self, tokens: Iterable[str]
    ) -> Iterator[tuple[npt.NDArray[np.int32], npt.NDArray[np.float32], float]]:
        """Per token the index holds: its passages, their BM25 weights and the token's idf."""
        for token in tokens:
            posting = self._postings.get(token)
            if posting is None:
                continue
            if self._weighed_at[token] != self._sample:
                posting = self._reweigh(token)
            docs = np.frombuffer(posting[0], dtype=_INT)
            weight = float(idf(len(self._starts), len(docs)))
            yield docs, np.frombuffer(posting[2], dtype=_WEIGHT), weight

    def scores(self, query_tokens: Sequence[str]) -> Scores:
        """BM25 score of every passage for the query: idf as the index is now, norms as sampled."""
        out = np.zeros(len(self._starts), dtype=np.float32)
        # A repeated query token counts again, as in BM25Index. numpy's unbuffered scatter-add
        # reads the packed ids as they are, and since numpy 2 is faster than ``out[docs] += w``
        # (bench/bm25.py measures both).
        for docs, weights, weight in self._postings_of(query_tokens):
            np.add.at(out, docs, np.float32(weight) * weights)
        return out

    def coverage(self, query_tokens: Sequence[str]) -> Scores:
        """Per passage: the share of the query's distinct words it holds, each weighed by its idf
        (a rare word counts for more than a common one)."""
        out = np.zeros(len(self._starts), dtype=np.float32)
        total = 0.0
        for docs, _, weight in self._postings_of(dict.fromkeys(query_tokens)):
            total += weight
            out[docs] += np.float32(weight)  # a posting names each passage once
        return out / np.float32(total) if total > 0 else out

    def _reweigh(self, token: str) -> tuple[bytearray, bytearray, bytearray]:
        """A term's weights at the mean length sampled now (the index doubled since they were)."""
        old = self._postings[token]
        docs = np.frombuffer(old[0], dtype=_INT)
        tf = np.frombuffer(old[1], dtype=_INT)
        lengths = self._column(self._lengths, np.int64)
        norms = length_norms(lengths[docs], self._sample_avgdl, K1, B)
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

    def machine_passages(self) -> npt.NDArray[np.bool_] | None:
        """Per passage: whether an assistant, system or tool said it; None when none did."""
        if not self._machines:
            return None
        if self._machine_of.size != len(self._speaker_of):  # each read asks it several times
            machine = np.array(self._speaker_machine, dtype=np.bool_)
            self._machine_of = machine[self._column(self._speaker_of, np.int64)]
        return self._machine_of

    def speaker_mask(self, codes: set[int]) -> npt.NDArray[np.bool_]:
        """Which passages those speakers said."""
        return np.isin(self._column(self._speaker_of, np.int64), sorted(codes))


# The typed arrays and the string columns a segment stores per record or passage, by attribute
# (its column's name is the attribute's without the underscore).
_ARRAYS: tuple[str, ...] = ("_positions", "_kinds", "speaker_codes", "_session_codes")
_ARRAYS += ("_first_passage", "_epochs", "_starts", "_ends", "_chars", "_turn_of", "_speaker_of")
_ARRAYS += ("_session_of", "_lengths")
_STRINGS = ("_ids", "_turn_ids", "texts", "_stamps", "_origins")


def _passages_of(text: str, role: str | None) -> list[tuple[int, int]]:
    """A record's passages: an assistant's cut finest, a message to one finer than one between
    people."""
    if role in MACHINE_ROLES:
        return passages(text, MACHINE_PASSAGE_TARGET, MACHINE_PASSAGE_MAX)
    if role == "user":
        return passages(text, PROMPT_PASSAGE_TARGET, PROMPT_PASSAGE_MAX)
    return passages(text, PASSAGE_TARGET, PASSAGE_MAX)


def _typed(code: str, column: npt.NDArray[Any]) -> array[Any]:
    """A column as a typed array of ``code`` (its bytes copied once, not item by item)."""
    out = array(code)
    out.frombytes(np.ascontiguousarray(column, dtype=code).tobytes())
    return out


def _ranked(record: TurnRecord) -> bool:
    """Whether BM25 ranks the record: not an episode that quotes its own turns (they are)."""
    return record.episode is None or not record.episode.quoted


# "Always add sources when I ask about history": what follows these words is when an
# instruction applies.
_CONDITION = re.compile(r"\b(?:when|whenever|if)\b", re.IGNORECASE)


_ASKING = frozenset(tokenize("ask asks asked asking"))


def instruction_conditions(texts: Sequence[str]) -> tuple[frozenset[str] | None, ...]:
    """Per instruction, the words of the condition it holds under (without "ask", which nearly
    every condition says); None when it always holds."""
    out: list[frozenset[str] | None] = []
    for text in texts:
        condition = _CONDITION.search(text)
        words = None if condition is None else frozenset(tokenize(text[condition.end() :]))
        out.append(None if words is None else words - _ASKING)
    return tuple(out)


def segment_of(records: Sequence[TurnRecord], model: Embedding | None = None) -> Segment:
    """A stored segment of log records (a write's new rows), in log order; with ``model``, its
    passages' vectors too."""
    evidence = EvidenceIndex((r for r in records if _ranked(r)), weighed=False)
    if model is not None and evidence.n_passages:
        texts = [evidence.passage_text(d) for d in range(evidence.n_passages)]
        rows = model.embed(texts)
        evidence.vectors = PassageVectors(model.name, int(rows.shape[1]))
        evidence.vectors.extend(rows)
    return evidence.to_segment([r for r in records if r.episode is not None])


class MemoryIndex:
    """What a context needs of one user that does not depend on the question."""

    def __init__(self, head: Passport, evidence: EvidenceIndex | None = None) -> None:
        self.evidence = evidence if evidence is not None else EvidenceIndex()
        self.sessions = SessionIndex()
        self.beliefs = BeliefIndex([])
        self.with_head(head)

    @classmethod
    def of(cls, head: Passport, records: Iterable[TurnRecord]) -> MemoryIndex:
        """An index of a head and the log's records, in log order."""
        records = list(records)
        index = cls(head, EvidenceIndex(r for r in records if _ranked(r)))
        index.sessions.extend(records)
        return index

    @classmethod
    def of_document(cls, doc: dict[str, Any]) -> MemoryIndex:
        """An index of a whole passport document (its log sections numbered in order)."""
        head, rows = split(doc)
        records = records_of((n, r.kind, r.item) for n, r in enumerate(rows, start=1))
        return cls.of(Passport.from_dict(head), records)

    def to_segment(self) -> Segment:
        """What it holds of the log, as a stored segment's columns."""
        return self.evidence.to_segment(self.sessions.records)

    @classmethod
    def of_segments(cls, head: Passport, parts: Sequence[Segment]) -> MemoryIndex:
        """An index of a head and stored segments of the log: the same as one built at once."""
        index = cls(head, EvidenceIndex.of_segments(parts))
        index.sessions.extend(e for part in parts for e in part.episodes)
        return index

    def with_head(self, head: Passport) -> None:
        """Take a newer head: its beliefs rendered again (their words reused where unchanged), its
        instructions newest first."""
        self.head = head
        self.beliefs = BeliefIndex.of(head, known=self.beliefs.words())
        self.instructions = tuple(
            i.text for i in sorted(head.instructions, key=lambda i: i.ts or "", reverse=True)
        )
        self.conditions = instruction_conditions(self.instructions)

    def extend(self, records: Iterable[TurnRecord]) -> int:
        """Add log records that came after the newest held; how many were ranked."""
        records = list(records)
        self.sessions.extend(records)
        return self.evidence.extend(r for r in records if _ranked(r))

    def approx_bytes(self) -> int:
        """A rough size of the index, for a cache bounded in bytes."""
        return sum(part.approx_bytes() for part in (self.evidence, self.sessions, self.beliefs))

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
