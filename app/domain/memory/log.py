"""The log: how a passport document splits into its head and its append-only rows, and back.

A passport is one document to its users, stored in two parts (DESIGN §2): the **head** (facts,
preferences, entities, open loops, contradictions, meta: what is believed now) and the **log**,
one row per verbatim turn, observation, episode and source. The log sections of the document are
its rows in log order. The head keeps each log section's key with an empty list, so a document
that came without a section (a SozoGraph file has no ``turns``) goes out as it came in; a head
may also hold items of a log section (written before the log existed), which come after the rows.

A write touches only the rows it matches: ``LogDraft`` seeds a head with the existing rows a
merge may meet (found by their identity hash through an index, never by a scan), lets the merge
run as it always did, and collects what it added, changed and dropped. Pure: no I/O, no clock.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from app.domain.dates import iso_utc, parse_instant, turn_dates
from app.domain.extraction.extractor import Extraction
from app.domain.ids import (
    canonical_bytes,
    sha256_hex,
    time_in_id,
    time_key,
    turn_content_id,
)
from app.domain.ingest.noise import prune_noise
from app.domain.ingest.payload import IngestLimits, IngestPayload, located
from app.domain.ingest.turns import MACHINE_ROLES, Segment, Turn, role_of
from app.domain.passport import (
    Contradiction,
    Episode,
    Observation,
    OpenLoop,
    Passport,
    Source,
    TurnEntry,
)
from app.domain.prose import prose_of

# Document section -> row kind. Sections listed in ROW_SECTIONS always live in the log.
KIND_OF = {
    "turns": "turn",
    "observations": "observation",
    "episodes": "episode",
    "sources": "source",
    "contradictions": "contradiction",
    "open_loops": "open_loop",
}
SECTION_OF = {kind: section for section, kind in KIND_OF.items()}
ROW_SECTIONS = ("turns", "observations", "episodes", "sources")
# What extraction derives from a source, and a reprocess replaces.
DERIVED_KINDS = ("observation", "episode", "source")
# Head sections that would grow with the history: past these many items, the oldest move to the
# log (they stay in the document), so the head is the size of what is believed now.
HEAD_CAPS = {"open_loops": 50, "contradictions": 50}
KINDS = tuple(KIND_OF.values())
_MODELS: dict[str, Any] = {
    "turns": TurnEntry,
    "observations": Observation,
    "episodes": Episode,
    "sources": Source,
    "contradictions": Contradiction,
    "open_loops": OpenLoop,
}
_SPACE_RE = re.compile(r"\s+")


def _norm(text: Any) -> str:
    return _SPACE_RE.sub(" ", str(text)).strip().casefold()


# --- identity --------------------------------------------------------------------------------


def turn_hash(
    speaker: str, text: str, ts: str | None, turn_id: str | None, session: str | None, nth: int
) -> str:
    """A turn's identity: who said what, when, under which id, and which repeat of it this is.

    ``nth`` counts earlier identical turns of the same request, so "ok" said twice in a row is
    kept twice, while the same request sent again (a retry, a re-sent history) adds nothing.
    """
    digest = sha256_hex(["turn", speaker, text, ts, turn_id, session, nth])
    return timed_key(time_key(parse_ts(ts)), digest)


def timed_key(when: str | None, digest: str) -> str:
    """An identity: the content's digest, led by its time key when it has one.

    Identities are indexed per user. Led by the time, a write's new entries land together at the
    end of the user's range instead of on pages all over its history, and after a checkpoint
    Postgres logs every page a write first touches whole: with random keys a long history made
    each write log a few index pages more.
    """
    return f"{when}:{digest}" if when else digest


def source_keys(source_id: Any, content: Any) -> tuple[str, str]:
    """A source's identity, then the one it was stored under before segment ids led with a time.

    A segment's content hash is the same in both; looking a source up under both finds the
    segments merged before the change too (so sending such a history again still adds nothing).
    """
    digest = sha256_hex(["source", content or source_id])
    return timed_key(time_in_id(source_id), digest), digest


def row_hash(kind: str, item: Mapping[str, Any], nth: int = 0) -> str:
    """The identity a merge dedupes a row by (hex SHA-256, led by its time where it has one)."""
    if kind == "turn":
        return turn_hash(
            str(item.get("speaker") or ""),
            str(item.get("text") or ""),
            item.get("ts"),
            item.get("id"),
            item.get("session"),
            nth,
        )
    if kind == "observation":
        return sha256_hex(
            ["observation", _norm(item.get("text", "")), _norm(item.get("when") or "")]
        )
    if kind == "episode":
        return timed_key(time_in_id(item.get("id")), sha256_hex(["episode", item.get("id")]))
    if kind == "source":
        return source_keys(item.get("id"), item.get("hash"))[0]
    return sha256_hex([kind, canonical_bytes(dict(item)).decode()])


# --- rows ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LogRow:
    """A row to append: its kind, the item as the document holds it, and its identity."""

    kind: str
    item: dict[str, Any]
    hash: str

    @property
    def ts(self) -> datetime | None:
        """The event time the row is filed under (for date filters)."""
        return parse_ts(self.item.get("ts"))

    @property
    def session(self) -> str | None:
        """The conversation the turn was said in."""
        value = self.item.get("session")
        return str(value)[:200] if isinstance(value, str) else None

    @property
    def source(self) -> str | None:
        """The source (segment) the row came from; a source row is its own."""
        value = self.item.get("id") if self.kind == "source" else self.item.get("source")
        return str(value)[:64] if isinstance(value, str) else None

    @property
    def turn_id(self) -> str | None:
        """The client's id of a turn."""
        value = self.item.get("id") if self.kind == "turn" else None
        return str(value)[:200] if isinstance(value, str) else None


