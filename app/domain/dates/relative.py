"""Date expressions in chat text, resolved against the time they were said.

``resolve_relative`` finds expressions like "yesterday", "last Saturday", "two weekends ago",
"a fortnight ago", "next month", "in May", "on 8 May", "at Christmas" and "in 2022", and resolves
each to a date with a granularity (day, weekend, week, month or year). Pure: the anchor time is
passed in.

Decisions, where English is ambiguous:

- Weeks start on Monday. "last week" is the week before the anchor's; "the week of 1 May 2023"
  names that Monday.
- "a week ago", "two weeks ago" and "a fortnight ago" (14 days) are the day exactly that many
  days back, marked approximate: people say them loosely, but the day is the best answer to
  "when". The phrase states both: "on 1 May 2023 (a week before 8 May 2023)". The same holds
  ahead: "in two weeks", "a week from today".
- "last Saturday" is the most recent Saturday before the anchor day; "next Friday" is the Friday
  of next week; "this Friday" and a bare "on Friday" follow the tense (past: the most recent one,
  today included; otherwise the next one after today).
- "last weekend" is the weekend before the anchor's week (said on Monday 8 May 2023: 6 May);
  "this weekend" and "over the weekend" follow the tense; "two weekends ago" is a week before
  "last weekend".
- Holidays with a fixed day ("at Christmas", "on New Year's Eve", "for Halloween") and the movable
  ones a chat names most (Easter, Good Friday, US Thanksgiving) are days, read like "on 8 May";
  a bare name without a preposition or "last"/"next" ("I love Christmas") is no date. The phrase
  keeps the holiday's words: "at Christmas (25 December 2022)".
- A month or a day without a year ("in May", "on 8 May") takes the nearest one by tense: past
  tense the latest one not more than a month after the anchor, future tense the first one not
  more than a week before it, and without a tense the nearest of the two. The slack is there
  because a said time is often a little early (a batch of messages dated when it began) and
  because plans are told in the past tense ("I booked it for 14 June"): a day a week away is a
  likelier reading than one a year back. "since 1 May" is read as past whatever the clause says.
  A day or month whose own clause has no tense takes the message's, but within four months of
  the anchor the nearest reading wins over it: the rest of a message says little of a date in
  another clause.
- "a few", "several" and "the other day" are approximate: about three units back (or ahead), and
  the human form says so ("a few days before 8 May 2023"); "a couple of" is two, approximate too.
- Times are read in UTC, so "yesterday" is the UTC day before the anchor's UTC day.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Literal

from app.domain.dates.calendar import (
    MONTH_NUMBERS,
    MONTHS,
    NUMBER_WORDS,
    WEEKDAYS,
    anchor_day,
    format_day,
    format_month,
)
from app.domain.dates.tense import Tense, Tenses

Granularity = Literal["day", "weekend", "week", "month", "year"]


@dataclass(frozen=True, slots=True)
class Resolved:
    """One date expression found in a text and what it resolves to."""

    span: tuple[int, int]  # character offsets of the expression (with its preposition, if any)
    expression: str  # the text at ``span``, as written
    date: date  # the day, or the first day of the weekend, week, month or year
    granularity: Granularity
    human: str  # "7 May 2023", "the week of 1 May 2023", "May 2023", "2022"
    phrase: str  # what can replace ``expression`` in a sentence: "on 7 May 2023"
    approximate: bool = False
    relative: bool = True  # False when the text already gave the full date ("8 May 2023")

    @property
    def iso(self) -> str:
        """``2023-05-07`` for days, weekends and weeks, ``2023-05`` for months, ``2023``."""
        if self.granularity == "month":
            return f"{self.date.year:04d}-{self.date.month:02d}"
        if self.granularity == "year":
            return f"{self.date.year:04d}"
        return self.date.isoformat()


# --- vocabulary -----------------------------------------------------------------------------

# "a week ago": the article counts as one; larger tens are no count anyone says of dates.
_COUNT_WORDS = {"a": 1, "an": 1} | {word: n for word, n in NUMBER_WORDS.items() if n <= 30}
# Vague counts: (value used for the date, words kept in the human form).
_VAGUE = {
    "a couple of": (2, "a couple of"),
    "a couple": (2, "a couple of"),
    "couple of": (2, "a couple of"),
    "a few": (3, "a few"),
    "few": (3, "a few"),
    "several": (3, "several"),
}
_NUM = (
    r"(?P<n>\d{1,3}|a\s+couple(?:\s+of)?|couple\s+of|a\s+few|few|several|"
    + "|".join(sorted(_COUNT_WORDS, key=len, reverse=True))
    + r")"
)
_MONTH_FULL = r"(?:" + "|".join(MONTHS) + r")"
# The units a count of them dates something by ("two weeks ago").
_DATE_UNITS = r"day|weekend|week|fortnight|month|year"
# A span of time said as a count and a unit: "an hour", "two weeks", "45 minutes" (every
# quantifier bounded or separated by a word, as in the patterns below).
SPAN_OF_TIME = re.compile(
    rf"\b{_NUM}[\s-]+(?:second|minute|hour|night|decade|{_DATE_UNITS})s?\b",
    re.IGNORECASE,
)
_MONTH_ANY = r"(?:" + "|".join(sorted(MONTH_NUMBERS, key=len, reverse=True)) + r")"
_PART = r"(?:\s+(?P<part>morning|afternoon|evening|night))?"
# A leading preposition is part of the span, so a rewrite never reads "on on 6 May".
_PREP = r"(?:(?P<prep>on|in|at|during|over|since|until|till|by|from|before|after|around)\s+)?"
_OWN_PREPOSITION = frozenset({"on", "in", "at", "during", "over"})
# Habitual plurals ("Saturday mornings", "on Sundays") name no single day.
_NOT_PLURAL = r"(?![\w-]|\s+(?:mornings|afternoons|evenings|nights)\b)"

# --- calendar arithmetic --------------------------------------------------------------------


def _week_start(day: date) -> date:
    return day - timedelta(days=day.weekday())


def _add_months(day: date, months: int) -> date:
    index = day.year * 12 + day.month - 1 + months
    return date(index // 12, index % 12 + 1, 1)


def _last_weekend(day: date) -> date:
    """The Saturday of the weekend before the anchor's week."""
    return _week_start(day) - timedelta(days=2)


