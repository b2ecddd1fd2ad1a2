"""The passport inspector: one page at /ui and the HTML fragments its script loads into it.

The page asks for the tenant's key once and keeps it in the tab's session storage; its script
sends it, as any REST client does, in the Authorization header of each request for a fragment
(rendered here from the services the REST routes call) or to the REST API itself (the context
an agent gets, forgetting a turn). None of this is in the OpenAPI spec.
"""

from __future__ import annotations

from pathlib import Path as FilePath
from typing import Annotated, Any, Literal

import orjson
from fastapi import APIRouter, FastAPI, Path, Query, Request
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates

from app.api.deps import HeavyDep, TenantDep, UowsDep, UserKey, runtime_of
from app.api.schemas.params import MAX_ROW_ID, MAX_VERSION, Period
from app.services import integrity, passports, versions
from app.services.embedding import in_process
from app.services.reading import date_window
from app.ui import view

HERE = FilePath(__file__).parent
# Everything the page loads comes from this origin, and nothing inline runs or styles it.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    # Fragments hold a tenant's data: no cache keeps them after the tab is closed.
    "Cache-Control": "no-store",
}
USERS_PAGE = 25
BELIEFS_PAGE = 50
TIMELINE_PAGE = 50
VERSIONS_PAGE = 20
VERSION_ITEMS = 100
TIMELINE = ("turns", "observations", "episodes")

templates = Jinja2Templates(directory=HERE / "templates")
templates.env.filters["readable"] = view.readable
templates.env.filters["quoted"] = view.quoted
templates.env.globals.update(titles=view.TITLES, describe=view.describe, turn_ids=view.turn_ids)
router = APIRouter(prefix="/ui", include_in_schema=False)

Version = Annotated[int | None, Query(ge=0, le=MAX_VERSION)]


def html(request: Request, name: str, **context: Any) -> HTMLResponse:
    """A template rendered with the inspector's security headers."""
    return templates.TemplateResponse(request, name, context, headers=HEADERS)


@router.get("")
async def page(request: Request) -> HTMLResponse:
    """The inspector page: asks for the key, then shows users and their passports."""
    return html(request, "page.html")


@router.get("/f/users")
async def users(
    request: Request,
    tenant: TenantDep,
    uows: UowsDep,
    q: Annotated[str, Query(max_length=256)] = "",
    cursor: Annotated[str | None, Query(max_length=2048)] = None,
) -> HTMLResponse:
    """A page of the tenant's users, those whose key holds ``q`` when it is given."""
    items, next_cursor = await passports.list_users(uows, tenant, USERS_PAGE, cursor, q or None)
    return html(request, "users.html", items=items, next_cursor=next_cursor, q=q, cursor=cursor)


@router.get("/f/users/{key}")
async def user(request: Request, key: UserKey, tenant: TenantDep, uows: UowsDep) -> HTMLResponse:
    """A user's heading (version, since when) and the tabs of what can be seen of them."""
    stamp = await passports.fresh_stamp(uows, tenant, key)
    return html(request, "user.html", key=key, stamp=stamp)


@router.get("/f/users/{key}/beliefs")
async def beliefs(
    request: Request,
    key: UserKey,
    tenant: TenantDep,
    uows: UowsDep,
    version: Version = None,
    section: Literal[
        "instructions", "values", "facts", "prefs", "entities", "open_loops", "contradictions"
    ]
    | None = None,
    offset: Annotated[int, Query(ge=0, le=10_000_000)] = 0,
) -> HTMLResponse:
    """What is believed (now or at a version), each belief with when and where it was said."""
    current = (await passports.fresh_stamp(uows, tenant, key)).version
    exported = await passports.export(uows, tenant, key, version, passports.HEAD)
    doc = orjson.loads(await exported.body())
    shown = [
        view.page_of(name, doc.get(name) or [], offset if name == section else 0, BELIEFS_PAGE)
        for name in view.BELIEFS
        if section in (None, name)
    ]
    items = [item for part in shown for item in part.items if isinstance(item, dict)]
    named = {t for item in items for t in view.turn_ids(item)}
    by_id = await passports.turns_by_id(uows, tenant, key, named, exported.version)
    # A belief that names no message came from one of its source's: the page shows which.
    sources = {
        str(source)
        for i in items
        if not view.turn_ids(i) and (source := i.get("source") or i.get("source_new"))
    }
    by_source = await passports.turns_of_sources(uows, tenant, key, sources)
    return html(
        request,
        "beliefs.html",
        key=key,
        shown=shown,
        said=lambda section, item: view.said(section, item, by_id, by_source),
        sentence=lambda section, item: view.sentence(section, item, doc),
        version=exported.version,
        current=current,
        only=section,
    )


