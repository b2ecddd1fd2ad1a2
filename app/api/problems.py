"""RFC 9457 problem+json: the one error shape, declared in the OpenAPI spec."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from app.db.engine import database_busy, database_error_types, database_unreachable
from app.services.errors import (
    Behind,
    Conflict,
    Forbidden,
    LimitExceeded,
    NotFound,
    PreconditionFailed,
    ServiceError,
    Unauthorized,
    Unprocessable,
)

log = logging.getLogger(__name__)

PROBLEM_TYPE = "application/problem+json"


class Problem(BaseModel):
    """An RFC 9457 problem document."""

    type: str = Field(default="about:blank", description="A URI identifying the problem type.")
    title: str
    status: int
    detail: str | None = None
    instance: str | None = None
    errors: list[dict[str, Any]] | None = Field(
        default=None, description="For validation problems: where and what."
    )
    limit: str | None = Field(
        default=None,
        description="For 413 and 429 past a limit: the setting that refused the request.",
    )
    version: int | None = Field(
        default=None, description="For 409 of a read with min_version: the version served here."
    )
    min_version: int | None = Field(
        default=None, description="For 409 of a read with min_version: the version asked for."
    )


def problem_response(
    status: int,
    title: str,
    detail: str | None = None,
    *,
    instance: str | None = None,
    errors: list[dict[str, Any]] | None = None,
    headers: dict[str, str] | None = None,
    limit: str | None = None,
    behind: Behind | None = None,
) -> JSONResponse:
    """A problem+json response."""
    body = Problem(
        title=title, status=status, detail=detail, instance=instance, errors=errors, limit=limit
    )
    if behind is not None:
        body.version, body.min_version = behind.served, behind.asked
    return JSONResponse(
        body.model_dump(exclude_none=True),
        status_code=status,
        media_type=PROBLEM_TYPE,
        headers=headers,
    )


def _responses(*codes: int) -> dict[int | str, dict[str, Any]]:
    titles = {
        400: "Malformed request",
        401: "Missing or invalid API key",
        403: "Not allowed",
        404: "Not found",
        409: "Conflict (a read's `min_version` not served yet: see Retry-After)",
        412: "Precondition failed",
        413: "Request body too large, or past a size limit (`limit` names it)",
        422: "Validation error",
        429: "Past a rate or quota limit (`limit` names it; see Retry-After)",
        500: "Internal error",
        503: "Unavailable: not ready, or the database cannot be reached (see Retry-After)",
    }
    return {
        code: {
            "description": titles[code],
            "content": {PROBLEM_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}},
        }
        for code in codes
    }


COMMON = _responses(400, 401, 413, 422, 429, 500, 503)
NOT_FOUND = _responses(404)
PRECONDITION = _responses(412)
CONFLICT = _responses(409)
ADMIN = _responses(400, 401, 403, 404, 413, 422, 500, 503)
READY = _responses(503)


_HTTP_TITLES = {
    400: "Bad request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not found",
    405: "Method not allowed",
    406: "Not acceptable",
    409: "Conflict",
    412: "Precondition failed",
    413: "Content too large",
    415: "Unsupported media type",
    422: "Unprocessable content",
    429: "Too many requests",
    503: "Service unavailable",
}


# Each service error's HTTP status and title; a subclass takes its nearest listed base's.
SERVICE_STATUS: dict[type[ServiceError], tuple[int, str]] = {
    NotFound: (404, "Not found"),
    PreconditionFailed: (412, "Precondition failed"),
    Conflict: (409, "Conflict"),
    # The server is well; the passport is not yet at the version a read asked for.
    Behind: (409, "Conflict"),
    Unprocessable: (422, "Unprocessable content"),
    Unauthorized: (401, "Unauthorized"),
    Forbidden: (403, "Forbidden"),
    ServiceError: (400, "Bad request"),
}


def service_status(exc: ServiceError) -> tuple[int, str]:
    """The HTTP status and title a service error is answered with."""
    for cls in type(exc).__mro__:
        if cls in SERVICE_STATUS:
            return SERVICE_STATUS[cls]
    return SERVICE_STATUS[ServiceError]


def _clean_errors(exc: RequestValidationError) -> tuple[int, str, list[dict[str, Any]]]:
    errors = []
    status = 422
    for err in exc.errors():
        if err.get("type") == "json_invalid":
            status = 400
        errors.append(
            {
                "loc": [str(part) for part in err.get("loc", ())],
                "msg": str(err.get("msg", "")),
                "type": str(err.get("type", "")),
            }
        )
    if status == 400:
        detail = "the body is not valid JSON: " + "; ".join(
            f"{e['msg']} at {'/'.join(e['loc'][1:]) or 'start'}" for e in errors
        )
    else:
        detail = "; ".join(f"{'.'.join(e['loc'])}: {e['msg']}" for e in errors[:5]) + (
            f" (and {len(errors) - 5} more)" if len(errors) > 5 else ""
        )
    return status, detail, errors[:50]


def add_problem_schema(spec: dict[str, Any]) -> dict[str, Any]:
    """Declare the Problem schema once under components (the responses refer to it)."""
    schemas = spec.setdefault("components", {}).setdefault("schemas", {})
    schemas["Problem"] = Problem.model_json_schema(ref_template="#/components/schemas/{model}")
    return spec


def allowed_methods(app: FastAPI, request: Request) -> list[str]:
    """Every method some route of the app serves at this request's path."""
    methods: set[str] = set()
    for route in app.router.routes:
        match, _ = route.matches(request.scope)
        if match is not Match.NONE:
            methods.update(getattr(route, "methods", None) or ())
    return sorted(methods)