def _weekend(day: date, tense: Tense | None) -> date:
    """The Saturday of "this weekend": the anchor's own one on a weekend, else by tense."""
    if day.weekday() >= 5 or tense != "past":
        return _week_start(day) + timedelta(days=5)
    return _last_weekend(day)


# How far past the anchor a past-tense day may fall, and before it a future-tense one.
PAST_SLACK = timedelta(days=31)
FUTURE_SLACK = timedelta(days=7)


def _nearest_month(day: date, month: int, tense: Tense | None) -> date:
    if tense == "past":  # next month too, by the past slack: "I booked it for June" in May
        following = _add_months(date(day.year, day.month, 1), 1)
        year = following.year if month <= following.month else following.year - 1
        return date(year, month, 1)
    past = date(day.year if month <= day.month else day.year - 1, month, 1)
    future = date(day.year if month >= day.month else day.year + 1, month, 1)
    if tense == "future":
        return future
    this_month = date(day.year, day.month, 1)
    return past if (this_month - past) <= (future - this_month) else future


def _nearest_day(day: date, month: int, dom: int, tense: Tense | None) -> date | None:
    candidates = []
    for year in (day.year - 1, day.year, day.year + 1):
        try:
            candidates.append(date(year, month, dom))
        except ValueError:
            continue
    past = [c for c in candidates if c <= day + PAST_SLACK]
    future = [c for c in candidates if c >= day - FUTURE_SLACK]
    if tense == "past" and past:
        return past[-1]
    if tense == "future" and future:
        return future[0]
    return min(candidates, key=lambda c: (abs((c - day).days), c), default=None)


