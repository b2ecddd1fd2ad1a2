"""Normalised input units (turns) and the segments the pipeline extracts from."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

TurnKind = Literal["chat", "text", "row"]
# Who a turn is from, as far as memory goes: the person the memory is about, an assistant,
# a system prompt or a tool's output. Only the user's words become beliefs about the user.
TurnRole = Literal["user", "assistant", "system", "tool"]
# Roles whose messages are never read for beliefs or dates about anyone.
MACHINE_ROLES = frozenset({"assistant", "system", "tool"})

# Roles as clients name them (OpenAI's, and speaker names that are role words).
_ROLES: dict[str, TurnRole] = {
    "user": "user",
    "human": "user",
    "assistant": "assistant",
    "ai": "assistant",
    "bot": "assistant",
    "model": "assistant",
    "system": "system",
    "developer": "system",
    "tool": "tool",
    "function": "tool",
}


def role_of(speaker: str, role: str | None = None) -> TurnRole | None:
    """A turn's role: the one given, else the speaker's name when it is a role word, else None
    (a person talking, in a chat between people)."""
    if role is not None:
        return _ROLES.get(role.strip().lower())
    return _ROLES.get(speaker.strip().lower())


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
    role: TurnRole | None = None  # given by the client, or read from a role-word speaker


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
