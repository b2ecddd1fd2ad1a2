"""The shared retry policy and the status classification every provider uses."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from app.llm.errors import (
    FatalProviderError,
    RetryPolicy,
    TransientProviderError,
    classify_status,
    retry_after_seconds,
    with_retries,
)
from app.llm.structured import Completion, StructuredRequest, ask_structured

NOW = datetime(2024, 1, 1, 12, 0, tzinfo=UTC)


class Sleeps:
    """The injected sleep: records each wait instead of waiting."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"retry-after": "7"}, 7.0),
        ({"retry-after": "1.5"}, 1.5),
        ({"retry-after": "Mon, 01 Jan 2024 12:00:20 GMT"}, 20.0),
        ({"retry-after": "Mon, 01 Jan 2024 11:00:00 GMT"}, 0.0),  # already past
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),  # the precise one first
        ({"retry-after": "soon"}, None),
        ({}, None),
    ],
)
def test_retry_after_seconds(headers: dict[str, str], seconds: float | None) -> None:
    assert retry_after_seconds(headers, NOW) == seconds


@pytest.mark.parametrize("status", [408, 409, 429, 500, 502, 503, 529])
def test_transient_statuses(status: int) -> None:
    error = classify_status(status, {"retry-after": "3"}, "busy", now=NOW)
    assert isinstance(error, TransientProviderError)
    assert (error.status, error.retry_after) == (status, 3.0)


@pytest.mark.parametrize(
    ("status", "words"),
    [
        (401, "authentication failed"),
        (403, "authentication failed"),
        (400, "rejected the request"),
        (404, "rejected the request"),
        (422, "rejected the request"),
    ],
)
def test_fatal_statuses(status: int, words: str) -> None:
    error = classify_status(status, {}, "model gpt-9 does not exist", now=NOW)
    assert isinstance(error, FatalProviderError)
    assert words in error.reason and "gpt-9 does not exist" in error.reason


def test_backoff_grows_and_is_capped() -> None:
    policy = RetryPolicy(base_delay=1.0, max_delay=5.0, jitter=lambda: 1.0)
    assert [policy.delay(n, None) for n in (1, 2, 3, 4, 5)] == [1.0, 2.0, 4.0, 5.0, 5.0]
    low = RetryPolicy(base_delay=1.0, max_delay=5.0, jitter=lambda: 0.0)
    assert [low.delay(n, None) for n in (1, 2, 3)] == [0.5, 1.0, 2.0]  # never under half


async def test_a_longer_retry_after_than_we_wait_gives_up_at_once() -> None:
    sleeps = Sleeps()
    calls: list[int] = []

    async def busy() -> str:
        calls.append(1)
        raise TransientProviderError("provider returned 429", status=429, retry_after=3600)

    policy = RetryPolicy(max_retries=5, max_retry_after=120, sleep=sleeps)
    with pytest.raises(TransientProviderError, match="asked to wait 3600s"):
        await with_retries(busy, policy)
    assert (len(calls), sleeps.waits) == (1, [])


async def test_fatal_errors_are_not_retried() -> None:
    sleeps = Sleeps()
    calls: list[int] = []

    async def denied() -> str:
        calls.append(1)
        raise FatalProviderError("authentication failed (401)", status=401)

    with pytest.raises(FatalProviderError):
        await with_retries(denied, RetryPolicy(max_retries=3, sleep=sleeps))
    assert (len(calls), sleeps.waits) == (1, [])


class ScriptedClient:
    """A structured-output client answering from a list."""

    provider = "fake"
    model = "scripted"

    def __init__(self, *answers: Completion) -> None:
        self.answers = list(answers)
        self.requests: list[StructuredRequest] = []

    async def complete(self, request: StructuredRequest) -> Completion:
        self.requests.append(request)
        return self.answers.pop(0)

    async def aclose(self) -> None:
        return None


async def test_the_repair_request_names_the_problem_and_the_failed_answer() -> None:
    client = ScriptedClient(
        Completion("oops", input_tokens=10, output_tokens=2),
        Completion('{"ok": true}', input_tokens=12, output_tokens=3),
    )
    request = StructuredRequest("system", "user", "answer", {"type": "object"})
    result = await ask_structured(client, request, lambda data: data)
    assert result.value == {"ok": True}
    assert (result.calls, result.input_tokens, result.output_tokens) == (2, 22, 5)
    repair = client.requests[1].repair
    assert repair is not None
    assert repair[0].text == "oops" and "not valid JSON" in repair[1]
