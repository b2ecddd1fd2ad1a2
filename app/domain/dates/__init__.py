"""Every date rule: names and forms, relative dates in chat, dates clients write, said dates."""

from app.domain.dates.calendar import (
    MONTH_NUMBERS,
    MONTHS,
    NUMBER_WORDS,
    WEEKDAYS,
    anchor_day,
    day_label,
    format_day,
    format_month,
    iso_utc,
    month_number,
    stamp_day,
    stamp_epoch,
)
from app.domain.dates.periods import (
    EVER,
    MONTH_WORD,
    WRITTEN_DAY,
    DateWindow,
    When,
    check_day,
    check_period,
    parse_when,
    period_end,
)
from app.domain.dates.relative import (
    Granularity,
    Resolved,
    holiday_name,
    resolve_relative,
)
from app.domain.dates.said import SaidDate, turn_dates
from app.domain.dates.tense import Tense, detect_tense

__all__ = [
    "EVER",
    "MONTHS",
    "MONTH_NUMBERS",
    "MONTH_WORD",
    "NUMBER_WORDS",
    "WEEKDAYS",
    "WRITTEN_DAY",
    "DateWindow",
    "Granularity",
    "Resolved",
    "SaidDate",
    "Tense",
    "When",
    "anchor_day",
    "check_day",
    "check_period",
    "day_label",
    "detect_tense",
    "format_day",
    "format_month",
    "holiday_name",
    "iso_utc",
    "month_number",
    "parse_when",
    "period_end",
    "resolve_relative",
    "stamp_day",
    "stamp_epoch",
    "turn_dates",
]
