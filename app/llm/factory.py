"""Build an extractor (or a bare structured-output client) from a spec such as "openai:gpt-4o-mini".

Specs: ``rules`` (the offline rule extractor), ``openai:<model>`` (with ``base_url`` for any
OpenAI-compatible server), ``anthropic:<model>``, ``ollama:<model>``. Keys come from
``OPENAI_API_KEY`` / ``ANTHROPIC_API_KEY`` when none is passed.
"""

from __future__ import annotations

import os
from typing import TypedDict, Unpack

from app.domain.extraction.extractor import Extractor
from app.domain.extraction.rules import RuleExtractor
from app.llm.errors import RetryPolicy
from app.llm.providers import (
    DEFAULT_TIMEOUT,
    AnthropicClient,
    Connection,
    LLMExtractor,
    OllamaClient,
    OpenAIClient,
)
from app.llm.structured import StructuredClient

PROVIDERS = ("openai", "anthropic", "ollama")
KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
DEFAULT_MAX_RETRIES = 3
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


class ClientOptions(TypedDict, total=False):
    """What ``make_client`` and ``make_extractor`` accept besides the spec."""

    base_url: str | None
    api_key: str | None  # else the provider's environment variable
    timeout: float
    max_retries: int
    http_client: object | None


def make_client(spec: str, **options: Unpack[ClientOptions]) -> StructuredClient:
    """The structured-output client a provider spec names (for extraction or reconciliation).

    ``http_client`` is handed to the provider's SDK (OpenAI: an ``httpx.AsyncClient``; SDKs
    built on ``httpx2`` want an ``httpx2.AsyncClient``) or, for Ollama, must be an
    ``httpx.AsyncClient``.
    """
    provider, model = parse_spec(spec)
    if provider == "rules":
        raise ValueError("'rules' is not an LLM provider: it needs no client")
    api_key = options.get("api_key")
    if api_key is None and provider in KEY_ENV:
        api_key = os.environ.get(KEY_ENV[provider]) or None
    connection = Connection(
        api_key=api_key,
        base_url=options.get("base_url"),
        timeout=options.get("timeout", DEFAULT_TIMEOUT),
        retry=RetryPolicy(max_retries=options.get("max_retries", DEFAULT_MAX_RETRIES)),
        http_client=options.get("http_client"),
    )
    if provider == "openai":
        return OpenAIClient(model, **connection)
    if provider == "anthropic":
        return AnthropicClient(model, **connection)
    return OllamaClient(model, **connection)


def make_extractor(spec: str, **options: Unpack[ClientOptions]) -> Extractor:
    """The extractor a spec names; a bad spec raises ValueError saying what is accepted."""
    if parse_spec(spec)[0] == "rules":
        return RuleExtractor()
    return LLMExtractor(make_client(spec, **options))
