"""The relative dates a turn said, resolved against when it was said (kept beside the words)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from app.domain.dates.relative import resolve_relative


@dataclass(frozen=True, slots=True)
class SaidDate:
    """A relative date as it was said and the day it was resolved to when it was said."""

    said: str  # the expression as written: "yesterday", "last Saturday"
    day: str  # ISO: 2023-05-06 for a day (a week or weekend: its first day), 2023-05, 2023

    def to_dict(self) -> dict[str, str]:
        """The passport form: ``{"said": ..., "day": ...}``."""
        return {"said": self.said, "day": self.day}


def turn_dates(text: str, ts: datetime | None) -> tuple[SaidDate, ...]:
    """The relative dates of ``text`` resolved against the time it was said (none without it)."""
    if ts is None:
        return ()
    try:
        found = resolve_relative(text, ts)
    except Exception:  # a faulty date rule must cost the turn its dates, never the turn itself
        return ()
    return tuple(SaidDate(r.expression, r.iso) for r in found if r.relative)
