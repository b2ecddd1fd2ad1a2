"""The idiomatic Python client: its calls, its errors, its retries; sync and async agree.

The server here is ``httpx.MockTransport`` answering as Tessera does (the same JSON shapes); the
client against a real Tessera is in tests/integration/test_sdk_e2e.py.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

import tessera
from tessera import AsyncTessera, Retry, Tessera
from tessera.calls import ingest_body
from tessera.errors import error_for, retry_after
from tessera.retrying import RetryingTransport

URL = "http://tessera.test"
JOB_ID = "6f1c1f8e-4a52-4b36-9c43-3d1c9a2b7e10"
NOW = "2026-12-06T10:00:00Z"


def _job(status: str = "done", version_after: int | None = 3) -> dict[str, Any]:
    return {
        "job_id": JOB_ID,
        "user_key": "ada",
        "kind": "ingest",
        "status": status,
        "progress": {"done": 1, "total": 1},
        "usage": {"input_tokens": 0, "output_tokens": 0, "llm_calls": 0},
        "error": None,
        "result": {},
        "version_after": version_after,
        "attempts": 1,
        "created_at": NOW,
        "started_at": NOW,
        "finished_at": NOW,
        "status_url": f"/jobs/{JOB_ID}",
    }


def _receipt(scope: str) -> dict[str, Any]:
    return {
        "id": "0b6d7c52-7c43-4b57-9d87-5f0f6b1f4c11",
        "tenant_id": "7a9e2f14-0d0b-4e8e-8d8a-1f4f2a3b4c5d",
        "user_key": "ada",
        "scope": scope,
        "target": "t1",
        "at": NOW,
        "version": 4,
        "root": "ab" * 32,
        "actor": "tsk_abc",
        "removed": {"turns": 1},
        "redacted": ["cd" * 32],
        "algorithm": "HMAC-SHA256",
        "signature": "ef" * 32,
    }


def _version(n: int) -> dict[str, Any]:
    return {
        "version": n,
        "created_at": NOW,
        "cause": "ingest",
        "job_id": None,
        "changes": [],
        "hash": f"{n:064x}",
    }


class FakeTessera:
    """Answers the client's calls as Tessera would, and keeps what it was sent."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        # The path as sent: an escaped slash in an id stays escaped.
        path, method = request.url.raw_path.decode().split("?")[0], request.method
        if request.headers.get("authorization") != "Bearer tsk_test":
            return _problem(401, "Missing or invalid API key")
        if method == "POST" and path == "/users/ada/ingest":
            return httpx.Response(200, json=_accepted())
        if path == "/users/ada/context":
            if request.url.params.get("format") == "json":
                return httpx.Response(200, json={"memories": [{"text": "Thursdays"}]})
            return httpx.Response(200, text="Book club: Thursdays")
        if path == "/users/ada/search":
            hit = {
                "kind": "turn",
                "id": "r1",
                "text": "Thursdays",
                "speaker": "user",
                "ts": None,
                "score": 1.5,
                "turn_ids": ["m1"],
            }
            return httpx.Response(200, json={"version": 3, "items": [hit]})
        if path == "/users/ada/passport" and method == "GET":
            sections = request.url.params.get("sections")
            return httpx.Response(200, json={"version": 3, "facts": [], "asked": sections})
        if path == "/users/ada/passport" and method == "PUT":
            written = {"user_key": "ada", "version": 5, "created": False, "changed": True}
            return httpx.Response(200, json=written)
        if path == "/users/ada/turns/t1" and method == "DELETE":
            return httpx.Response(200, json=_forgotten("turn"))
        if path == "/users/ada/sources/s1" and method == "DELETE":
            return httpx.Response(200, json=_forgotten("source"))
        if path == "/users/ada" and method == "DELETE":
            return httpx.Response(200, json=_receipt("user"))
        if path == "/users/ada/versions":
            if request.url.params.get("cursor") == "next":
                return httpx.Response(200, json={"items": [_version(1)], "next_cursor": None})
            page = {"items": [_version(3), _version(2)], "next_cursor": "next"}
            return httpx.Response(200, json=page)
        if path == "/users/ada/turns":
            said = [{"id": f"t{n}", "speaker": "user", "text": f"turn {n}"} for n in (3, 2, 1)]
            if request.url.params.get("cursor") == "older":
                return httpx.Response(200, json={"items": said[2:], "next_cursor": None})
            limit = int(request.url.params["limit"])
            return httpx.Response(200, json={"items": said[:limit], "next_cursor": "older"})
        if path == "/users/ada/turns/k%2F1":
            return httpx.Response(200, json={"id": "k/1", "speaker": "user", "text": "kept"})
        if path == "/users/ada/sessions":
            one = {"name": "s1", "turns": 2, "last_ts": NOW}
            return httpx.Response(200, json={"items": [one], "next_cursor": None})
        if path == "/users/ada/sessions/s%2F1" and method == "DELETE":
            return httpx.Response(200, json=_forgotten("session"))
        if path == "/users/ada/integrity":
            integrity = {
                "valid": True,
                "root": "ab" * 32,
                "versions": 3,
                "rows": 2,
                "from_version": 1,
                "first_bad_version": None,
                "reason": None,
            }
            return httpx.Response(200, json=integrity)
        if path == f"/jobs/{JOB_ID}":
            return httpx.Response(200, json=_job())
        return _problem(404, "Not found")


