"""LeanRoute answers exactly as FastAPI's own route would, and refuses what it cannot resolve."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import httpx
import pytest
from fastapi import APIRouter, Depends, FastAPI, Header, Path, Query, Request, Response
from pydantic import BaseModel

from app.api.lean import LeanRoute


async def who(request: Request) -> str:
    """A request-only dependency, like the API key."""
    name = request.headers.get("x-who")
    if name is None:
        from fastapi import HTTPException

        raise HTTPException(status_code=401, detail="who?")
    return name


async def endpoint(
    key: Annotated[str, Path(min_length=2, max_length=8, pattern=r"^[a-z]+$")],
    user: Annotated[str, Depends(who)],
    request: Request,
    q: Annotated[str | None, Query(max_length=5)] = None,
    n: Annotated[int, Query(ge=1, le=10)] = 3,
    mode: Annotated[Literal["a", "b"], Query()] = "a",
    need: Annotated[str | None, Query()] = None,
    x_trace_id: Annotated[str | None, Header()] = None,
) -> Response:
    """Echo what was resolved."""
    import json

    seen = {"key": key, "user": user, "q": q, "n": n, "mode": mode, "need": need}
    seen |= {"trace": x_trace_id, "path": request.url.path}
    return Response(json.dumps(seen), media_type="application/json")


def _app(route_class: type[Any] | None) -> FastAPI:
    app = FastAPI()
    router = APIRouter(route_class=route_class) if route_class else APIRouter()
    router.add_api_route("/u/{key}", endpoint, methods=["GET"], response_class=Response)
    app.include_router(router)
    return app


REQUESTS = [
    ("/u/abc", {"x-who": "ana"}),
    ("/u/abc?q=hi&n=7&mode=b", {"x-who": "ana", "x-trace-id": "t-1"}),
    ("/u/abc?n=0", {"x-who": "ana"}),
    ("/u/abc?n=eleven", {"x-who": "ana"}),
    ("/u/abc?n=", {"x-who": "ana"}),
    ("/u/abc?mode=c&q=toolong", {"x-who": "ana"}),
    ("/u/abc?n=2&n=4", {"x-who": "ana"}),
    ("/u/abc?q=", {"x-who": "ana"}),
    ("/u/abc?unknown=1", {"x-who": "ana"}),
    ("/u/A1", {"x-who": "ana"}),
    ("/u/a", {"x-who": "ana"}),
    ("/u/abc?n=0", {}),
    ("/u/abc?q=a+b", {"x-who": "ana"}),
    ("/u/abc?q=%E2%82%AC", {"x-who": "ana"}),
    ("/u/abc?q=%ff%ZZ", {"x-who": "ana"}),
    ("/u/abc?%71=hi", {"x-who": "ana"}),
    ("/u/abc?q", {"x-who": "ana"}),
    ("/u/abc?&q=x&&n=2&", {"x-who": "ana"}),
    ("/u/abc?q=ab&q=toolong", {"x-who": "ana"}),
    ("/u/abc?q=a=b", {"x-who": "ana"}),
    ("/u/abc", [("x-who", "ana"), ("x-trace-id", "first"), ("x-trace-id", "second")]),
]


@pytest.mark.parametrize(("url", "headers"), REQUESTS)
async def test_same_answers_as_fastapis_own_route(url: str, headers: Any) -> None:
    answers = []
    for app in (_app(None), _app(LeanRoute)):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            resp = await client.get(url, headers=headers)
        answers.append((resp.status_code, resp.json()))
    assert answers[0] == answers[1]


def test_the_spec_is_fastapis() -> None:
    assert _app(None).openapi() == _app(LeanRoute).openapi()


class Body(BaseModel):
    text: str


async def with_body(body: Body) -> Response:
    """Not resolvable by a plan: it has a body."""
    return Response(body.text)


async def with_list(tags: Annotated[list[str], Query()]) -> Response:
    """Not resolvable by a plan: a repeated query parameter."""
    return Response(",".join(tags))


def plain(q: str) -> Response:
    """Not resolvable by a plan: FastAPI would run it in a thread."""
    return Response(q)


@pytest.mark.parametrize("handler", [with_body, with_list, plain])
def test_unsupported_signatures_are_refused_when_the_route_is_built(handler: Any) -> None:
    router = APIRouter(route_class=LeanRoute)
    with pytest.raises(TypeError, match="LeanRoute"):
        router.add_api_route("/x", handler, methods=["POST"])


def test_query_values_are_what_starlette_parses() -> None:
    import random

    from starlette.datastructures import QueryParams

    from app.api.lean import query_values

    rng = random.Random(7)
    alphabet = ["q", "n", "=", "&", "+", "%", "2", "0", "e", "9", "%C3%A9", "%ff", "é", " "]
    for _ in range(3000):
        raw = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14))).encode("utf-8")
        expected = QueryParams(raw)
        got = query_values(raw)
        assert set(got) == set(expected.keys()), raw
        assert all(got[k] == expected.get(k) for k in got), raw