# --- building results -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Value:
    """A resolution before its span and phrase are attached."""

    day: date
    granularity: Granularity
    approximate: bool = False
    human: str | None = None  # overrides the default human form
    part: str | None = None  # "morning", "night": only the phrase mentions it
    relative: bool = True
    note: str | None = None  # how an approximate day was reached: "a week before 8 May 2023"
    phrase: str | None = None  # overrides the default phrase: "at Christmas (25 December 2022)"


def _human(value: _Value) -> str:
    if value.human is not None:
        return value.human
    if value.granularity == "day":
        return format_day(value.day)
    if value.granularity == "weekend":
        return f"the weekend of {format_day(value.day)}"
    if value.granularity == "week":
        return f"the week of {format_day(value.day)}"
    if value.granularity == "month":
        return format_month(value.day)
    return str(value.day.year)


def _own_phrase(value: _Value, human: str) -> str:
    """The human form with the preposition it reads best with."""
    if value.approximate:
        return f"on {human} ({value.note})" if value.note else human
    if value.granularity == "day":
        return f"on the {value.part} of {human}" if value.part else f"on {human}"
    if value.granularity == "weekend":
        return f"on {human}"
    if value.granularity == "week":
        return f"during {human}"
    return f"in {human}"


def _result(text: str, match: re.Match[str], value: _Value) -> Resolved:
    start, end = match.span()
    human = _human(value)
    prep = (match.groupdict().get("prep") or "").lower()
    phrase = _own_phrase(value, human)
    if prep and prep not in _OWN_PREPOSITION:
        phrase = f"{match.group('prep')} {human}"
    phrase = value.phrase or phrase
    return Resolved(
        span=(start, end),
        expression=text[start:end],
        date=value.day,
        granularity=value.granularity,
        human=human,
        phrase=phrase,
        approximate=value.approximate,
        relative=value.relative,
    )


def _count(raw: str) -> tuple[int, str | None]:
    """(number, vague words) of "3", "three", "a few", "a couple of"."""
    key = " ".join(raw.lower().split())
    if key in _VAGUE:
        return _VAGUE[key]
    if key.isdigit():
        return int(key), None
    return _COUNT_WORDS[key], None


# --- the patterns ---------------------------------------------------------------------------

Handler = Callable[[re.Match[str], date, Tense | None], "_Value | None"]


def _day_word(m: re.Match[str], today: date, tense: Tense | None) -> _Value | None:
    core = " ".join(m.group("core").lower().split())
    part = (m.group("part") or "").lower() or None
    offsets = {
        "the day before yesterday": -2,
        "day before yesterday": -2,
        "the day after tomorrow": 2,
        "day after tomorrow": 2,
        "yesterday": -1,
        "today": 0,
        "tomorrow": 1,
    }
    if core in offsets:
        return _Value(today + timedelta(days=offsets[core]), "day", part=part)
    if core == "tonight":
        return _Value(today, "day", part="night")
    if core == "last night":
        return _Value(today - timedelta(days=1), "day", part="night")
    if core.startswith("this "):
        return _Value(today, "day", part=core.split()[1])
    # "the other day": some days ago, not a date anyone gave.
    return _Value(today - timedelta(days=3), "day", True, f"a few days before {format_day(today)}")


def _shift(today: date, n: int, unit: str, sign: int) -> _Value:
    if unit == "fortnight":
        return _Value(today + timedelta(days=sign * 14 * n), "day")
    if unit == "day":
        return _Value(today + timedelta(days=sign * n), "day")
    if unit == "week":
        return _Value(_week_start(today + timedelta(weeks=sign * n)), "week")
    if unit == "weekend":
        if sign < 0:
            return _Value(_last_weekend(today) - timedelta(weeks=n - 1), "weekend")
        return _Value(_week_start(today) + timedelta(days=5, weeks=n - 1), "weekend")
    if unit == "month":
        return _Value(_add_months(today, sign * n), "month")
    return _Value(date(today.year + sign * n, 1, 1), "year")


