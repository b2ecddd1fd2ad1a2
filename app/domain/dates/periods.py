"""Dates a client writes: ``parse_when`` reads one, ``DateWindow`` the since/until of a read.

A client may write a day (``2023-05-08``), a month (``2023-05``), a year (``2023``), a time
(``2023-05-08T13:56:00Z``; naive means UTC) or an English date ("8 May 2023", "May 8, 2023",
"May 2023"). A window's ``since`` starts at the beginning of what it names; its ``until`` ends
with the end of it: ``until=2023-05`` includes all of May. ``check_period`` is the stricter form
query parameters take (a day, a month or a year, as digits).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from app.domain.dates.calendar import MONTH_NUMBERS, parse_instant

# A month's name or its short form, as people write it (no group, no trailing dot).
MONTH_WORD = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_MONTH_RE = rf"({MONTH_WORD})\.?"
# A day written out, with its year if given: "March 22", "22nd of March, 2024", "2024-03-22"
# (no group, every quantifier bounded).
WRITTEN_DAY = (
    rf"{MONTH_WORD}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?|"
    rf"\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{MONTH_WORD}\.?(?:,?\s+\d{{4}})?|\d{{4}}-\d{{2}}-\d{{2}}"
)
_ISO_DATE_RE = re.compile(r"(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?")
_DAY_MONTH_YEAR_RE = re.compile(
    rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+{_MONTH_RE},?\s+(\d{{4}})\b", re.IGNORECASE
)
_MONTH_DAY_YEAR_RE = re.compile(
    rf"\b{_MONTH_RE}\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.IGNORECASE
)
_MONTH_YEAR_RE = re.compile(rf"\b{_MONTH_RE},?\s+(\d{{4}})\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class When:
    """A parsed date: epoch seconds (UTC) of its start, a label, and its year and month."""

    epoch: float
    label: str  # YYYY-MM-DD, YYYY-MM or YYYY: as precise as the input
    year: int
    month: int  # 0 when only the year is known


def _month_number(name: str) -> int:
    # Only ever called on what _MONTH_RE matched: every form it matches is a key.
    return MONTH_NUMBERS[name.lower().rstrip(".")]


def _make_when(year: int, month: int, day: int) -> When | None:
    try:
        start = datetime(year, month or 1, day or 1, tzinfo=UTC)
    except ValueError:
        return None
    label = f"{year:04d}" + (f"-{month:02d}" if month else "") + (f"-{day:02d}" if day else "")
    return When(start.timestamp(), label, year, month)


def parse_when(value: object) -> When | None:
    """Parse an ISO date or datetime, ``YYYY-MM``, ``YYYY``, or "8 May 2023"-style text."""
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    iso = _ISO_DATE_RE.fullmatch(text)
    if iso:
        return _make_when(int(iso[1]), int(iso[2] or 0), int(iso[3] or 0))
    # A naive time is taken to be UTC, as everywhere in Tessera; one out of range is no time.
    if (day := parse_instant(text)) is not None:
        return When(day.timestamp(), day.strftime("%Y-%m-%d"), day.year, day.month)
    if m := _DAY_MONTH_YEAR_RE.search(text):
        return _make_when(int(m[3]), _month_number(m[2]), int(m[1]))
    if m := _MONTH_DAY_YEAR_RE.search(text):
        return _make_when(int(m[3]), _month_number(m[1]), int(m[2]))
    if m := _MONTH_YEAR_RE.search(text):
        return _make_when(int(m[2]), _month_number(m[1]), 0)
    return None


# --- windows --------------------------------------------------------------------------------

_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
# The spec states this pattern for a month or a year (the API's query parameters).
YEAR_OR_MONTH_PATTERN = r"^\d{4}(-(0[1-9]|1[0-2]))?$"
_YEAR_OR_MONTH = re.compile(YEAR_OR_MONTH_PATTERN)


@dataclass(frozen=True)
class DateWindow:
    """Optional date limits of a read, in epoch seconds, both inclusive."""

    since: float | None = None
    until: float | None = None

    @classmethod
    def parse(cls, since: str | None, until: str | None) -> DateWindow:
        """The window ``since`` .. ``until`` name; ValueError saying which one is no date."""
        return cls(_bound(since, "since", start=True), _bound(until, "until", start=False))

    @property
    def since_time(self) -> datetime | None:
        """The start as a time."""
        return None if self.since is None else datetime.fromtimestamp(self.since, UTC)

    @property
    def until_time(self) -> datetime | None:
        """The end as a time."""
        return None if self.until is None else datetime.fromtimestamp(self.until, UTC)


# No limit either way.
EVER = DateWindow()


def _bound(value: str | None, name: str, *, start: bool) -> float | None:
    if value is None or value == "":
        return None
    when = parse_when(value)
    if when is None:
        raise ValueError(f"{name}: {value!r} is not a date (use e.g. 2023-05-08)")
    return when.epoch if start else period_end(when)


def period_end(when: When) -> float:
    """The last second of the day, month or year ``when`` names (a time ends at itself)."""
    try:
        if len(when.label) == 4:  # a year
            return datetime(when.year + 1, 1, 1, tzinfo=UTC).timestamp() - 1
        if len(when.label) == 7:  # a month
            nxt = datetime(when.year + (when.month == 12), when.month % 12 + 1, 1, tzinfo=UTC)
            return nxt.timestamp() - 1
    except ValueError:  # the period ends with the last year a datetime holds
        return datetime.max.replace(tzinfo=UTC).timestamp()
    if len(when.label) == 10:  # a day
        return when.epoch + timedelta(days=1).total_seconds() - 1
    return when.epoch


def check_day(value: object) -> object:
    """A string must be a day written YYYY-MM-DD (a lax parser would read "0" as 1970)."""
    if isinstance(value, str) and not _DAY.fullmatch(value):
        raise ValueError("use a date as YYYY-MM-DD")
    return value


def check_period(value: str) -> str:
    """A day (YYYY-MM-DD, a real one), a month (YYYY-MM) or a year (YYYY), else ValueError."""
    if _DAY.fullmatch(value):
        date.fromisoformat(value)  # a ValueError names the impossible day
        return value
    if _YEAR_OR_MONTH.fullmatch(value) and not value.startswith("0000"):
        return value
    raise ValueError("use a day (YYYY-MM-DD), a month (YYYY-MM) or a year (YYYY)")