def _accepted() -> dict[str, Any]:
    plan = {
        "interactions": 1,
        "segments": 1,
        "extraction_calls": 0,
        "estimated_input_tokens": 20,
        "mean_segment_tokens": 20.0,
        "max_segment_tokens": 20,
        "extractor": "rules",
        "model_calls": 0,
    }
    return {
        "job_id": JOB_ID,
        "status": "done",
        "status_url": f"/jobs/{JOB_ID}",
        "plan": plan,
        "job": _job(),
    }


def _forgotten(scope: str) -> dict[str, Any]:
    return {
        "version": 4,
        "turns": 1,
        "derived_rows": 0,
        "beliefs": 1,
        "versions_rewritten": 2,
        "payloads_scrubbed": 1,
        "cached_extractions": 0,
        "rows_rewritten": 0,
        "receipt": _receipt(scope),
    }


def _problem(status: int, title: str, **extra: Any) -> httpx.Response:
    body = {"type": "about:blank", "title": title, "status": status, **extra}
    headers = {"content-type": "application/problem+json", "x-request-id": "req-1"}
    return httpx.Response(status, json=body, headers=headers)


def _sync(handler: Callable[[httpx.Request], httpx.Response], **kw: Any) -> Tessera:
    return Tessera(URL, "tsk_test", transport=httpx.MockTransport(handler), **kw)


def _async(handler: Callable[[httpx.Request], httpx.Response], **kw: Any) -> AsyncTessera:
    return AsyncTessera(URL, "tsk_test", transport=httpx.MockTransport(handler), **kw)


MESSAGES = [
    {"role": "user", "content": "I moved my book club to Thursdays."},
    {"role": "assistant", "content": "Noted."},
]


def _plain(value: Any) -> Any:
    """A result as plain data, to compare what the two clients return."""
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value.to_dict() if hasattr(value, "to_dict") else value


CALLS: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("remember", ("ada", MESSAGES), {"wait": 5, "session": "s1"}),
    ("context", ("ada", "book club?"), {"budget_chars": 1500}),
    ("context_sections", ("ada", "book club?"), {}),
    ("search", ("ada", "book club"), {"limit": 5}),
    ("beliefs", ("ada",), {}),
    ("export", ("ada",), {}),
    ("import_passport", ("ada", {"version": 3, "facts": []}), {}),
    ("forget_turn", ("ada", "t1"), {}),
    ("forget_source", ("ada", "s1"), {}),
    ("forget_user", ("ada",), {}),
    ("turn", ("ada", "k/1"), {}),
    ("sessions", ("ada",), {"prefix": "s"}),
    ("forget_session", ("ada", "s/1"), {}),
    ("versions", ("ada",), {"limit": 2}),
    ("recent_turns", ("ada",), {"session": "s1", "limit": 3}),
    ("verify", ("ada",), {}),
    ("job", (JOB_ID,), {}),
]


