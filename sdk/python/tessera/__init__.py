"""Tessera's Python client: ``Tessera`` and ``AsyncTessera``, their errors and retry policy."""

from tessera.client import AsyncTessera, Tessera
from tessera.errors import (
    AuthenticationError,
    BadRequest,
    Conflict,
    InvalidInput,
    NotFound,
    PermissionDenied,
    PreconditionFailed,
    RateLimited,
    ServerError,
    TesseraError,
    TooLarge,
    Unavailable,
)
from tessera.retrying import Retry

__all__ = [
    "AsyncTessera",
    "AuthenticationError",
    "BadRequest",
    "Conflict",
    "InvalidInput",
    "NotFound",
    "PermissionDenied",
    "PreconditionFailed",
    "RateLimited",
    "Retry",
    "ServerError",
    "Tessera",
    "TesseraError",
    "TooLarge",
    "Unavailable",
]
