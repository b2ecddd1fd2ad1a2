"""Sending a request again when Tessera asks for it later: 429 and 503, honouring Retry-After.

The retries sit in an httpx transport around the real one, so every call of the client (and of
the generated ``tessera_client`` it drives) gets them. What is sent again: a 429 or 503 reply
(Tessera refused before doing anything), a connection that failed to open, and a connection that
broke before a reply came (a kept-alive connection the server closed just as the request went
out) when the request is safe to repeat: a read, or a write with an ``Idempotency-Key``, which
Tessera does once however often it sees it.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import httpx

from tessera.errors import retry_after

# Errors raised before the request left this machine: sending it again cannot do it twice.
NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout)
# A connection that broke before a reply came: the request may have been done, so it is sent
# again only when doing it twice is the same as once (``repeatable``).
BROKEN = (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError)
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def repeatable(request: httpx.Request) -> bool:
    """Whether sending ``request`` twice does what sending it once does."""
    return request.method in SAFE_METHODS or "idempotency-key" in request.headers


def _worth_retrying(error: httpx.TransportError, request: httpx.Request) -> bool:
    return isinstance(error, NOT_SENT) or (isinstance(error, BROKEN) and repeatable(request))


@dataclass(frozen=True)
class Retry:
    """How often and how long the client tries again (``Retry(attempts=1)`` never does)."""

    attempts: int = 4  # tries in all, the first one included
    backoff: float = 0.5  # seconds before the second try when the reply names no wait; doubles
    max_backoff: float = 8.0  # the longest wait the doubling reaches
    max_wait: float = 30.0  # a Retry-After longer than this is not waited for: the error is raised
    statuses: frozenset[int] = field(default_factory=lambda: frozenset({429, 503}))

    def delay(self, tried: int, headers: httpx.Headers | None) -> float | None:
        """Seconds to wait before the next try after ``tried`` tries, or None to give up."""
        if tried >= self.attempts:
            return None
        asked = retry_after(headers) if headers is not None else None
        if asked is not None:
            return asked if asked <= self.max_wait else None
        doubled = min(self.backoff * 2.0 ** (tried - 1), self.max_backoff)
        return doubled * random.uniform(0.5, 1.0)  # spread: clients refused together part


class RetryingTransport(httpx.BaseTransport):
    """An httpx transport that retries what Tessera asks to send later (``Retry``)."""

    def __init__(
        self,
        inner: httpx.BaseTransport | None = None,
        retry: Retry | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.inner = inner or httpx.HTTPTransport()
        self.retry = retry or Retry()
        self.sleep = sleep

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        """Send ``request``, again after the wait asked for while the policy allows."""
        tried = 0
        while True:
            tried += 1
            try:
                response = self.inner.handle_request(request)
            except httpx.TransportError as error:
                wait = self.retry.delay(tried, None)
                if wait is None or not _worth_retrying(error, request):
                    raise
                self.sleep(wait)
                continue
            if response.status_code not in self.retry.statuses:
                return response
            wait = self.retry.delay(tried, response.headers)
            if wait is None:
                return response
            response.close()
            self.sleep(wait)

    def close(self) -> None:
        """Close the transport it wraps."""
        self.inner.close()


class AsyncRetryingTransport(httpx.AsyncBaseTransport):
    """The asyncio twin of ``RetryingTransport``."""

    def __init__(
        self,
        inner: httpx.AsyncBaseTransport | None = None,
        retry: Retry | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.inner = inner or httpx.AsyncHTTPTransport()
        self.retry = retry or Retry()
        self.sleep = sleep

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Send ``request``, again after the wait asked for while the policy allows."""
        tried = 0
        while True:
            tried += 1
            try:
                response = await self.inner.handle_async_request(request)
            except httpx.TransportError as error:
                wait = self.retry.delay(tried, None)
                if wait is None or not _worth_retrying(error, request):
                    raise
                await self.sleep(wait)
                continue
            if response.status_code not in self.retry.statuses:
                return response
            wait = self.retry.delay(tried, response.headers)
            if wait is None:
                return response
            await response.aclose()
            await self.sleep(wait)

    async def aclose(self) -> None:
        """Close the transport it wraps."""
        await self.inner.aclose()