def _counted(m: re.Match[str], today: date, sign: int) -> _Value:
    """A counted offset ("3 days ago", "in two weeks"); weeks and fortnights name a day."""
    n, vague = _count(m.group("n"))
    unit = m.group("unit").lower()
    relation = f"{'before' if sign < 0 else 'after'} {format_day(today)}"
    if vague is not None:
        value = _shift(today, n, unit, sign)
        return _Value(value.day, value.granularity, True, f"{vague} {unit}s {relation}")
    if unit in ("week", "fortnight"):
        said = " ".join(m.group(0)[m.start("n") - m.start() : m.end("unit") - m.start()].split())
        day = today + timedelta(days=sign * n * (14 if unit == "fortnight" else 7))
        return _Value(day, "day", True, note=f"{said.lower()}{'s' * (n > 1)} {relation}")
    return _shift(today, n, unit, sign)


def _ago(m: re.Match[str], today: date, tense: Tense | None) -> _Value | None:
    return _counted(m, today, -1)


def _ahead(m: re.Match[str], today: date, tense: Tense | None) -> _Value | None:
    return _counted(m, today, 1)


def _relative_unit(m: re.Match[str], today: date, tense: Tense | None) -> _Value | None:
    rel = " ".join((m.group("rel") or "the").lower().split())
    unit = (m.group("unit") or m.group("unit2")).lower()
    step = {"last": -1, "past": -1, "this past": -1, "the past": -1}.get(rel, 0)
    if rel in ("next", "coming", "this coming", "the coming"):
        step = 1
    if rel in ("past", "the past") and unit in ("month", "year"):
        return None  # "the past year" is the last twelve months, not a calendar year
    if unit == "weekend":
        if step < 0:
            return _Value(_last_weekend(today), "weekend")
        if rel == "next":
            return _Value(_week_start(today) + timedelta(days=12), "weekend")
        if step > 0:  # "this coming weekend": the next one that has not started
            return _Value(_weekend(today, "future"), "weekend")
        return _Value(_weekend(today, tense), "weekend")
    if unit == "week":
        return _Value(_week_start(today) + timedelta(weeks=step), "week")
    if unit == "month":
        return _Value(_add_months(today, step), "month")
    return _Value(date(today.year + step, 1, 1), "year")


# "every Tuesday", "each Friday evening", "every Tuesday and Thursday", "every week on Monday":
# a habit names no single day. Read in the few characters before a weekday.
_WD = r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?"
_HABIT_BEFORE = re.compile(
    rf"\b(?:every|each)\s{{1,3}}(?:other\s{{1,3}})?(?:{_WD}(?:\s{{0,3}},(?:\s{{1,3}}and)?\s{{0,3}}|"
    rf"\s{{1,3}}(?:and|or|&)\s{{1,3}}|\s{{0,3}}/\s{{0,3}})){{0,3}}$|"
    r"\b(?:every|each)\s{1,3}(?:other\s{1,3})?week\s{1,3}$",
    re.IGNORECASE,
)
HABIT_CHARS = 40


def _weekday(m: re.Match[str], today: date, tense: Tense | None) -> _Value | None:
    if _HABIT_BEFORE.search(m.string, max(m.start() - HABIT_CHARS, 0), m.start()):
        return None
    rel = " ".join((m.group("rel") or "").lower().split())
    target = WEEKDAYS.index(m.group("wd").lower())
    part = (m.group("part") or "").lower() or None
    back = (today.weekday() - target) % 7  # days back to the latest such day, today included
    if rel in ("last", "this past", "past"):
        day = today - timedelta(days=back or 7)
    elif rel == "next":
        day = _week_start(today) + timedelta(days=7 + target)
    elif tense == "past":
        day = today - timedelta(days=back)
    else:
        day = today + timedelta(days=(target - today.weekday()) % 7 or 7)
    return _Value(day, "day", part=part)


