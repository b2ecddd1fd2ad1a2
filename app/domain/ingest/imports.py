"""Memories exported by other memory services, and message lists, read as an ingest payload.

``POST /users/{key}/import`` takes what people leave another service with: a list of memories
(``[{"memory" | "text" | "content" | "fact": ..., "created_at" | "timestamp": ..., "metadata":
{...}}]``, bare or under ``memories``, ``results`` or ``messages``) or an OpenAI-style message
list (items with a ``role``). A memory becomes a text block (a note, in the user's log, with its
own time); a message becomes a chat turn. Order is kept. What the shape cannot say is not made
up: an item without a time takes the request's ``session_ts`` (else the time it was accepted),
and metadata is not kept except the item's id and, for a message, its session (``session_id``,
``run_id``, ``thread_id`` or ``conversation_id``), which name the turn and close a segment as in
an ingest.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, RootModel, ValidationError, model_validator

from app.domain.ingest.payload import (
    VISIBLE,
    ClientId,
    ContentPart,
    IngestPayload,
    RowIn,
    SessionId,
    TextIn,
    Timestamp,
    TurnIn,
    parts_text,
)
from app.domain.ingest.turns import role_of

# Where each shape keeps the words, the time and the session, in the order they are looked for.
TEXT_KEYS = ("memory", "text", "content", "fact")
TIME_KEYS = ("created_at", "createdAt", "timestamp", "time", "date", "updated_at", "updatedAt")
SESSION_KEYS = ("session_id", "run_id", "thread_id", "conversation_id", "session")
MAX_IMPORT_ITEMS = 10_000
# As the ingest body bounds a time and a session id.
MAX_TIME_CHARS = 100
MAX_SESSION_CHARS = 200


class ImportedItem(BaseModel):
    """One memory as another service exports it, or one OpenAI-style message."""

    model_config = ConfigDict(
        extra="allow",  # other services' fields (user_id, score, hash, ...) are read past
        regex_engine="python-re",
        json_schema_extra={
            # Declared as the validator below enforces it: the words under one of TEXT_KEYS.
            "anyOf": [
                {"required": ["memory"], "properties": {"memory": {"type": "string"}}},
                {"required": ["text"], "properties": {"text": {"type": "string"}}},
                {"required": ["content"], "properties": {"content": {"type": ["string", "array"]}}},
                {"required": ["fact"], "properties": {"fact": {"type": "string"}}},
            ],
            "examples": [
                {
                    "id": "m-1",
                    "memory": "Prefers window seats on long flights",
                    "created_at": "2024-03-02T10:00:00Z",
                    "metadata": {"session_id": "trip-planning"},
                },
                {"role": "user", "content": "Book the 9:40 train.", "timestamp": 1709373600},
            ],
        },
    )

    id: ClientId | int | None = None
    role: str | None = Field(
        default=None, min_length=1, max_length=40, pattern=VISIBLE, description="A message's role."
    )
    name: str | None = Field(
        default=None, min_length=1, max_length=200, pattern=VISIBLE, description="Its author."
    )
    memory: str | None = None
    text: str | None = None
    content: str | list[ContentPart] | None = None
    fact: str | None = None
    metadata: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _has_words(self) -> ImportedItem:
        if all(getattr(self, key) is None for key in TEXT_KEYS):
            raise ValueError("an item needs its words: memory, text, content or fact")
        return self

    def words(self) -> str | list[ContentPart]:
        """The item's words, from the first of ``TEXT_KEYS`` it has."""
        for key in TEXT_KEYS:
            value = getattr(self, key)
            if value is not None:
                return value
        return ""

    def field(self, keys: tuple[str, ...], most_chars: int) -> str | int | float | None:
        """The first of ``keys`` the item (or its metadata) holds as a short text or a number.

        A value of another shape (a list, an object, a flag) is no time or session: passed over.
        """
        extra = self.model_extra or {}
        meta = self.metadata or {}
        for key in keys:
            for source in (extra, meta):
                value = source.get(key)
                if isinstance(value, bool) or value is None:
                    continue
                if isinstance(value, int | float) or (
                    isinstance(value, str) and 0 < len(value) <= most_chars
                ):
                    return value
        return None


