"""Errors the use cases raise; the API maps each to an HTTP status and problem+json."""

from __future__ import annotations


class ServiceError(Exception):
    """Base class: carries a status, a short title and a detail for the client."""

    status = 400
    title = "Bad request"

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class NotFound(ServiceError):
    """The thing asked for does not exist (or belongs to another tenant)."""

    status = 404
    title = "Not found"


class PreconditionFailed(ServiceError):
    """If-Match did not match the current version."""

    status = 412
    title = "Precondition failed"


class Conflict(ServiceError):
    """The request conflicts with the current state."""

    status = 409
    title = "Conflict"


class Unprocessable(ServiceError):
    """Well-formed JSON that cannot be acted on."""

    status = 422
    title = "Unprocessable content"


class Unauthorized(ServiceError):
    """Missing, malformed, unknown or revoked credentials."""

    status = 401
    title = "Unauthorized"


class Forbidden(ServiceError):
    """Credentials that are valid but not allowed here."""

    status = 403
    title = "Forbidden"
