"""Sessions: the log's episodes, shown for a question about a whole stretch of conversation.

"What did we talk about in May?" names no topic for BM25 to rank by: its answer is the sessions of
May, each in a line (when, who, what it was about). A question asks for that overview when it asks
what was talked about, discussed or covered (or for a summary or recap of the conversations), and
says nothing else but when. The period it names ("in May", "last week", "on 3 March") is read
against the time of the newest episode, the user's latest conversation (the domain has no clock);
without one, the request's window holds, and the newest sessions come first.

Episodes whose summary quotes their own turns (the rule extractor's) are kept here only: their
turns are ranked already, so ranking the quote as well would show the same words twice.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from app.domain.context.ranking.question import Question
from app.domain.context.records import EpisodeInfo, TurnRecord
from app.domain.dates import (
    DateWindow,
    Resolved,
    parse_when,
    period_end,
    stamp_day,
    stamp_epoch,
)

SESSIONS_HEADER = "Sessions:"
# The most of the memories' room the session lines may take; the rest goes to ranked memories.
SESSION_SHARE = 0.5
# Periods longer than the day ``Resolved.iso`` names (a month or a year is read from it).
_PERIOD_DAYS = {"weekend": 2, "week": 7}


@dataclass(frozen=True, slots=True)
class SessionLine:
    """One session shown in a context: its episode record and the line it is shown as."""

    record: TurnRecord
    line: str

    def to_dict(self) -> dict[str, object]:
        """The session as the context's JSON gives it."""
        info = self.record.episode or EpisodeInfo()
        return {
            "id": info.id,
            "ts": self.record.ts,
            "end": info.end,
            "participants": list(info.participants),
            "keywords": list(info.keywords),
            "summary": self.record.text,
            "turn_ids": list(self.record.turn_ids),
        }


@dataclass(frozen=True, slots=True)
class Overview:
    """The sessions a question asked for, the window its ranked memories keep to, the text."""

    lines: tuple[SessionLine, ...]
    window: DateWindow
    text: str


class SessionIndex:
    """A user's episodes in log order, grown as the log grows."""

    def __init__(self) -> None:
        self._records: list[TurnRecord] = []
        self._starts: list[float] = []
        self._ends: list[float] = []
        self._newest = math.nan
        self._bytes = 0

    def approx_bytes(self) -> int:
        """A rough size of what it holds, for a cache bounded in bytes."""
        return self._bytes

    @property
    def records(self) -> tuple[TurnRecord, ...]:
        """The episode records held, in log order."""
        return tuple(self._records)

    def extend(self, records: Iterable[TurnRecord]) -> None:
        """Add the episode records that come after the newest one held."""
        last = self._records[-1].position if self._records else None
        for record in sorted(records, key=lambda r: r.position):
            if record.episode is None or (last is not None and record.position <= last):
                continue
            start = stamp_epoch(record.ts)
            end = stamp_epoch(record.episode.end) if record.episode.end else start
            self._records.append(record)
            self._starts.append(start)
            self._ends.append(end)
            # The record, its episode's fields and two floats, beside its words.
            self._bytes += 400 + 2 * (len(record.text) + sum(map(len, record.episode.keywords)))
            if not math.isnan(end) and (math.isnan(self._newest) or end > self._newest):
                self._newest = end
            last = record.position

    def overview(self, question: Question | None, window: DateWindow, room: int) -> Overview | None:
        """The sessions ``question`` asks about, in ``room`` characters; None if it asks no
        overview (or the log has no sessions)."""
        if not self._records or question is None or "overview" not in question.asks:
            return None
        if not math.isnan(self._newest):
            dates = question.periods(datetime.fromtimestamp(self._newest, UTC))
            if dates:
                window = _period(dates[0])
        inside = [i for i in range(len(self._records)) if self._overlaps(i, window)]
        order = inside if question.oldest_first else inside[::-1]
        chosen: list[SessionLine] = []
        used = len(SESSIONS_HEADER)
        for i in order:
            line = _line(self._records[i])
            if used + 1 + len(line) > room:
                break
            chosen.append(SessionLine(self._records[i], line))
            used += 1 + len(line)
        if not chosen:
            return Overview((), window, "")
        chosen.sort(key=lambda s: s.record.position)
        omitted = len(inside) - len(chosen)
        note = f"(+{omitted} more sessions not shown)"
        lines = [SESSIONS_HEADER, *(s.line for s in chosen)]
        if omitted and used + 1 + len(note) <= room:
            lines.append(note)
        return Overview(tuple(chosen), window, "\n".join(lines))

    def _overlaps(self, i: int, window: DateWindow) -> bool:
        start, end = self._starts[i], self._ends[i]
        if math.isnan(start):
            return window.since is None and window.until is None
        return (window.until is None or start <= window.until) and (
            window.since is None or end >= window.since
        )


def _period(found: Resolved) -> DateWindow:
    """The days a resolved date expression names: its day, weekend, week, month or year."""
    when = parse_when(found.iso)
    assert when is not None  # an ISO day, month or year, as Resolved.iso writes it
    days = _PERIOD_DAYS.get(found.granularity)
    end = when.epoch + days * 86_400 - 1 if days else period_end(when)
    return DateWindow(when.epoch, end)


def _line(record: TurnRecord) -> str:
    info = record.episode or EpisodeInfo()
    first, last = stamp_day(record.ts), stamp_day(info.end)
    when = first if not last or last == first else f"{first} – {last}"
    who = ", ".join(info.participants)
    about = f" (about: {', '.join(info.keywords[:5])})" if info.keywords else ""
    parts = [f"[{when}]" if when else "", f"{who}:" if who else "", record.text + about]
    return " ".join(p for p in parts if p)
