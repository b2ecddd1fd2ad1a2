"""The ingest request body (POST /users/{key}/ingest and /plan) and its normalisation into turns."""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, Literal

import orjson
from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    GetJsonSchemaHandler,
    StrictFloat,
    StrictInt,
    StringConstraints,
    Tag,
    model_validator,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

from app.domain.dates import in_utc, month_number
from app.domain.ingest.turns import Turn, TurnKind, role_of

MIN_YEAR = 1900
MAX_YEAR = 2200
DEFAULT_TEXT_SPEAKER = "user"

# A name or a time must hold a character that cleaning keeps: not only spaces and controls.
# C1 controls and U+FEFF are listed too: Python's \s and JSON Schema's (ECMA) differ on them.
VISIBLE = r"[^\s\x00-\x1f\x7f-\x9f\ufeff]"


# Strict types: a JSON `true` must not quietly become epoch second 1.
Timestamp = Annotated[
    Annotated[str, StringConstraints(strict=True, min_length=1, max_length=100, pattern=VISIBLE)]
    | StrictInt
    | StrictFloat,
    Field(
        description=(
            "Event time: ISO 8601 (naive means UTC; a date alone is midnight UTC), "
            "epoch seconds, or a human date such as '1:56 pm on 8 May, 2023'."
        ),
        examples=["2023-05-08T13:56:00Z", 1683554160, "1:56 pm on 8 May, 2023"],
    ),
]
ClientId = Annotated[
    str,
    Field(max_length=200, description="The client's own id for this message, kept for tracing."),
]
SessionId = Annotated[
    str,
    Field(max_length=200, description="Conversation/session id; a change closes a segment."),
]


class InputError(ValueError):
    """An ingest payload that validated but cannot be normalised; the message says what to fix."""


class _In(BaseModel):
    # Python's re reads the patterns exactly as the cleaning code's own regular expressions do.
    model_config = ConfigDict(extra="forbid", regex_engine="python-re")


Role = Literal["user", "assistant", "system", "developer", "tool", "function"]


class ContentPart(BaseModel):
    """A part of an OpenAI-style message content; only text parts hold words to keep."""

    model_config = ConfigDict(extra="allow")

    type: str = Field(max_length=100)
    text: str | None = None


TEXT_PARTS = frozenset({"text", "input_text", "output_text"})


def parts_text(parts: list[ContentPart]) -> str:
    """The words of a list of content parts: its text parts, joined by newlines.

    Chat Completions calls a text part ``text``; the Responses API ``input_text`` (what a user
    sent) and ``output_text`` (what the model answered).
    """
    return "\n".join(p.text for p in parts if p.type in TEXT_PARTS and p.text)


class TurnIn(_In):
    """One chat turn: ``speaker`` and ``text``, or an OpenAI-style message (``role``, ``content``).

    A message is taken as an agent has it: ``name`` (or else ``role``) is the speaker, a list of
    content parts is read for its text parts, and the tool-call fields are accepted and ignored.
    """

    model_config = ConfigDict(
        extra="forbid",
        regex_engine="python-re",
        json_schema_extra={
            # Declared as the validator below enforces it: someone said it, in text or content.
            "anyOf": [
                {"required": [field], "properties": {field: {"type": "string"}}}
                for field in ("speaker", "role", "name")
            ],
            "not": {
                "required": ["text", "content"],
                "properties": {
                    "text": {"type": "string"},
                    "content": {"type": ["string", "array"]},
                },
            },
        },
    )

    speaker: str | None = Field(
        default=None,
        min_length=1,
        max_length=200,
        pattern=VISIBLE,
        description="Who said it (a person's name, or a role word). Required unless role is given.",
    )
    role: Role | None = Field(
        default=None,
        description=(
            "The message's role: 'user' (the person the memory is about), 'assistant', "
            "'system'/'developer', 'tool'/'function'. Beliefs come from what the user says; an "
            "assistant's, system's or tool's message is kept and searched, never believed."
        ),
    )
    name: str | None = Field(
        default=None,
        min_length=1,
        max_length=200,
        pattern=VISIBLE,
        description="OpenAI-style author name; the speaker when speaker is not given.",
    )
    text: str | None = Field(default=None, description="What was said. Empty turns are skipped.")
    content: str | list[ContentPart] | None = Field(
        default=None,
        description="OpenAI-style content (a string or a list of parts), instead of text.",
    )
    ts: Timestamp | None = None
    id: ClientId | None = None
    session: SessionId | None = None
    tool_calls: Any = Field(default=None, description="Accepted and ignored.")
    tool_call_id: Any = Field(default=None, description="Accepted and ignored.")
    function_call: Any = Field(default=None, description="Accepted and ignored.")
    refusal: Any = Field(default=None, description="Accepted and ignored.")
    audio: Any = Field(default=None, description="Accepted and ignored.")

    @model_validator(mode="after")
    def _someone(self) -> TurnIn:
        if self.speaker is None and self.role is None and self.name is None:
            raise ValueError("a turn needs a speaker (or an OpenAI-style role)")
        if self.text is not None and self.content is not None:
            raise ValueError("give text or content, not both")
        return self

    def said(self) -> str:
        """The words of the turn: its text, or its content's text parts joined by newlines."""
        if self.text is not None:
            return self.text
        if isinstance(self.content, list):
            return parts_text(self.content)
        return self.content or ""

    def who(self) -> str:
        """The speaker: given, else the author name, else the role."""
        return self.speaker or self.name or self.role or ""


