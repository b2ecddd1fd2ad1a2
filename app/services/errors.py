"""Errors the use cases raise: what went wrong, in words. The API picks the HTTP status."""

from __future__ import annotations


class ServiceError(Exception):
    """Base class: a use case refused the request; ``detail`` says why, for the client."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class NotFound(ServiceError):
    """The thing asked for does not exist (or belongs to another tenant)."""


class PreconditionFailed(ServiceError):
    """If-Match did not match the current version."""


class Conflict(ServiceError):
    """The request conflicts with the current state."""


class Unprocessable(ServiceError):
    """Well-formed input that cannot be acted on."""


class Unauthorized(ServiceError):
    """Missing, malformed, unknown or revoked credentials."""


class Forbidden(ServiceError):
    """Credentials that are valid but not allowed here."""


class Behind(ServiceError):
    """A read asked for a version (``min_version``) this process does not serve yet."""

    def __init__(self, detail: str, *, served: int, asked: int) -> None:
        super().__init__(detail)
        self.served = served
        self.asked = asked


class LimitExceeded(ServiceError):
    """A per-tenant or per-user limit refuses the request; ``limit`` names the setting.

    ``status`` is 429 for a rate or a quota that frees up with time (``retry_after`` seconds),
    413 for a size that will not shrink by waiting.
    """

    def __init__(
        self, detail: str, *, limit: str, status: int = 429, retry_after: int | None = None
    ) -> None:
        super().__init__(detail)
        self.limit = limit
        self.status = status
        self.retry_after = retry_after