def log_row(kind: str, item: dict[str, Any], nth: int = 0) -> LogRow:
    """A row of ``kind`` holding ``item``, with its identity."""
    return LogRow(kind, item, row_hash(kind, item, nth))


@dataclass(frozen=True, slots=True)
class StoredRow:
    """A row as stored: its id (log order) and content."""

    id: int
    kind: str
    item: dict[str, Any]
    hash: str = ""
    version: int = 0  # the version that added it


def parse_ts(value: Any) -> datetime | None:
    """An ISO 8601 time as an aware UTC datetime (naive is UTC); None if it is not one, or it
    is out of range once its offset is applied."""
    if not isinstance(value, str) or not value:
        return None
    return parse_instant(value)


# --- document <-> head + rows ----------------------------------------------------------------


def split(doc: Mapping[str, Any]) -> tuple[dict[str, Any], list[LogRow]]:
    """A whole document as its head and the rows of its log sections, in document order."""
    head = {key: ([] if key in ROW_SECTIONS else value) for key, value in doc.items()}
    rows: list[LogRow] = []
    for section in ROW_SECTIONS:
        kind = KIND_OF[section]
        seen: dict[str, int] = {}
        for item in doc.get(section) or []:
            key = row_hash(kind, item)
            nth = seen.get(key, 0)
            seen[key] = nth + 1
            rows.append(log_row(kind, dict(item), nth))
    return head, rows


