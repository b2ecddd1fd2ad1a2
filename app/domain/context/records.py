"""A log row as context reads it: a turn, an observation or an episode."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from app.domain.dates import SaidDate

RecordKind = Literal["turn", "observation", "episode"]
# The log rows an index reads: those that become records, and sources (they lend turn ids).
INDEXED_KINDS = ("turn", "observation", "episode", "source")


@dataclass(frozen=True, slots=True)
class EpisodeInfo:
    """What an episode record holds beside its summary."""

    id: str = ""  # the episode's own id (its segment's)
    participants: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    end: str | None = None  # when its last turn was said
    quoted: bool = False  # its summary quotes its own turns: never ranked beside them


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
    role: str | None = None  # a turn's role (user, assistant, system, tool), when known
    episode: EpisodeInfo | None = None  # an episode's participants, keywords and end

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
    if kind not in ("turn", "observation", "episode"):
        return None
    text = item.get("summary" if kind == "episode" else "text")
    if not isinstance(text, str) or not text.strip():
        return None
    if kind == "turn":
        turn_id, session = item.get("id"), item.get("session")
        return TurnRecord(
            id=str(row_id),
            turn_id=str(turn_id) if turn_id is not None else None,
            speaker=str(item.get("speaker") or ""),
            text=text,
            ts=_text_or_none(item.get("ts")),
            session=str(session) if session is not None else None,
            dates=tuple(
                SaidDate(str(d.get("said", "")), str(d.get("day", "")))
                for d in item.get("dates") or ()
                if isinstance(d, Mapping)
            ),
            position=row_id,
            source=_text_or_none(item.get("source")),
            role=_text_or_none(item.get("role")),
        )
    ids = item.get("turn_ids")
    if not isinstance(ids, list) and source_turns is not None:
        ids = list(source_turns.get(str(item.get("source")), ()))
    when = item.get("when") if kind == "observation" else None
    episode = _episode_info(item) if kind == "episode" else None
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
        episode=episode,
    )


def _episode_info(item: Mapping[str, Any]) -> EpisodeInfo:
    return EpisodeInfo(
        id=str(item.get("id") or ""),
        participants=_texts(item.get("participants")),
        keywords=_texts(item.get("keywords")),
        end=_text_or_none(item.get("end")),
        quoted=item.get("quoted") is True,
    )


def _texts(value: Any) -> tuple[str, ...]:
    return tuple(v for v in value if isinstance(v, str) and v) if isinstance(value, list) else ()


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
