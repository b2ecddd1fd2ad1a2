"""Every LLM provider against a mock HTTP server that speaks that provider's real wire format.

The SDK clients are handed an HTTP client over ``MockTransport``; nothing reaches the network and
no key is real. Sleeps go to a recorder, so retries cost no time.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import cache
from types import ModuleType
from typing import Any

import httpx
import pytest

from app.domain.extraction.extractor import ExtractionInput
from app.domain.ingest.segmentation import make_segment
from app.domain.ingest.turns import Turn
from app.llm.errors import (
    FatalProviderError,
    RetryPolicy,
    SegmentOutputError,
    TransientProviderError,
)
from app.llm.factory import make_extractor
from app.llm.providers import AnthropicClient, LLMExtractor, OllamaClient, OpenAIClient
from app.llm.schema import SCHEMA_NAME, output_json_schema

MAY_8 = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
NOW = datetime(2024, 1, 1, 12, 0, tzinfo=UTC)
SEGMENT = make_segment(
    [
        Turn("Melanie", "I moved to Kwekwe last week for a new job.", ts=MAY_8, id="m1"),
        Turn("Caroline", "Congrats! How is it going?", ts=MAY_8 + timedelta(minutes=1), id="m2"),
        Turn("Melanie", "I still need to book the flight home for Christmas.", id="m3"),
    ]
)
REQUEST = ExtractionInput(segment=SEGMENT, subject="Melanie", known_keys=("location", "job"))
GOOD: dict[str, Any] = {
    "facts": [
        {"key": "location", "value": "Kwekwe", "confidence": 0.95},
        {"key": "Melanie.employer_status", "value": "new job", "confidence": 0.8},
        {"key": "caroline.mood", "value": "happy for Melanie", "confidence": 0.6},
    ],
    "prefs": [],
    "entities": [
        {"name": "Kwekwe", "type": "place", "aliases": []},
        {"name": "Caroline", "type": "person", "aliases": ["Caro"]},
    ],
    "open_loops": [{"item": "Book the flight home for Christmas"}],
    "observations": [
        {
            "text": "Melanie moved to Kwekwe for a new job.",
            "when": "2023-05-01",
            "participants": ["Melanie"],
        }
    ],
    "episode": {
        "summary": "Melanie told Caroline she moved to Kwekwe for a new job.",
        "salience": 0.8,
        "participants": ["Melanie", "Caroline"],
        "keywords": ["kwekwe", "job", "move"],
    },
}


# --- the mock server ------------------------------------------------------------------------------


@dataclass
class Reply:
    """One scripted server answer: a status with a JSON body, or a read timeout."""

    body: Any = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    timeout: bool = False


@dataclass
class Server:
    """Answers requests from a script and records what was sent."""

    http: ModuleType
    replies: list[Reply]
    requests: list[dict[str, Any]] = field(default_factory=list)
    urls: list[str] = field(default_factory=list)

    def handle(self, request: Any) -> Any:
        self.urls.append(str(request.url))
        self.requests.append(json.loads(request.content))
        reply = self.replies.pop(0)
        if reply.timeout:
            raise self.http.ReadTimeout("timed out", request=request)
        return self.http.Response(reply.status, json=reply.body, headers=reply.headers)

    def client(self) -> Any:
        return self.http.AsyncClient(transport=self.http.MockTransport(self.handle))


class Sleeps:
    """The injected sleep: records each wait instead of waiting."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


@cache
def _http_for(sdk_class: Callable[..., Any]) -> ModuleType:
    """httpx, or httpx2 for SDK releases that only take an httpx2 client."""
    probe = httpx.AsyncClient(transport=httpx.MockTransport(lambda r: httpx.Response(500)))
    try:
        sdk_class(api_key="test", http_client=probe)
    except TypeError:
        return importlib.import_module("httpx2")
    return httpx


# --- wire formats ---------------------------------------------------------------------------------


def openai_text(content: str | None, *, refusal: str | None = None) -> dict[str, Any]:
    """A chat.completions response whose message carries ``content``."""
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "gpt-4o-mini",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": content, "refusal": refusal},
            }
        ],
        "usage": {"prompt_tokens": 321, "completion_tokens": 45, "total_tokens": 366},
    }


def anthropic_tool(data: object, *, name: str = SCHEMA_NAME) -> dict[str, Any]:
    """A Messages response with one tool_use block carrying ``data``."""
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": name, "input": data}],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 321, "output_tokens": 45},
    }


def anthropic_text(text: str) -> dict[str, Any]:
    """A Messages response that answered in prose instead of calling the tool."""
    return {
        "id": "msg_2",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 321, "output_tokens": 45},
    }


