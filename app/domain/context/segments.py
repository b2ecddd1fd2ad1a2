"""A user's index as stored bytes: segments of the log's records, merged as they grow.

A segment is what ``EvidenceIndex`` holds of a run of records, as plain columns: per record its
strings and numbers, per passage its span, length and speaker, and per term its passages and
frequencies. It holds no BM25 weights (they depend on the whole log: its mean passage length
and document counts) and no objects, so merging segments is concatenation with offsets, and
loading one is a few array copies and one JSON parse per string column.

Numbers keep their names and dtypes in a small JSON header; strings are JSON arrays (so None
and any character round-trip); the episodes a session overview needs are JSON records.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from app.domain.context.records import EpisodeInfo, TurnRecord

# The first bytes of a stored segment: the format's name and version. A segment of another
# version is not read (the index is built from the log instead). 2 and 3: irregular verbs read as
# their verb ("met" as "meet"); 4: an ordinal as its number ("29th" as "29"); 5: a person's
# message to an assistant cut into finer passages; 6: a heading kept with what follows it; 7: no
# digest of who said what (repeats are told apart by their words when shown); 8: passage vectors,
# when an embedding model is on; 9: no list of records cut into several; 10: no line prefixes.
MAGIC = b"TSI\x0a"
_LENGTH = struct.Struct("<I")

Column = npt.NDArray[Any]
# A segment's vectors: the model's name, and the rows of its first passages.
StoredVectors = tuple[str, npt.NDArray[np.float16]]

# Per record, per passage and per term, the numbers a segment holds and their dtypes.
RECORD_NUMBERS = {
    "positions": "<i8",
    "kinds": "<i1",
    "speaker_codes": "<i8",
    "session_codes": "<i8",
    "first_passage": "<i8",
    "epochs": "<f8",
    "dates_ends": "<i8",
    "behind_ends": "<i8",
}
PASSAGE_NUMBERS = {
    "starts": "<i8",
    "ends": "<i8",
    "chars": "<i8",
    "turn_of": "<i8",
    "speaker_of": "<i8",
    "session_of": "<i8",
    "lengths": "<i8",
}
OTHER_NUMBERS = {
    "joined": "|u1",  # per passage but the first
    "speaker_machine": "|u1",  # per speaker
    "df": "<i8",  # per term of the vocabulary: how many postings it has
    "docs": "<i4",  # per posting, grouped by term: its passage
    "tf": "<i4",  # per posting: the term's frequency there
    # The vectors of the first passages (all, or a prefix: those embedded when it was stored),
    # a row each, flattened; in half precision (a cosine needs no more).
    "vectors": "<f2",
}
DTYPES = {**RECORD_NUMBERS, **PASSAGE_NUMBERS, **OTHER_NUMBERS}
# The columns a merge concatenates (renumbered); the rest it builds across the parts.
_CONCATENATED = (*RECORD_NUMBERS, *PASSAGE_NUMBERS, "joined")
# Per record strings; the values of per-record runs; the speakers', sessions' and terms' names.
RECORD_TEXTS = ("ids", "turn_ids", "texts", "stamps", "origins")
TEXTS = (*RECORD_TEXTS, "dates_values", "behind_values", "speakers", "sessions", "vocabulary")
# "vector_model" (among the texts): [] without vectors, else [the model's name, its dimensions].
ALL_TEXTS = (*TEXTS, "vector_model")


@dataclass(frozen=True)
class Segment:
    """An index of a run of log records as columns (names in ``DTYPES`` and ``TEXTS``)."""

    numbers: dict[str, Column]
    texts: dict[str, list[Any]]
    episodes: tuple[TurnRecord, ...]

    @property
    def records(self) -> int:
        """How many records it indexes."""
        return len(self.numbers["positions"])

    @property
    def passages(self) -> int:
        """How many passages it indexes."""
        return len(self.numbers["starts"])

    def vectors(self) -> StoredVectors | None:
        """The model and the vectors of its first passages (one row each); None without."""
        said = self.texts.get("vector_model") or []
        if not said:
            return None
        model, dim = said
        return str(model), np.asarray(self.numbers["vectors"]).reshape(-1, int(dim))


def with_vectors(segment: Segment, model: str, rows: npt.NDArray[np.floating]) -> Segment:
    """``segment`` carrying ``rows`` as the vectors of its first passages."""
    numbers = {**segment.numbers, "vectors": np.asarray(rows, dtype="<f2").reshape(-1)}
    texts = {**segment.texts, "vector_model": [model, int(rows.shape[1])]}
    return Segment(numbers, texts, segment.episodes)


def empty_segment() -> Segment:
    """A segment of no records."""
    numbers = {name: np.zeros(0, dtype=dtype) for name, dtype in DTYPES.items()}
    return Segment(numbers, {name: [] for name in ALL_TEXTS}, ())


def encode(segment: Segment) -> bytes:
    """The segment as bytes: a header naming each column, then the columns."""
    numbers = [
        np.ascontiguousarray(segment.numbers.get(name, ()), dtype=DTYPES[name]) for name in DTYPES
    ]
    texts = [_json(segment.texts.get(name, [])) for name in ALL_TEXTS]
    episodes = _json([_episode_fields(r) for r in segment.episodes])
    header = _json(
        {
            "numbers": [len(column) for column in numbers],
            "texts": [len(blob) for blob in texts],
            "episodes": len(episodes),
        }
    )
    parts = [MAGIC, _LENGTH.pack(len(header)), header]
    parts.extend(column.tobytes() for column in numbers)
    parts.extend(texts)
    parts.append(episodes)
    return b"".join(parts)


def decode(data: bytes) -> Segment:
    """A segment from its bytes; ValueError when they are not one (another format, damage)."""
    view = memoryview(data)
    if bytes(view[: len(MAGIC)]) != MAGIC:
        raise ValueError("not a stored index segment of this format")
    try:
        at = len(MAGIC) + _LENGTH.size
        (size,) = _LENGTH.unpack_from(view, len(MAGIC))
        header = json.loads(bytes(view[at : at + size]))
        at += size
        numbers: dict[str, Column] = {}
        for (name, dtype), count in zip(DTYPES.items(), header["numbers"], strict=True):
            column = np.frombuffer(view, dtype=dtype, count=count, offset=at)
            numbers[name] = column
            at += column.nbytes
        texts: dict[str, list[Any]] = {}
        for name, nbytes in zip(ALL_TEXTS, header["texts"], strict=True):
            texts[name] = _unjson(view[at : at + nbytes])
            at += nbytes
        episodes = tuple(_episode_of(f) for f in _unjson(view[at : at + header["episodes"]]))
    except (KeyError, TypeError, IndexError, struct.error) as exc:
        raise ValueError(f"a damaged stored index segment: {exc}") from exc
    if at + header["episodes"] != len(view):
        raise ValueError("a damaged stored index segment: its length is not what it says")
    segment = Segment(numbers, texts, episodes)
    if not _consistent(segment):
        raise ValueError("a damaged stored index segment: its columns do not agree")
    return segment


def _consistent(segment: Segment) -> bool:
    """Whether every column has its count, and every number that points somewhere points in."""
    n, t = segment.numbers, segment.texts
    records, passages = segment.records, segment.passages
    sizes = [len(n[name]) == records for name in RECORD_NUMBERS]
    sizes += [len(t[name]) == records for name in RECORD_TEXTS]
    sizes += [len(n[name]) == passages for name in PASSAGE_NUMBERS]
    sizes += [
        len(n["joined"]) == max(passages - 1, 0),
        len(n["speaker_machine"]) == len(t["speakers"]),
        len(n["df"]) == len(t["vocabulary"]),
        int(n["df"].sum()) == len(n["docs"]) == len(n["tf"]),
    ]
    if not all(sizes) or not _vectors_fit(segment):
        return False
    return all(
        _within(n[name], bound)
        for name, bound in (
            ("speaker_codes", len(t["speakers"])),
            ("speaker_of", len(t["speakers"])),
            ("session_codes", len(t["sessions"])),
            ("turn_of", records),
            ("first_passage", passages + 1),
            ("docs", passages),
            ("dates_ends", len(t["dates_values"]) + 1),
            ("behind_ends", len(t["behind_values"]) + 1),
        )
    ) and _within(n["session_of"] + 1, len(t["sessions"]) + 1)


def _vectors_fit(segment: Segment) -> bool:
    """Whether its vectors are none, or rows of the size it says for at most its passages."""
    said, flat = segment.texts["vector_model"], len(segment.numbers["vectors"])
    if not said:
        return flat == 0
    if len(said) != 2 or not isinstance(said[0], str) or not isinstance(said[1], int):
        return False
    dim = said[1]
    return dim > 0 and flat % dim == 0 and flat // dim <= segment.passages


def _within(column: Column, bound: int) -> bool:
    return not len(column) or (int(column.min()) >= 0 and int(column.max()) < bound)


def _json(value: Any) -> bytes:
    # A lone surrogate (which JSON can carry) passes through as it came.
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode(
        "utf-8", "surrogatepass"
    )


def _unjson(blob: memoryview) -> Any:
    return json.loads(bytes(blob).decode("utf-8", "surrogatepass"))


def _episode_fields(record: TurnRecord) -> list[Any]:
    info = record.episode or EpisodeInfo()
    return [
        record.id,
        record.text,
        record.ts,
        record.position,
        record.kind,
        list(record.sources),
        record.source,
        [info.id, list(info.participants), list(info.keywords), info.end, info.quoted],
    ]


def _episode_of(fields: list[Any]) -> TurnRecord:
    row_id, text, ts, position, kind, sources, source, info = fields
    episode_id, participants, keywords, end, quoted = info
    return TurnRecord(
        id=row_id,
        turn_id=None,
        speaker="",
        text=text,
        ts=ts,
        session=None,
        dates=(),
        position=position,
        kind=kind,
        sources=tuple(sources),
        source=source,
        episode=EpisodeInfo(episode_id, tuple(participants), tuple(keywords), end, quoted),
    )


def merged(parts: Sequence[Segment], *, postings: bool = True) -> Segment:
    """One segment of several, in log order: as if its records had been indexed in one run.

    Without ``postings`` it has none: for a loader that adds each part's postings itself.
    """
    parts = [p for p in parts if p.records]
    if not parts:
        return empty_segment()
    if len(parts) == 1 and postings:
        return parts[0]
    speakers = _Names()
    sessions = _Names()
    numbers: dict[str, list[Column]] = {name: [] for name in DTYPES}
    texts: dict[str, list[Any]] = {name: [] for name in TEXTS}
    records = passages = dates = behind = 0
    last_session = -1
    machine: dict[int, bool] = {}
    for part in parts:
        n = part.numbers
        speaker_map = speakers.codes(part.texts["speakers"])
        session_map = sessions.codes(part.texts["sessions"])
        for name in ("positions", "kinds", "epochs", "starts", "ends", "chars", "lengths"):
            numbers[name].append(n[name])
        for name in (*RECORD_TEXTS, "dates_values", "behind_values"):
            texts[name].extend(part.texts[name])
        numbers["speaker_codes"].append(speaker_map[n["speaker_codes"]])
        numbers["speaker_of"].append(speaker_map[n["speaker_of"]])
        numbers["session_codes"].append(session_map[n["session_codes"]])
        session_of = np.where(n["session_of"] >= 0, session_map[n["session_of"]], -1)
        numbers["session_of"].append(session_of)
        numbers["first_passage"].append(n["first_passage"] + passages)
        numbers["turn_of"].append(n["turn_of"] + records)
        numbers["dates_ends"].append(n["dates_ends"] + dates)
        numbers["behind_ends"].append(n["behind_ends"] + behind)
        if passages:  # does its first passage continue the last one before it?
            first = int(session_of[0]) if len(session_of) else -1
            numbers["joined"].append(np.array([first >= 0 and first == last_session], "|u1"))
        numbers["joined"].append(n["joined"])
        for local, flag in enumerate(n["speaker_machine"]):
            code = int(speaker_map[local])
            machine[code] = machine.get(code, False) or bool(flag)
        if len(session_of):
            last_session = int(session_of[-1])
        records += part.records
        passages += part.passages
        dates += len(part.texts["dates_values"])
        behind += len(part.texts["behind_values"])
    vocabulary, df, docs, tf = _merged_postings(parts) if postings else _NO_POSTINGS
    out = {name: np.concatenate(numbers[name]).astype(DTYPES[name]) for name in _CONCATENATED}
    out["speaker_machine"] = np.array([machine[c] for c in range(len(speakers))], "|u1")
    out.update(df=df, docs=docs, tf=tf)
    texts.update(speakers=speakers.names, sessions=sessions.names, vocabulary=vocabulary)
    episodes = tuple(e for part in parts for e in part.episodes)
    model, rows = _merged_vectors(parts)
    out["vectors"] = rows.reshape(-1)
    texts["vector_model"] = [model, rows.shape[1]] if model is not None else []
    return Segment(out, texts, episodes)


def _merged_vectors(parts: Sequence[Segment]) -> tuple[str | None, npt.NDArray[np.float16]]:
    """The vectors of the merged passages' longest prefix that one model embedded: the parts'
    in order, up to the first part without them (or of another model), its own prefix included."""
    first = parts[0].vectors()
    if first is None:
        return None, np.zeros((0, 0), dtype="<f2")
    model = first[0]
    rows = []
    for part in parts:
        held = part.vectors()
        if held is None or held[0] != model or held[1].shape[1] != first[1].shape[1]:
            break
        rows.append(held[1])
        if len(held[1]) < part.passages:
            break
    return model, np.concatenate(rows).astype("<f2")


_NO_POSTINGS: tuple[list[str], Column, Column, Column] = (
    [],
    np.zeros(0, "<i8"),
    np.zeros(0, "<i4"),
    np.zeros(0, "<i4"),
)


def _merged_postings(parts: Sequence[Segment]) -> tuple[list[str], Column, Column, Column]:
    """Every part's postings, passages renumbered, grouped by term in order of first use."""
    vocabulary: dict[str, int] = {}
    terms: list[Column] = []
    docs: list[Column] = []
    tfs: list[Column] = []
    offset = 0
    for part in parts:
        n = part.numbers
        ids = np.array(
            [vocabulary.setdefault(t, len(vocabulary)) for t in part.texts["vocabulary"]],
            dtype=np.int64,
        )
        terms.append(np.repeat(ids, n["df"]))
        docs.append(n["docs"].astype(np.int64) + offset)
        tfs.append(n["tf"])
        offset += part.passages
    term_of = np.concatenate(terms)
    # A stable sort by term keeps each term's passages ascending: the parts come in log order.
    order = np.argsort(term_of, kind="stable")
    df = np.bincount(term_of, minlength=len(vocabulary)).astype(np.int64)
    return (
        list(vocabulary),
        df,
        np.concatenate(docs)[order].astype("<i4"),
        np.concatenate(tfs)[order].astype("<i4"),
    )


class _Names:
    """Names (speakers', sessions') numbered in order of first sight across segments."""

    def __init__(self) -> None:
        self._codes: dict[Any, int] = {}
        self.names: list[Any] = []

    def codes(self, names: Sequence[Any]) -> npt.NDArray[np.int64]:
        """Each of a segment's names (by its own number) as a number across segments."""
        out = np.zeros(max(len(names), 1), dtype=np.int64)
        for local, name in enumerate(names):
            code = self._codes.get(name)
            if code is None:
                code = self._codes[name] = len(self.names)
                self.names.append(name)
            out[local] = code
        return out

    def __len__(self) -> int:
        return len(self.names)
