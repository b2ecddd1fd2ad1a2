"""Reading routes: the budgeted context an agent puts in its prompt, and search."""

from __future__ import annotations

from typing import Annotated, Literal

import orjson
from fastapi import APIRouter, Header, Query, Request, Response
from pydantic import BaseModel, Field

from app.api.deps import TenantDep, UserKey
from app.api.problems import COMMON, NOT_FOUND
from app.api.schemas.params import Period
from app.services import context

router = APIRouter(tags=["context"], responses={**COMMON, **NOT_FOUND})

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


class SearchHit(BaseModel):
    """One ranked memory with its provenance."""

    kind: str = Field(description="observation or episode")
    text: str
    date: str | None
    score: float
    source: str | None = Field(description="The passport source (segment) it came from.")
    turn_ids: list[str] = Field(description="The client's own message ids behind it.")
    participants: list[str]


class SearchResult(BaseModel):
    """Ranked observations and episodes."""

    version: int
    items: list[SearchHit]


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
    if_none_match: Annotated[str | None, Header()] = None,
) -> Response:
    """Facts and preferences, then the memories that matter for ``q``, within the budget."""
    window = context.Window.parse(since, until)
    state = request.app.state
    # Warm, this one-row read is the only database work.
    stamp = await context.current_stamp(state.read_uows, tenant, key)
    params = (q, budget_chars, format, since, until)
    etag = context.context_etag(stamp, params)
    headers = {"ETag": etag, "X-Passport-Version": str(stamp.version)}
    if if_none_match is not None and etag in {t.strip() for t in if_none_match.split(",")}:
        return Response(status_code=304, headers=headers)
    # The same read of the same passport gives the same bytes: agents repeat questions.
    cache_key = (tenant, key, etag)
    cached = state.context_results.get(cache_key)
    if cached is None:
        index, built = await context.index_at(
            state.read_uows, state.context_cache, tenant, key, stamp
        )
        if built != stamp:  # a new version landed before the build read the row
            stamp = built
            etag = context.context_etag(stamp, params)
            headers = {"ETag": etag, "X-Passport-Version": str(stamp.version)}
            cache_key = (tenant, key, etag)
        chosen = context.render(index, q, budget_chars, window)
        if format == "json":
            body = {"version": stamp.version, "budget_chars": budget_chars, **chosen.to_json()}
            cached = (orjson.dumps(body), "application/json")
        else:
            cached = (chosen.render_text().encode(), "text/plain; charset=utf-8")
        state.context_results.put(cache_key, *cached)
    return Response(cached[0], media_type=cached[1], headers=headers)


@router.get("/users/{key}/search", name="search")
async def search(
    key: UserKey,
    tenant: TenantDep,
    request: Request,
    q: Annotated[str, Query(min_length=1, max_length=2000)],
    limit: Annotated[int, Query(ge=1, le=200)] = 20,
    since: Since = None,
    until: Until = None,
) -> SearchResult:
    """Observations and episodes ranked for ``q``, with scores and provenance."""
    window = context.Window.parse(since, until)
    state = request.app.state
    index, stamp = await context.index_for(state.read_uows, state.context_cache, tenant, key)
    hits = context.search_memories(index, q, limit, window)
    items = []
    for hit in hits:
        m = hit.memory
        items.append(
            SearchHit(
                kind=m.kind,
                text=m.text,
                date=m.date_label,
                score=round(float(hit.score), 6),
                source=hit.source,
                turn_ids=list(hit.turn_ids),
                participants=list(m.participants),
            )
        )
    return SearchResult(version=stamp.version, items=items)
