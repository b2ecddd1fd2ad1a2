"""How the inspector shows a passport to a person: readable dates, one line per item, days.

Pure functions over the JSON the services hand back; the templates only lay them out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any, Literal
from urllib.parse import quote

import orjson

from app.domain.context.belief_sentences import belief_text, subject_of
from app.domain.dates import MONTHS, WEEKDAYS, in_utc
from app.domain.memory.log import parse_ts
from app.domain.passport import Belief, Contradiction

TITLES = {
    "facts": "Facts",
    "prefs": "Preferences",
    "entities": "People, places and things",
    "open_loops": "Open loops",
    "contradictions": "Changes of mind",
    "instructions": "Standing instructions",
    "values": "Values with history",
    "observations": "Observations",
    "episodes": "Episodes",
    "turns": "Messages",
    "sources": "Sources",
}
# The head's sections a person reads as what is believed, in the order the page shows them.
BELIEFS = ("instructions", "values", "facts", "prefs", "entities", "open_loops", "contradictions")
KEYED = ("facts", "prefs")
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_MONTH = re.compile(r"(\d{4})-(0[1-9]|1[0-2])")


def _day_words(day: date) -> str:
    return f"{day.day} {MONTHS[day.month - 1]} {day.year}"


def readable(value: Any) -> str:
    """A time or a date as people write it ('8 May 2023, 13:56 UTC'); anything else as given."""
    if value is None:
        return ""
    if isinstance(value, str) and _DAY.fullmatch(value):
        try:
            return _day_words(date.fromisoformat(value))
        except ValueError:
            return value
    if isinstance(value, str) and (month := _MONTH.fullmatch(value)):
        return f"{MONTHS[int(month[2]) - 1]} {month[1]}"
    when = value if isinstance(value, datetime) else parse_ts(value)
    when = None if when is None else in_utc(when)
    if when is None:
        return str(value)
    clock = "" if when.time() == datetime.min.time() else f", {when:%H:%M} UTC"
    return _day_words(when.date()) + clock


def quoted(value: Any) -> str:
    """A value as one segment of a URL or of the page's address: reserved characters escaped."""
    return quote(str(value), safe="")


def words(value: Any) -> str:
    """A value in words: text as it is, anything else as compact JSON."""
    return value if isinstance(value, str) else orjson.dumps(value).decode()


def describe(section: str, item: Any) -> str:
    """One line that says what an item of a passport section holds."""
    if not isinstance(item, dict):
        return words(item)
    match section:
        case "facts" | "prefs":
            return f"{item.get('key')}: {words(item.get('value'))}"
        case "entities":
            aliases = ", ".join(str(a) for a in item.get("aliases") or [])
            return f"{item.get('name')} ({item.get('type', 'other')})" + (
                f", also {aliases}" if aliases else ""
            )
        case "open_loops":
            return str(item.get("item", ""))
        case "instructions":
            replaced = len(item.get("history") or [])
            return str(item.get("text", "")) + (f" (replaced {replaced})" if replaced else "")
        case "values":
            earlier = [
                str(h.get("value")) for h in item.get("history") or [] if isinstance(h, dict)
            ]
            before = f" (before: {', '.join(earlier)})" if earlier else ""
            return f"{item.get('about') or item.get('key')}: {item.get('value')}{before}"
        case "contradictions":
            old, new = words(item.get("old")), words(item.get("new"))
            return f"{item.get('key')}: {old} → {new}"
        case "observations":
            return str(item.get("text", ""))
        case "episodes":
            return str(item.get("summary") or item.get("id", ""))
        case "turns":
            return f"{item.get('speaker')}: {item.get('text', '')}"
        case "sources":
            return f"{item.get('id')} ({item.get('kind', 'chat')})"
    return words(item)


def sentence(section: str, item: Any, doc: Mapping[str, Any]) -> str | None:
    """A fact or preference as the sentence an agent reads in its context; None for others."""
    if section not in ("facts", "prefs") or not isinstance(item, dict):
        return None
    try:
        belief = Belief.model_validate(item)
        changes = [
            Contradiction.model_validate(c)
            for c in doc.get("contradictions") or []
            if isinstance(c, dict) and c.get("key") == belief.key
        ]
    except ValueError:
        return None
    meta = doc.get("meta")
    return belief_text(
        "prefs" if section == "prefs" else "facts",
        belief,
        changes,
        subject=subject_of(meta) if isinstance(meta, dict) else None,
    )


def turn_ids(item: Any) -> list[str]:
    """The client message ids an item names as where it came from."""
    found = item.get("turn_ids") if isinstance(item, dict) else None
    return [t for t in found if isinstance(t, str)] if isinstance(found, list) else []


_WORD = re.compile(r"[^\W_]{3,}")


def _words_in(text: str) -> set[str]:
    return {word.lower() for word in _WORD.findall(text)}


