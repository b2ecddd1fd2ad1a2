"""Normalised input units (turns) and the segments the pipeline extracts from."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

TurnKind = Literal["chat", "text", "row"]


@dataclass(frozen=True, slots=True)
class Turn:
    """One unit of input after normalisation: a chat turn, a text block, or a database row."""

    speaker: str
    text: str
    kind: TurnKind = "chat"
    ts: datetime | None = None  # event time given by the client (timezone-aware, UTC)
    id: str | None = None  # the client's own message id, kept for provenance
    session: str | None = None
    table: str | None = None  # for rows: the client's table name


@dataclass(frozen=True, slots=True)
class Segment:
    """A token-bounded run of turns that is extracted in one call."""

    id: str  # content-derived: seg_<time of its first turn>_<sha256 prefix> (seg_<prefix> undated)
    turns: tuple[Turn, ...]
    tokens: int  # estimated from characters; no tokenizer download
    session: str | None = None
    start_ts: datetime | None = None
    end_ts: datetime | None = None
    hash: str = ""  # sha256:<hex> of the segment content
    turn_ids: tuple[str, ...] = field(default=())

    @property
    def kind(self) -> TurnKind:
        """The kind of the segment's first turn (segments do not mix chat and rows)."""
        return self.turns[0].kind if self.turns else "text"


def segment_time(segment: Segment, reference: datetime | None = None) -> datetime | None:
    """When a segment was said: its end, else its latest turn, else the reference time."""
    if segment.end_ts or segment.start_ts:
        return segment.end_ts or segment.start_ts
    times = [t.ts for t in segment.turns if t.ts is not None]
    return max(times) if times else reference
