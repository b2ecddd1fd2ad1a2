"""Reading routes: the budgeted context an agent puts in its prompt, and search."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Header, Query, Request, Response

from app.api.bodies import BodyRoute
from app.api.deps import MinVersion, TenantDep, UserKey, at_least, runtime_of
from app.api.problems import COMMON, CONFLICT, NOT_FOUND
from app.api.schemas.params import Period
from app.api.schemas.reading import SearchResult, search_result
from app.services import reading

router = APIRouter(
    route_class=BodyRoute, tags=["context"], responses={**COMMON, **NOT_FOUND, **CONFLICT}
)

Q = Annotated[
    str | None,
    Query(max_length=2000, description="What the agent is about to answer; ranks memories."),
]
Since = Annotated[
    Period | None,
    Query(description="Only memories on or after this day, month (YYYY-MM) or year (YYYY)."),
]
Until = Annotated[
    Period | None,
    Query(description="Only memories up to the end of this day, month or year."),
]


@router.get(
    "/users/{key}/context",
    name="get_context",
    response_class=Response,
    responses={
        200: {
            "description": "The context as text/plain; with format=json, application/json "
            "sections (each ranked item with its score and provenance).",
            "content": {
                "text/plain": {"schema": {"type": "string"}},
                "application/json": {"schema": {"type": "object"}},
            },
        },
        304: {"description": "Not modified (If-None-Match matched)."},
    },
)
async def get_context(
    key: UserKey,
    tenant: TenantDep,
    request: Request,
    q: Q = None,
    budget_chars: Annotated[
        int, Query(ge=400, le=100_000, description="Most characters of text returned.")
    ] = 3000,
    format: Annotated[Literal["text", "json"], Query()] = "text",
    since: Since = None,
    until: Until = None,
    min_version: MinVersion = None,
    if_none_match: Annotated[str | None, Header()] = None,
) -> Response:
    """Beliefs that matter for ``q``, then the memories that answer it, within the budget."""
    runtime = runtime_of(request)
    wanted = at_least(request, min_version)
    ask = reading.ContextQuery(q, budget_chars, format, since, until, if_none_match, wanted)
    reply = await reading.read_context(runtime.read_uows, runtime.caches, tenant, key, ask)
    headers = {"ETag": reply.etag, "X-Passport-Version": str(reply.version)}
    if reply.not_modified:
        return Response(status_code=304, headers=headers)
    return Response(reply.body, media_type=reply.media_type, headers=headers)


@router.get("/users/{key}/search", name="search")
async def search(
    key: UserKey,
    tenant: TenantDep,
    request: Request,
    q: Annotated[str, Query(min_length=1, max_length=2000)],
    limit: Annotated[int, Query(ge=1, le=200)] = 20,
    since: Since = None,
    until: Until = None,
    min_version: MinVersion = None,
) -> SearchResult:
    """The log's passages ranked for ``q`` (one per turn), with scores and provenance."""
    window = reading.date_window(since, until)
    runtime = runtime_of(request)
    wanted = at_least(request, min_version)
    index, stamp = await reading.index_for(runtime.read_uows, runtime.caches, tenant, key, wanted)
    hits = await reading.search_memories(runtime.caches, index, q, limit, window)
    return search_result(stamp.version, hits)