# "moved it to 1 May", "from 20 January to 28 February", "booked for 3 June": the day a change,
# a range or a booking goes to.
_TO_BEFORE = re.compile(r"\b(?:to|for)\s{1,3}$", re.IGNORECASE)
# "Sarah offered to babysit on June 29", "we agreed to meet on 3 May": the day belongs to what was
# offered, agreed or planned, which may lie ahead of the past verb: the verb says nothing of it.
_FORWARD_BEFORE = re.compile(
    r"\b(?:offered|promised|agreed|planned|decided|arranged|volunteered|committed|intended|"
    r"hoped|chose|expected|prepared|invited\s[a-z]{1,20}|asked\s[a-z]{1,20}|signed\sup)\s{1,3}"
    r"to\s{1,3}(?!the\b|a\b|an\b|my\b|our\b|his\b|her\b|their\b|your\b)[a-z]{2,20}\b"
    r"[^,;:!?.]{0,60}$",
    re.IGNORECASE,
)
FORWARD_CHARS = 120


def _date_tense(m: re.Match[str], tense: Tense | None) -> Tense | None:
    """The tense a date without a year is read in, from its clause's and its preposition.

    "since 1 May" starts in the past whatever tense its clause has. The day a past change goes
    to ("I delayed the launch to 1 September") is where it now stands, not a day of the year
    before ("I booked a table for June 3" neither): a past tense says nothing of it, and the
    nearest year is taken. So is the day of what a past verb offered, agreed or decided to do
    ("Sarah offered to babysit on June 29"): it may lie ahead of the verb or behind the message.
    """
    prep = (m.group("prep") or "").lower()
    if prep == "since":
        return "past"
    if tense == "past" and (
        prep in ("to", "for")
        or _TO_BEFORE.search(m.string, max(0, m.start() - 6), m.start())
        or _FORWARD_BEFORE.search(m.string, max(0, m.start() - FORWARD_CHARS), m.start())
    ):
        return None
    return tense


def _day_month(m: re.Match[str], today: date, tense: Tense | None) -> _Value | None:
    raw_month = m.group("month")
    month = MONTH_NUMBERS[raw_month.lower().rstrip(".")]
    dom = int(m.group("day"))
    year = m.group("year")
    if year:
        try:
            return _Value(date(int(year), month, dom), "day", relative=False)
        except ValueError:
            return None
    day = _nearest_day(today, month, dom, _date_tense(m, tense))
    return None if day is None else _Value(day, "day")


# A day or a month without a year whose own clause has no tense is read in the tense of the
# message around it, but not carried further than this from the day it was said when a nearer
# reading lies within it: "I'm thinking about how to rebuild trust after forgetting our
# anniversary on February 28", said in March, is the February just gone, though "thinking about"
# speaks of what is to come.
BORROWED_REACH = timedelta(days=120)


def _within_reach(
    m: re.Match[str], today: date, value: _Value, tenses: Tenses, handler: Handler
) -> _Value:
    """``value``, or ``handler``'s reading without a tense when ``value`` took its tense from
    outside the date's clause and that reading lies within ``BORROWED_REACH`` of ``today``."""
    if not value.relative or not tenses.exact or tenses.of_clause(*m.span()) is not None:
        return value
    nearest = handler(m, today, None)
    if nearest is None or abs(nearest.day - today) > BORROWED_REACH:
        return value
    return nearest


_MODIFIERS = {
    "early": "early",
    "late": "late",
    "mid": "mid-",
    "mid-": "mid-",
    "the end of": "the end of",
    "end of": "the end of",
    "the beginning of": "the beginning of",
    "the start of": "the start of",
    "the middle of": "the middle of",
}


