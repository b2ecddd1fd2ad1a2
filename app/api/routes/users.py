"""Passport routes: read, import/replace, delete, list users."""

from __future__ import annotations

import uuid
from collections.abc import Coroutine
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Header, Path, Query, Request, Response, status
from fastapi.responses import StreamingResponse

from app.api.bodies import BodyRoute
from app.api.deps import (
    ActorDep,
    HeavyDep,
    MinVersion,
    RuntimeDep,
    SettingsDep,
    TenantDep,
    UowsDep,
    UserKey,
    at_least,
    runtime_of,
)
from app.api.problems import COMMON, CONFLICT, NOT_FOUND, PRECONDITION
from app.api.schemas.params import MAX_ROW_ID, MAX_VERSION, Period
from app.api.schemas.records import page_of, reply_of
from app.api.schemas.users import (
    ForgottenOut,
    IntegrityOut,
    PassportWritten,
    ReceiptOut,
    SessionOut,
    SessionPage,
    TurnPage,
    UserOut,
    UserPage,
    forgotten_out,
)
from app.domain.passport import (
    SECTIONS,
    USER_KEY_MAX_CHARS,
    USER_KEY_PATTERN,
    Passport,
    TurnEntry,
)
from app.runtime import Runtime
from app.services import forget, integrity, passports, reading, receipts, turns
from app.services.embedding import in_process
from app.services.errors import Behind, NotFound, Unprocessable
from app.services.heavy import HeavySlots
from app.services.origin import Origin
from app.services.reading import date_window

# Log rows in a page when ``limit`` is not given.
DEFAULT_PAGE = 500
# The response header that names the chain's root at the version served.
ROOT_HEADER = "X-Tessera-Root"

router = APIRouter(route_class=BodyRoute, tags=["users"], responses={**COMMON, **NOT_FOUND})


SECTION_NAMES = (*SECTIONS, "meta")
_SECTION = "(?:" + "|".join(SECTION_NAMES) + ")"
SectionList = Annotated[
    str | None,
    Query(
        max_length=200,
        pattern=f"^{_SECTION}(?:,{_SECTION})*$",
        description="Only these sections, comma-separated: "
        + ", ".join(SECTION_NAMES)
        + " (version, user_key and updated_at always come).",
    ),
]


def _sections(value: str | None) -> list[str] | None:
    if value is None:
        return None
    names = list(dict.fromkeys(value.split(",")))
    unknown = [n for n in names if n not in SECTION_NAMES]
    if unknown:
        raise Unprocessable(
            f"sections: unknown {', '.join(unknown)} (known: {', '.join(SECTION_NAMES)})"
        )
    return names


@router.get(
    "/users/{key}/passport",
    name="get_passport",
    response_class=Response,
    responses={
        200: {
            "model": Passport,
            "description": "The passport (ETag: its version; X-Tessera-Root: the chain's hash "
            "at that version). Whole, it holds its seal, ``witness``. With ``limit`` (or "
            "``after``), one page of its log: ``X-Next-Cursor`` and a ``Link`` header name the "
            "next page.",
        },
        304: {"description": "Not modified (If-None-Match matched)."},
        **CONFLICT,
    },
)
async def get_passport(
    key: UserKey,
    tenant: TenantDep,
    request: Request,
    version: Annotated[
        int | None, Query(ge=0, le=MAX_VERSION, description="A past version to rebuild.")
    ] = None,
    sections: SectionList = None,
    after: Annotated[
        int | None,
        Query(ge=0, le=MAX_ROW_ID, description="Page cursor: the log row id to continue after."),
    ] = None,
    limit: Annotated[
        int | None,
        Query(ge=1, le=5000, description="Page the log: at most this many rows of it."),
    ] = None,
    since: Annotated[
        Period | None, Query(description="With a page: only log rows on or after this date.")
    ] = None,
    until: Annotated[
        Period | None, Query(description="With a page: only log rows up to the end of this date.")
    ] = None,
    format: Annotated[
        Literal["native", "sozograph"],
        Query(
            description="native: everything Tessera keeps (lossless round trip); sozograph: "
            "each item with only the fields the SozoGraph library reads."
        ),
    ] = "native",
    min_version: MinVersion = None,
    if_none_match: Annotated[str | None, Header()] = None,
) -> Response:
    """The user's passport as JSON, now or as it was at ``version``; whole (streamed) or paged."""
    chosen = _sections(sections)
    # From the replica (if there is one), or from the primary when the replica has not replayed
    # the version asked for yet (a past one, or the min_version a write reported).
    runtime = runtime_of(request)
    wanted = at_least(request, min_version)
    if version is not None:  # a past version is there or not: nothing to wait for
        wanted = reading.AtLeast(version, 0.0, runtime.primary_reads)
    try:
        uows, stamp = await reading.source_at_least(runtime.read_uows, tenant, key, wanted)
    except Behind as exc:
        if version is None:
            raise
        current = f"(current: {exc.served})"
        raise NotFound(f"user {key!r} has no version {version} {current}") from None
    if version is None and passports.etag_matches(if_none_match, stamp.version):
        # The one-row read of the context route: a 304 never loads the document.
        return Response(status_code=304, headers={"ETag": passports.etag(stamp.version)})
    if limit is not None or after is not None or since is not None or until is not None:
        window = date_window(since, until)
        found = await passports.page(
            uows,
            tenant,
            key,
            passports.PageQuery(
                version=version,
                sections=chosen,
                after=after,
                limit=limit or DEFAULT_PAGE,
                since=window.since_time,
                until=window.until_time,
                for_sozograph=format == "sozograph",
            ),
        )
        headers = {"ETag": passports.etag(found.version), ROOT_HEADER: found.root}
        if found.next_cursor is not None:
            headers["X-Next-Cursor"] = str(found.next_cursor)
            nxt = request.url.include_query_params(after=found.next_cursor)
            headers["Link"] = f'<{nxt}>; rel="next"'
        return Response(found.body, media_type="application/json", headers=headers)
    exporting = passports.export(
        uows, tenant, key, version, chosen, for_sozograph=format == "sozograph"
    )
    return await _whole(runtime, tenant, exporting)


