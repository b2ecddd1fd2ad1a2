"""Passport routes: read, import/replace, delete, list users."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Header, Query, Request, Response, status

from app.api.deps import SettingsDep, TenantDep, UowsDep, UserKey
from app.api.problems import COMMON, NOT_FOUND, PRECONDITION
from app.api.schemas.records import reply_of
from app.api.schemas.users import PassportWritten, UserOut, UserPage
from app.domain.passport import Passport
from app.services import passports

router = APIRouter(tags=["users"], responses={**COMMON, **NOT_FOUND})


@router.get(
    "/users/{key}/passport",
    name="get_passport",
    response_class=Response,
    responses={
        200: {"model": Passport, "description": "The passport (ETag: its version)."},
        304: {"description": "Not modified (If-None-Match matched)."},
    },
)
async def get_passport(
    key: UserKey,
    tenant: TenantDep,
    uows: UowsDep,
    request: Request,
    version: Annotated[int | None, Query(ge=0, description="A past version to rebuild.")] = None,
    if_none_match: Annotated[str | None, Header()] = None,
) -> Response:
    """The user's passport as JSON, now or as it was at ``version``."""
    if version is None and if_none_match is not None:
        # The one-row read of the context route: a 304 never loads the document.
        current = (await passports.fresh_stamp(request.app.state.read_uows, tenant, key)).version
        if passports.etag_matches(if_none_match, current):
            return Response(status_code=304, headers={"ETag": passports.etag(current)})
    found = await passports.read_passport(uows, tenant, key, version)
    return Response(
        found.body, media_type="application/json", headers={"ETag": passports.etag(found.version)}
    )


@router.put(
    "/users/{key}/passport",
    name="put_passport",
    responses={**PRECONDITION, 201: {"model": PassportWritten, "description": "Created."}},
)
async def put_passport(
    key: UserKey,
    tenant: TenantDep,
    uows: UowsDep,
    settings: SettingsDep,
    response: Response,
    doc: Annotated[dict[str, Any], Body(description="A passport document (format 1.x or 2.x).")],
    if_match: Annotated[str | None, Header()] = None,
) -> PassportWritten:
    """Import or replace the whole passport; ``If-Match`` guards against lost updates."""
    result = await passports.put_passport(
        uows,
        tenant,
        key,
        doc,
        if_match=if_match,
        snapshot_every=settings.version_snapshot_every,
    )
    response.headers["ETag"] = passports.etag(result.version)
    if result.created:
        response.status_code = status.HTTP_201_CREATED
    return reply_of(PassportWritten, result)


@router.delete("/users/{key}", status_code=status.HTTP_204_NO_CONTENT, name="delete_user")
async def delete_user(key: UserKey, tenant: TenantDep, uows: UowsDep, request: Request) -> Response:
    """Hard-delete the user: passport, versions, jobs and their stored payloads."""
    await passports.delete_user(uows, tenant, key)
    # Frees the memory here at once; other processes never serve it again either, because
    # their caches are keyed by the passport's stamp, which a re-created user does not share.
    request.app.state.context_cache.drop(tenant, key)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.get("/users", name="list_users")
async def list_users(
    tenant: TenantDep,
    uows: UowsDep,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    cursor: Annotated[str | None, Query(max_length=2048)] = None,
) -> UserPage:
    """The tenant's users in key order, a page at a time."""
    items, next_cursor = await passports.list_users(uows, tenant, limit, cursor)
    return UserPage(items=[reply_of(UserOut, i) for i in items], next_cursor=next_cursor)