def ollama_text(content: str) -> dict[str, Any]:
    """An /api/chat response, not streamed."""
    return {
        "model": "llama3.2",
        "created_at": "2024-01-01T12:00:00Z",
        "message": {"role": "assistant", "content": content},
        "done": True,
        "done_reason": "stop",
        "prompt_eval_count": 321,
        "eval_count": 45,
    }


@dataclass(frozen=True)
class Provider:
    """How to build one provider's extractor and speak its wire format."""

    name: str
    path: str  # the endpoint every request must go to
    sdk: str | None
    answer: Callable[[object], dict[str, Any]]  # a reply carrying a structured answer
    prose: Callable[[str], dict[str, Any]]  # a reply carrying raw text

    def http(self) -> ModuleType:
        if self.sdk is None:
            return httpx
        module = importlib.import_module(self.sdk)
        return _http_for(module.AsyncOpenAI if self.sdk == "openai" else module.AsyncAnthropic)

    def extractor(self, server: Server, retry: RetryPolicy) -> LLMExtractor:
        # The composition make_extractor builds, with a retry policy whose sleeps are recorded.
        if self.name == "openai":
            return LLMExtractor(
                OpenAIClient(
                    "gpt-4o-mini", api_key="sk-test", retry=retry, http_client=server.client()
                )
            )
        if self.name == "anthropic":
            return LLMExtractor(
                AnthropicClient(
                    "claude-test", api_key="sk-ant-test", retry=retry, http_client=server.client()
                )
            )
        return LLMExtractor(OllamaClient("llama3.2", retry=retry, http_client=server.client()))


PROVIDERS = [
    Provider(
        "openai",
        "https://api.openai.com/v1/chat/completions",
        "openai",
        lambda data: openai_text(json.dumps(data)),
        openai_text,
    ),
    Provider(
        "anthropic",
        "https://api.anthropic.com/v1/messages",
        "anthropic",
        anthropic_tool,
        anthropic_text,
    ),
    Provider(
        "ollama",
        "http://localhost:11434/api/chat",
        None,
        lambda data: ollama_text(json.dumps(data)),
        ollama_text,
    ),
]


@pytest.fixture(params=PROVIDERS, ids=lambda p: p.name)
def provider(request: pytest.FixtureRequest) -> Provider:
    return request.param


def _setup(provider: Provider, *replies: Reply) -> tuple[Server, Sleeps, LLMExtractor]:
    sleeps = Sleeps()
    retry = RetryPolicy(max_retries=2, sleep=sleeps, jitter=lambda: 0.5, clock=lambda: NOW)
    server = Server(provider.http(), list(replies))
    return server, sleeps, provider.extractor(server, retry)


def _prompt_text(body: dict[str, Any]) -> str:
    """Everything a request says to the model in words: system prompt and message contents."""
    parts = [str(body.get("system", ""))]
    for message in body.get("messages", []):
        content = message["content"]
        parts.append(content if isinstance(content, str) else json.dumps(content))
    return "\n".join(parts)


# --- behaviour shared by every provider -----------------------------------------------------------


async def test_good_answer_becomes_the_extraction(provider: Provider) -> None:
    server, sleeps, extractor = _setup(provider, Reply(provider.answer(GOOD)))
    out = await extractor.extract(REQUEST)

    assert server.urls == [provider.path]
    assert extractor.name.startswith(provider.name + ":")
    ts = "2023-05-08T13:57:00Z"  # the segment's last turn time
    assert [(b.key, b.value, b.confidence, b.ts, b.source) for b in out.facts] == [
        ("location", "Kwekwe", 0.95, ts, SEGMENT.id),
        ("employer_status", "new job", 0.8, ts, SEGMENT.id),  # the subject's key is plain
        ("caroline.mood", "happy for Melanie", 0.6, ts, SEGMENT.id),
    ]
    assert [(e.name, e.type, e.aliases) for e in out.entities] == [
        ("Kwekwe", "place", []),
        ("Caroline", "person", ["Caro"]),
    ]
    assert [(o.item, o.source) for o in out.open_loops] == [
        ("Book the flight home for Christmas", SEGMENT.id)
    ]
    assert [(o.text, o.when, o.participants) for o in out.observations] == [
        ("Melanie moved to Kwekwe for a new job.", "2023-05-01", ["Melanie"])
    ]
    assert out.episode is not None
    assert (out.episode.id, out.episode.source, out.episode.ts) == (SEGMENT.id, SEGMENT.id, ts)
    assert out.episode.summary == "Melanie told Caroline she moved to Kwekwe for a new job."
    assert out.episode.keywords == ["kwekwe", "job", "move"]
    assert (out.calls, out.input_tokens, out.output_tokens) == (1, 321, 45)
    assert sleeps.waits == []


