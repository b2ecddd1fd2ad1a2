"""``Tessera`` and ``AsyncTessera``: the calls an agent makes, each one line.

Both hold the generated ``tessera_client`` (``.api``: every route, for anything not here), send
on its HTTP client and share every call's description (``tessera.calls``); replies are the
generated models or plain dicts, errors the ``TesseraError`` of their kind.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from datetime import date
from types import TracebackType
from typing import Any, Self, TypeVar

import httpx

from tessera import calls
from tessera.calls import Call, Message, ingest_body
from tessera.retrying import AsyncRetryingTransport, Retry, RetryingTransport
from tessera_client import AuthenticatedClient
from tessera_client.models import (
    ForgottenOut,
    IntegrityOut,
    JobOut,
    PassportWritten,
    ReceiptOut,
    SearchHit,
    SessionOut,
    UserOut,
    VersionOut,
)

T = TypeVar("T")
# The most users the API lists in one page.
USERS_PAGE = 1000
DEFAULT_URL = "http://127.0.0.1:8000"
# An ingest may wait up to 60 s for its job (?wait): the read timeout leaves room for that.
DEFAULT_TIMEOUT = httpx.Timeout(70.0, connect=5.0)


def _settings(url: str | None, key: str | None) -> tuple[str, str]:
    url = url or os.environ.get("TESSERA_URL") or DEFAULT_URL
    key = key or os.environ.get("TESSERA_API_KEY")
    if not key:
        raise ValueError("no API key: pass key= or set TESSERA_API_KEY")
    return url.rstrip("/"), key


class Tessera:
    """A tenant's client: ``Tessera(url, key)``; close it, or use it in a ``with`` block.

    ``url`` and ``key`` default to ``TESSERA_URL`` and ``TESSERA_API_KEY``. ``retry`` says how
    429 and 503 replies are tried again (``Retry(attempts=1)`` turns it off); ``transport``
    replaces the HTTP transport under the retries (tests pass ``httpx.MockTransport``).
    """

    def __init__(
        self,
        url: str | None = None,
        key: str | None = None,
        *,
        timeout: httpx.Timeout | float = DEFAULT_TIMEOUT,
        retry: Retry | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        url, key = _settings(url, key)
        retrying = RetryingTransport(transport, retry)
        self.api = AuthenticatedClient(
            base_url=url,
            token=key,
            timeout=timeout if isinstance(timeout, httpx.Timeout) else httpx.Timeout(timeout),
            httpx_args={"transport": retrying},
        )

    def run(self, call: Call[T]) -> T:
        """Send a prepared call (``tessera.calls``) and read its reply."""
        return call.result(self.api.get_httpx_client().request(**call.send()))

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the connections it holds."""
        self.api.get_httpx_client().close()

    def remember(
        self,
        user: str,
        messages: Sequence[Message] | None = None,
        *,
        text: str | None = None,
        rows: Sequence[Mapping[str, Any]] | None = None,
        session: str | None = None,
        session_ts: str | None = None,
        wait: float | None = None,
        idempotency_key: str | None = None,
    ) -> JobOut:
        """Store chat ``messages`` (OpenAI-style), a ``text`` or ``rows`` for ``user``; the job.

        With ``wait`` (seconds, up to 60) the reply comes when the job is done; its
        ``version_after`` is the version that holds what was sent (``min_version`` of a read).
        """
        body = ingest_body(messages, text=text, rows=rows, session=session, session_ts=session_ts)
        return self.run(calls.remember(user, body, wait=wait, idempotency_key=idempotency_key))

    def context(
        self,
        user: str,
        q: str | None = None,
        *,
        budget_chars: int = 3000,
        since: date | None = None,
        until: date | None = None,
        min_version: int | None = None,
    ) -> str:
        """The text to put before the model: instructions, beliefs, the memories that answer."""
        call = calls.context(
            user, q, budget_chars, since=since, until=until, min_version=min_version
        )
        return str(self.run(call))

    def context_sections(
        self,
        user: str,
        q: str | None = None,
        *,
        budget_chars: int = 3000,
        min_version: int | None = None,
    ) -> dict[str, Any]:
        """The same context as JSON sections: each memory with its score and why."""
        call = calls.context(user, q, budget_chars, as_json=True, min_version=min_version)
        return dict(self.run(call))

    def search(
        self,
        user: str,
        q: str,
        *,
        limit: int = 10,
        since: date | None = None,
        until: date | None = None,
        min_version: int | None = None,
    ) -> list[SearchHit]:
        """The passages that match ``q`` best, best first."""
        call = calls.search(user, q, limit, since=since, until=until, min_version=min_version)
        return list(self.run(call).items)

    def beliefs(self, user: str) -> dict[str, Any]:
        """What is believed now: facts, preferences, entities, open loops, contradictions..."""
        return dict(self.run(calls.passport(user, calls.BELIEFS)))

    def export(self, user: str, *, version: int | None = None) -> dict[str, Any]:
        """The user's whole passport (a plain JSON document), now or as it was at ``version``."""
        return dict(self.run(calls.passport(user, version=version)))

    def import_passport(
        self, user: str, document: Mapping[str, Any], *, if_match: str | None = None
    ) -> PassportWritten:
        """Store ``document`` (an export) as the user's whole passport."""
        return self.run(calls.put_passport(user, document, if_match))

    def recent_turns(
        self, user: str, *, session: str | None = None, limit: int = 20
    ) -> list[dict[str, Any]]:
        """The last ``limit`` turns (of ``session``), verbatim, in the order they were said."""
        newest: list[dict[str, Any]] = []
        cursor: str | None = None
        while len(newest) < limit:
            asked = min(limit - len(newest), calls.TURNS_PAGE)
            page = self.run(calls.turns(user, session, asked, cursor))
            newest += page["items"]
            cursor = page["next_cursor"]
            if cursor is None:
                break
        return newest[::-1]

    def turn(self, user: str, turn_id: str) -> dict[str, Any]:
        """One turn, verbatim, by the id it was sent with (``NotFound`` if it is not kept)."""
        return dict(self.run(calls.turn(user, turn_id)))

    def sessions(
        self, user: str, *, prefix: str | None = None, limit: int = 100
    ) -> list[SessionOut]:
        """Up to ``limit`` of the user's sessions (named from ``prefix``), last spoken first."""
        found: list[SessionOut] = []
        cursor: str | None = None
        while len(found) < limit:
            asked = min(limit - len(found), calls.TURNS_PAGE)
            page = self.run(calls.sessions(user, prefix, asked, cursor))
            found += page.items
            if not isinstance(page.next_cursor, str):
                break
            cursor = page.next_cursor
        return found

    def forget_session(self, user: str, session: str) -> ForgottenOut:
        """Forget every turn of a session everywhere it is kept; the signed receipt inside."""
        return self.run(calls.forget_session(user, session))

    def forget_turn(self, user: str, turn_id: str) -> ForgottenOut:
        """Forget one turn everywhere it is kept; ``.receipt`` is the signed receipt."""
        return self.run(calls.forget_turn(user, turn_id))

    def forget_source(self, user: str, source_id: str) -> ForgottenOut:
        """Forget every turn of a source (a session, a document) everywhere it is kept."""
        return self.run(calls.forget_source(user, source_id))

    def forget_user(self, user: str) -> ReceiptOut:
        """Delete the user and everything kept of them; the signed receipt."""
        return self.run(calls.forget_user(user))

    def versions(self, user: str, *, limit: int = 100) -> list[VersionOut]:
        """The user's versions, newest first, every page read."""
        out: list[VersionOut] = []
        cursor: str | None = None
        while True:
            page = self.run(calls.versions(user, limit, cursor))
            out += page.items
            if not isinstance(page.next_cursor, str):
                return out
            cursor = page.next_cursor

    def users(self, *, limit: int = 1000) -> list[UserOut]:
        """Up to ``limit`` of the tenant's users, every page read."""
        found: list[UserOut] = []
        cursor: str | None = None
        while len(found) < limit:
            page = self.run(calls.users(min(limit - len(found), USERS_PAGE), cursor))
            found += page.items
            if not isinstance(page.next_cursor, str):
                break
            cursor = page.next_cursor
        return found

    def verify(self, user: str, *, root: str | None = None) -> IntegrityOut:
        """Recompute the user's hash chain; ``.ok`` says whether it holds."""
        return self.run(calls.verify(user, root))

    def job(self, job_id: str, *, wait: float | None = None) -> JobOut:
        """A job's state now; with ``wait`` (seconds, up to 60), once it has ended."""
        return self.run(calls.job(job_id, wait))


