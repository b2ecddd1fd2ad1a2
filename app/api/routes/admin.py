"""Operator routes: tenants and keys, behind the admin token."""

from __future__ import annotations

import uuid

from fastapi import APIRouter, Request, Response, status

from app.api.bodies import BodyRoute
from app.api.deps import AdminDep, UowsDep, runtime_of
from app.api.problems import ADMIN
from app.api.schemas.admin import (
    IssuedKeyOut,
    KeyCreate,
    TenantCreate,
    TenantCreated,
    TenantOut,
    key_out,
    tenant_out,
)
from app.services import tenants

router = APIRouter(route_class=BodyRoute, prefix="/admin", tags=["admin"], responses=ADMIN)


@router.post("/tenants", status_code=status.HTTP_201_CREATED, name="create_tenant")
async def create_tenant(body: TenantCreate, uows: UowsDep, _: AdminDep) -> TenantCreated:
    """Create a tenant; the reply holds its first API key, shown once."""
    tenant, issued = await tenants.create_tenant(uows, body.name)
    return TenantCreated(tenant=tenant_out(tenant), api_key=key_out(issued))


@router.get("/tenants", name="list_tenants")
async def list_tenants(uows: UowsDep, _: AdminDep) -> list[TenantOut]:
    """List every tenant."""
    return [tenant_out(t) for t in await tenants.list_tenants(uows)]


@router.post("/tenants/{tenant_id}/keys", status_code=status.HTTP_201_CREATED, name="create_key")
async def create_key(
    tenant_id: uuid.UUID, uows: UowsDep, _: AdminDep, body: KeyCreate | None = None
) -> IssuedKeyOut:
    """Issue another API key for a tenant (shown once)."""
    return key_out(await tenants.create_key(uows, str(tenant_id), body.name if body else ""))


@router.delete("/keys/{prefix}", status_code=status.HTTP_204_NO_CONTENT, name="revoke_key")
async def revoke_key(prefix: str, uows: UowsDep, _: AdminDep, request: Request) -> Response:
    """Revoke a key by its prefix; it gets 401 from then on."""
    await tenants.revoke_key(uows, prefix, runtime_of(request).key_cache)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