async def test_schema_goes_in_the_native_place_not_the_prompt(provider: Provider) -> None:
    server, _, extractor = _setup(provider, Reply(provider.answer(GOOD)))
    await extractor.extract(REQUEST)

    body = server.requests[0]
    schema = output_json_schema()
    if provider.name == "openai":
        assert body["response_format"] == {
            "type": "json_schema",
            "json_schema": {"name": SCHEMA_NAME, "schema": schema, "strict": True},
        }
    elif provider.name == "anthropic":
        assert [t["input_schema"] for t in body["tools"]] == [schema]
        assert body["tool_choice"] == {"type": "tool", "name": SCHEMA_NAME}
    else:
        assert body["format"] == schema
        assert body["stream"] is False
    prompt = _prompt_text(body)
    assert "additionalProperties" not in prompt
    assert '"properties"' not in prompt
    # What the model does get: the subject, absolute turn times, and the known keys to reuse.
    assert "Subject: Melanie" in prompt
    assert "2023-05-08T13:56:00Z" in prompt
    assert "Known keys: location, job" in prompt


async def test_429_waits_as_long_as_retry_after_says(provider: Provider) -> None:
    server, sleeps, extractor = _setup(
        provider,
        Reply({"error": {"message": "slow down"}}, status=429, headers={"Retry-After": "7"}),
        Reply(provider.answer(GOOD)),
    )
    out = await extractor.extract(REQUEST)
    assert sleeps.waits == [7.0]
    assert len(server.requests) == 2
    assert out.calls == 1  # a rate-limited attempt is no model call


async def test_retry_after_as_an_http_date(provider: Provider) -> None:
    _, sleeps, extractor = _setup(
        provider,
        Reply(None, status=503, headers={"Retry-After": "Mon, 01 Jan 2024 12:00:30 GMT"}),
        Reply(provider.answer(GOOD)),
    )
    await extractor.extract(REQUEST)
    assert sleeps.waits == [30.0]


async def test_500_is_retried_with_backoff(provider: Provider) -> None:
    server, sleeps, extractor = _setup(
        provider,
        Reply({"error": {"message": "boom"}}, status=500),
        Reply({"error": {"message": "boom"}}, status=502),
        Reply(provider.answer(GOOD)),
    )
    out = await extractor.extract(REQUEST)
    assert len(server.requests) == 3
    assert len(sleeps.waits) == 2
    assert sleeps.waits[1] > sleeps.waits[0]  # exponential
    assert out.facts


async def test_timeout_is_retried(provider: Provider) -> None:
    server, sleeps, extractor = _setup(provider, Reply(timeout=True), Reply(provider.answer(GOOD)))
    out = await extractor.extract(REQUEST)
    assert len(server.requests) == 2
    assert len(sleeps.waits) == 1
    assert out.episode is not None


async def test_retries_are_bounded(provider: Provider) -> None:
    server, sleeps, extractor = _setup(
        provider, *[Reply({"error": {"message": "down"}}, status=503) for _ in range(3)]
    )
    with pytest.raises(TransientProviderError, match="gave up after 3 attempts") as info:
        await extractor.extract(REQUEST)
    assert info.value.status == 503
    assert len(server.requests) == 3  # max_retries=2: one try and two retries
    assert len(sleeps.waits) == 2


async def test_401_is_fatal_at_once(provider: Provider) -> None:
    body = {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}}
    server, sleeps, extractor = _setup(provider, Reply(body, status=401))
    with pytest.raises(FatalProviderError, match="authentication failed") as info:
        await extractor.extract(REQUEST)
    assert info.value.status == 401
    assert len(server.requests) == 1
    assert sleeps.waits == []


async def test_400_is_fatal_at_once(provider: Provider) -> None:
    body = {"error": {"message": "Invalid schema for response_format"}}
    server, _, extractor = _setup(provider, Reply(body, status=400))
    with pytest.raises(FatalProviderError, match="rejected the request"):
        await extractor.extract(REQUEST)
    assert len(server.requests) == 1


async def test_malformed_answer_gets_one_repair(provider: Provider) -> None:
    server, _, extractor = _setup(
        provider, Reply(provider.prose("Sure! Melanie moved.")), Reply(provider.answer(GOOD))
    )
    out = await extractor.extract(REQUEST)
    assert [b.key for b in out.facts] == ["location", "employer_status", "caroline.mood"]
    assert (out.calls, out.input_tokens, out.output_tokens) == (2, 642, 90)  # repair counted
    repair = _prompt_text(server.requests[1])
    assert "could not be used" in repair
    assert "Sure! Melanie moved." in repair  # the model sees what it said


async def test_malformed_twice_is_a_segment_error(provider: Provider) -> None:
    server, _, extractor = _setup(
        provider, Reply(provider.prose("not json")), Reply(provider.prose("{still not"))
    )
    with pytest.raises(SegmentOutputError, match="still invalid after a repair") as info:
        await extractor.extract(REQUEST)
    assert len(server.requests) == 2
    assert (info.value.calls, info.value.input_tokens, info.value.output_tokens) == (2, 642, 90)


