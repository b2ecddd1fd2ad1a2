"""A question, read once: its search tokens, the word pairs it says, and what it asks for.

Every other part of a read takes a ``Question`` and never the raw text. What it asks for is one
of a few kinds of answer, each read from the question's wording:

- ``time``: a day, a span of time or an order in time ("when", "how many days", "before or
  after");
- ``amount``: a count or a measure ("how many", "how much", "how often", "how old", "how long");
- ``span``: how long, whose answer may be a span of time said in words ("about an hour");
- ``first``: the first time something was said or done ("when did I first mention ...");
- ``overview``: what was talked about in a stretch of conversation, and nothing more ("what did
  we discuss last week?"); the periods it names are resolved against the log's newest time.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Literal

import numpy as np
import numpy.typing as npt

from app.domain.dates import Resolved, resolve_relative
from app.domain.text import asks_first, noun_in, query_tokens
from app.domain.words import CHAT_STOPWORDS, STOPWORDS

Asks = Literal["time", "amount", "span", "first", "overview"]

# Words of a question whose answer is a time, a span of time, or an order in time.
_ASKS_WHEN = re.compile(
    r"\b(?:when|(?:what|which)\s+(?:date|day|time|month|year|deadline|due\s+date)|by\s+when|"
    r"how\s+(?:many|much)\s+(?:days?|weeks?|months?|years?|hours?|time)|how\s+long|"
    r"before\s+or\s+after|after\s+or\s+before|date)\b",
    re.IGNORECASE,
)
# What follows "how" in a question whose answer is an amount ("how many", "how old").
_HOW_MUCH = frozenset(
    {"many", "much", "often", "far", "long", "old", "big", "large", "fast", "heavy", "tall", "high"}
)
# "How long ...": a span of time, said with a number or in words ("an hour").
_HOW_LONG = re.compile(r"\bhow\s+long\b")
# "How many different platforms ...": kinds, which a chat names, not a number.
_KINDS = frozenset({"different", "distinct", "separate", "kind", "type", "sort"})
# "What is my annual salary?": a measure named within a few words after "what" or "which" (each
# in the singular: "which versions" names a version).
_MEASURES = frozenset(
    {"number", "amount", "total", "percentage", "percent", "score", "rate", "result", "reading"}
    | {"salary", "price", "cost", "budget", "count", "weight", "size", "speed", "level"}
    | {"version", "limit", "balance", "figure", "value", "usage", "accuracy", "rating", "rent"}
    | {"fee", "threshold", "ratio", "dosage", "dose", "distance", "height", "age", "income"}
    | {"savings", "mileage", "duration", "temperature"}
)
MEASURE_REACH = 8
_LETTERS = re.compile(r"[a-z]+")

# A question longer than this is about something more than when (and is not read as an overview).
MAX_OVERVIEW_QUESTION_CHARS = 200
# Words that ask what was talked about (after "what" or "which"), or for a recap.
_TALK_TEXT = """
    talk talked talking chat chatted chatting spoke speak speaking discuss discussed discussing
    cover covered gone went"""
_TALK_WORDS = frozenset(_TALK_TEXT.split())
_SUMMARY_WORDS = frozenset({"summary", "summarize", "summarise", "recap", "overview"})
# Words (singular) an overview question is made of, beside those, chat stop words and its date.
_OVERVIEW_TEXT = """
    go over about conversation session discussion topic thing stuff what which we us our you i me
    my did do does have has had were was together lately recently recent latest last previous first
    earliest give tell please can could show list main"""
_OVERVIEW_WORDS = _TALK_WORDS | _SUMMARY_WORDS | frozenset(_OVERVIEW_TEXT.split())
# Any time will do to find where a question's date expressions are; their days are not read.
_ANY_ANCHOR = datetime(2000, 1, 1, tzinfo=UTC)

# Below this length a word is too common a piece of a phrase ("do it", "go on").
_SHORTEST = 3
# A word with what is part of it: "anita's", "grab-and-go"; "3.10" is "3" and "10".
_WORD = re.compile(r"[^\W_][\w'-]*")


@dataclass(frozen=True, slots=True)
class Question:
    """What a read needs of its question, read from its text once (``Question.of``)."""

    text: str
    tokens: tuple[str, ...]  # search tokens, without the words that only frame the question
    pairs: tuple[str, ...]  # two content words side by side, lower case: "garden party"
    asks: frozenset[Asks]
    oldest_first: bool = False  # an overview asked for the earliest sessions
    # Its embedding, when an embedding model is on (the caller holds the model): the ranker
    # then adds the passages nearest it to the candidates and weighs their similarity.
    vector: npt.NDArray[np.float32] | None = field(default=None, compare=False)

    @classmethod
    def of(cls, text: str | None) -> Question | None:
        """The question read from ``text``; None for no question (or only blanks)."""
        if text is None or not text.strip():
            return None
        lowered = text.lower()
        words = _LETTERS.findall(lowered)
        kinds: dict[Asks, bool] = {
            "time": _ASKS_WHEN.search(text) is not None,
            "amount": _asks_amount(words),
            "span": _HOW_LONG.search(lowered) is not None,
            "first": asks_first(text),
        }
        asks = {kind for kind, asked in kinds.items() if asked}
        oldest_first = False
        said = not _TALK_WORDS.isdisjoint(words) and not {"what", "which"}.isdisjoint(words)
        short = len(text) <= MAX_OVERVIEW_QUESTION_CHARS
        said = said or not _SUMMARY_WORDS.isdisjoint(words)
        if short and said and _nothing_but_when(text, resolve_relative(text, _ANY_ANCHOR)):
            asks.add("overview")
            oldest_first = "first" in words or "earliest" in words
        return cls(text, tuple(query_tokens(text)), _pairs(lowered), frozenset(asks), oldest_first)

    def periods(self, anchor: datetime) -> list[Resolved]:
        """The dates and periods an overview question names, resolved against ``anchor``."""
        return resolve_relative(self.text, anchor) if "overview" in self.asks else []


def with_vector(
    question: Question | None, vector: npt.NDArray[np.float32] | None
) -> Question | None:
    """``question`` with its embedding (unchanged without one)."""
    if question is None or vector is None:
        return question
    return replace(question, vector=vector)


def _asks_amount(words: Sequence[str]) -> bool:
    """Whether the question's words ask for an amount, a count or a measure."""
    for at, word in enumerate(words):
        if word == "how" and at + 1 < len(words) and words[at + 1] in _HOW_MUCH:
            if at + 2 < len(words) and noun_in(words[at + 2], _KINDS):
                continue
            return True
        if word in ("what", "which") and any(
            noun_in(w, _MEASURES) for w in words[at + 1 : at + 1 + MEASURE_REACH]
        ):
            return True
    return False


def _nothing_but_when(text: str, dates: Sequence[Resolved]) -> bool:
    """Whether ``text`` says nothing beside overview words and its date expressions."""
    rest = text
    for found in sorted(dates, key=lambda r: -r.span[0]):
        rest = rest[: found.span[0]] + " " + rest[found.span[1] :]
    words = _LETTERS.findall(rest.lower())
    return all(noun_in(w, _OVERVIEW_WORDS) or w in CHAT_STOPWORDS for w in words)


def _pairs(lowered: str) -> tuple[str, ...]:
    """Pairs of words side by side (only spaces between), neither a function word nor what
    "how" asks ("how many days")."""
    text = lowered.replace("’", "'")
    words = list(_WORD.finditer(text))
    pairs: dict[str, None] = {}
    for before, a, b in zip([None, *words], words, words[1:], strict=False):
        if before is not None and before.group() == "how":
            continue
        if text[a.end() : b.start()].isspace() and _content(a.group()) and _content(b.group()):
            pairs[f"{a.group()} {b.group()}"] = None
    return tuple(pairs)


def _content(word: str) -> bool:
    return len(word) >= _SHORTEST and word not in STOPWORDS