def test_each_call_reads_its_reply_and_the_async_client_agrees() -> None:
    server = FakeTessera()
    with _sync(server) as client:
        synced = {name: _plain(getattr(client, name)(*a, **kw)) for name, a, kw in CALLS}

    async def run_all() -> dict[str, Any]:
        async with _async(server) as client:
            return {name: _plain(await getattr(client, name)(*a, **kw)) for name, a, kw in CALLS}

    assert asyncio.run(run_all()) == synced
    assert synced["remember"]["version_after"] == 3
    assert synced["context"] == "Book club: Thursdays"
    assert synced["context_sections"] == {"memories": [{"text": "Thursdays"}]}
    assert [hit["turn_ids"] for hit in synced["search"]] == [["m1"]]
    assert synced["beliefs"]["asked"] == tessera.calls.BELIEFS
    assert synced["export"]["asked"] is None
    assert synced["forget_turn"]["receipt"]["scope"] == "turn"
    assert synced["forget_user"]["scope"] == "user"
    assert [v["version"] for v in synced["versions"]] == [3, 2, 1]  # both pages
    assert synced["verify"]["valid"] is True
    assert [t["id"] for t in synced["recent_turns"]] == ["t1", "t2", "t3"]  # as said
    assert synced["turn"]["text"] == "kept"  # the id's slash sent escaped
    assert [s["name"] for s in synced["sessions"]] == ["s1"]
    assert synced["forget_session"]["receipt"]["scope"] == "session"


def test_remember_sends_the_messages_with_a_fresh_idempotency_key_each_time() -> None:
    server = FakeTessera()
    with _sync(server) as client:
        client.remember("ada", MESSAGES, session="s1", wait=5)
        client.remember("ada", text="A note about the garden.")
        client.remember("ada", rows=[{"table": "orders", "id": 1}], idempotency_key="mine")
    sent = [r for r in server.requests if r.url.path.endswith("/ingest")]
    bodies = [json.loads(r.content) for r in sent]
    assert [t["session"] for t in bodies[0]["turns"]] == ["s1", "s1"]
    assert bodies[0]["turns"][0]["content"] == MESSAGES[0]["content"]
    assert sent[0].url.params["wait"] == "5"
    assert bodies[1] == {"text": "A note about the garden."}
    assert bodies[2]["rows"] == [{"table": "orders", "id": 1}]
    keys = [r.headers["idempotency-key"] for r in sent]
    assert keys[2] == "mine" and keys[0] != keys[1] and len(keys[0]) == 36


def test_a_body_must_be_one_of_messages_text_or_rows() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        ingest_body(None)
    with pytest.raises(ValueError, match="exactly one"):
        ingest_body(MESSAGES, text="also this")
    own_session = [{"role": "user", "content": "hi", "session": "mine"}]
    assert ingest_body(own_session, session="other")["turns"][0]["session"] == "mine"


KINDS = [
    (400, tessera.BadRequest),
    (401, tessera.AuthenticationError),
    (403, tessera.PermissionDenied),
    (404, tessera.NotFound),
    (409, tessera.Conflict),
    (412, tessera.PreconditionFailed),
    (413, tessera.TooLarge),
    (422, tessera.InvalidInput),
    (429, tessera.RateLimited),
    (500, tessera.ServerError),
    (502, tessera.ServerError),
    (503, tessera.Unavailable),
]


@pytest.mark.parametrize(("status", "kind"), KINDS)
def test_each_problem_raises_its_own_exception_with_the_problem(
    status: int, kind: type[tessera.TesseraError]
) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return _problem(status, "Refused", detail="because", limit="max_body_bytes")

    with _sync(handler, retry=Retry(attempts=1)) as client, pytest.raises(kind) as raised:
        client.context("ada", "anything")
    error = raised.value
    assert isinstance(error, tessera.TesseraError)
    assert (error.status, error.detail, error.request_id) == (status, "because", "req-1")
    assert error.problem["limit"] == "max_body_bytes"
    assert str(error) == f"{status} Refused: because"


