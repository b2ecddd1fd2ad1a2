"""Content-derived identifiers: SHA-256 of canonical content, never Python's hash()."""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime
from typing import Any

import orjson


def canonical_bytes(value: Any) -> bytes:
    """Serialise a JSON value with sorted keys, so equal values give equal bytes."""
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def sha256_hex(value: Any) -> str:
    """Hex SHA-256 of a string, bytes, or the canonical JSON of any other value."""
    if isinstance(value, bytes):
        data = value
    elif isinstance(value, str):
        data = value.encode("utf-8")
    else:
        data = canonical_bytes(value)
    return hashlib.sha256(data).hexdigest()


def content_id(prefix: str, value: Any, length: int = 16) -> str:
    """A short, stable id like ``seg_3f2a...`` derived from content."""
    return f"{prefix}_{sha256_hex(value)[:length]}"


def turn_content_id(speaker: str, text: str, ts: str | None, session: str | None, nth: int) -> str:
    """The id of a turn the client gave none: who said what, when, where, which repeat of it."""
    return content_id("t", [speaker, text, ts, session, nth])


def time_key(when: datetime | None) -> str | None:
    """``YYYYMMDDTHHMMSS`` in UTC (naive means UTC): a time that sorts as text as it does in time.

    None when there is no time, or its UTC day falls outside years 1-9999.
    """
    if when is None:
        return None
    try:
        utc = when.astimezone(UTC) if when.tzinfo is not None else when
    except OverflowError:
        return None
    return (
        f"{utc.year:04d}{utc.month:02d}{utc.day:02d}T{utc.hour:02d}{utc.minute:02d}{utc.second:02d}"
    )


# An id that leads with the time of its content: ``seg_20230507T141500_3f2a...``. ASCII digits
# only, as migration 0004 reads them.
_TIME_IN_ID = re.compile(r"^[a-z]+_([0-9]{8}T[0-9]{6})_")


def timed_id(prefix: str, value: Any, when: datetime | None, length: int = 16) -> str:
    """A content id led by the content's time when it has one, so ids sort as they were said."""
    key = time_key(when)
    digest = sha256_hex(value)[:length]
    return f"{prefix}_{key}_{digest}" if key else f"{prefix}_{digest}"


def time_in_id(value: Any) -> str | None:
    """The time key a ``timed_id`` leads with; None for any other id."""
    found = _TIME_IN_ID.match(value) if isinstance(value, str) else None
    return found.group(1) if found else None


def untimed_id(value: str) -> str:
    """The id the same content had before ids led with a time (``seg_<digest>``: same digest)."""
    if time_in_id(value) is None:
        return value
    return f"{value.split('_', 1)[0]}_{value.rsplit('_', 1)[1]}"


def content_hash(value: Any) -> str:
    """The ``sha256:<hex>`` form used in ``sources[].hash``."""
    return f"sha256:{sha256_hex(value)}"