class RowIn(_In):
    """One database row, rendered as 'table: col=value; ...' for extraction."""

    table: str = Field(
        min_length=1, max_length=200, pattern=VISIBLE, description="The client's table name."
    )
    row: dict[str, Any] = Field(description="Column name to value.")
    ts: Timestamp | None = None
    id: ClientId | None = None


class TextIn(_In):
    """A free-text block (a note, a document, a transcript without turns)."""

    text: str = Field(description="The text.")
    ts: Timestamp | None = None
    id: ClientId | None = None
    speaker: str | None = Field(
        default=None,
        min_length=1,
        max_length=200,
        pattern=VISIBLE,
        description="Author; 'user' when absent.",
    )


def _item_tag(value: Any) -> str:
    """Discriminate a mixed item by shape: a table makes a row, a speaker makes a turn."""
    if isinstance(value, dict):
        if "table" in value:
            return "row"
        chat = ("speaker", "role", "content", "name")
        return "turn" if any(value.get(key) is not None for key in chat) else "text"
    if isinstance(value, RowIn):
        return "row"
    return "turn" if isinstance(value, TurnIn) else "text"


class _ShapesInOrder:
    """The JSON Schema of a union told apart by shape (``_item_tag``): ``anyOf``, not ``oneOf``.

    Every field of a turn and of a text block is optional in the schema (a turn's own check
    asks for a speaker or a role), so one item can fit both; the server takes the first shape
    that applies. ``oneOf`` would call such an item invalid.
    """

    def __get_pydantic_json_schema__(
        self, schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        found = handler(schema)
        if "oneOf" in found:
            found["anyOf"] = found.pop("oneOf")
        return found


Item = Annotated[
    Annotated[TurnIn, Tag("turn")] | Annotated[RowIn, Tag("row")] | Annotated[TextIn, Tag("text")],
    Discriminator(_item_tag),
    _ShapesInOrder(),
]


class IngestPayload(_In):
    """What to remember: a text, chat turns, database rows, or a mixed list of them."""

    model_config = ConfigDict(
        extra="forbid",
        regex_engine="python-re",
        json_schema_extra={
            # Declared as the validator below enforces it: something to ingest.
            "anyOf": [
                {"required": ["text"], "properties": {"text": {"type": "string", "minLength": 1}}},
                {"required": ["turns"], "properties": {"turns": {"type": "array", "minItems": 1}}},
                {"required": ["rows"], "properties": {"rows": {"type": "array", "minItems": 1}}},
                {"required": ["items"], "properties": {"items": {"type": "array", "minItems": 1}}},
            ],
            "examples": [
                {
                    "turns": [
                        {"speaker": "Melanie", "text": "I moved to Kwekwe.", "id": "m1"},
                        {"speaker": "assistant", "text": "How is the new job?", "id": "m2"},
                    ],
                    "subject": "Melanie",
                    "session_ts": "1:56 pm on 8 May, 2023",
                }
            ],
        },
    )

    text: str | None = Field(default=None, description="A block of free text.")
    turns: list[TurnIn] | None = Field(default=None, description="Chat turns, in order.")
    rows: list[RowIn] | None = Field(default=None, description="Database rows, in order.")
    items: list[Item] | None = Field(
        default=None,
        description=(
            "A mixed list, order kept: an item with 'table' is a row, one with 'speaker' "
            "is a chat turn, anything else is a text block."
        ),
    )
    subject: str | None = Field(
        default=None,
        min_length=1,
        max_length=200,
        description="Which speaker the passport is about (default: the end user).",
    )
    session_ts: Timestamp | None = Field(
        default=None, description="Time of the whole session, used for items without their own ts."
    )

    @model_validator(mode="after")
    def _not_empty(self) -> IngestPayload:
        if not (self.text or self.turns or self.rows or self.items):
            raise ValueError("nothing to ingest: give a non-empty text, turns, rows or items")
        return self


@dataclass(frozen=True)
class IngestLimits:
    """Size limits applied while normalising (counts are before empty items are dropped)."""

    max_items: int = 10_000
    max_turn_chars: int = 200_000
    max_total_chars: int = 4_000_000


# --- timestamps -------------------------------------------------------------------------------

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_TIME = r"(?P<h>\d{1,2})(?::(?P<mi>\d{2}))?(?::(?P<s>\d{2}))?\s*(?P<ap>[ap]\.?m\.?)?"
# "1:56 pm on 8 May, 2023" (the LoCoMo style) or "8 May 2023, 1:56 pm".
_TIME_FIRST = re.compile(rf"{_TIME}\s*(?:\bon\s+|,\s*|\s)\s*(?P<rest>.+)")
_TIME_LAST = re.compile(rf"(?P<rest>.+?)\s*(?:,\s*|\s+at\s+|\s)\s*{_TIME}")
_WEEKDAY = r"(?:(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:[a-z]*day)?\.?,?\s+)?"
_DAY_FIRST = re.compile(
    rf"{_WEEKDAY}(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mon>[a-z]+)\.?,?\s+(?P<y>\d{{4}})"
)
_MONTH_FIRST = re.compile(
    rf"{_WEEKDAY}(?P<mon>[a-z]+)\.?\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<y>\d{{4}})"
)
_MAX_TS_CHARS = 100


def _bad_timestamp(value: Any, hint: str = "") -> InputError:
    shown = repr(value)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return InputError(
        f"unrecognised timestamp {shown}{hint}: use ISO 8601 (2023-05-08T13:56:00Z), "
        "epoch seconds, or a date like '1:56 pm on 8 May, 2023'"
    )


def _in_range(dt: datetime, value: Any) -> datetime:
    if not MIN_YEAR <= dt.year <= MAX_YEAR:
        raise InputError(
            f"timestamp {value!r} is in year {dt.year}, outside {MIN_YEAR}..{MAX_YEAR}"
            + (" (epoch milliseconds? send seconds)" if isinstance(value, int | float) else "")
        )
    return dt


def _clock(match: re.Match[str]) -> tuple[int, int, int] | None:
    """Hour, minute, second of a matched time; None unless it really is a time (has : or am/pm)."""
    if match["mi"] is None and match["ap"] is None:
        return None
    hour, minute, second = int(match["h"]), int(match["mi"] or 0), int(match["s"] or 0)
    if match["ap"]:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if match["ap"].startswith("p") else 0)
    return hour, minute, second