def _month(m: re.Match[str], today: date, tense: Tense | None) -> _Value | None:
    raw_month = m.group("month")
    rel = " ".join((m.group("rel") or "").lower().split())
    year = m.group("year")
    prep = (m.group("prep") or "").lower()
    if raw_month == "may" and not year:
        return None  # "this may be": lower-case "may" is a verb unless a year says otherwise
    if not (rel or year or prep):
        return None  # a bare month name is too often something else ("March on")
    month = MONTH_NUMBERS[raw_month.lower().rstrip(".")]
    if year:
        day = date(int(year), month, 1)
    elif rel == "last":
        day = date(today.year if month < today.month else today.year - 1, month, 1)
    elif rel == "next":
        day = date(today.year if month > today.month else today.year + 1, month, 1)
    elif rel == "this":
        day = date(today.year, month, 1)
    else:
        day = _nearest_month(today, month, _date_tense(m, tense))
    modifier = _MODIFIERS.get(rel)
    human = format_month(day)
    if modifier:
        human = f"{modifier}{human}" if modifier.endswith("-") else f"{modifier} {human}"
    return _Value(day, "month", human=human, relative=not year)


def _easter(year: int) -> date:
    """Western Easter Sunday (the anonymous Gregorian computus)."""
    a, b, c = year % 19, year // 100, year % 100
    d, e = divmod(b, 4)
    g = (8 * b + 13) // 25
    h = (19 * a + b - d - g + 15) % 30
    i, k = divmod(c, 4)
    leap = (32 + 2 * e + 2 * i - h - k) % 7
    m = (a + 11 * h + 22 * leap) // 451
    month, day = divmod(h + leap - 7 * m + 114, 31)
    return date(year, month, day + 1)


def _thanksgiving(year: int) -> date:
    """US Thanksgiving: the fourth Thursday of November."""
    first = date(year, 11, 1)
    return first + timedelta(days=(3 - first.weekday()) % 7 + 21)


# Keyed by ``holiday_name``: every spelling the pattern below accepts ("new year day", "New
# Years's Eve", "valentines", "St. Patricks Day") comes to one of these.
_FIXED_HOLIDAYS = {
    "christmas eve": (12, 24),
    "christmas": (12, 25),
    "christmas day": (12, 25),
    "xmas": (12, 25),
    "boxing day": (12, 26),
    "new year eve": (12, 31),
    "new year day": (1, 1),
    "halloween": (10, 31),
    "valentine day": (2, 14),
    "valentine": (2, 14),
    "st patrick day": (3, 17),
}
_MOVABLE_HOLIDAYS: dict[str, Callable[[int], date]] = {
    "easter": _easter,
    "easter sunday": _easter,
    "easter monday": lambda y: _easter(y) + timedelta(days=1),
    "good friday": lambda y: _easter(y) - timedelta(days=2),
    "thanksgiving": _thanksgiving,
}


def holiday_name(said: str) -> str:
    """A holiday as said, in the one spelling the holiday tables use: "new year day"."""
    words = re.sub(r"['’.]", "", said.lower()).split()
    return " ".join(re.sub(r"^(year|valentine|patrick)s+$", r"\1", w) for w in words)


