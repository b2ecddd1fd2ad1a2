"""Reading REALTALK conversation files (``Chat_<n>_<A>_<B>.json``) into plain records."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.realtalk.metrics import evidence_ids

DEFAULT_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "realtalk"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "commonsense"}  # as the REALTALK paper names them
_SESSION = re.compile(r"session_(\d+)")


class DataError(ValueError):
    """A conversation file that does not have the expected shape."""


@dataclass(frozen=True, slots=True)
class Message:
    """One message: its dia_id, speaker, text and time."""

    id: str
    speaker: str
    text: str
    ts: datetime


@dataclass(frozen=True, slots=True)
class Question:
    """A question with its gold answer, evidence message ids and category."""

    question: str
    answer: str
    evidence: tuple[str, ...]
    category: str


@dataclass(frozen=True, slots=True)
class Conversation:
    """One chat between two people: sessions of messages in order, and its questions."""

    id: str
    speakers: tuple[str, ...]
    sessions: tuple[tuple[Message, ...], ...]
    questions: tuple[Question, ...]

    @property
    def messages(self) -> list[Message]:
        """Every message of every session, in order."""
        return [m for session in self.sessions for m in session]


def parse_time(value: str) -> datetime:
    """'DD.MM.YYYY, HH:MM:SS' (the data's own format, no zone given: read as UTC)."""
    try:
        return datetime.strptime(value.strip(), "%d.%m.%Y, %H:%M:%S").replace(tzinfo=UTC)
    except ValueError:
        raise DataError(f"bad date_time {value!r}") from None


def _category(value: Any) -> str:
    return CATEGORIES.get(value, str(value)) if isinstance(value, int) else str(value)


def parse(doc: dict[str, Any], name: str) -> Conversation:
    """One conversation file's JSON as a record; sessions in their numeric order."""
    try:
        speakers = tuple(str(s) for s in doc["name"].values())
        numbers = sorted(
            int(m[1])
            for key in doc
            if (m := _SESSION.fullmatch(key)) and isinstance(doc[key], list)
        )
        sessions = tuple(
            tuple(
                Message(
                    str(m["dia_id"]),
                    str(m["speaker"]),
                    str(m["clean_text"]),
                    parse_time(m["date_time"]),
                )
                for m in doc[f"session_{n}"]
                if str(m["clean_text"]).strip()
            )
            for n in numbers
        )
        questions = tuple(
            Question(
                str(q["question"]),
                str(q["answer"]),
                tuple(evidence_ids([str(e) for e in q.get("evidence") or []])),
                _category(q.get("category")),
            )
            for q in doc["qa"]
        )
    except (KeyError, TypeError, AttributeError) as exc:
        raise DataError(f"{name}: not a REALTALK conversation ({exc!r})") from None
    return Conversation(name, speakers, tuple(s for s in sessions if s), questions)


def _order(path: Path) -> tuple[int, str]:
    number = re.match(r"Chat_(\d+)", path.name)
    return (int(number[1]) if number else 10**9, path.name)


def load(path: Path) -> list[Conversation]:
    """Every ``*.json`` conversation under ``path`` (a directory) or ``path`` itself (a file)."""
    files = sorted(path.glob("*.json"), key=_order) if path.is_dir() else [path]
    if not files:
        raise DataError(f"no conversation files in {path}")
    return [parse(json.loads(f.read_text(encoding="utf-8")), f.stem) for f in files]
