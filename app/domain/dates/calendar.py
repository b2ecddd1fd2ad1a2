"""Names of months, days and numbers, and the forms a date is written in: ``iso_utc`` is the
passport's timestamp form, ``format_day`` the human one ("7 May 2023")."""

from __future__ import annotations

import math
from datetime import UTC, date, datetime, timedelta
from functools import lru_cache

MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# Lower-case month names and the short forms people write ("Sept", "jan.") to month numbers.
MONTH_NUMBERS: dict[str, int] = {name.lower(): number for number, name in enumerate(MONTHS, 1)} | {
    "jan": 1,
    "feb": 2,
    "mar": 3,
    "apr": 4,
    "jun": 6,
    "jul": 7,
    "aug": 8,
    "sep": 9,
    "sept": 9,
    "oct": 10,
    "nov": 11,
    "dec": 12,
}
# Number words to their values, for ages, counts and "three weeks ago".
NUMBER_WORDS: dict[str, int] = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}


def format_day(day: date) -> str:
    """``7 May 2023``, without depending on the process locale."""
    return f"{day.day} {MONTHS[day.month - 1]} {day.year}"


def format_month(day: date) -> str:
    """``May 2023``."""
    return f"{MONTHS[day.month - 1]} {day.year}"


def anchor_day(anchor: datetime) -> date:
    """The UTC calendar day of an anchor time; a naive time is taken to be UTC already."""
    return (in_utc(anchor) or anchor.replace(tzinfo=None)).date()


def in_utc(when: datetime) -> datetime | None:
    """The same instant in UTC (naive means UTC already); None when its UTC day falls outside
    years 1-9999 (``0001-01-01T00:00:00+01:00`` is a day of year 0 in UTC)."""
    if when.tzinfo is None:
        return when.replace(tzinfo=UTC)
    try:
        return when.astimezone(UTC)
    except OverflowError:
        return None


def parse_instant(text: str) -> datetime | None:
    """An ISO 8601 time (``Z`` allowed) as an aware UTC datetime; None when it is none, or it
    is out of range once its offset is applied."""
    try:
        parsed = datetime.fromisoformat(text.strip())
    except ValueError:
        return None
    return in_utc(parsed)


def iso_utc(when: datetime | None) -> str | None:
    """``YYYY-MM-DDTHH:MM:SSZ`` in UTC, the passport's timestamp form; naive means UTC.

    None when there is no time, or it is out of range in UTC.
    """
    utc = None if when is None else in_utc(when)
    return None if utc is None else utc.strftime("%Y-%m-%dT%H:%M:%SZ")


def month_number(name: str) -> int | None:
    """1 for "January", "jan" or "Jan."; None for anything that is no month."""
    return MONTH_NUMBERS.get(name.lower().rstrip("."))


def day_label(iso: str) -> str:
    """``7 May 2023`` for ``2023-05-07``, ``May 2023`` for ``2023-05``; anything else as is."""
    return _day_label(iso) if len(iso) in (7, 10) else iso


@lru_cache(maxsize=4096)  # a day or a month: the cache holds short strings only
def _day_label(iso: str) -> str:
    try:
        if len(iso) == 10:
            return format_day(date.fromisoformat(iso))
        if len(iso) == 7:
            return format_month(date.fromisoformat(iso + "-01"))
    except ValueError:
        pass
    return iso


def stamp_day(ts: str | None) -> str | None:
    """The UTC day of a stored ISO timestamp as ``7 May 2023``; None when there is none."""
    when = parse_instant(ts) if ts else None
    return None if when is None else format_day(when.date())


def epoch_day(epoch: float) -> str:
    """The UTC day of a time in epoch seconds as ``7 May 2023`` (``stamp_day`` of the stamp
    ``stamp_epoch`` read); "" for NaN, no time."""
    return "" if math.isnan(epoch) else _epoch_day(math.floor(epoch / 86_400))


@lru_cache(maxsize=4096)  # a day's name, by its number: a log's lines share a few days
def _epoch_day(days: int) -> str:
    return format_day(date(1970, 1, 1) + timedelta(days=days))


def stamp_epoch(ts: str | None) -> float:
    """A stored ISO timestamp in epoch seconds (naive means UTC); NaN when there is none."""
    when = parse_instant(ts) if ts else None
    return math.nan if when is None else when.timestamp()
