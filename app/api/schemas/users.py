"""Wire schemas of the passport and user routes."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel


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
