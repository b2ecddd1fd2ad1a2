"""An agent's working memory: a user's newest turns (of one session), one turn, the sessions."""

from __future__ import annotations

import uuid
from typing import Any

from app.db.conversations import SessionInfo
from app.db.uow import UowFactory
from app.services import passports
from app.services.errors import NotFound
from app.services.paging import Listing, Page, page_of_user


async def recent_turns(
    uows: UowFactory,
    tenant_id: uuid.UUID,
    user_key: str,
    session: str | None,
    limit: int,
    before: int | None,
) -> Page[dict[str, Any]]:
    """A page of the user's live turns (of ``session`` if given), newest first, below a cursor."""
    listing = Listing(
        lambda repo, n: repo.recent_turns(user_key, session, before, n),
        lambda row: dict(row.item),
        lambda row: row.id,
    )
    return await page_of_user(uows, tenant_id, user_key, limit, listing)


async def turn(uows: UowFactory, tenant_id: uuid.UUID, user_key: str, turn_id: str) -> Any:
    """The live turn with this client id (the newest, if the client reused the id)."""
    found = await passports.read_of_user(
        uows, tenant_id, user_key, lambda repo: repo.turns_with_ids(user_key, {turn_id}, None)
    )
    if not found:
        raise NotFound(f"user {user_key!r} has no turn {turn_id!r}")
    return dict(found[-1].item)


async def sessions(
    uows: UowFactory,
    tenant_id: uuid.UUID,
    user_key: str,
    prefix: str | None,
    limit: int,
    before: int | None,
) -> Page[SessionInfo]:
    """A page of the user's sessions (named from ``prefix``), the one spoken in last first."""
    listing = Listing(
        lambda repo, n: repo.sessions(user_key, prefix, before, n),
        lambda info: info,
        lambda info: info.last_row,
    )
    return await page_of_user(uows, tenant_id, user_key, limit, listing)
