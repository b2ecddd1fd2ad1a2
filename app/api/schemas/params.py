"""Query-parameter types whose spec says exactly what the server accepts, and nothing more."""

from __future__ import annotations

from datetime import date
from typing import Annotated

from pydantic import AfterValidator, BeforeValidator, WithJsonSchema

from app.domain.dates.periods import YEAR_OR_MONTH_PATTERN, check_day, check_period

# An int4 column: anything larger can never name a version.
MAX_VERSION = 2**31 - 1
# A bigint column: anything larger can never name a log row.
MAX_ROW_ID = 2**63 - 1
# Microseconds since the epoch, from the first instant of year 1 to the last of year 9999.
MIN_TIME_CURSOR = -62_135_596_800_000_000
MAX_TIME_CURSOR = 253_402_300_799_999_999


Day = Annotated[
    date,
    BeforeValidator(check_day),
    WithJsonSchema({"type": "string", "format": "date"}),
]
"""A calendar day written YYYY-MM-DD."""

Period = Annotated[
    str,
    AfterValidator(check_period),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "string", "format": "date"},
                {"type": "string", "pattern": YEAR_OR_MONTH_PATTERN, "not": {"pattern": "^0000"}},
            ]
        }
    ),
]
"""A day, a month or a year: an ``until`` covers the whole period it names."""
