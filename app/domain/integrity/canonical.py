"""The one canonical JSON form every hash of the chain is taken over.

Canonical JSON is the value with every string (keys too) in Unicode NFC, serialised with keys
sorted by code point, no whitespace, non-ASCII characters as UTF-8 (only ``"``, ``\\`` and control
characters escaped), integers in decimal and floats in their shortest round-trip form.
``docs/memory.md`` (Integrity) shows how an outside tool recomputes it.
"""

from __future__ import annotations

import hashlib
import unicodedata
from typing import Any

from app.domain.ids import canonical_bytes

# The previous hash of the first version of every user: 64 zeros.
GENESIS = "0" * 64


def nfc(value: Any) -> Any:
    """``value`` with every string, keys included, in Unicode NFC."""
    if isinstance(value, str):
        return (
            value
            if unicodedata.is_normalized("NFC", value)
            else unicodedata.normalize("NFC", value)
        )
    if isinstance(value, dict):
        return {nfc(k): nfc(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [nfc(v) for v in value]
    return value


def chain_bytes(value: Any) -> bytes:
    """The canonical JSON bytes of a JSON value."""
    return canonical_bytes(nfc(value))


def chain_bytes_given(value: Any, encoded: bytes) -> bytes:
    """The canonical JSON of ``value``, given its ``canonical_bytes`` (reused when already NFC)."""
    # orjson escapes no non-ASCII character, and no JSON punctuation composes with a mark: the
    # text is NFC exactly when each of its strings is.
    if encoded.isascii() or unicodedata.is_normalized("NFC", encoded.decode("utf-8")):
        return encoded
    return chain_bytes(value)


def digest(value: Any) -> str:
    """Hex SHA-256 of a value's canonical JSON."""
    # Encoded first: text already in NFC (nearly all of it) is not walked string by string.
    return hashlib.sha256(chain_bytes_given(value, canonical_bytes(value))).hexdigest()


def row_hash(kind: str, item: Any) -> str:
    """The content hash of one log row: its kind and its item."""
    return digest({"kind": kind, "item": item})