def _human(text: str) -> datetime | None:
    """Parse the human formats of public long-conversation datasets; None if it is not one."""
    clock: tuple[int, int, int] | None = (0, 0, 0)
    rest = text
    for pattern in (_TIME_FIRST, _TIME_LAST):
        match = pattern.fullmatch(text)
        if match and (found := _clock(match)) is not None:
            clock, rest = found, match["rest"]
            break
    date = _DAY_FIRST.fullmatch(rest) or _MONTH_FIRST.fullmatch(rest)
    if date is None or clock is None:
        return None
    month = month_number(date["mon"])
    if month is None:
        return None
    try:
        return datetime(int(date["y"]), month, int(date["d"]), *clock, tzinfo=UTC)
    except ValueError:
        return None


def parse_timestamp(value: str | int | float | datetime) -> datetime:
    """Parse a client timestamp into an aware UTC datetime, or raise InputError."""
    if isinstance(value, datetime):
        return _in_range(_utc(value, value), value)
    if isinstance(value, bool):  # bool is an int subclass; true/false is never a time
        raise _bad_timestamp(value)
    if isinstance(value, int | float):
        if not math.isfinite(value):
            raise _bad_timestamp(value)
        try:
            dt = _EPOCH + timedelta(seconds=value)
        except OverflowError:
            hint = " (out of range: send epoch seconds, not milliseconds)"
            raise _bad_timestamp(value, hint) from None
        return _in_range(dt, value)
    if not isinstance(value, str):
        raise _bad_timestamp(value)
    text = value.strip()
    if not text or len(text) > _MAX_TS_CHARS:
        raise _bad_timestamp(value)
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        human = _human(" ".join(text.lower().split()))
        if human is None:
            raise _bad_timestamp(value) from None
        return _in_range(human, value)
    return _in_range(_utc(parsed, value), value)