def test_an_answer_that_is_not_problem_json_still_raises_with_its_words() -> None:
    error = error_for(502, b"<html>Bad gateway</html>", httpx.Headers())
    assert isinstance(error, tessera.ServerError)
    assert error.detail == "<html>Bad gateway</html>"
    assert error_for(418, b"", httpx.Headers()).status == 418


def test_invalid_input_says_where() -> None:
    where = [{"loc": ["body", "turns"], "msg": "too short"}]

    def handler(request: httpx.Request) -> httpx.Response:
        return _problem(422, "Validation error", errors=where)

    with _sync(handler) as client, pytest.raises(tessera.InvalidInput) as raised:
        client.remember("ada", MESSAGES)
    assert raised.value.errors == where


def _refusing(times: int, status: int, headers: dict[str, str]) -> FakeTessera:
    """Tessera refusing the first ``times`` requests with ``status``, then answering."""
    inner = FakeTessera()

    class Refusing(FakeTessera):
        def __call__(self, request: httpx.Request) -> httpx.Response:
            self.requests.append(request)
            if len(self.requests) <= times:
                response = _problem(status, "Too many requests")
                response.headers.update(headers)
                return response
            return inner(request)

    return Refusing()


def _transport_client(server: FakeTessera, retry: Retry) -> tuple[httpx.Client, list[float]]:
    slept: list[float] = []
    transport = RetryingTransport(httpx.MockTransport(server), retry, sleep=slept.append)
    return httpx.Client(transport=transport, base_url=URL), slept


def test_a_429_is_sent_again_after_the_wait_retry_after_asks() -> None:
    server = _refusing(2, 429, {"retry-after": "3"})
    http, slept = _transport_client(server, Retry())
    body = json.dumps({"text": "hello"})
    headers = {"authorization": "Bearer tsk_test", "idempotency-key": "k1"}
    reply = http.post("/users/ada/ingest", content=body, headers=headers)
    assert reply.status_code == 200
    assert slept == [3.0, 3.0]
    assert [r.headers["idempotency-key"] for r in server.requests] == ["k1"] * 3
    assert {r.content for r in server.requests} == {body.encode()}


def test_a_503_without_retry_after_backs_off_doubling() -> None:
    server = _refusing(3, 503, {})
    http, slept = _transport_client(server, Retry(attempts=4, backoff=1.0, max_backoff=3.0))
    assert http.get("/jobs/" + JOB_ID, headers={"authorization": "Bearer tsk_test"}).is_success
    assert len(slept) == 3
    for wait, longest in zip(slept, [1.0, 2.0, 3.0], strict=True):
        assert longest / 2 <= wait <= longest


def test_the_client_gives_up_past_its_attempts_or_a_wait_too_long() -> None:
    server = _refusing(5, 429, {"retry-after": "0"})
    with _sync(server, retry=Retry(attempts=3)) as client, pytest.raises(tessera.RateLimited):
        client.job(JOB_ID)
    assert len(server.requests) == 3

    patient = _refusing(1, 429, {"retry-after": "120"})
    with _sync(patient) as client, pytest.raises(tessera.RateLimited) as raised:
        client.job(JOB_ID)
    assert raised.value.retry_after == 120.0
    assert len(patient.requests) == 1  # two minutes is past max_wait: the caller decides


def test_the_async_client_retries_too() -> None:
    server = _refusing(2, 503, {"retry-after": "0"})

    async def run() -> Any:
        async with _async(server) as client:
            return await client.job(JOB_ID)

    assert asyncio.run(run()).status == "done"
    assert len(server.requests) == 3


def _failing_once(
    error: type[httpx.TransportError],
    reply: Callable[[httpx.Request], httpx.Response] | None = None,
) -> tuple[list[str], Any]:
    """A server whose first request fails with ``error``; the methods it was sent."""
    seen: list[str] = []
    answer = reply or FakeTessera()

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.method)
        if len(seen) == 1:
            raise error("the connection failed", request=request)
        return answer(request)

    return seen, handler