def _belief_text(section: str, item: dict[str, Any]) -> str:
    match section:
        case "facts" | "prefs":
            return words(item.get("value"))
        case "contradictions":
            return words(item.get("new"))
    return describe(section, item)


@dataclass(frozen=True)
class Said:
    """The messages a belief came from; ``exact`` when the belief names them by id."""

    messages: list[dict[str, Any]]
    exact: bool


def said(
    section: str,
    item: Any,
    by_id: dict[str, dict[str, Any]],
    by_source: dict[str, list[dict[str, Any]]],
) -> Said:
    """The messages a belief came from: the ones it names by id, else those of its conversation
    (its source) that share the most words with it."""
    if not isinstance(item, dict):
        return Said([], exact=False)
    named = turn_ids(item)
    if named:
        return Said([by_id[t] for t in named if t in by_id], exact=True)
    wanted = _words_in(_belief_text(section, item))
    scored = [
        (len(wanted & _words_in(str(turn.get("text", "")))), turn)
        for turn in by_source.get(str(item.get("source") or item.get("source_new")), [])
    ]
    best = max((score for score, _ in scored), default=0)
    return Said([turn for score, turn in scored if best and score == best], exact=False)


@dataclass(frozen=True)
class Shown:
    """One page of a section's items, and where the pages before and after it start."""

    section: str
    title: str
    items: list[Any]
    total: int
    offset: int
    previous: int | None
    next: int | None


def page_of(section: str, items: list[Any], offset: int, size: int) -> Shown:
    """The items of a section from ``offset``, at most ``size`` of them."""
    offset = max(0, min(offset, max(len(items) - 1, 0)))
    end = offset + size
    return Shown(
        section=section,
        title=TITLES.get(section, section),
        items=items[offset:end],
        total=len(items),
        offset=offset,
        previous=max(offset - size, 0) if offset > 0 else None,
        next=end if end < len(items) else None,
    )


@dataclass(frozen=True)
class Change:
    """One line of what a version changed: an item added or removed, or a value replaced."""

    kind: Literal["added", "removed", "changed"]
    text: str


def changes_of(section: str, added: list[Any], removed: list[Any]) -> list[Change]:
    """A section's added and removed items as lines to read.

    A fact or preference whose value was replaced is one line with its value before and after,
    not one removal and one addition.
    """
    gone: dict[str, Any] = {}
    if section in KEYED:
        gone = {str(i.get("key")): i for i in removed if isinstance(i, dict)}
    lines = []
    for item in added:
        key = str(item.get("key")) if isinstance(item, dict) else None
        if key is not None and key in gone:
            before, after = words(gone.pop(key).get("value")), words(item.get("value"))
            lines.append(Change("changed", f"{key}: {before} → {after}"))
        else:
            lines.append(Change("added", describe(section, item)))
    lines += [
        Change("removed", describe(section, i))
        for i in removed
        if not (section in KEYED and isinstance(i, dict) and str(i.get("key")) not in gone)
    ]
    return lines


@dataclass(frozen=True)
class Section:
    """What a version changed in one section: the lines to read, and whether some were left out."""

    name: str
    lines: list[Change]
    more: bool


def section_changes(name: str, items: dict[str, list[Any]], counts: Any) -> Section:
    """A section's changes as lines; ``counts`` (the version's summary) tells if all are shown."""
    counted = counts if isinstance(counts, dict) else {}
    more = any(counted.get(side, 0) > len(items[side]) for side in ("added", "removed"))
    return Section(name, changes_of(name, items["added"], items["removed"]), more)


@dataclass(frozen=True)
class Entry:
    """One thing on the timeline: a message, an observation or an episode, and when."""

    section: str
    when: datetime | None
    item: dict[str, Any]


@dataclass(frozen=True)
class Day:
    """The entries of one day (``None``: undated), in time order."""

    day: date | None
    entries: list[Entry]

    @property
    def title(self) -> str:
        """The day as a heading: 'Monday 8 May 2023'."""
        if self.day is None:
            return "Undated"
        return f"{WEEKDAYS[self.day.weekday()].capitalize()} {_day_words(self.day)}"


def days(doc: dict[str, Any], sections: Iterable[str]) -> list[Day]:
    """A page of log rows by day, days and entries in time order, undated ones last."""
    entries = [
        Entry(section, parse_ts(item.get("ts")), item)
        for section in sections
        for item in doc.get(section) or []
        if isinstance(item, dict)
    ]
    far = datetime.max.replace(tzinfo=UTC)
    entries.sort(key=lambda e: e.when or far)
    out: list[Day] = []
    for entry in entries:
        day = entry.when.date() if entry.when else None
        if not out or out[-1].day != day:
            out.append(Day(day, []))
        out[-1].entries.append(entry)
    return out
