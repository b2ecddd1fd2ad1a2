"""Each call the client makes, said once: the request, and how its reply is read.

``Tessera`` sends a ``Call`` with the generated client's ``httpx.Client``, ``AsyncTessera`` with
its ``httpx.AsyncClient``; both raise the same ``TesseraError`` for a problem and read the reply
into the same generated model, so the two clients cannot drift apart. Bodies go as the caller
wrote them: Tessera validates them and says what is wrong (422).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Generic, Protocol, TypeVar
from urllib.parse import quote

import httpx

from tessera.errors import error_for
from tessera_client.models import (
    ForgottenOut,
    IntegrityOut,
    JobOut,
    PassportWritten,
    ReceiptOut,
    SearchResult,
    SessionPage,
    UserPage,
    VersionPage,
)

T = TypeVar("T")
M = TypeVar("M", covariant=True)
Message = Mapping[str, Any]

# The most turns the API gives in one page.
TURNS_PAGE = 500
# The passport sections that hold what is believed now (the rest is the verbatim log).
BELIEFS = "facts,prefs,entities,open_loops,contradictions,instructions,values"


class Model(Protocol[M]):
    """A generated model class: built from the reply's JSON."""

    def from_dict(self, src_dict: Mapping[str, Any]) -> M: ...


@dataclass(frozen=True)
class Call(Generic[T]):
    """One request (method, path, query, body, headers) and how its reply becomes the result."""

    method: str
    path: str
    read: Callable[[httpx.Response], T]
    params: dict[str, Any] = field(default_factory=dict)
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)

    def send(self) -> dict[str, Any]:
        """The arguments of ``httpx.Client.request`` (and of the async one) for this call."""
        params = {k: _query(v) for k, v in self.params.items() if v is not None}
        sent: dict[str, Any] = {"params": params, "headers": self.headers}
        if self.body is not None:
            sent["json"] = self.body
        return {"method": self.method, "url": self.path, **sent}

    def result(self, response: httpx.Response) -> T:
        """The call's result, or its problem raised as a ``TesseraError``."""
        if response.status_code >= 400:
            raise error_for(response.status_code, response.content, response.headers)
        return self.read(response)


def _query(value: Any) -> str | int | float:
    if isinstance(value, date):
        return value.isoformat()
    return value if isinstance(value, str | int | float) else str(value)


def _user(user: str) -> str:
    """The user's path: a key may hold spaces, '?' or '#', never a slash."""
    return "/users/" + quote(user, safe="")


def _model(kind: Model[T]) -> Callable[[httpx.Response], T]:
    """Read the reply as the generated model ``kind``."""
    return lambda response: kind.from_dict(response.json())


def _text(response: httpx.Response) -> str:
    return response.text


def _document(response: httpx.Response) -> dict[str, Any]:
    document = response.json()
    if not isinstance(document, dict):
        raise TypeError("expected a JSON object")
    return document


def _job(response: httpx.Response) -> JobOut:
    # An ingest answers Accepted (202, or 200 with ?wait); the job inside is what an agent follows.
    return JobOut.from_dict(response.json()["job"])


def ingest_body(
    messages: Sequence[Message] | None,
    *,
    text: str | None = None,
    rows: Sequence[Mapping[str, Any]] | None = None,
    session: str | None = None,
    session_ts: str | None = None,
) -> dict[str, Any]:
    """The ingest body for chat messages (OpenAI-style), a text, or database rows.

    ``session`` names the conversation each message without its own ``session`` belongs to.
    """
    parts = (("messages", messages), ("text", text), ("rows", rows))
    given = [name for name, part in parts if part]
    if len(given) != 1:
        raise ValueError(f"give exactly one of messages, text or rows (got {given or 'none'})")
    body: dict[str, Any] = {}
    if messages:
        turns = [dict(m) for m in messages]
        if session is not None:
            for turn in turns:
                turn.setdefault("session", session)
        body["turns"] = turns
    elif text:
        body["text"] = text
    elif rows:
        body["rows"] = [dict(r) for r in rows]
    if session_ts is not None:
        body["session_ts"] = session_ts
    return body


def remember(
    user: str,
    body: dict[str, Any],
    *,
    wait: float | None,
    idempotency_key: str | None,
) -> Call[JobOut]:
    """Store ``body`` (``ingest_body``) for ``user``; a fresh idempotency key unless given."""
    key = idempotency_key or str(uuid.uuid4())
    return Call(
        "POST",
        _user(user) + "/ingest",
        _job,
        params={"wait": wait},
        body=body,
        headers={"Idempotency-Key": key},
    )


