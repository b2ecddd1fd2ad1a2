"""The data set format of the recall generator (``tessera-recall/1``) as strict pydantic models.

``bench/recall/generate.py`` writes it; ``python -m bench.qa`` reads it. ``load`` turns a file
into a ``DataSet`` or raises ``DataError`` with one line per problem, each naming where it is
(``conversations[0].sessions[2].turns[4].speaker: ...``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    field_validator,
    model_validator,
)

from app.domain.ingest.payload import parse_timestamp
from bench.recall.generate import FORMAT, QUESTION_TYPES

Text = Annotated[str, StringConstraints(min_length=1)]


class DataError(ValueError):
    """A data set that cannot be used; the message says where and what to fix."""


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class TurnRecord(_Record):
    """One chat turn: its id (unique in the conversation), who said it, what was said."""

    id: Text
    speaker: Text
    text: Text


class SessionRecord(_Record):
    """One chat session: when it took place (ISO 8601) and its turns, in order."""

    session_ts: Text
    turns: list[TurnRecord] = Field(min_length=1)

    @field_validator("session_ts")
    @classmethod
    def _timestamp(cls, value: str) -> str:
        parse_timestamp(value)  # InputError (a ValueError) says what is wrong
        return value


class QuestionRecord(_Record):
    """A question, its gold answer, the turns that hold it, its type and whom it is about."""

    q: Text
    answer: Text
    evidence: list[Text] = Field(min_length=1)
    type: Text
    about: Text

    @field_validator("type")
    @classmethod
    def _known_type(cls, value: str) -> str:
        if value not in QUESTION_TYPES:
            raise ValueError(f"unknown question type {value!r}; expected one of {QUESTION_TYPES}")
        return value


class ConversationRecord(_Record):
    """Sessions between two or more speakers, the passport's subject among them, and questions."""

    id: Text
    speakers: list[Text] = Field(min_length=2)
    subject: Text
    sessions: list[SessionRecord] = Field(min_length=1)
    questions: list[QuestionRecord] = Field(min_length=1)

    @model_validator(mode="after")
    def _consistent(self) -> ConversationRecord:
        if self.subject not in self.speakers:
            raise ValueError(f"subject {self.subject!r} is not one of the speakers {self.speakers}")
        ids: set[str] = set()
        for s, session in enumerate(self.sessions):
            for t, turn in enumerate(session.turns):
                where = f"sessions[{s}].turns[{t}]"
                if turn.id in ids:
                    raise ValueError(f"{where}: turn id {turn.id!r} is used twice")
                if turn.speaker not in self.speakers:
                    raise ValueError(f"{where}: speaker {turn.speaker!r} is not in speakers")
                ids.add(turn.id)
        for n, question in enumerate(self.questions):
            missing = [e for e in question.evidence if e not in ids]
            if missing:
                raise ValueError(f"questions[{n}]: evidence names no turn: {missing}")
        return self

    @property
    def turns(self) -> int:
        return sum(len(s.turns) for s in self.sessions)


class DataSet(_Record):
    """A data set: the format tag, the generator's seed (if generated) and the conversations."""

    format: Text
    seed: int | None = None
    conversations: list[ConversationRecord] = Field(min_length=1)

    @field_validator("format")
    @classmethod
    def _format(cls, value: str) -> str:
        if value != FORMAT:
            raise ValueError(f"format {value!r} is not {FORMAT!r}")
        return value

    @model_validator(mode="after")
    def _unique_ids(self) -> DataSet:
        seen: set[str] = set()
        for conversation in self.conversations:
            if conversation.id in seen:
                raise ValueError(f"conversation id {conversation.id!r} is used twice")
            seen.add(conversation.id)
        return self


def _where(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else f".{part}" if out else str(part)
    return out or "(top level)"


def validate(doc: Any, origin: str = "data") -> DataSet:
    """A parsed JSON document as a ``DataSet``, or ``DataError`` listing every problem."""
    try:
        return DataSet.model_validate(doc)
    except ValidationError as exc:
        problems = [f"  {_where(e['loc'])}: {e['msg']}" for e in exc.errors()]
        shown = problems[:20]
        if len(problems) > len(shown):
            shown.append(f"  ... and {len(problems) - len(shown)} more")
        head = f"{origin}: not a valid {FORMAT} data set ({len(problems)} problems):"
        raise DataError("\n".join([head, *shown])) from None


def load(path: Path) -> DataSet:
    """Read and validate a data set file."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise DataError(f"{path}: cannot read it: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: not UTF-8 text: {exc}") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(
            f"{path}: not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    return validate(doc, str(path))
