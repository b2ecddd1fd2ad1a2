"""Build an extractor (or a bare structured-output client) from a spec such as "openai:gpt-4o-mini".

Specs: ``rules`` (the offline rule extractor), ``openai:<model>`` (with ``base_url`` for any
OpenAI-compatible server), ``anthropic:<model>``, ``ollama:<model>``. Keys come from
``OPENAI_API_KEY`` / ``ANTHROPIC_API_KEY`` when none is passed.
"""

from __future__ import annotations

import os

import httpx

from app.domain.extract import Extractor
from app.domain.rules import RuleExtractor
from app.llm.errors import RetryPolicy
from app.llm.providers import (
    AnthropicClient,
    LLMExtractor,
    OllamaClient,
    OpenAIClient,
)
from app.llm.structured import StructuredClient

PROVIDERS = ("openai", "anthropic", "ollama")
KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
SPEC_HELP = "expected 'rules', 'openai:<model>', 'anthropic:<model>' or 'ollama:<model>'"


def parse_spec(spec: str) -> tuple[str, str]:
    """("openai", "gpt-4o-mini") for "openai:gpt-4o-mini", ("rules", "") for "rules"."""
    text = spec.strip()
    if text.lower() == "rules":
        return "rules", ""
    provider, colon, model = text.partition(":")
    provider = provider.strip().lower()
    model = model.strip()  # Ollama tags keep their own colon: "ollama:llama3.2:3b"
    if not colon or provider not in PROVIDERS:
        raise ValueError(f"unknown extractor {spec!r}: {SPEC_HELP}")
    if not model:
        raise ValueError(f"extractor {spec!r} names no model: {SPEC_HELP}")
    return provider, model


def make_client(
    spec: str,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    timeout: float = 60.0,
    max_retries: int = 3,
    http_client: object | None = None,
) -> StructuredClient:
    """The structured-output client a provider spec names (for extraction or reconciliation).

    ``http_client`` is handed to the provider's SDK (OpenAI: an ``httpx.AsyncClient``; SDKs
    built on ``httpx2`` want an ``httpx2.AsyncClient``) or, for Ollama, must be an
    ``httpx.AsyncClient``.
    """
    provider, model = parse_spec(spec)
    if provider == "rules":
        raise ValueError("'rules' is not an LLM provider: it needs no client")
    if api_key is None and provider in KEY_ENV:
        api_key = os.environ.get(KEY_ENV[provider]) or None
    retry = RetryPolicy(max_retries=max_retries)
    if provider == "openai":
        return OpenAIClient(
            model,
            api_key=api_key,
            base_url=base_url,
            timeout=timeout,
            retry=retry,
            http_client=http_client,
        )
    if provider == "anthropic":
        return AnthropicClient(
            model,
            api_key=api_key,
            base_url=base_url,
            timeout=timeout,
            retry=retry,
            http_client=http_client,
        )
    if http_client is not None and not isinstance(http_client, httpx.AsyncClient):
        raise TypeError("the ollama provider needs an httpx.AsyncClient as http_client")
    return OllamaClient(
        model,
        base_url=base_url,
        api_key=api_key,
        timeout=timeout,
        retry=retry,
        http_client=http_client,
    )


def make_extractor(
    spec: str,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    timeout: float = 60.0,
    max_retries: int = 3,
    http_client: object | None = None,
) -> Extractor:
    """The extractor a spec names; a bad spec raises ValueError saying what is accepted."""
    if parse_spec(spec)[0] == "rules":
        return RuleExtractor()
    client = make_client(
        spec,
        base_url=base_url,
        api_key=api_key,
        timeout=timeout,
        max_retries=max_retries,
        http_client=http_client,
    )
    return LLMExtractor(client)