def context(
    user: str,
    q: str | None,
    budget_chars: int,
    *,
    as_json: bool = False,
    since: date | None = None,
    until: date | None = None,
    min_version: int | None = None,
) -> Call[Any]:
    """The context for ``q`` within ``budget_chars``, as text or (``as_json``) its sections."""
    params = {
        "q": q,
        "budget_chars": budget_chars,
        "format": "json" if as_json else "text",
        "since": since,
        "until": until,
        "min_version": min_version,
    }
    return Call("GET", _user(user) + "/context", _document if as_json else _text, params)


def search(
    user: str,
    q: str,
    limit: int,
    *,
    since: date | None = None,
    until: date | None = None,
    min_version: int | None = None,
) -> Call[SearchResult]:
    """The passages that match ``q`` best, best first."""
    params = {"q": q, "limit": limit, "since": since, "until": until, "min_version": min_version}
    return Call("GET", _user(user) + "/search", _model(SearchResult), params)


def passport(user: str, sections: str | None = None, version: int | None = None) -> Call[Any]:
    """The user's passport (or some of its sections), now or at ``version``, as a dict."""
    params = {"sections": sections, "version": version}
    return Call("GET", _user(user) + "/passport", _document, params)


def put_passport(
    user: str, document: Mapping[str, Any], if_match: str | None
) -> Call[PassportWritten]:
    """Store ``document`` as the user's whole passport (``If-Match``: only over that version)."""
    headers = {"If-Match": if_match} if if_match else {}
    path = _user(user) + "/passport"
    return Call("PUT", path, _model(PassportWritten), body=dict(document), headers=headers)


def turns(user: str, session: str | None, limit: int, cursor: str | None) -> Call[Any]:
    """A page of the user's turns (of ``session``), newest first."""
    params = {"session": session, "limit": limit, "cursor": cursor}
    return Call("GET", _user(user) + "/turns", _document, params)


def turn(user: str, turn_id: str) -> Call[Any]:
    """One turn, verbatim, by the client's id for it."""
    return Call("GET", f"{_user(user)}/turns/{quote(turn_id, safe='')}", _document)


def sessions(user: str, prefix: str | None, limit: int, cursor: str | None) -> Call[SessionPage]:
    """A page of the user's sessions, the one spoken in last first."""
    params = {"prefix": prefix, "limit": limit, "cursor": cursor}
    return Call("GET", _user(user) + "/sessions", _model(SessionPage), params)


def forget_session(user: str, session: str) -> Call[ForgottenOut]:
    """Forget every turn of one session everywhere."""
    path = f"{_user(user)}/sessions/{quote(session, safe='')}"
    return Call("DELETE", path, _model(ForgottenOut))


def users(limit: int, cursor: str | None) -> Call[UserPage]:
    """A page of the tenant's users."""
    return Call("GET", "/users", _model(UserPage), {"limit": limit, "cursor": cursor})


def forget_turn(user: str, turn_id: str) -> Call[ForgottenOut]:
    """Forget one turn everywhere; the reply holds the signed receipt."""
    path = f"{_user(user)}/turns/{quote(turn_id, safe='')}"
    return Call("DELETE", path, _model(ForgottenOut))


def forget_source(user: str, source_id: str) -> Call[ForgottenOut]:
    """Forget every turn of one source (a session, a document) everywhere."""
    path = f"{_user(user)}/sources/{quote(source_id, safe='')}"
    return Call("DELETE", path, _model(ForgottenOut))


def forget_user(user: str) -> Call[ReceiptOut]:
    """Delete the user and everything kept of them; the signed receipt."""
    return Call("DELETE", _user(user), _model(ReceiptOut))


def versions(user: str, limit: int, cursor: str | None) -> Call[VersionPage]:
    """A page of the user's versions, newest first."""
    params = {"limit": limit, "cursor": cursor}
    return Call("GET", _user(user) + "/versions", _model(VersionPage), params)


def verify(user: str, root: str | None) -> Call[IntegrityOut]:
    """Recompute the user's hash chain (and, with ``root``, check it holds that root)."""
    return Call("GET", _user(user) + "/integrity", _model(IntegrityOut), {"root": root})


def job(job_id: str, wait: float | None = None) -> Call[JobOut]:
    """A job's state now, or (``wait`` seconds at most) once it has ended."""
    path = f"/jobs/{uuid.UUID(str(job_id))}"
    return Call("GET", path, _model(JobOut), {"wait": wait})
