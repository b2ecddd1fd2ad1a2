"""Where a write comes from: who asked, and the request's preconditions."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Origin:
    """The prefix of the API key that asked for a write (the version's actor in the hash chain,
    '' for none), and the request's ``Idempotency-Key`` and ``If-Match`` headers."""

    actor: str = ""
    idempotency_key: str | None = None
    if_match: str | None = None


ANONYMOUS = Origin()
