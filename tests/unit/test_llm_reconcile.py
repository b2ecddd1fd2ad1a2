"""Dedupe tier 3: the model proposes key merges; only safe ones over real keys are accepted."""

from __future__ import annotations

import json
from typing import Any

import httpx

from app.llm.errors import RetryPolicy
from app.llm.providers import OllamaClient, OpenAIClient
from app.llm.reconcile import KeyMerge, KeySample, check_merges, reconcile, reconcile_keys
from app.llm.structured import Completion, StructuredRequest

KEYS = [
    KeySample("home_city", ("Kwekwe",)),
    KeySample("city_of_residence", ("Kwekwe", "Harare")),
    KeySample("budget_min", ("300",)),
    KeySample("budget_max", ("900",)),
    KeySample("location", ("Kwekwe",)),
    KeySample("caroline.location", ("Harare",)),
]


def _merge(keep: str, drop: str, reason: str = "same meaning") -> dict[str, str]:
    return {"keep": keep, "drop": drop, "reason": reason}


def _openai(merges: list[dict[str, str]]) -> tuple[OpenAIClient, list[dict[str, Any]]]:
    sent: list[dict[str, Any]] = []

    def server(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        message = {"role": "assistant", "content": json.dumps({"merges": merges})}
        return httpx.Response(
            200,
            json={
                "id": "c",
                "object": "chat.completion",
                "created": 1,
                "model": "gpt-4o-mini",
                "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
                "usage": {"prompt_tokens": 50, "completion_tokens": 20, "total_tokens": 70},
            },
        )

    client = OpenAIClient(
        "gpt-4o-mini",
        api_key="sk-test",
        retry=RetryPolicy(max_retries=0),
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(server)),
    )
    return client, sent


async def test_an_invented_key_is_rejected() -> None:
    client, sent = _openai(
        [
            _merge("home_city", "city_of_residence"),
            _merge("home_town", "home_city"),  # home_town was never a key
        ]
    )
    result = await reconcile(client, KEYS, [("home_city", "city_of_residence")])
    assert result.merges == [KeyMerge("home_city", "city_of_residence", "same meaning")]
    assert [(m.keep, why) for m, why in result.rejected] == [
        ("home_town", "not an existing key: 'home_town'")
    ]
    assert (result.calls, result.input_tokens, result.output_tokens) == (1, 50, 20)
    # One call over the whole key list with samples and the pending pair, schema native.
    body = sent[0]
    assert body["response_format"]["json_schema"]["name"] == "key_merges"
    assert body["response_format"]["json_schema"]["strict"] is True
    prompt = body["messages"][1]["content"]
    assert '{"key": "city_of_residence", "samples": ["Kwekwe", "Harare"]}' in prompt
    assert '["home_city", "city_of_residence"]' in prompt
    assert "additionalProperties" not in prompt


async def test_polarity_and_other_peoples_keys_are_refused() -> None:
    client, _ = _openai(
        [
            _merge("budget_min", "budget_max"),
            _merge("location", "caroline.location"),
            _merge("location", "home_city"),
        ]
    )
    merges = await reconcile_keys(client, KEYS, [])
    assert merges == [KeyMerge("location", "home_city", "same meaning")]


async def test_reconcile_through_ollama_uses_its_format_field() -> None:
    sent: list[dict[str, Any]] = []

    def server(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        content = json.dumps({"merges": [_merge("home_city", "city_of_residence")]})
        reply = {"message": {"role": "assistant", "content": content}, "done": True}
        return httpx.Response(200, json=reply | {"prompt_eval_count": 9, "eval_count": 4})

    client = OllamaClient(
        "llama3.2", http_client=httpx.AsyncClient(transport=httpx.MockTransport(server))
    )
    merges = await reconcile_keys(client, KEYS, [])
    assert [(m.keep, m.drop) for m in merges] == [("home_city", "city_of_residence")]
    assert sent[0]["format"]["properties"]["merges"]["type"] == "array"


def test_merges_never_chain() -> None:
    keys = {"a_city", "city", "town", "home_town"}
    result = check_merges(
        [
            KeyMerge("city", "a_city", ""),
            KeyMerge("town", "city", ""),  # city is kept already: it cannot also be dropped
            KeyMerge("a_city", "town", ""),  # a_city is gone already
            KeyMerge("home_town", "a_city", ""),  # a_city dropped twice
            KeyMerge("town", "town", ""),
        ],
        keys,
    )
    assert [(m.keep, m.drop) for m in result.merges] == [("city", "a_city")]
    assert len(result.rejected) == 4


class NoCalls:
    """A client that must not be called."""

    provider = "fake"
    model = "none"

    async def complete(self, request: StructuredRequest) -> Completion:
        raise AssertionError("no call expected")

    async def aclose(self) -> None:
        return None


async def test_fewer_than_two_keys_need_no_call() -> None:
    assert await reconcile_keys(NoCalls(), [KeySample("location")], []) == []
