"""A route class for the hottest reads: FastAPI declares the route, a lean resolver calls it.

FastAPI's per-request dependency solver re-inspects every parameter's annotation on each
request; on a cached context read that was about 45% of the API's CPU
(`python -m bench.context_speed`). `LeanRoute` keeps the endpoint, its signature and so the
OpenAPI spec exactly as FastAPI builds them, and only replaces how the arguments are found:
a plan made once per route validates each parameter with the same pydantic field FastAPI
would use, and raises the same `RequestValidationError` (so errors stay problem+json 422).

It supports what the read routes use, and refuses anything else when the route is built:
path, query and header parameters with scalar types, the `Request`, and dependencies that
take only the `Request` (the API key). Endpoints must return a `Response`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine, MutableMapping
from copy import deepcopy
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

from fastapi import Request, Response
from fastapi._compat import ModelField, field_annotation_is_sequence
from fastapi.dependencies.models import Dependant
from fastapi.dependencies.utils import get_missing_field_error
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute


@dataclass(frozen=True)
class _Param:
    name: str  # the endpoint's argument
    alias: str  # the name in the request (a header's in lower case, with dashes)
    alias_bytes: bytes  # the same, as the ASGI scope holds header names
    field: ModelField
    kind: str  # "path", "query" or "header"
    required: bool
    default: Any  # used as is when absent, unless it must be copied or validated
    copy_default: bool


@dataclass(frozen=True)
class _Plan:
    params: tuple[_Param, ...]
    dependencies: tuple[tuple[str, Callable[[Request], Awaitable[Any]]], ...]
    request_name: str | None


class LeanRoute(APIRoute):
    """An APIRoute resolved by a plan made once, for read routes on the hot path."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        """The request handler: resolve the arguments by the plan, call the endpoint."""
        plan = _plan_for(self.dependant, self.path)
        endpoint = self.endpoint

        async def handler(request: Request) -> Response:
            kwargs: dict[str, Any] = {}
            # Dependencies first, as FastAPI orders them: a missing API key is a 401
            # even when a parameter is also wrong.
            for name, call in plan.dependencies:
                kwargs[name] = await call(request)
            if plan.request_name is not None:
                kwargs[plan.request_name] = request
            errors = _resolve(plan.params, request, kwargs)
            if errors:
                raise RequestValidationError(errors)
            response = await endpoint(**kwargs)
            if not isinstance(response, Response):
                raise TypeError(f"{endpoint.__name__} must return a Response")
            return response

        return handler


def query_values(raw: bytes) -> dict[str, str]:
    """A query string's parameters as Starlette's ``query_params.get`` reads them (last wins)."""
    # parse_qsl with blank values kept, as Starlette calls it, without building its multidict.
    values: dict[str, str] = {}
    for pair in raw.decode("latin-1").split("&"):
        if not pair:
            continue
        name, _, value = pair.partition("=")
        # unquote as parse_qsl calls it (UTF-8, errors replaced); most parts need neither step.
        if "+" in name or "%" in name:
            name = unquote(name.replace("+", " "))
        if "+" in value or "%" in value:
            value = unquote(value.replace("+", " "))
        values[name] = value
    return values


def _header(scope: MutableMapping[str, Any], name: bytes) -> str | None:
    # The first header of that (lower-case) name, as Starlette's ``Headers.get`` finds it.
    for key, value in scope["headers"]:
        if key == name:
            return str(value.decode("latin-1"))
    return None


def _resolve(params: tuple[_Param, ...], request: Request, kwargs: dict[str, Any]) -> list[Any]:
    errors: list[Any] = []
    query: dict[str, str] | None = None
    scope = request.scope
    for param in params:
        if param.kind == "path":
            value = scope["path_params"].get(param.alias)
        elif param.kind == "query":
            if query is None:
                query = query_values(scope.get("query_string", b""))
            value = query.get(param.alias)
        else:
            value = _header(scope, param.alias_bytes)
        if value is None:
            if param.required:
                errors.append(get_missing_field_error(loc=(param.kind, param.alias)))
                continue
            value = deepcopy(param.default) if param.copy_default else param.default
            if not param.field.field_info.validate_default:
                kwargs[param.name] = value
                continue
        validated, field_errors = param.field.validate(value, kwargs, loc=(param.kind, param.alias))
        if field_errors:
            errors.extend(field_errors)
        else:
            kwargs[param.name] = validated
    return errors


def _plan_for(dependant: Dependant, path: str) -> _Plan:
    if dependant.body_params or dependant.cookie_params:
        raise TypeError(f"LeanRoute {path}: body and cookie parameters are not supported")
    if dependant.call is None or not _is_async(dependant.call):
        raise TypeError(f"LeanRoute {path}: the endpoint must be async")
    params: list[_Param] = []
    for kind, fields in (
        ("path", dependant.path_params),
        ("query", dependant.query_params),
        ("header", dependant.header_params),
    ):
        for field in fields:
            if field_annotation_is_sequence(field.field_info.annotation):
                raise TypeError(f"LeanRoute {path}: {field.name} is a sequence")
            alias = field.alias
            if kind == "header":
                if getattr(field.field_info, "convert_underscores", True):
                    alias = alias.replace("_", "-")
                alias = alias.lower()
            required = field.field_info.is_required()
            default = None if required else field.default
            copy_default = not isinstance(default, _IMMUTABLE)
            params.append(
                _Param(
                    field.name,
                    alias,
                    alias.encode("latin-1"),
                    field,
                    kind,
                    required,
                    default,
                    copy_default,
                )
            )
    dependencies: list[tuple[str, Callable[[Request], Awaitable[Any]]]] = []
    for sub in dependant.dependencies:
        takes_only_request = (
            sub.request_param_name is not None
            and not sub.dependencies
            and not (sub.path_params or sub.query_params or sub.header_params)
            and not (sub.cookie_params or sub.body_params)
        )
        if sub.name is None or sub.call is None or not takes_only_request:
            raise TypeError(f"LeanRoute {path}: a dependency may only take the Request")
        if not _is_async(sub.call):
            raise TypeError(f"LeanRoute {path}: dependency {sub.name} must be async")
        dependencies.append((sub.name, sub.call))
    return _Plan(tuple(params), tuple(dependencies), dependant.request_param_name)


# Defaults of these types are shared, not copied, per request.
_IMMUTABLE = (type(None), bool, int, float, str, bytes)


def _is_async(call: Callable[..., Any]) -> bool:
    from starlette._utils import is_async_callable

    return is_async_callable(call)