def service_problem(exc: ServiceError, instance: str) -> JSONResponse:
    """The problem+json answer to a service's refusal."""
    status, title = service_status(exc)
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    if isinstance(exc, Behind):
        # 409, not 503: the server is well, the passport is not yet at the state asked for.
        retry = {"Retry-After": "1"}
        return problem_response(
            409, title, exc.detail, instance=instance, headers=retry, behind=exc
        )
    if isinstance(exc, LimitExceeded):
        status, title = exc.status, _HTTP_TITLES[exc.status]
        if exc.retry_after is not None:
            headers = {"Retry-After": str(exc.retry_after)}
        return problem_response(
            status, title, exc.detail, instance=instance, headers=headers, limit=exc.limit
        )
    return problem_response(status, title, exc.detail, instance=instance, headers=headers)


def install_handlers(app: FastAPI) -> None:
    """Map every error (validation, HTTP, service, unexpected) to problem+json."""

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        status, detail, errors = _clean_errors(exc)
        title = "Malformed JSON" if status == 400 else "Validation error"
        return problem_response(status, title, detail, errors=errors, instance=request.url.path)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        headers = dict(exc.headers) if exc.headers else {}
        if exc.status_code == 405:
            # Starlette names the methods of the first route that matched the path only; a
            # path served by several routes (GET and POST apart) supports all of theirs.
            headers["Allow"] = ", ".join(allowed_methods(app, request))
        return problem_response(
            exc.status_code,
            _HTTP_TITLES.get(exc.status_code, "Error"),
            str(exc.detail) if exc.detail else None,
            instance=request.url.path,
            headers=headers or None,
        )

    @app.exception_handler(ServiceError)
    async def _service(request: Request, exc: ServiceError) -> JSONResponse:
        return service_problem(exc, request.url.path)

    async def _database(request: Request, exc: Exception) -> JSONResponse:
        # Handled inside the app (not by the outermost error middleware, which re-raises to
        # the server): an outage is a 503 the client retries, not a logged crash per request.
        if not database_unreachable(exc):
            return await _unexpected(request, exc)
        log.warning(
            "database unreachable on %s %s: %s",
            request.method,
            request.url.path,
            type(exc).__name__,
        )
        detail = (
            "every database connection is busy; retry shortly"
            if database_busy(exc)
            else "the database cannot be reached; retry shortly"
        )
        return problem_response(
            503,
            "Service unavailable",
            detail,
            instance=request.url.path,
            headers={"Retry-After": "1"},
        )

    for error in database_error_types():
        app.add_exception_handler(error, _database)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        # Never a stack trace to the client; the log has it.
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        # This answer may be sent outside the request-id middleware, so it adds the header itself.
        request_id = getattr(request.state, "request_id", None)
        return problem_response(
            500,
            "Internal error",
            "an unexpected error occurred",
            instance=request.url.path,
            headers={"X-Request-ID": request_id} if request_id else None,
        )
