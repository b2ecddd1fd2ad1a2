"""The benchmark's measures, pure functions over strings: normalisation, dates written any way,
list answers split into items, and evidence ids as the data writes them."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from app.domain.dates import MONTH_NUMBERS, MONTHS

_FULL = [name.lower() for name in MONTHS]
_SHORT = sorted((word for word in MONTH_NUMBERS if len(word) <= 4), key=len, reverse=True)
_MONTH = rf"(?P<mon>(?:{'|'.join(_FULL)})|(?:{'|'.join(_SHORT)})\.?)"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_B = r"(?<![\w.])"  # a date starts at a word's start (and not inside a dotted number)
_E = r"(?![\w])"

# Most specific first: a span taken by one pattern is not read again by a later one.
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("ymd", re.compile(rf"{_B}{_YEAR}-(?P<m>[01]?\d)-(?P<day>[0-3]?\d){_E}")),
    ("dmy", re.compile(rf"{_B}(?P<day>[0-3]?\d)[./](?P<m>[01]?\d)[./]{_YEAR}{_E}")),
    ("d_month_y", re.compile(rf"{_B}{_DAY}(?:\s+of)?\s+{_MONTH},?\s+{_YEAR}{_E}", re.I)),
    ("month_d_y", re.compile(rf"{_B}{_MONTH}\s+{_DAY},?\s+{_YEAR}{_E}", re.I)),
    ("ym", re.compile(rf"{_B}{_YEAR}-(?P<m>[01]\d){_E}(?!-)")),
    ("month_y", re.compile(rf"{_B}{_MONTH},?\s+{_YEAR}{_E}", re.I)),
    ("d_month", re.compile(rf"{_B}{_DAY}(?:\s+of)?\s+{_MONTH}{_E}", re.I)),
    ("month_d", re.compile(rf"{_B}{_MONTH}\s+{_DAY}{_E}", re.I)),
)
_EVIDENCE = re.compile(r"D\d+:\d+")
_SPLIT = re.compile(r",|;|&|\band\b", re.I)


@dataclass(frozen=True, slots=True)
class DateMention:
    """A date as written somewhere: a day, or a month (day None); year None when not written."""

    year: int | None
    month: int
    day: int | None

    def found_in(self, mentions: Iterable[DateMention]) -> bool:
        """Whether a mention of this same day (or month) is among ``mentions``."""
        for m in mentions:
            if m.month != self.month or (m.day is None) != (self.day is None):
                continue
            if self.day is not None and m.day != self.day:
                continue
            # A day written without its year ("May 7") still names the day it is read as.
            if self.year is None or m.year is None or m.year == self.year:
                return True
        return False


def _month_of(text: str) -> int:
    return MONTH_NUMBERS[text.lower().rstrip(".")]


SPELLINGS = tuple(name for name, _ in _PATTERNS)


def find_dates(
    text: str, spellings: Collection[str] = SPELLINGS
) -> list[tuple[tuple[int, int], DateMention]]:
    """Every date in ``text`` with its span, in the given spellings (by default all of them)."""
    taken: list[tuple[int, int]] = []
    found: list[tuple[tuple[int, int], DateMention]] = []
    for name, pattern in _PATTERNS:
        if name not in spellings:
            continue
        for match in pattern.finditer(text):
            start, end = match.span()
            if any(start < e and s < end for s, e in taken):
                continue
            groups = match.groupdict()
            month = int(groups["m"]) if groups.get("m") else _month_of(groups["mon"])
            day = int(groups["day"]) if groups.get("day") else None
            year = int(groups["year"]) if groups.get("year") else None
            if not 1 <= month <= 12 or (day is not None and not 1 <= day <= 31):
                continue
            taken.append((start, end))
            found.append(((start, end), DateMention(year, month, day)))
    found.sort(key=lambda item: item[0])
    return found


def normalise(text: str) -> str:
    """Case, accents' composition, apostrophes, punctuation and whitespace made uniform."""
    text = unicodedata.normalize("NFKC", text).casefold().replace("’", "'").replace("'", "")
    return " ".join(re.sub(r"[\W_]+", " ", text).split())


@dataclass(frozen=True, slots=True)
class Haystack:
    """A context's text, normalised once, and the dates it mentions."""

    words: str  # normalised, padded with spaces so that a phrase matches whole words only
    dates: tuple[DateMention, ...]

    @classmethod
    def of(cls, text: str) -> Haystack:
        return cls(f" {normalise(text)} ", tuple(d for _, d in find_dates(text)))

    def has_phrase(self, phrase: str) -> bool:
        """Whether the normalised ``phrase`` occurs here as whole words (never when empty)."""
        norm = normalise(phrase)
        return bool(norm) and f" {norm} " in self.words


@dataclass(frozen=True, slots=True)
class Answer:
    """A gold answer, ready to look for: its dates if it gives any, else its text and its items."""

    text: str
    dates: tuple[DateMention, ...]
    items: tuple[str, ...]

    @classmethod
    def of(cls, text: str, spellings: Collection[str] = SPELLINGS) -> Answer:
        """The answer; only dates written in ``spellings`` are read as dates."""
        dates = tuple(d for _, d in find_dates(text, spellings))
        return cls(text, dates, () if dates else tuple(split_items(text)))

    def in_context(self, hay: Haystack) -> bool:
        """The whole answer: every date it gives, in any spelling, or its normalised text."""
        if self.dates:
            return all(d.found_in(hay.dates) for d in self.dates)
        return hay.has_phrase(self.text)

    def item_share(self, hay: Haystack) -> float:
        """The share of the answer's items (its dates, or its list's parts) found in ``hay``."""
        if self.dates:
            return sum(d.found_in(hay.dates) for d in self.dates) / len(self.dates)
        if not self.items:
            return 0.0
        return sum(hay.has_phrase(item) for item in self.items) / len(self.items)


def split_items(answer: str) -> list[str]:
    """A list answer's items: split on commas, semicolons, '&' and the word 'and'."""
    parts = (normalise(p) for p in _SPLIT.split(answer))
    return [p for p in parts if p]


def evidence_ids(evidence: Sequence[str]) -> list[str]:
    """The message ids of an evidence list, however written ('D4:79; D4:83', 'D20:17.')."""
    seen: dict[str, None] = {}
    for entry in evidence:
        for match in _EVIDENCE.findall(entry):
            seen.setdefault(match, None)
    return list(seen)
