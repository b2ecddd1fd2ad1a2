"""Erasure receipts: what a forget removed where, signed so the holder can check it later.

The signature is HMAC-SHA256, keyed with the deployment's receipt secret, over the canonical
JSON of the receipt without its ``signature`` field.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

from app.domain.integrity.canonical import chain_bytes

ALGORITHM = "HMAC-SHA256"


def signature(receipt: dict[str, Any], secret: bytes) -> str:
    """The hex HMAC-SHA256 of a receipt (its ``signature`` field left out)."""
    body = {k: v for k, v in receipt.items() if k != "signature"}
    return hmac.new(secret, chain_bytes(body), hashlib.sha256).hexdigest()


def signed(receipt: dict[str, Any], secret: bytes | None) -> dict[str, Any]:
    """The receipt with its algorithm and signature (None, and unsigned, without a secret)."""
    out = {**receipt, "algorithm": ALGORITHM if secret else None}
    out["signature"] = signature(out, secret) if secret else None
    return out


def verify(receipt: dict[str, Any], secret: bytes) -> bool:
    """Whether a receipt is unchanged since it was signed with ``secret``."""
    given = receipt.get("signature")
    if not isinstance(given, str):
        return False
    return hmac.compare_digest(given, signature(receipt, secret))
