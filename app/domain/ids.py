"""Content-derived identifiers: SHA-256 of canonical content, never Python's hash()."""

from __future__ import annotations

import hashlib
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


def content_hash(value: Any) -> str:
    """The ``sha256:<hex>`` form used in ``sources[].hash``."""
    return f"sha256:{sha256_hex(value)}"