@router.get("/f/users/{key}/timeline")
async def timeline(
    request: Request,
    key: UserKey,
    tenant: TenantDep,
    uows: UowsDep,
    since: Period | None = None,
    until: Period | None = None,
    after: Annotated[int | None, Query(ge=0, le=MAX_ROW_ID)] = None,
) -> HTMLResponse:
    """A page of what was said and what happened, by day, optionally between two dates."""
    window = date_window(since, until)
    found = await passports.page(
        uows,
        tenant,
        key,
        passports.PageQuery(
            version=None,
            sections=TIMELINE,
            after=after,
            limit=TIMELINE_PAGE,
            since=window.since_time,
            until=window.until_time,
        ),
    )
    days = view.days(orjson.loads(found.body), TIMELINE)
    return html(
        request,
        "timeline.html",
        key=key,
        days=days,
        since=since or "",
        until=until or "",
        after=after,
        next_cursor=found.next_cursor,
    )


@router.get("/f/users/{key}/versions")
async def version_list(
    request: Request, key: UserKey, tenant: TenantDep, uows: UowsDep, cursor: Version = None
) -> HTMLResponse:
    """A page of the passport's versions, newest first."""
    found = await versions.list_versions(uows, tenant, key, VERSIONS_PAGE, cursor)
    return html(
        request,
        "versions.html",
        key=key,
        items=found.items,
        next_cursor=found.next_cursor,
        first_page=cursor is None,
    )


@router.get("/f/users/{key}/integrity")
async def integrity_check(
    request: Request, key: UserKey, tenant: TenantDep, heavy: HeavyDep, uows: UowsDep
) -> HTMLResponse:
    """The answer of the history's integrity check: whole, or where it breaks; and the root."""
    model = in_process(runtime_of(request).caches.embedder)
    found = await integrity.check(uows, tenant, key, model=model)
    return html(request, "integrity.html", found=found)


@router.get("/f/users/{key}/versions/{version}")
async def version_changes(
    request: Request,
    key: UserKey,
    version: Annotated[int, Path(ge=0, le=MAX_VERSION)],
    tenant: TenantDep,
    heavy: HeavyDep,
    uows: UowsDep,
) -> HTMLResponse:
    """What one version changed, as lines to read, section by section."""
    found = await versions.version_changes(uows, tenant, key, version, VERSION_ITEMS)
    changed = [
        view.section_changes(name, found.items[name], found.view.summary.get(name))
        for name in view.TITLES
        if name in found.items
    ]
    return html(request, "version.html", key=key, found=found, changed=changed)


@router.get("/f/users/{key}/agent")
async def agent(request: Request, key: UserKey, tenant: TenantDep, uows: UowsDep) -> HTMLResponse:
    """The question box and budget slider that show the context an agent would get."""
    stamp = await passports.fresh_stamp(uows, tenant, key)
    return html(request, "agent.html", key=key, stamp=stamp)


def mount(app: FastAPI) -> None:
    """Serve the inspector at /ui, its script and style sheet at /ui/static."""
    app.include_router(router)
    app.mount("/ui/static", StaticFiles(directory=HERE / "static"), name="ui-static")