def _holiday(m: re.Match[str], today: date, tense: Tense | None) -> _Value | None:
    name = holiday_name(m.group("holiday"))
    rel = " ".join((m.group("rel") or "").lower().split())
    if not (rel or m.group("prep") or " " in name):
        return None  # "I love Christmas" names no day; "Good Friday" always does
    tense = _date_tense(m, tense)
    if name in _FIXED_HOLIDAYS:
        month, dom = _FIXED_HOLIDAYS[name]
        days = [date(y, month, dom) for y in (today.year - 1, today.year, today.year + 1)]
    else:
        days = [_MOVABLE_HOLIDAYS[name](y) for y in (today.year - 1, today.year, today.year + 1)]
    if rel in ("last", "this past"):
        chosen = max(d for d in days if d < today)
    elif rel == "next":
        chosen = min(d for d in days if d > today)
    elif tense == "past" and any(d <= today for d in days):
        chosen = max(d for d in days if d <= today)
    elif tense == "future":
        chosen = min(d for d in days if d >= today)
    else:
        chosen = min(days, key=lambda d: (abs((d - today).days), d))
    # The holiday's own words stay, the day is added: "for Thanksgiving (23 November 2023)".
    said = " ".join(m.group(0).split())
    return _Value(chosen, "day", phrase=f"{said} ({format_day(chosen)})")


def _year(m: re.Match[str], today: date, tense: Tense | None) -> _Value | None:
    return _Value(date(int(m.group("year")), 1, 1), "year", relative=False)


def _iso(m: re.Match[str], today: date, tense: Tense | None) -> _Value | None:
    try:
        return _Value(date.fromisoformat(m.group("iso")), "day", relative=False)
    except ValueError:
        return None


_UNIT = rf"(?P<unit>{_DATE_UNITS})s?"
# (trigger, pattern, handler): a pattern runs only when the lower-cased text has its trigger.
_PATTERNS: tuple[tuple[re.Pattern[str], re.Pattern[str], Handler], ...] = tuple(
    (re.compile(trigger), re.compile(pattern, re.IGNORECASE), handler)
    for trigger, pattern, handler in (
        (
            r"yesterday|today|tomorrow|tonight|night|morning|afternoon|evening|other day",
            rf"\b{_PREP}(?P<core>(?:the\s+)?day\s+(?:before\s+yesterday|after\s+tomorrow)|"
            r"yesterday|today|tomorrow|tonight|last\s+night|this\s+(?:morning|afternoon|evening)|"
            rf"the\s+other\s+day){_PART}\b",
            _day_word,
        ),
        (r"\bago\b", rf"\b{_PREP}{_NUM}\s+{_UNIT}\s+ago\b", _ago),
        (r"day|week|month|year|fortnight", rf"\bin\s+{_NUM}\s+{_UNIT}\b", _ahead),
        (r"from now|from today", rf"\b{_NUM}\s+{_UNIT}\s+from\s+(?:now|today)\b", _ahead),
        (
            r"week|month|year",
            rf"\b{_PREP}(?:(?:(?P<rel>last|next|this\s+past|this\s+coming|the\s+past|"
            r"the\s+coming|this|past|coming)\s+)(?P<unit>weekend|week|month|year)|"
            r"the\s+(?P<unit2>weekend))\b",
            _relative_unit,
        ),
        (
            r"(?:mon|tues|wednes|thurs|fri|satur|sun)day",
            rf"\b{_PREP}(?:(?P<rel>last|next|this\s+past|this\s+coming|this|coming|past)\s+)?"
            rf"(?P<wd>{'|'.join(WEEKDAYS)}){_PART}{_NOT_PLURAL}",
            _weekday,
        ),
        (
            r"\d",
            rf"\b{_PREP}(?:the\s+)?(?P<day>\d{{1,2}})(?:st|nd|rd|th)?(?:\s+of)?\s+"
            rf"(?P<month>{_MONTH_ANY})\.?(?:,?\s+(?P<year>\d{{4}}))?\b",
            _day_month,
        ),
        (
            r"\d",
            rf"\b{_PREP}(?P<month>{_MONTH_ANY})\.?\s+(?:the\s+)?(?P<day>\d{{1,2}})"
            # A range's end ("June 14-16, 2024") is part of it, so its year is read too.
            r"(?:st|nd|rd|th)?(?!\d)(?:[-–]\d{1,2}(?!\d))?(?:,?\s+(?P<year>\d{4}))?\b",
            _day_month,
        ),
        (
            r"january|february|march|april|may|june|july|august|september|october|november|december",
            rf"\b{_PREP}(?:(?P<rel>last|next|this|early|late|mid-?|(?:the\s+)?end\s+of|"
            r"the\s+(?:beginning|start|middle)\s+of)\s*)?"
            rf"(?P<month>{_MONTH_FULL})(?:,?\s+(?P<year>(?:19|20)\d{{2}}))?\b",
            _month,
        ),
        (
            r"christmas|xmas|boxing|new year|halloween|valentine|patrick|easter|good friday|"
            r"thanksgiving",
            r"\b(?:(?P<prep>on|in|at|during|over|since|until|till|by|from|before|after|around|for)\s+)?"
            r"(?:(?P<rel>last|next|this\s+past|this)\s+)?(?P<holiday>christmas\s+eve|"
            r"christmas(?:\s+day)?|xmas|boxing\s+day|new\s+years?['’]?s?\s+(?:eve|day)|halloween|"
            r"valentine['’]?s(?:\s+day)?|st\.?\s+patrick['’]?s\s+day|easter(?:\s+(?:sunday|monday))?|"
            r"good\s+friday|thanksgiving)\b",
            _holiday,
        ),
        (
            r"(?:19|20)\d\d",
            r"\b(?:(?P<prep>in|since|during|until|till|by|from|before|after)\s+)"
            r"(?P<year>(?:19|20)\d{2})(?![\d/-]|s\b|[.,]\d)",
            _year,
        ),
        (
            r"\d{4}-\d\d-\d\d",
            r"\b(?:(?P<prep>on|since|until|by|from|before|after)\s+)?(?P<iso>\d{4}-\d{2}-\d{2})(?![\d:T])",
            _iso,
        ),
    )
)


