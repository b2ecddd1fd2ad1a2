"""Tenants and API keys."""

from __future__ import annotations

import secrets
import string
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from app.db.models import ApiKey, Tenant
from app.db.uow import Uow, UowFactory
from app.domain.apikeys import format_key, hash_key, key_matches, key_prefix
from app.services.cache import KeyCache
from app.services.errors import NotFound
from app.services.views import TenantView, tenant_view

_ALPHABET = string.ascii_lowercase + string.digits
_SECRET_ALPHABET = string.ascii_letters + string.digits
# Writing last_used_at on every request would turn reads into writes; once a minute is enough.
_TOUCH_EVERY = timedelta(minutes=1)


@dataclass(frozen=True)
class IssuedKey:
    """A newly created key: the full key is shown once and never stored."""

    tenant_id: uuid.UUID
    prefix: str
    key: str
    name: str
    created_at: datetime


def _new_key() -> tuple[str, str]:
    prefix = "".join(secrets.choice(_ALPHABET) for _ in range(10))
    secret = "".join(secrets.choice(_SECRET_ALPHABET) for _ in range(40))
    return prefix, format_key(prefix, secret)


async def _issue(uow: Uow, tenant_id: uuid.UUID, name: str) -> IssuedKey:
    prefix, key = _new_key()
    now = datetime.now(UTC)
    row = ApiKey(
        id=uuid.uuid4(),
        tenant_id=tenant_id,
        prefix=prefix,
        key_sha256=hash_key(key),
        name=name,
        created_at=now,
    )
    await uow.system.add_key(row)
    return IssuedKey(tenant_id=tenant_id, prefix=prefix, key=key, name=name, created_at=now)


async def create_tenant(uows: UowFactory, name: str) -> tuple[TenantView, IssuedKey]:
    """Create a tenant with its first API key."""
    tenant = Tenant(id=uuid.uuid4(), name=name, created_at=datetime.now(UTC), limits={})
    async with uows() as uow:
        await uow.system.add_tenant(tenant)
        issued = await _issue(uow, tenant.id, "default")
        await uow.commit()
    return tenant_view(tenant), issued


async def list_tenants(uows: UowFactory) -> list[TenantView]:
    """Every tenant."""
    async with uows() as uow:
        return [tenant_view(row) for row in await uow.system.list_tenants()]


async def create_key(uows: UowFactory, tenant: str, name: str = "") -> IssuedKey:
    """Issue another key for a tenant given by id or name."""
    async with uows() as uow:
        row = await uow.system.find_tenant(tenant)
        if row is None:
            raise NotFound(f"no tenant {tenant!r}")
        issued = await _issue(uow, row.id, name)
        await uow.commit()
    return issued


async def revoke_key(uows: UowFactory, prefix: str, cache: KeyCache | None = None) -> None:
    """Revoke a key by its public prefix; requests with it get 401 from now on."""
    async with uows() as uow:
        row = await uow.system.key_by_prefix(prefix)
        if row is None or row.revoked_at is not None:
            raise NotFound(f"no live key with prefix {prefix!r}")
        await uow.system.revoke_key(row.id, datetime.now(UTC))
        await uow.commit()
    if cache is not None:
        cache.forget_prefix(prefix)


async def authenticate(
    uows: UowFactory, key: str, cache: KeyCache | None = None
) -> uuid.UUID | None:
    """The tenant a presented key belongs to, or None for unknown, malformed or revoked keys."""
    prefix = key_prefix(key)
    if prefix is None:
        return None
    digest = hash_key(key)
    # A cache hit opens no unit of work: most requests then touch no database at all.
    if cache is not None and (cached := cache.get(digest)) is not None:
        return cached
    if cache is not None and cache.refused(digest):
        return None
    async with uows() as uow:
        row = await uow.system.key_by_prefix(prefix)
        if row is None or row.revoked_at is not None or not key_matches(key, row.key_sha256):
            if cache is not None:
                cache.refuse(digest)
            return None
        if cache is not None:
            cache.put(digest, row.tenant_id, prefix)
        now = datetime.now(UTC)
        if row.last_used_at is None or now - row.last_used_at > _TOUCH_EVERY:
            await uow.system.touch_key(row.id, now)
            await uow.commit()
        return row.tenant_id
