"""API key format ``tsr_<prefix>_<secret>``: parsing and hashing (generation needs randomness)."""

from __future__ import annotations

import hashlib
import hmac
import re

KEY_PREFIX = "tsr"
_KEY_RE = re.compile(r"^tsr_([a-z0-9]{8,32})_([A-Za-z0-9]{16,128})$")


def format_key(prefix: str, secret: str) -> str:
    """Assemble a key from its public prefix and secret."""
    return f"{KEY_PREFIX}_{prefix}_{secret}"


def key_prefix(key: str) -> str | None:
    """The public prefix of a well-formed key, else None."""
    match = _KEY_RE.match(key)
    return match.group(1) if match else None


def hash_key(key: str) -> str:
    """SHA-256 hex of the full key: the only form stored."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def key_matches(key: str, stored_sha256: str) -> bool:
    """Constant-time comparison of a presented key with a stored hash."""
    return hmac.compare_digest(hash_key(key), stored_sha256)
