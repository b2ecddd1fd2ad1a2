"""Wire schemas of the admin routes: tenants and keys."""

from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import BaseModel, Field

from app.api.schemas.records import reply_of
from app.services.tenants import IssuedKey
from app.services.views import TenantView


class TenantCreate(BaseModel):
    """A new tenant."""

    name: str = Field(min_length=1, max_length=200, pattern=r"^[^\x00-\x1f\x7f]+$")


class KeyCreate(BaseModel):
    """A new key's label."""

    name: str = Field(default="", max_length=200, pattern=r"^[^\x00-\x1f\x7f]*$")


class TenantOut(BaseModel):
    """A tenant."""

    id: uuid.UUID
    name: str
    created_at: datetime


class IssuedKeyOut(BaseModel):
    """A new API key. The full key is shown this once and never stored."""

    tenant_id: uuid.UUID
    prefix: str
    key: str
    name: str
    created_at: datetime


class TenantCreated(BaseModel):
    """A new tenant and its first API key (shown once)."""

    tenant: TenantOut
    api_key: IssuedKeyOut


def key_out(issued: IssuedKey) -> IssuedKeyOut:
    """The reply for a newly issued key."""
    return reply_of(IssuedKeyOut, issued)


def tenant_out(tenant: TenantView) -> TenantOut:
    """The reply for a tenant."""
    return reply_of(TenantOut, tenant)