def test_a_connection_that_never_opened_is_tried_again() -> None:
    seen, flaky = _failing_once(httpx.ConnectError)
    with _sync(flaky, retry=Retry(backoff=0.0)) as client:
        assert client.job(JOB_ID).status == "done"
    assert seen == ["GET", "GET"]


def _ok(request: httpx.Request) -> httpx.Response:
    return httpx.Response(200, json={"ok": True})


@pytest.mark.parametrize("error", [httpx.RemoteProtocolError, httpx.ReadError])
def test_a_broken_connection_is_tried_again_only_for_what_is_safe_to_repeat(
    error: type[httpx.TransportError],
) -> None:
    # A read, and a write that carries an Idempotency-Key, are sent again.
    for method, headers in (("GET", {}), ("POST", {"idempotency-key": "k1"})):
        seen, handler = _failing_once(error, _ok)
        http, slept = _transport_client(handler, Retry(backoff=0.0))
        assert http.request(method, "/users/ada/ingest", headers=headers).is_success
        assert seen == [method, method] and len(slept) == 1
    # A write without one may have been done: the error is the caller's to see.
    seen, handler = _failing_once(error, _ok)
    http, _ = _transport_client(handler, Retry(backoff=0.0))
    with pytest.raises(error):
        http.post("/users/ada/facts", json={"facts": []})
    assert seen == ["POST"]


def test_the_client_sends_an_ingest_again_after_a_broken_connection() -> None:
    seen, flaky = _failing_once(httpx.RemoteProtocolError)

    async def run() -> Any:
        async with _async(flaky, retry=Retry(backoff=0.0)) as client:
            return await client.remember("ada", MESSAGES)

    assert asyncio.run(run()) is not None
    assert seen == ["POST", "POST"]


def test_retry_after_as_a_date() -> None:
    now = datetime(2026, 12, 6, 10, 0, tzinfo=UTC)
    later = format_datetime(now + timedelta(seconds=90), usegmt=True)
    headers = httpx.Headers({"retry-after": later, "date": format_datetime(now, usegmt=True)})
    assert retry_after(headers) == 90.0
    assert retry_after(httpx.Headers({"retry-after": "soon"})) is None
    assert retry_after(httpx.Headers()) is None


@given(st.text(max_size=200))
def test_any_retry_after_is_read_without_error(value: str) -> None:
    try:
        headers = httpx.Headers({"retry-after": value})
    except (UnicodeEncodeError, ValueError):
        return
    wait = retry_after(headers)
    assert wait is None or wait >= 0


def test_the_key_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TESSERA_API_KEY", raising=False)
    with pytest.raises(ValueError, match="TESSERA_API_KEY"):
        Tessera(URL)
    monkeypatch.setenv("TESSERA_API_KEY", "tsk_test")
    monkeypatch.setenv("TESSERA_URL", URL)
    client = Tessera(transport=httpx.MockTransport(FakeTessera()))
    assert client.context("ada") == "Book club: Thursdays"
    wrong = Tessera(URL, "tsk_wrong", transport=httpx.MockTransport(FakeTessera()))
    with pytest.raises(tessera.AuthenticationError):
        wrong.context("ada")


def test_a_real_server_answering_429_then_200_is_waited_for() -> None:
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append(self.path)
            if len(seen) == 1:
                self.send_response(429)
                self.send_header("Retry-After", "1")
                self.send_header("Content-Type", "application/problem+json")
                body = json.dumps({"title": "Too many requests", "status": 429}).encode()
            else:
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                body = b"Book club: Thursdays"
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        started = time.monotonic()
        with Tessera(url, "tsk_test") as client:
            assert client.context("ada", "book club?") == "Book club: Thursdays"
        assert time.monotonic() - started >= 1.0  # the second Retry-After asked for
        assert len(seen) == 2 and seen[0] == seen[1]
    finally:
        server.shutdown()
