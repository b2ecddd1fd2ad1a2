"""The seal an export carries: the root it was read at and a digest of each of its sections.

An exported document holds ``"witness": {"root", "version", "digests"}``, where each digest is
the SHA-256 of that top-level key's value in canonical JSON. The name sorts after every section
of the log, so a streamed export (sorted keys, canonical JSON) writes it once their digests are
known. An import that finds a seal checks every section against it before reading anything else.
"""

from __future__ import annotations

import hashlib
from typing import Any

from app.domain.integrity.canonical import chain_bytes_given, digest

INTEGRITY = "witness"


class SealBroken(ValueError):
    """A sealed document whose content is not what was exported."""


class SectionDigest:
    """The digest of a list section, fed one item at a time (as ``digest`` of the whole list)."""

    def __init__(self) -> None:
        self._hash = hashlib.sha256(b"[")
        self._first = True

    def add(self, item: Any, encoded: bytes) -> bytes:
        """Feed one item, given its ``canonical_bytes``; returns them."""
        self._hash.update((b"" if self._first else b",") + chain_bytes_given(item, encoded))
        self._first = False
        return encoded

    def hexdigest(self) -> str:
        """The section's digest."""
        done = self._hash.copy()
        done.update(b"]")
        return done.hexdigest()


def unsealed(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` without its seal, once every section matches it; SealBroken says where not."""
    if INTEGRITY not in doc:
        return doc
    seal = doc[INTEGRITY]
    digests = seal.get("digests") if isinstance(seal, dict) else None
    if not isinstance(digests, dict) or not all(isinstance(v, str) for v in digests.values()):
        raise SealBroken(f"{INTEGRITY}: not a seal (an object with 'digests' of each section)")
    body = {k: v for k, v in doc.items() if k != INTEGRITY}
    for key in sorted(set(body) | set(digests)):
        if key not in digests:
            raise SealBroken(f"{key}: a section the export did not hold")
        if key not in body:
            raise SealBroken(f"{key}: a section of the export is missing")
        if digest(body[key]) != digests[key]:
            raise SealBroken(f"{key}: not as exported (its digest differs)")
    return body
