"""Wire schemas of the passport and user routes."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field


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