async def test_wrong_shape_is_repaired(provider: Provider) -> None:
    bad = {**GOOD, "facts": "Melanie lives in Kwekwe"}
    server, _, extractor = _setup(
        provider, Reply(provider.answer(bad)), Reply(provider.answer(GOOD))
    )
    out = await extractor.extract(REQUEST)
    assert len(server.requests) == 2
    assert "facts must be an array" in _prompt_text(server.requests[1])
    assert out.facts[0].value == "Kwekwe"


async def test_schema_violating_items_are_clamped_or_dropped(provider: Provider) -> None:
    bad = {
        **GOOD,
        "facts": [
            {"key": "location", "value": "Kwekwe", "confidence": 7},  # clamped to 1
            {"key": "", "value": "nothing", "confidence": 0.5},  # no key: dropped
            {"key": "pets", "value": {"dog": "Rex"}, "confidence": 0.5},  # object value: dropped
            {"key": "age", "value": 31, "confidence": "0.9"},  # a numeric string is a number
        ],
        "entities": [{"name": f"Place {i}", "type": "city", "aliases": []} for i in range(500)],
        "episode": {**GOOD["episode"], "salience": -3, "summary": "x" * 5000},
    }
    server, _, extractor = _setup(provider, Reply(provider.answer(bad)))
    out = await extractor.extract(REQUEST)
    assert len(server.requests) == 1  # fixable in place: no repair call
    assert [(b.key, b.value, b.confidence) for b in out.facts] == [
        ("location", "Kwekwe", 1.0),
        ("age", 31, 0.9),
    ]
    assert len(out.entities) == 40
    assert {e.type for e in out.entities} == {"other"}  # "city" is not a passport entity type
    assert out.episode is not None
    assert out.episode.salience == 0.0
    assert len(out.episode.summary) <= 600


# --- provider specifics ---------------------------------------------------------------------------


async def test_openai_refusal_is_a_segment_error_without_repair() -> None:
    server, _, extractor = _setup(
        PROVIDERS[0], Reply(openai_text(None, refusal="I can't help with that."))
    )
    with pytest.raises(SegmentOutputError, match="refused: I can't help with that"):
        await extractor.extract(REQUEST)
    assert len(server.requests) == 1


async def test_openai_compatible_server_via_base_url() -> None:
    server = Server(httpx, [Reply(openai_text(json.dumps(GOOD)))])
    extractor = make_extractor(
        "openai:qwen2.5-7b-instruct",
        base_url="http://llm.internal:8000/v1",
        http_client=server.client(),
        max_retries=0,
    )
    out = await extractor.extract(REQUEST)
    assert server.urls == ["http://llm.internal:8000/v1/chat/completions"]
    assert server.requests[0]["model"] == "qwen2.5-7b-instruct"
    assert out.facts


async def test_anthropic_repair_answers_the_tool_call_with_an_error_result() -> None:
    provider = PROVIDERS[1]
    bad = {**GOOD, "observations": {"text": "not a list"}}
    server, _, extractor = _setup(provider, Reply(anthropic_tool(bad)), Reply(anthropic_tool(GOOD)))
    await extractor.extract(REQUEST)
    messages = server.requests[1]["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert messages[1]["content"][0]["type"] == "tool_use"
    result = messages[2]["content"][0]
    assert (result["type"], result["tool_use_id"], result["is_error"]) == (
        "tool_result",
        "toolu_1",
        True,
    )
    assert "observations must be an array" in result["content"]
    assert server.requests[1]["tool_choice"] == {"type": "tool", "name": SCHEMA_NAME}


async def test_ollama_unknown_model_is_fatal_with_its_reason() -> None:
    body = {"error": 'model "llama9" not found, try pulling it first'}
    server, _, extractor = _setup(PROVIDERS[2], Reply(body, status=404))
    with pytest.raises(FatalProviderError, match=r"llama9.*not found"):
        await extractor.extract(REQUEST)
    assert len(server.requests) == 1


async def test_ollama_connection_refused_is_retried() -> None:
    attempts: list[int] = []

    def refuse_then_answer(request: httpx.Request) -> httpx.Response:
        attempts.append(1)
        if len(attempts) == 1:
            raise httpx.ConnectError("connection refused", request=request)
        return httpx.Response(200, json=ollama_text(json.dumps(GOOD)))

    sleeps = Sleeps()
    client = OllamaClient(
        "llama3.2",
        base_url="http://gpu-box:11434/",
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(refuse_then_answer)),
        retry=RetryPolicy(max_retries=1, sleep=sleeps),
    )
    extractor = LLMExtractor(client)
    out = await extractor.extract(REQUEST)
    assert len(attempts) == 2
    assert len(sleeps.waits) == 1
    assert out.episode is not None
