"""An agent's working memory: a user's newest turns (of one session), as they were said."""

from __future__ import annotations

import uuid
from typing import Any

from app.db.uow import UowFactory
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
