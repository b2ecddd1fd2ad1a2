"""Reading BEAM chats: batches of user and assistant messages, and probing questions with rubrics.

The format (``SOURCE.md`` beside the data): ``N/chat.json`` is a list of batches, each a list of
turns of messages {role, id, content, time_anchor on a batch's first user message};
``N/probing_questions.json`` maps an ability to questions whose rubric lines name the phrases a
good answer holds. Nothing of the data is copied into this repository.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

DEFAULT_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "beam500k"
# A user message may end with a marker that is not part of what was said.
_MARKER = re.compile(r"\s*->->\s*\d+(?:\s*,\s*\d+)*\s*$")
# "LLM response should mention: X" / "should state: X": X is a phrase a good answer holds.
_RUBRIC = re.compile(r"should (?:mention|state|include|contain)\s*:?\s*(?P<phrase>.+)", re.I)


class DataError(ValueError):
    """A chat or question file that does not have the expected shape."""


@dataclass(frozen=True, slots=True)
class Message:
    """One message: its id in the chat, role, text and the time its batch is dated."""

    id: str
    role: str
    text: str
    ts: datetime


@dataclass(frozen=True, slots=True)
class Question:
    """A probing question, its ability and the phrases its rubric asks for."""

    question: str
    ability: str
    phrases: tuple[str, ...]
    sources: tuple[str, ...] = ()  # the ids of the messages that hold the answer, where given


@dataclass(frozen=True, slots=True)
class Chat:
    """One user–assistant chat: batches (sessions) of messages in order, and its questions."""

    id: str
    sessions: tuple[tuple[Message, ...], ...]
    questions: tuple[Question, ...]

    @property
    def messages(self) -> list[Message]:
        """Every message of every batch, in order."""
        return [m for session in self.sessions for m in session]


def _anchor(batch: dict[str, Any]) -> datetime | None:
    for turn in batch.get("turns") or ():
        for message in turn:
            value = message.get("time_anchor") if isinstance(message, dict) else None
            if value:
                return datetime.strptime(value, "%B-%d-%Y").replace(tzinfo=UTC)
    value = batch.get("time_anchor")
    return datetime.strptime(value, "%B-%d-%Y").replace(tzinfo=UTC) if value else None


def parse_chat(batches: list[Any], name: str) -> tuple[tuple[Message, ...], ...]:
    """The batches as sessions; a message is dated by its batch, a minute after the one before."""
    if not isinstance(batches, list):
        raise DataError(f"{name}: a chat is a list of batches")
    sessions = []
    previous = datetime(2024, 1, 1, tzinfo=UTC)
    for batch in batches:
        day = _anchor(batch) or previous
        messages = []
        n = 0
        for turn in batch.get("turns") or ():
            for message in turn:
                text = _MARKER.sub("", str(message.get("content") or "")).strip()
                if not text:
                    continue
                ts = day + timedelta(minutes=n)
                n += 1
                messages.append(Message(str(message.get("id")), str(message["role"]), text, ts))
        if messages:
            sessions.append(tuple(messages))
            previous = day
    return tuple(sessions)


def phrases_of(rubric: Any) -> tuple[str, ...]:
    """The phrases a rubric's lines ask an answer to hold."""
    found = []
    for line in rubric or ():
        match = _RUBRIC.search(str(line))
        if match:
            found.append(match["phrase"].strip().rstrip("."))
    return tuple(p for p in found if p)


def source_ids(value: Any) -> tuple[str, ...]:
    """The message ids a question's ``source_chat_ids`` names: a list, a mapping of lists, or
    either written as a string."""
    return tuple(dict.fromkeys(re.findall(r"\d+", str(value)))) if value else ()


def parse_questions(doc: Any, name: str) -> tuple[Question, ...]:
    """Every question whose rubric names at least one phrase."""
    if not isinstance(doc, dict):
        raise DataError(f"{name}: questions are a mapping of ability to a list")
    out = []
    for ability, questions in doc.items():
        for q in questions or ():
            phrases = phrases_of(q.get("rubric"))
            if phrases:
                sources = source_ids(q.get("source_chat_ids"))
                out.append(Question(str(q["question"]), str(ability), phrases, sources))
    return tuple(out)


def load(path: Path, chats: int | None = None) -> list[Chat]:
    """The chats under ``path`` (one directory per chat), in numeric order."""
    dirs = sorted(
        (d for d in path.iterdir() if (d / "chat.json").is_file()),
        key=lambda d: (0, int(d.name)) if d.name.isdigit() else (1, d.name),
    )
    if not dirs:
        raise DataError(f"no N/chat.json under {path}")
    out = []
    for directory in dirs[:chats]:
        batches = json.loads((directory / "chat.json").read_text(encoding="utf-8"))
        questions_file = directory / "probing_questions.json"
        questions = json.loads(questions_file.read_text(encoding="utf-8"))
        out.append(
            Chat(
                directory.name,
                parse_chat(batches, str(directory)),
                parse_questions(questions, str(questions_file)),
            )
        )
    return out
