"""Version history listing and the cursors of paginated listings."""

from __future__ import annotations

import base64
import uuid
from datetime import datetime

from app.db.models import PassportVersion
from app.db.uow import UnitOfWork
from app.services import passports
from app.services.errors import Unprocessable


async def list_versions(
    uow: UnitOfWork, tenant_id: uuid.UUID, user_key: str, limit: int, before: int | None
) -> list[PassportVersion]:
    """A user's versions, newest first, below an optional version cursor."""
    await passports.current_version(uow, tenant_id, user_key)
    return list(await uow.tenant(tenant_id).list_versions(user_key, limit, before))


def time_cursor(when: datetime) -> str:
    """An opaque, URL-safe cursor for a timestamp."""
    return base64.urlsafe_b64encode(when.isoformat().encode()).decode().rstrip("=")


def parse_time_cursor(cursor: str) -> datetime:
    """The timestamp inside a cursor, or Unprocessable."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        return datetime.fromisoformat(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise Unprocessable("malformed cursor") from exc
