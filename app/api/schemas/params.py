"""Query-parameter types whose spec says exactly what the server accepts, and nothing more."""

from __future__ import annotations

import re
from datetime import date
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, WithJsonSchema

_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_YEAR_OR_MONTH = r"^\d{4}(-(0[1-9]|1[0-2]))?$"
# An int4 column: anything larger can never name a version.
MAX_VERSION = 2**31 - 1
# A bigint column: anything larger can never name a log row.
MAX_ROW_ID = 2**63 - 1
# Microseconds since the epoch, from the first instant of year 1 to the last of year 9999.
MIN_TIME_CURSOR = -62_135_596_800_000_000
MAX_TIME_CURSOR = 253_402_300_799_999_999


def _strict_day(value: Any) -> Any:
    # Pydantic's lax date would read "0" as the epoch; the spec promises YYYY-MM-DD only.
    if isinstance(value, str) and not _DAY.fullmatch(value):
        raise ValueError("use a date as YYYY-MM-DD")
    return value


def _period(value: str) -> str:
    if _DAY.fullmatch(value):
        date.fromisoformat(value)  # a ValueError names the impossible day
        return value
    if re.fullmatch(_YEAR_OR_MONTH, value) and not value.startswith("0000"):
        return value
    raise ValueError("use a day (YYYY-MM-DD), a month (YYYY-MM) or a year (YYYY)")


Day = Annotated[
    date,
    BeforeValidator(_strict_day),
    WithJsonSchema({"type": "string", "format": "date"}),
]
"""A calendar day written YYYY-MM-DD."""

Period = Annotated[
    str,
    AfterValidator(_period),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "string", "format": "date"},
                {"type": "string", "pattern": _YEAR_OR_MONTH, "not": {"pattern": "^0000"}},
            ]
        }
    ),
]
"""A day, a month or a year: an ``until`` covers the whole period it names."""
