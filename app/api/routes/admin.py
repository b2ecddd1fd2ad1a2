"""Operator routes: tenants and keys, behind the admin token."""

from __future__ import annotations

import uuid
from datetime import datetime

from fastapi import APIRouter, Request, Response, status
from pydantic import BaseModel, Field

from app.api.deps import AdminDep, UowDep
from app.api.problems import ADMIN
from app.services import tenants

router = APIRouter(prefix="/admin", tags=["admin"], responses=ADMIN)


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


def _key_out(issued: tenants.IssuedKey) -> IssuedKeyOut:
    return IssuedKeyOut(
        tenant_id=issued.tenant_id,
        prefix=issued.prefix,
        key=issued.key,
        name=issued.name,
        created_at=issued.created_at,
    )


@router.post("/tenants", status_code=status.HTTP_201_CREATED, name="create_tenant")
async def create_tenant(body: TenantCreate, uow: UowDep, _: AdminDep) -> TenantCreated:
    """Create a tenant; the reply holds its first API key, shown once."""
    tenant, issued = await tenants.create_tenant(uow, body.name)
    return TenantCreated(
        tenant=TenantOut(id=tenant.id, name=tenant.name, created_at=tenant.created_at),
        api_key=_key_out(issued),
    )


@router.get("/tenants", name="list_tenants")
async def list_tenants(uow: UowDep, _: AdminDep) -> list[TenantOut]:
    """List every tenant."""
    rows = await tenants.list_tenants(uow)
    return [TenantOut(id=t.id, name=t.name, created_at=t.created_at) for t in rows]


@router.post("/tenants/{tenant_id}/keys", status_code=status.HTTP_201_CREATED, name="create_key")
async def create_key(
    tenant_id: uuid.UUID, uow: UowDep, _: AdminDep, body: KeyCreate | None = None
) -> IssuedKeyOut:
    """Issue another API key for a tenant (shown once)."""
    issued = await tenants.create_key(uow, str(tenant_id), body.name if body else "")
    return _key_out(issued)


@router.delete("/keys/{prefix}", status_code=status.HTTP_204_NO_CONTENT, name="revoke_key")
async def revoke_key(prefix: str, uow: UowDep, _: AdminDep, request: Request) -> Response:
    """Revoke a key by its prefix; it gets 401 from then on."""
    await tenants.revoke_key(uow, prefix, request.app.state.key_cache)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