# Every pattern needs one of these; most chat sentences have none and are skipped at once.
_TRIGGER = re.compile(
    r"\d|night|tomorrow|morning|afternoon|evening|day|week|month|year|ago|from now|fortnight|"
    r"christmas|xmas|halloween|valentine|easter|thanksgiving|" + "|".join(m.lower() for m in MONTHS)
)


def resolve_relative(text: str, anchor: datetime, *, tense: Tense | None = None) -> list[Resolved]:
    """Date expressions in ``text`` resolved against ``anchor``, in order, never overlapping."""
    if not _TRIGGER.search(text.lower()):
        return []
    return list(_resolve(text, anchor, tense))


def _resolve(text: str, anchor: datetime, tense: Tense | None) -> tuple[Resolved, ...]:
    today = anchor_day(anchor)
    found: list[tuple[int, int, Resolved]] = []
    lowered = text.lower()
    tenses: Tenses | None = None
    for order, (trigger, pattern, handler) in enumerate(_PATTERNS):
        if not trigger.search(lowered):
            continue
        for match in pattern.finditer(text):
            if match.group(0).strip() == "":
                continue
            if tense is None and tenses is None:
                tenses = Tenses(text)
            when = tense or (tenses.around(*match.span()) if tenses is not None else None)
            try:
                value = handler(match, today, when)
                # An untensed date is read nearest already; only a tense may carry it further.
                near = handler in (_day_month, _month) and when is not None
                if value is not None and near and tenses is not None:
                    value = _within_reach(match, today, value, tenses, handler)
            except (ValueError, OverflowError):
                continue  # the day falls past the calendar's ends (before year 1, after 9999)
            if value is not None:
                found.append((order, -len(match.group(0)), _result(text, match, value)))
    # Longest match first at each place, then the earlier pattern; drop anything overlapping.
    found.sort(key=lambda item: (item[2].span[0], item[1], item[0]))
    chosen: list[Resolved] = []
    for _, _, resolved in found:
        if chosen and resolved.span[0] < chosen[-1].span[1]:
            continue
        chosen.append(resolved)
    return tuple(chosen)
