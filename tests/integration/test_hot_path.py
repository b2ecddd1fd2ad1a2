"""The hot path answers every context read exactly as the full FastAPI stack does."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from app.api.hot import HotPath
from app.db.engine import DatabaseUnavailable
from app.services import context as context_service
from tests.integration.test_context_api import PASSPORT

pytestmark = pytest.mark.integration

CONTEXT = "/users/mel/context"


@pytest.fixture
async def mel(client, tenant):  # type: ignore[no-untyped-def]
    resp = await client.put("/users/mel/passport", json=PASSPORT, headers=tenant.headers)
    assert resp.status_code == 201
    return tenant


async def _both(
    app: Any, method: str, url: str, headers: dict[str, str]
) -> tuple[int, bytes, bool]:
    """The same request through the app and through its hot path: what a client can see."""
    hot = HotPath(app)
    seen: list[str] = []
    full = hot.fallback

    async def recording(scope: Any, receive: Any, send: Any) -> None:
        seen.append(scope["path"])
        await full(scope, receive, send)

    hot.fallback = recording
    answers = []
    for served in (app, hot):
        transport = httpx.ASGITransport(app=served, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
            resp = await c.request(method, url, headers=headers)
        kept = {k: v for k, v in resp.headers.items() if k != "x-request-id"}
        assert resp.headers.get("x-request-id"), (url, resp.status_code)
        answers.append((resp.status_code, kept, resp.content))
    assert answers[0] == answers[1], url
    return answers[0][0], answers[0][2], not seen


@pytest.mark.parametrize(
    ("url", "status"),
    [
        (f"{CONTEXT}?q=camping", 200),
        (f"{CONTEXT}?q=camping&format=json&budget_chars=800", 200),
        (f"{CONTEXT}?q=Lisbon+trip&since=2023-06&until=2023-12", 200),
        (f"{CONTEXT}?q=caf%C3%A9%20%E2%82%AC&q=race", 200),
        (f"{CONTEXT}", 200),
        (f"{CONTEXT}?budget_chars=10", 422),
        (f"{CONTEXT}?budget_chars=lots&format=xml", 422),
        (f"{CONTEXT}?since=last%20tuesday", 422),
        (f"{CONTEXT}?q={'x' * 2001}", 422),
        ("/users/nobody/context?q=camping", 404),
        ("/users/a%01b/context", 422),
    ],
)
async def test_a_context_read_is_the_same_either_way(app, mel, url: str, status: int) -> None:  # type: ignore[no-untyped-def]
    got, _, hot_taken = await _both(app, "GET", url, mel.headers)
    assert got == status
    assert hot_taken


async def test_keys_and_etags_are_the_same_either_way(app, mel) -> None:  # type: ignore[no-untyped-def]
    assert (await _both(app, "GET", CONTEXT, {}))[0] == 401
    assert (await _both(app, "GET", CONTEXT, {"Authorization": "Bearer tsk_nope"}))[0] == 401
    assert (await _both(app, "GET", CONTEXT, {"Authorization": "Basic abc"}))[0] == 401
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
        etag = (await c.get(f"{CONTEXT}?q=camping", headers=mel.headers)).headers["etag"]
    again = {**mel.headers, "If-None-Match": f'"other", {etag}'}
    status, body, hot_taken = await _both(app, "GET", f"{CONTEXT}?q=camping", again)
    assert (status, body, hot_taken) == (304, b"", True)


async def test_other_requests_go_to_the_app(app, mel) -> None:  # type: ignore[no-untyped-def]
    for method, url in (
        ("HEAD", f"{CONTEXT}?q=camping"),
        ("GET", f"{CONTEXT}/"),
        ("GET", "/livez"),
    ):
        _, _, hot_taken = await _both(app, method, url, mel.headers)
        assert not hot_taken, (method, url)


async def test_errors_are_the_same_either_way(app, mel, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    async def unreachable(*_: object) -> None:
        raise DatabaseUnavailable("down")

    monkeypatch.setattr(context_service, "current_stamp", unreachable)
    status, body, hot_taken = await _both(app, "GET", f"{CONTEXT}?q=a", mel.headers)
    assert (status, hot_taken) == (503, True)
    assert b"retry shortly" in body
    monkeypatch.undo()

    def broken(*_: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(context_service, "render", broken)
    status, body, hot_taken = await _both(app, "GET", f"{CONTEXT}?q=new", mel.headers)
    assert (status, hot_taken) == (500, True)
    assert b"a bug" not in body  # no internals to the client


async def test_tracing_keeps_the_full_stack(app, mel) -> None:  # type: ignore[no-untyped-def]
    settings = app.state.settings
    # Not monkeypatch: Starlette's State would lose the attribute when it is undone.
    app.state.settings = settings.model_copy(update={"otel_enabled": True})
    try:
        _, _, hot_taken = await _both(app, "GET", f"{CONTEXT}?q=camping", mel.headers)
    finally:
        app.state.settings = settings
    assert not hot_taken


async def test_telemetry_it_cannot_ask_about_keeps_the_full_stack(app, mel) -> None:  # type: ignore[no-untyped-def]
    from types import SimpleNamespace

    # An app like ours on a FastAPI whose telemetry hook has another name.
    renamed = SimpleNamespace(router=app.router, state=app.state, root_path="")
    hot = HotPath(renamed)  # type: ignore[arg-type]
    seen: list[str] = []

    async def fallback(scope: Any, receive: Any, send: Any) -> None:
        seen.append(scope["path"])

    hot.fallback = fallback
    scope = {"type": "http", "method": "GET", "path": CONTEXT, "root_path": "", "headers": []}
    await hot(scope, None, None)  # type: ignore[arg-type]
    assert seen == [CONTEXT]
