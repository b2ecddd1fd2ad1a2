"""Erasure receipts: issued (signed, stored) by a forget or a deletion, read back later."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from app.db.models import ErasureReceipt
from app.db.repository import TenantRepository
from app.db.uow import UowFactory
from app.domain.integrity.receipts import signed
from app.services.errors import NotFound
from app.settings import Settings


def secret_of(settings: Settings) -> bytes | None:
    """The key receipts are signed with, if the deployment has one."""
    secret = settings.receipt_secret
    return secret.get_secret_value().encode("utf-8") if secret is not None else None


async def issue(
    repo: TenantRepository,
    user_key: str,
    what: dict[str, Any],
    now: datetime,
    secret: bytes | None,
) -> dict[str, Any]:
    """Sign and store a receipt of ``what`` (scope, target, removed counts, redacted hashes,
    root, version, actor) in the caller's transaction; the receipt as signed."""
    receipt_id = uuid.uuid4()
    body = {
        "id": str(receipt_id),
        "tenant_id": str(repo.tenant_id),
        "user_key": user_key,
        "at": now.isoformat().replace("+00:00", "Z"),
        **what,
    }
    receipt = signed(body, secret)
    await repo.add_receipt(
        ErasureReceipt(id=receipt_id, user_key=user_key, receipt=receipt, created_at=now)
    )
    return receipt


async def receipt(
    uows: UowFactory, tenant_id: uuid.UUID, user_key: str, receipt_id: uuid.UUID
) -> dict[str, Any]:
    """One of the user's erasure receipts, as it was signed (the user may be gone)."""
    async with uows() as uow:
        found = await uow.tenant(tenant_id).receipt(user_key, receipt_id)
    if found is None:
        raise NotFound(f"user {user_key!r} has no receipt {receipt_id}")
    return dict(found.receipt)
