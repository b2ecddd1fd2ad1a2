"""Provider failures and the one retry policy every provider shares.

The SDKs' own retries are switched off (``max_retries=0``) so that OpenAI, Anthropic and Ollama
behave alike: 429, 5xx, timeouts and dropped connections are retried here with exponential
backoff and jitter, honouring ``Retry-After``; auth and bad-request errors fail at once.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import TypeVar

T = TypeVar("T")

DETAIL_MAX_CHARS = 300  # provider error bodies go into job rows and logs: keep them short
RETRYABLE_STATUSES = frozenset({408, 409, 425, 429})
AUTH_STATUSES = frozenset({401, 403})


class ProviderError(Exception):
    """A call to an LLM provider that did not produce a usable answer."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class FatalProviderError(ProviderError):
    """Retrying cannot help (bad key, unknown model, rejected request): the job fails with it."""

    def __init__(self, reason: str, *, status: int | None = None) -> None:
        super().__init__(reason)
        self.status = status


class TransientProviderError(ProviderError):
    """Rate limit, server error, timeout or lost connection; raised once retries are used up."""

    def __init__(
        self, reason: str, *, status: int | None = None, retry_after: float | None = None
    ) -> None:
        super().__init__(reason)
        self.status = status
        self.retry_after = retry_after


class SegmentOutputError(ProviderError):
    """The model's answer for one segment failed validation twice (the second a repair).

    The service records that segment as failed and applies the others. The usage of the calls
    that were made is kept here so it can still be counted.
    """

    def __init__(
        self, reason: str, *, calls: int = 0, input_tokens: int = 0, output_tokens: int = 0
    ) -> None:
        super().__init__(reason)
        self.calls = calls
        self.input_tokens = input_tokens
        self.output_tokens = output_tokens


class InvalidOutputError(ValueError):
    """Model output that cannot be used as it is; the reason is sent back in the repair turn."""


def _utc_now() -> datetime:
    return datetime.now(UTC)


async def _sleep(seconds: float) -> None:
    await asyncio.sleep(seconds)


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How often and how long to wait before retrying a transient failure."""

    max_retries: int = 3  # retries after the first attempt
    base_delay: float = 0.5
    max_delay: float = 30.0
    # A server asking for a longer pause than this is not waited for: the error goes up, and the
    # job can be retried later instead of holding a worker slot.
    max_retry_after: float = 120.0
    sleep: Callable[[float], Awaitable[None]] = _sleep
    jitter: Callable[[], float] = random.random
    clock: Callable[[], datetime] = _utc_now

    def delay(self, retry: int, retry_after: float | None) -> float | None:
        """Seconds to wait before retry number ``retry`` (1-based); None to stop retrying."""
        if retry_after is not None:
            return retry_after if retry_after <= self.max_retry_after else None
        backoff = min(self.max_delay, self.base_delay * 2 ** (retry - 1))
        # Equal jitter: never less than half the backoff, so retries still spread out over time.
        return backoff / 2 + self.jitter() * backoff / 2


async def with_retries(call: Callable[[], Awaitable[T]], policy: RetryPolicy) -> T:
    """Run ``call``, retrying ``TransientProviderError`` as the policy allows."""
    attempts = 0
    while True:
        try:
            return await call()
        except TransientProviderError as exc:
            attempts += 1
            wait = policy.delay(attempts, exc.retry_after)
            if attempts > policy.max_retries or wait is None:
                why = (
                    f"gave up after {attempts} attempts"
                    if wait is not None
                    else f"server asked to wait {exc.retry_after:g}s"
                )
                raise TransientProviderError(
                    f"{exc.reason} ({why})", status=exc.status, retry_after=exc.retry_after
                ) from exc
            await policy.sleep(wait)


def retry_after_seconds(headers: Mapping[str, str], now: datetime) -> float | None:
    """The pause a server asked for: ``retry-after-ms``, or ``Retry-After`` as seconds or a date."""
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            return max(float(millis) / 1000, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    value = value.strip()
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)  # HTTP dates are GMT by definition
    return max((when - now).total_seconds(), 0.0)


def clip_detail(detail: str) -> str:
    """One short line of a provider's error text."""
    line = " ".join(detail.split())
    return line if len(line) <= DETAIL_MAX_CHARS else line[: DETAIL_MAX_CHARS - 1] + "…"


def classify_status(
    status: int, headers: Mapping[str, str], detail: str, *, now: datetime
) -> ProviderError:
    """The error an HTTP status stands for: transient (retry) or fatal (fail the job)."""
    text = clip_detail(detail) or "no detail"
    if status in RETRYABLE_STATUSES or 500 <= status <= 599:
        return TransientProviderError(
            f"provider returned {status}: {text}",
            status=status,
            retry_after=retry_after_seconds(headers, now),
        )
    if status in AUTH_STATUSES:
        return FatalProviderError(
            f"authentication failed ({status}): check the API key: {text}", status=status
        )
    return FatalProviderError(f"provider rejected the request ({status}): {text}", status=status)
