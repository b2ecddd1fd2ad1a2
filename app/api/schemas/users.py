"""Wire schemas of the passport and user routes."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from app.api.schemas.records import reply_of
from app.domain.passport import TurnEntry


class UserOut(BaseModel):
    """A user of the tenant and where their passport stands."""

    user_key: str
    version: int
    created_at: datetime
    updated_at: datetime


class UserPage(BaseModel):
    """One page of users; pass next_cursor back as cursor for the next page."""

    items: list[UserOut]
    next_cursor: str | None


class TurnPage(BaseModel):
    """A page of turns, newest first; pass next_cursor back as cursor for older ones."""

    items: list[TurnEntry]
    next_cursor: str | None


class SessionOut(BaseModel):
    """One session of a user: its name, how many live turns it holds, when it was last spoken."""

    name: str
    turns: int
    last_ts: datetime | None = Field(description="The time of its newest turn, if it has one.")


class SessionPage(BaseModel):
    """A page of sessions, the one spoken in last first; next_cursor continues."""

    items: list[SessionOut]
    next_cursor: str | None


class PassportWritten(BaseModel):
    """Where the passport stands after a write."""

    user_key: str
    version: int
    created: bool
    changed: bool


class ForgottenOut(BaseModel):
    """What forgetting removed, from the passport now and from every stored version."""

    version: int = Field(description="The new version that records the forget.")
    turns: int = Field(description="Turns deleted.")
    derived_rows: int = Field(description="Observations, episodes and sources derived from them.")
    beliefs: int = Field(description="Facts, preferences, open loops, changes and entities.")
    versions_rewritten: int = Field(description="Earlier versions rewritten without them.")
    payloads_scrubbed: int = Field(description="Stored job payloads the turns were taken out of.")
    cached_extractions: int = Field(description="Cached model extractions dropped.")
    rows_rewritten: int = Field(
        description="Rows that stay with the forgotten turns taken out (a source's turn list)."
    )
    receipt: ReceiptOut = Field(description="The signed erasure receipt, also kept by the API.")


class ReceiptOut(BaseModel):
    """A signed account of what a forget removed from each store; holds no content."""

    id: uuid.UUID
    tenant_id: uuid.UUID
    user_key: str
    scope: str = Field(description="turn, source, session or user")
    target: str | None = Field(description="The turn id or source id forgotten (user: none).")
    at: str = Field(description="When, in UTC (ISO 8601).")
    version: int | None = Field(description="The version that records the forget (user: none).")
    root: str | None = Field(
        description="The chain's root after the forget (user: the root of the history deleted)."
    )
    actor: str = Field(description="The prefix of the API key that asked ('' if none).")
    removed: dict[str, int] = Field(description="How much went, per store.")
    redacted: list[str] = Field(
        description="Content hashes of the log rows deleted; the chain keeps them, marked redacted."
    )
    algorithm: str | None = Field(description="HMAC-SHA256, or none when unsigned.")
    signature: str | None = Field(
        description="Hex HMAC of the receipt's canonical JSON without this field (docs/memory.md)."
    )


class IntegrityOut(BaseModel):
    """What recomputing a user's hash chain from the stored rows found."""

    valid: bool
    root: str = Field(description="The root the passport holds (its newest version's hash).")
    versions: int = Field(description="Versions checked.")
    rows: int = Field(description="Log rows checked.")
    from_version: int = Field(description="The first version checked.")
    first_bad_version: int | None = Field(description="Where the chain first fails, if it does.")
    reason: str | None = Field(description="Why it fails there.")
    root_version: int | None = Field(
        default=None,
        description="With ?root=: the checked version whose hash it is (null when none is).",
    )
    index_segments: int = Field(
        default=0,
        description="Stored index segments checked against the log and the chain (derived "
        "data a first read loads); one that differs makes the check fail, named in reason.",
    )


ForgottenOut.model_rebuild()


def forgotten_out(done: Any) -> ForgottenOut:
    """The reply of a forget (``app.services.forget.Forgotten``), with its receipt."""
    return reply_of(ForgottenOut, done, receipt=ReceiptOut.model_validate(done.receipt))
