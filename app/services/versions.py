"""Version history listing and the cursors of paginated listings."""

from __future__ import annotations

import base64
import uuid
from datetime import datetime

from app.db.uow import UowFactory
from app.services import passports
from app.services.errors import Unprocessable
from app.services.views import VersionView, version_view


async def list_versions(
    uows: UowFactory, tenant_id: uuid.UUID, user_key: str, limit: int, before: int | None
) -> list[VersionView]:
    """A user's versions, newest first, below an optional version cursor."""
    async with uows() as uow:
        repo = uow.tenant(tenant_id)
        await passports.require_user(repo, user_key)
        return [version_view(row) for row in await repo.list_versions(user_key, limit, before)]


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