async def _whole(
    runtime: Runtime, tenant: uuid.UUID, exporting: Coroutine[Any, Any, passports.Export]
) -> StreamingResponse:
    """A whole export, streamed; it holds one of the tenant's heavy slots until its last byte
    is sent (it reads the whole history)."""
    slots = runtime.heavy or HeavySlots(0)
    try:
        slots.take(tenant)
    except BaseException:
        exporting.close()
        raise
    try:
        exported = await exporting
    except BaseException:
        slots.give_back(tenant)
        raise
    return StreamingResponse(
        slots.held_while(tenant, exported.chunks),
        media_type="application/json",
        headers={"ETag": passports.etag(exported.version), ROOT_HEADER: exported.root},
    )


@router.put(
    "/users/{key}/passport",
    name="put_passport",
    responses={**PRECONDITION, 201: {"model": PassportWritten, "description": "Created."}},
)
async def put_passport(
    key: UserKey,
    tenant: TenantDep,
    heavy: HeavyDep,
    uows: UowsDep,
    settings: SettingsDep,
    response: Response,
    actor: ActorDep,
    doc: Annotated[dict[str, Any], Body(description="A passport document (format 1.x or 2.x).")],
    if_match: Annotated[str | None, Header()] = None,
) -> PassportWritten:
    """Import or replace the whole passport; ``If-Match`` guards against lost updates.

    A document with an export's ``witness`` (its seal) is refused (422) when a section differs.
    """
    result = await passports.put_passport(
        uows,
        tenant,
        key,
        doc,
        settings=settings,
        origin=Origin(actor, if_match=if_match),
    )
    response.headers["ETag"] = passports.etag(result.version)
    if result.created:
        response.status_code = status.HTTP_201_CREATED
    return reply_of(PassportWritten, result)


@router.delete("/users/{key}", name="delete_user")
async def delete_user(
    key: UserKey, tenant: TenantDep, runtime: RuntimeDep, actor: ActorDep
) -> ReceiptOut:
    """Hard-delete the user: passport, versions, jobs and their stored payloads; the signed
    erasure receipt, which stays readable at ``/users/{key}/receipts/{id}``."""
    secret = receipts.secret_of(runtime.settings)
    found = await passports.delete_user(
        runtime.uows, runtime.caches, tenant, key, secret=secret, actor=actor
    )
    return ReceiptOut.model_validate(found)


@router.get("/users/{key}/receipts/{receipt_id}", name="get_receipt")
async def get_receipt(
    key: UserKey, receipt_id: uuid.UUID, tenant: TenantDep, uows: UowsDep
) -> ReceiptOut:
    """An erasure receipt again, as it was signed (kept after the user is deleted)."""
    return ReceiptOut.model_validate(await receipts.receipt(uows, tenant, key, receipt_id))


@router.get("/users/{key}/integrity", name="check_integrity")
async def check_integrity(
    request: Request,
    key: UserKey,
    tenant: TenantDep,
    heavy: HeavyDep,
    uows: UowsDep,
    from_version: Annotated[
        int,
        Query(
            ge=0,
            le=MAX_VERSION,
            description="Check the tail from this version (its predecessor's hash trusted).",
        ),
    ] = 0,
    root: Annotated[
        str | None,
        Query(
            pattern="^[0-9a-f]{64}$",
            description="A root kept elsewhere: root_version says which version has it.",
        ),
    ] = None,
) -> IntegrityOut:
    """Recompute the user's hash chain from the stored rows: valid, root, and where it breaks."""
    model = in_process(runtime_of(request).caches.embedder)
    found = await integrity.check(uows, tenant, key, from_version, root, model)
    return reply_of(IntegrityOut, found)