Items = Annotated[list[ImportedItem], Field(min_length=1, max_length=MAX_IMPORT_ITEMS)]


class ImportEnvelope(BaseModel):
    """The items under the key another service's export puts them, with ingest's options."""

    model_config = ConfigDict(
        extra="forbid",
        # Declared as the validator below enforces it: the items under exactly one key.
        json_schema_extra={
            "oneOf": [
                {"required": [key], "properties": {key: {"type": "array"}}}
                for key in ("memories", "results", "messages")
            ]
        },
    )

    memories: Items | None = None
    results: Items | None = None
    messages: Items | None = None
    subject: str | None = Field(default=None, min_length=1, max_length=200)
    session_ts: Timestamp | None = None

    @model_validator(mode="after")
    def _one_list(self) -> ImportEnvelope:
        given = [k for k in ("memories", "results", "messages") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError("give the items under one of memories, results or messages")
        return self

    def items(self) -> list[ImportedItem]:
        """The items, under whichever key they came."""
        return self.memories or self.results or self.messages or []


class MemoryImport(RootModel[Items | ImportEnvelope]):
    """A list of memories or messages, bare or under ``memories``, ``results`` or ``messages``."""

    root: Items | ImportEnvelope = Field(
        examples=[
            [
                {
                    "memory": "Allergic to peanuts",
                    "created_at": "2024-01-05T09:30:00Z",
                    "metadata": {"category": "health"},
                },
                {"text": "Moved to Lisbon in March", "timestamp": "2024-03-20"},
            ]
        ]
    )

    def to_payload(self) -> IngestPayload:
        """The same memories as an ingest payload: notes and chat turns, in order."""
        if isinstance(self.root, ImportEnvelope):
            items, subject, session_ts = self.root.items(), self.root.subject, self.root.session_ts
        else:
            items, subject, session_ts = self.root, None, None
        converted: list[TurnIn | RowIn | TextIn] = []
        for n, item in enumerate(items):
            try:
                converted.append(_converted(item))
            except ValidationError as exc:
                raise ValueError(f"item {n}: {_first_error(exc)}") from None
        return IngestPayload(items=converted, subject=subject, session_ts=session_ts)


def _first_error(exc: ValidationError) -> str:
    """A validation error as one line: which field, and what is wrong (never the value)."""
    first = exc.errors()[0] if exc.errors() else None
    if first is None:
        return "not valid"
    where = ".".join(str(part) for part in first["loc"])
    return f"{where}: {first['msg']}" if where else str(first["msg"])


def _converted(item: ImportedItem) -> TurnIn | TextIn:
    ts = item.field(TIME_KEYS, MAX_TIME_CHARS)
    session = item.field(SESSION_KEYS, MAX_SESSION_CHARS)
    common: dict[str, Any] = {"id": None if item.id is None else str(item.id), "ts": ts}
    words = item.words()
    if item.role is not None or item.name is not None:
        said = {"content": words} if not isinstance(words, str) else {"text": words}
        # LangChain's "human" and "ai", Gemini's "model": the role they stand for, else the
        # role word as the speaker's name.
        role = role_of("", item.role) if item.role is not None else None
        speaker = None if role is not None or item.name else item.role
        turn = {"role": role, "name": item.name, "speaker": speaker}
        return TurnIn.model_validate({**common, **turn, "session": _session(session), **said})
    text = words if isinstance(words, str) else parts_text(words)
    return TextIn.model_validate({**common, "text": text})


def _session(value: str | float | None) -> SessionId | None:
    if isinstance(value, float):
        return None  # a number with a fraction is no session id
    return None if value is None else str(value)