def join(head: Mapping[str, Any], rows: Iterable[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """The whole document: the head, each log section its rows in order, then head items."""
    out = dict(head)
    by_section: dict[str, list[Any]] = {}
    for kind, item in rows:
        by_section.setdefault(SECTION_OF[kind], []).append(item)
    for section, items in by_section.items():
        held = head.get(section)
        out[section] = items + (list(held) if isinstance(held, list) else [])
    return out


def with_sections(head: dict[str, Any], change: LogChange) -> dict[str, Any]:
    """The head naming every log section the change adds rows to (so the export shows it)."""
    for row in change.added:
        section = SECTION_OF[row.kind]
        if section in ROW_SECTIONS and section not in head:
            head[section] = []
    return head


# --- turns -----------------------------------------------------------------------------------


def turn_rows(
    segments: Sequence[Segment], received: datetime, *, resolve_dates: bool = True
) -> list[tuple[Segment, LogRow]]:
    """Every turn of a request's segments as a log row, in order.

    A turn without a time of its own is filed at ``received`` (when the request was accepted);
    a turn without a client id gets one from its content, so every turn can be named. Without
    ``resolve_dates`` the turns are kept without the days their relative dates name.
    """
    out: list[tuple[Segment, LogRow]] = []
    seen: dict[tuple[Any, ...], int] = {}
    for segment in segments:
        for turn in segment.turns:
            when = turn.ts or received
            ts = iso_utc(when)
            key = (turn.speaker, turn.text, ts, turn.id, turn.session)
            nth = seen.get(key, 0)
            seen[key] = nth + 1
            item = turn_item(turn, segment.id, when, nth, resolve_dates=resolve_dates)
            out.append((segment, LogRow("turn", item, turn_hash(*key, nth))))
    return out


def unit_identities(
    payload: IngestPayload, received: datetime, limits: IngestLimits = IngestLimits()
) -> list[tuple[str, str]]:
    """(where in the payload, the identity its turn has in the log) for each unit that became a
    turn: what the worker made of the payload, unit by unit (``turn_rows`` over ``prepare``)."""
    out: list[tuple[str, str]] = []
    seen: dict[tuple[Any, ...], int] = {}
    for where, turn in located(payload, limits):
        text = prune_noise(turn.text)
        if not text.strip():
            continue  # nothing but noise: it became no turn
        key = (turn.speaker, text, iso_utc(turn.ts or received), turn.id, turn.session)
        nth = seen.get(key, 0)
        seen[key] = nth + 1
        out.append((where, turn_hash(*key, nth)))
    return out


def turn_item(
    turn: Turn, source: str, when: datetime, nth: int = 0, *, resolve_dates: bool = True
) -> dict[str, Any]:
    """A turn as the passport's ``turns`` section holds it."""
    ts = iso_utc(when)
    turn_id = turn.id or turn_content_id(turn.speaker, turn.text, ts, turn.session, nth)
    item: dict[str, Any] = {
        "id": turn_id,
        "speaker": turn.speaker,
        "text": turn.text,
        "ts": ts,
        "source": source,
    }
    if turn.session is not None:
        item["session"] = turn.session
    if turn.role is not None:
        item["role"] = turn.role
    if turn.kind != "chat":
        item["kind"] = turn.kind
    # A person's prose names days; code, logs and an assistant's answers are not read for them.
    machine = role_of(turn.speaker, turn.role) in MACHINE_ROLES
    dates = turn_dates(prose_of(turn.text), when) if resolve_dates and not machine else ()
    if dates:
        item["dates"] = [d.to_dict() for d in dates]
    return item


def segment_keys(segment: Segment) -> tuple[str, str]:
    """The identities the source row a merged segment leaves behind may be stored under."""
    return source_keys(segment.id, segment.hash)


# --- what a merge touches --------------------------------------------------------------------


def source_of(segment: Segment, reference: datetime) -> Source:
    """The passport source for a segment: its id, hash, time and client turn ids."""
    return Source(
        id=segment.id,
        kind=segment.kind,
        ts=iso_utc(segment.end_ts or segment.start_ts or reference),
        hash=segment.hash,
        turn_ids=list(segment.turn_ids),
    )


def merge_candidates(sources: Iterable[Source], extractions: Iterable[Extraction]) -> set[str]:
    """The identities of the existing rows a merge of these extractions could meet."""
    wanted = {key for s in sources for key in source_keys(s.id, s.hash)}
    for extraction in extractions:
        for o in extraction.observations:
            wanted.add(row_hash("observation", o.to_dict()))
        if extraction.episode is not None:
            wanted.add(row_hash("episode", {"id": extraction.episode.id}))
    return wanted


@dataclass
class LogChange:
    """What a write did to the log: rows to append and ids of rows it removed."""

    added: list[LogRow] = field(default_factory=list)
    removed: list[int] = field(default_factory=list)

    def counts(self, removed_kinds: Mapping[int, str]) -> dict[str, dict[str, int]]:
        """Per section ``{"added": n, "removed": n}``, for the version summary."""
        out: dict[str, dict[str, int]] = {}
        for row in self.added:
            out.setdefault(SECTION_OF[row.kind], {"added": 0, "removed": 0})["added"] += 1
        for row_id in self.removed:
            section = SECTION_OF.get(removed_kinds.get(row_id, ""), "")
            if section:
                out.setdefault(section, {"added": 0, "removed": 0})["removed"] += 1
        return out

    def __bool__(self) -> bool:
        return bool(self.added or self.removed)


class LogDraft:
    """Existing rows seeded into a head's sections for a merge to meet, and what it changed.

    ``seed`` appends the existing rows' items to the passport's sections; the merge dedupes and
    edits as it does on a whole document; ``collect`` empties those sections again and reports
    each seeded row the merge dropped or replaced as removed, and each new item as added.
    """

    def __init__(self, existing: Iterable[StoredRow] = ()) -> None:
        self.existing = sorted(existing, key=lambda r: r.id)
        self.hashes = {row.hash for row in self.existing if row.hash}
        self.kinds = {row.id: row.kind for row in self.existing}
        self._seeded: dict[int, tuple[int, bytes]] = {}  # id(object) -> (row id, bytes)
        self.turns: list[LogRow] = []

    def seed(self, passport: Passport) -> None:
        """Put the existing rows' items into the passport's sections, in log order."""
        for section in KIND_OF:
            if section != "turns":
                setattr(passport, section, list(getattr(passport, section)))
        for row in self.existing:
            section = SECTION_OF[row.kind]
            if section == "turns":
                continue
            obj = _MODELS[section].model_validate(row.item)
            getattr(passport, section).append(obj)
            self._seeded[id(obj)] = (row.id, canonical_bytes(obj.to_dict()))

    def add_turns(self, rows: Iterable[LogRow]) -> int:
        """Append the turns not already in the log; how many were new."""
        added = 0
        for row in rows:
            if row.hash in self.hashes:
                continue
            self.hashes.add(row.hash)
            self.turns.append(row)
            added += 1
        return added

    def collect(self, passport: Passport, spill: Mapping[str, int] | None = None) -> LogChange:
        """What the merge changed in the log; the passport is left holding only its head.

        ``spill`` caps head sections (open loops, contradictions): their oldest items beyond
        the cap move to the log, so the head stays the size of what is believed now.
        """
        change = LogChange(added=list(self.turns))
        kept: set[int] = set()
        # A seeded row the merge dropped and then added again as it was (a reprocess whose
        # extractor says the same) stays the row it was.
        dropped: dict[tuple[str, bytes], list[int]] = {}
        seen_objects = {id(o) for section in KIND_OF for o in getattr(passport, section)}
        for object_id, (row_id, data) in self._seeded.items():
            if object_id not in seen_objects:
                dropped.setdefault((self.kinds[row_id], data), []).append(row_id)
        for section in ("observations", "episodes", "sources", "open_loops", "contradictions"):
            kind = KIND_OF[section]
            items = getattr(passport, section)
            in_head = []
            for obj in items:
                seeded = self._seeded.get(id(obj))
                data = canonical_bytes(obj.to_dict())
                if seeded is not None and seeded[1] == data:
                    kept.add(seeded[0])
                elif (same := dropped.get((kind, data))) and seeded is None:
                    kept.add(same.pop(0))
                elif section in ROW_SECTIONS or seeded is not None:
                    change.added.append(log_row(kind, obj.to_dict()))
                else:
                    in_head.append(obj)
            cap = (spill or {}).get(section)
            if cap is not None and len(in_head) > cap:
                for obj in in_head[: len(in_head) - cap]:
                    change.added.append(log_row(kind, obj.to_dict()))
                in_head = in_head[len(in_head) - cap :]
            setattr(passport, section, [] if section in ROW_SECTIONS else in_head)
        change.removed = sorted(row_id for row_id, _ in self._seeded.values() if row_id not in kept)
        return change


# --- imports ---------------------------------------------------------------------------------


def plan_import(
    doc: Mapping[str, Any],
    live: Sequence[StoredRow],
    spill: Mapping[str, int] | None = None,
) -> tuple[dict[str, Any], LogChange]:
    """A whole document against the live log: the new head and the rows to add and remove.

    Per section, the longest run of items that matches the live rows in order is kept as it
    is; the live rows after it are removed and the document's items after it are added (for a
    head section such as open loops, they stay in the head, the newest ``spill[section]`` of
    them: older ones go to the log, as a merge would move them). So re-importing an export
    changes nothing, and an export with a few turns appended adds only those.
    """
    head = {key: ([] if key in ROW_SECTIONS else value) for key, value in doc.items()}
    change = LogChange()
    by_kind: dict[str, list[StoredRow]] = {}
    for row in sorted(live, key=lambda r: r.id):
        by_kind.setdefault(row.kind, []).append(row)
    for section, kind in KIND_OF.items():
        incoming = [dict(item) for item in doc.get(section) or []]
        rows = by_kind.get(kind, [])
        kept = 0
        while (
            kept < len(rows)
            and kept < len(incoming)
            and canonical_bytes(rows[kept].item) == canonical_bytes(incoming[kept])
        ):
            kept += 1
        change.removed += [row.id for row in rows[kept:]]
        if section in ROW_SECTIONS:
            seen: dict[str, int] = {}
            for row in rows[:kept]:
                first = row_hash(kind, row.item)
                seen[first] = seen.get(first, 0) + 1
            for item in incoming[kept:]:
                first = row_hash(kind, item)
                nth = seen.get(first, 0)
                seen[first] = nth + 1
                change.added.append(log_row(kind, item, nth))
        elif section in doc:
            rest = incoming[kept:]
            cap = (spill or {}).get(section)
            if cap is not None and len(rest) > cap:
                change.added += [log_row(kind, item) for item in rest[: len(rest) - cap]]
                rest = rest[len(rest) - cap :]
            head[section] = rest
    return head, change