# No stored id holds a NUL (Postgres cannot, and an ingest that sends one is refused): an id
# with one names nothing, and is refused before it reaches the database.
NO_NUL = r"^[^\x00]+$"
ClientTurnId = Annotated[
    str,
    Path(
        min_length=1,
        max_length=200,
        pattern=NO_NUL,
        description="The client's id of the turn, as it was sent.",
    ),
]
SessionName = Annotated[
    str,
    Path(
        min_length=1,
        max_length=200,
        pattern=NO_NUL,
        description="The session's name, as the turns were sent with it.",
    ),
]
SourceId = Annotated[
    str,
    Path(
        min_length=1,
        max_length=64,
        pattern=NO_NUL,
        description="A source id (``seg_...``) of the passport.",
    ),
]


async def _forget(
    runtime: Runtime, tenant: uuid.UUID, key: str, target: forget.ForgetTarget
) -> ForgottenOut:
    done = await forget.forget(runtime.uows, runtime.caches, tenant, key, target, runtime.settings)
    return forgotten_out(done)


@router.delete("/users/{key}/turns/{turn_id:path}", name="forget_turn")
async def forget_turn(
    key: UserKey, turn_id: ClientTurnId, tenant: TenantDep, runtime: RuntimeDep, actor: ActorDep
) -> ForgottenOut:
    """Hard-delete a turn, and what was derived from it, from the passport and every version."""
    return await _forget(runtime, tenant, key, forget.ForgetTarget(turn_id=turn_id, actor=actor))


@router.delete("/users/{key}/sources/{source_id}", name="forget_source")
async def forget_source(
    key: UserKey, source_id: SourceId, tenant: TenantDep, runtime: RuntimeDep, actor: ActorDep
) -> ForgottenOut:
    """Hard-delete every turn of a source (one ingested segment) and what came of them."""
    return await _forget(runtime, tenant, key, forget.ForgetTarget(source=source_id, actor=actor))


# A page cursor of a listing of log rows: the row id the previous page ended on.
RowCursor = Annotated[
    int | None, Query(ge=1, le=MAX_ROW_ID, description="next_cursor of the previous page")
]


# What a session name in a query may be: as long as the column holds, never a NUL.
SESSION_TEXT: dict[str, Any] = {"min_length": 1, "max_length": 200, "pattern": NO_NUL}


@router.get("/users/{key}/turns", name="list_turns")
async def list_turns(
    key: UserKey,
    tenant: TenantDep,
    uows: UowsDep,
    session: Annotated[
        str | None, Query(**SESSION_TEXT, description="Only the turns of this session.")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=500, description="Most turns on one page.")] = 20,
    cursor: RowCursor = None,
) -> TurnPage:
    """The newest turns, verbatim, newest first: an agent's working memory of a session."""
    found = await turns.recent_turns(uows, tenant, key, session, limit, cursor)
    return page_of(TurnPage, found, lambda item: item)


@router.get("/users/{key}/turns/{turn_id:path}", name="get_turn")
async def get_turn(
    key: UserKey, turn_id: ClientTurnId, tenant: TenantDep, uows: UowsDep
) -> TurnEntry:
    """One turn, verbatim, by the client's id for it."""
    return TurnEntry.model_validate(await turns.turn(uows, tenant, key, turn_id))


@router.get("/users/{key}/sessions", name="list_sessions")
async def list_sessions(
    key: UserKey,
    tenant: TenantDep,
    uows: UowsDep,
    prefix: Annotated[
        str | None, Query(**SESSION_TEXT, description="Only sessions whose name starts so.")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=500, description="Most sessions on one page.")] = 50,
    cursor: RowCursor = None,
) -> SessionPage:
    """The user's sessions, the one spoken in last first, with their live turns counted."""
    found = await turns.sessions(uows, tenant, key, prefix, limit, cursor)
    return page_of(SessionPage, found, lambda info: SessionOut.model_validate(info.__dict__))


@router.delete("/users/{key}/sessions/{session:path}", name="forget_session")
async def forget_session(
    key: UserKey, session: SessionName, tenant: TenantDep, runtime: RuntimeDep, actor: ActorDep
) -> ForgottenOut:
    """Hard-delete every turn of a session, and what came of them, everywhere."""
    return await _forget(runtime, tenant, key, forget.ForgetTarget(session=session, actor=actor))


@router.get("/users", name="list_users")
async def list_users(
    tenant: TenantDep,
    uows: UowsDep,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    cursor: Annotated[
        str | None,
        Query(
            max_length=USER_KEY_MAX_CHARS,
            pattern=USER_KEY_PATTERN,
            description="next_cursor of the previous page (the last user key it showed)",
        ),
    ] = None,
) -> UserPage:
    """The tenant's users in key order, a page at a time."""
    items, next_cursor = await passports.list_users(uows, tenant, limit, cursor)
    return UserPage(items=[reply_of(UserOut, i) for i in items], next_cursor=next_cursor)