def _utc(when: datetime, value: Any) -> datetime:
    """``when`` (read from ``value``) in UTC; InputError when that falls outside years 1-9999."""
    utc = in_utc(when)
    if utc is None:
        raise _bad_timestamp(value, " (out of range once its offset is applied)")
    return utc


# --- text cleaning ----------------------------------------------------------------------------

# C0 controls except \t and \n, plus DEL: NULs and terminal escapes break storage and prompts.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def clean_text(text: str) -> str:
    """Drop control characters (keeping newlines and tabs), unify line ends, NFC, trim ends."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return unicodedata.normalize("NFC", _CONTROL.sub("", text)).strip()


def render_row(table: str, row: dict[str, Any]) -> str:
    """Render a row stably and readably: 'table: a=1; b=text' with keys sorted."""
    parts = [f"{key}={_cell(row[key])}" for key in sorted(row)]
    return f"{table}: {'; '.join(parts)}"


def _cell(value: Any) -> str:
    """Strings as they are; anything else as compact JSON with sorted keys."""
    if isinstance(value, str):
        return value
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
    except orjson.JSONEncodeError:
        # JSON allows integers past 64 bits; orjson does not, the standard library does.
        return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


# --- normalisation ----------------------------------------------------------------------------


def _items(payload: IngestPayload) -> Iterator[tuple[str, TurnIn | RowIn | TextIn]]:
    """Every input unit with its location in the body, in the documented order."""
    if payload.text is not None:
        yield "text", TextIn(text=payload.text)
    for name in ("turns", "rows", "items"):
        for index, item in enumerate(getattr(payload, name) or ()):
            yield f"{name}[{index}]", item


def _count(payload: IngestPayload) -> int:
    return (payload.text is not None) + sum(
        len(getattr(payload, name) or ()) for name in ("turns", "rows", "items")
    )


def _label(where: str, value: str | None) -> str:
    """A speaker or table name, cleaned like text; blank is a client error."""
    cleaned = clean_text(value or "")
    if not cleaned:
        raise InputError(f"{where} is blank")
    return cleaned


def readable_time(value: str | int | float | None) -> datetime | None:
    """A client's time if it can be read; else None, so the turn takes the session's time."""
    # The words are what matters: a turn is never refused over a time it came with.
    if value is None:
        return None
    try:
        return parse_timestamp(value)
    except InputError:
        return None


def normalize(payload: IngestPayload, limits: IngestLimits = IngestLimits()) -> list[Turn]:
    """Flatten text, turns, rows and items (in that order) into cleaned, timestamped turns."""
    return [turn for _, turn in located(payload, limits)]


def located(
    payload: IngestPayload, limits: IngestLimits = IngestLimits()
) -> list[tuple[str, Turn]]:
    """``normalize``'s turns, each with where in the payload it came from ("turns[3]", "text")."""
    count = _count(payload)
    if count > limits.max_items:
        raise InputError(f"{count:,} items is over the max_items limit of {limits.max_items:,}")
    session_ts = readable_time(payload.session_ts)

    turns: list[tuple[str, Turn]] = []
    total = 0
    for where, item in _items(payload):
        kind: TurnKind
        table = session = role = None
        if isinstance(item, RowIn):
            table = _label(f"{where}.table", item.table)
            try:
                raw = render_row(table, item.row) if item.row else ""
            except orjson.JSONEncodeError as exc:
                raise InputError(f"{where}.row: a value is not JSON: {exc}") from None
            kind, speaker = "row", table
        elif isinstance(item, TurnIn):
            raw, kind, session = item.said(), "chat", item.session
            speaker = _label(f"{where}.speaker", item.who())
            role = role_of(speaker, item.role)
        else:
            raw, kind = item.text, "text"
            speaker = _label(f"{where}.speaker", item.speaker or DEFAULT_TEXT_SPEAKER)

        if len(raw) > limits.max_turn_chars:
            raise InputError(
                f"{where}: {len(raw):,} characters is over the max_turn_chars limit "
                f"of {limits.max_turn_chars:,}"
            )
        total += len(raw)
        if total > limits.max_total_chars:
            raise InputError(
                f"{where}: the payload passes the max_total_chars limit of "
                f"{limits.max_total_chars:,} characters"
            )
        ts = readable_time(item.ts) or session_ts

        text = clean_text(raw)
        if not text:
            continue
        turn = Turn(
            speaker=speaker,
            text=text,
            kind=kind,
            ts=ts,
            id=item.id,
            session=session,
            table=table,
            role=role,
        )
        turns.append((where, turn))
    return turns