class AsyncTessera:
    """The asyncio client: ``AsyncTessera(url, key)``; ``await aclose()`` it, or ``async with``.

    ``url`` and ``key`` default to ``TESSERA_URL`` and ``TESSERA_API_KEY``. ``retry`` says how
    429 and 503 replies are tried again (``Retry(attempts=1)`` turns it off); ``transport``
    replaces the HTTP transport under the retries (tests pass ``httpx.MockTransport``).
    """

    def __init__(
        self,
        url: str | None = None,
        key: str | None = None,
        *,
        timeout: httpx.Timeout | float = DEFAULT_TIMEOUT,
        retry: Retry | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        url, key = _settings(url, key)
        retrying = AsyncRetryingTransport(transport, retry)
        self.api = AuthenticatedClient(
            base_url=url,
            token=key,
            timeout=timeout if isinstance(timeout, httpx.Timeout) else httpx.Timeout(timeout),
            httpx_args={"transport": retrying},
        )

    async def run(self, call: Call[T]) -> T:
        """Send a prepared call (``tessera.calls``) and read its reply."""
        http = self.api.get_async_httpx_client()
        return call.result(await http.request(**call.send()))

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connections it holds."""
        await self.api.get_async_httpx_client().aclose()

    async def remember(
        self,
        user: str,
        messages: Sequence[Message] | None = None,
        *,
        text: str | None = None,
        rows: Sequence[Mapping[str, Any]] | None = None,
        session: str | None = None,
        session_ts: str | None = None,
        wait: float | None = None,
        idempotency_key: str | None = None,
    ) -> JobOut:
        """Store chat ``messages`` (OpenAI-style), a ``text`` or ``rows`` for ``user``; the job.

        With ``wait`` (seconds, up to 60) the reply comes when the job is done; its
        ``version_after`` is the version that holds what was sent (``min_version`` of a read).
        """
        body = ingest_body(messages, text=text, rows=rows, session=session, session_ts=session_ts)
        call = calls.remember(user, body, wait=wait, idempotency_key=idempotency_key)
        return await self.run(call)

    async def context(
        self,
        user: str,
        q: str | None = None,
        *,
        budget_chars: int = 3000,
        since: date | None = None,
        until: date | None = None,
        min_version: int | None = None,
    ) -> str:
        """The text to put before the model: instructions, beliefs, the memories that answer."""
        call = calls.context(
            user, q, budget_chars, since=since, until=until, min_version=min_version
        )
        return str(await self.run(call))

    async def context_sections(
        self,
        user: str,
        q: str | None = None,
        *,
        budget_chars: int = 3000,
        min_version: int | None = None,
    ) -> dict[str, Any]:
        """The same context as JSON sections: each memory with its score and why."""
        call = calls.context(user, q, budget_chars, as_json=True, min_version=min_version)
        return dict(await self.run(call))

    async def search(
        self,
        user: str,
        q: str,
        *,
        limit: int = 10,
        since: date | None = None,
        until: date | None = None,
        min_version: int | None = None,
    ) -> list[SearchHit]:
        """The passages that match ``q`` best, best first."""
        call = calls.search(user, q, limit, since=since, until=until, min_version=min_version)
        return list((await self.run(call)).items)

    async def beliefs(self, user: str) -> dict[str, Any]:
        """What is believed now: facts, preferences, entities, open loops, contradictions..."""
        return dict(await self.run(calls.passport(user, calls.BELIEFS)))

    async def export(self, user: str, *, version: int | None = None) -> dict[str, Any]:
        """The user's whole passport (a plain JSON document), now or as it was at ``version``."""
        return dict(await self.run(calls.passport(user, version=version)))

    async def import_passport(
        self, user: str, document: Mapping[str, Any], *, if_match: str | None = None
    ) -> PassportWritten:
        """Store ``document`` (an export) as the user's whole passport."""
        return await self.run(calls.put_passport(user, document, if_match))

    async def recent_turns(
        self, user: str, *, session: str | None = None, limit: int = 20
    ) -> list[dict[str, Any]]:
        """The last ``limit`` turns (of ``session``), verbatim, in the order they were said."""
        newest: list[dict[str, Any]] = []
        cursor: str | None = None
        while len(newest) < limit:
            asked = min(limit - len(newest), calls.TURNS_PAGE)
            page = await self.run(calls.turns(user, session, asked, cursor))
            newest += page["items"]
            cursor = page["next_cursor"]
            if cursor is None:
                break
        return newest[::-1]

    async def turn(self, user: str, turn_id: str) -> dict[str, Any]:
        """One turn, verbatim, by the id it was sent with (``NotFound`` if it is not kept)."""
        return dict(await self.run(calls.turn(user, turn_id)))

    async def sessions(
        self, user: str, *, prefix: str | None = None, limit: int = 100
    ) -> list[SessionOut]:
        """Up to ``limit`` of the user's sessions (named from ``prefix``), last spoken first."""
        found: list[SessionOut] = []
        cursor: str | None = None
        while len(found) < limit:
            asked = min(limit - len(found), calls.TURNS_PAGE)
            page = await self.run(calls.sessions(user, prefix, asked, cursor))
            found += page.items
            if not isinstance(page.next_cursor, str):
                break
            cursor = page.next_cursor
        return found

    async def forget_session(self, user: str, session: str) -> ForgottenOut:
        """Forget every turn of a session everywhere it is kept; the signed receipt inside."""
        return await self.run(calls.forget_session(user, session))

    async def forget_turn(self, user: str, turn_id: str) -> ForgottenOut:
        """Forget one turn everywhere it is kept; ``.receipt`` is the signed receipt."""
        return await self.run(calls.forget_turn(user, turn_id))

    async def forget_source(self, user: str, source_id: str) -> ForgottenOut:
        """Forget every turn of a source (a session, a document) everywhere it is kept."""
        return await self.run(calls.forget_source(user, source_id))

    async def forget_user(self, user: str) -> ReceiptOut:
        """Delete the user and everything kept of them; the signed receipt."""
        return await self.run(calls.forget_user(user))

    async def versions(self, user: str, *, limit: int = 100) -> list[VersionOut]:
        """The user's versions, newest first, every page read."""
        out: list[VersionOut] = []
        cursor: str | None = None
        while True:
            page = await self.run(calls.versions(user, limit, cursor))
            out += page.items
            if not isinstance(page.next_cursor, str):
                return out
            cursor = page.next_cursor

    async def users(self, *, limit: int = 1000) -> list[UserOut]:
        """Up to ``limit`` of the tenant's users, every page read."""
        found: list[UserOut] = []
        cursor: str | None = None
        while len(found) < limit:
            page = await self.run(calls.users(min(limit - len(found), USERS_PAGE), cursor))
            found += page.items
            if not isinstance(page.next_cursor, str):
                break
            cursor = page.next_cursor
        return found

    async def verify(self, user: str, *, root: str | None = None) -> IntegrityOut:
        """Recompute the user's hash chain; ``.ok`` says whether it holds."""
        return await self.run(calls.verify(user, root))

    async def job(self, job_id: str, *, wait: float | None = None) -> JobOut:
        """A job's state now; with ``wait`` (seconds, up to 60), once it has ended."""
        return await self.run(calls.job(job_id, wait))
