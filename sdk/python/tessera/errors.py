"""One exception per kind of problem the API answers, each carrying its problem+json."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import httpx


class TesseraError(Exception):
    """A request Tessera refused or failed: ``status``, ``problem`` (the problem+json body)."""

    def __init__(self, status: int, problem: dict[str, Any], headers: httpx.Headers) -> None:
        self.status = status
        self.problem = problem
        self.title: str = str(problem.get("title") or f"HTTP {status}")
        self.detail: str | None = problem.get("detail")
        self.request_id: str | None = headers.get("x-request-id")
        super().__init__(f"{status} {self.title}" + (f": {self.detail}" if self.detail else ""))


class BadRequest(TesseraError):
    """400: the request could not be read (malformed JSON, a bad header)."""


class AuthenticationError(TesseraError):
    """401: no API key, or one Tessera does not know."""


class PermissionDenied(TesseraError):
    """403: the key may not do this."""


class NotFound(TesseraError):
    """404: no such user, job, version or receipt for this tenant."""


class Conflict(TesseraError):
    """409: the state does not allow it, or a read's ``min_version`` is not served yet."""

    @property
    def version(self) -> int | None:
        """For a read with ``min_version``: the version this server holds."""
        return self.problem.get("version")


class PreconditionFailed(TesseraError):
    """412: ``If-Match`` named a version that is no longer the newest."""


class TooLarge(TesseraError):
    """413: the body or one of its parts is past a size limit (``limit`` names it)."""

    @property
    def limit(self) -> str | None:
        """The setting that refused the request."""
        return self.problem.get("limit")


class InvalidInput(TesseraError):
    """422: the body or a parameter is not valid; ``errors`` says where and what."""

    @property
    def errors(self) -> list[dict[str, Any]]:
        """Each invalid field: where (``loc``) and what (``msg``)."""
        return list(self.problem.get("errors") or [])


class RateLimited(TesseraError):
    """429: past a rate or quota limit, still so after the client's retries."""

    def __init__(self, status: int, problem: dict[str, Any], headers: httpx.Headers) -> None:
        super().__init__(status, problem, headers)
        self.retry_after = retry_after(headers)

    @property
    def limit(self) -> str | None:
        """The setting that refused the request."""
        return self.problem.get("limit")


class ServerError(TesseraError):
    """5xx: Tessera failed; the request id finds it in the server's log."""


class Unavailable(ServerError):
    """503: Tessera or its database is not ready, still so after the client's retries."""

    def __init__(self, status: int, problem: dict[str, Any], headers: httpx.Headers) -> None:
        super().__init__(status, problem, headers)
        self.retry_after = retry_after(headers)


KINDS: dict[int, type[TesseraError]] = {
    400: BadRequest,
    401: AuthenticationError,
    403: PermissionDenied,
    404: NotFound,
    409: Conflict,
    412: PreconditionFailed,
    413: TooLarge,
    422: InvalidInput,
    429: RateLimited,
    503: Unavailable,
}


def error_for(status: int, content: bytes, headers: httpx.Headers) -> TesseraError:
    """The exception for an error reply: its kind by status, its problem from the body."""
    try:
        problem = json.loads(content) if content else {}
    except ValueError:
        problem = {}
    if not isinstance(problem, dict):
        problem = {}
    if "detail" not in problem and content and not problem:
        # Not problem+json (a proxy's page): keep its opening words as the detail.
        problem = {"detail": content[:500].decode("utf-8", "replace")}
    problem.setdefault("status", status)
    kind = KINDS.get(status) or (ServerError if status >= 500 else TesseraError)
    return kind(status, problem, headers)


def retry_after(headers: httpx.Headers) -> float | None:
    """Seconds ``Retry-After`` asks to wait (delta seconds or an HTTP date), if it says."""
    value = headers.get("retry-after")
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    date = headers.get("date")
    try:
        now = parsedate_to_datetime(date) if date else None
    except (TypeError, ValueError):
        now = None
    if now is None:
        now = datetime.now(UTC)
    return max((when - now).total_seconds(), 0.0)
