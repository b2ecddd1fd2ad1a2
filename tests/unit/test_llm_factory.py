"""Choosing an extractor by spec, keys from the environment, and running without the SDKs."""

from __future__ import annotations

import ast
import importlib
import json
import sys
from pathlib import Path

import httpx
import pytest

import app
from app.domain.extraction.extractor import ExtractionInput
from app.domain.extraction.rules import RuleExtractor
from app.domain.ingest.segmentation import make_segment
from app.domain.ingest.turns import Turn
from app.llm.factory import make_extractor, parse_spec

ROOT = Path(__file__).resolve().parents[2]
SEGMENT = make_segment([Turn("Melanie", "I moved to Kwekwe last week.")])
ANSWER = {
    "facts": [{"key": "location", "value": "Kwekwe", "confidence": 0.9}],
    "prefs": [],
    "entities": [],
    "open_loops": [],
    "observations": [],
    "episode": {"summary": "Melanie moved.", "salience": 0.7, "participants": [], "keywords": []},
}


@pytest.fixture(autouse=True)
def _no_provider_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    # A developer's real key must never reach these tests.
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)


def test_rules_is_the_offline_extractor() -> None:
    assert isinstance(make_extractor("rules"), RuleExtractor)
    assert isinstance(make_extractor(" Rules "), RuleExtractor)


@pytest.mark.parametrize(
    ("spec", "parsed"),
    [
        ("openai:gpt-4o-mini", ("openai", "gpt-4o-mini")),
        ("anthropic:claude-3-5-haiku-latest", ("anthropic", "claude-3-5-haiku-latest")),
        ("ollama:llama3.2:3b", ("ollama", "llama3.2:3b")),  # the tag keeps its colon
        ("OpenAI: gpt-4o", ("openai", "gpt-4o")),
    ],
)
def test_specs(spec: str, parsed: tuple[str, str]) -> None:
    assert parse_spec(spec) == parsed


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "unknown extractor"),
        ("gpt-4o-mini", "unknown extractor"),
        ("mistral:large", "unknown extractor"),
        ("openai:", "names no model"),
        ("ollama:  ", "names no model"),
    ],
)
def test_a_bad_spec_says_what_is_accepted(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message) as info:
        make_extractor(spec)
    assert "'openai:<model>'" in str(info.value)


async def test_openai_key_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    seen: list[str | None] = []

    def server(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers.get("authorization"))
        choice = {"index": 0, "finish_reason": "stop"}
        choice["message"] = {"role": "assistant", "content": json.dumps(ANSWER)}
        return httpx.Response(
            200,
            json={
                "id": "c",
                "object": "chat.completion",
                "created": 1,
                "model": "gpt-4o-mini",
                "choices": [choice],
                "usage": {"prompt_tokens": 5, "completion_tokens": 6, "total_tokens": 11},
            },
        )

    extractor = make_extractor(
        "openai:gpt-4o-mini",
        timeout=5,
        max_retries=0,
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(server)),
    )
    assert extractor.name == "openai:gpt-4o-mini"
    out = await extractor.extract(ExtractionInput(segment=SEGMENT, subject="Melanie"))
    assert seen == ["Bearer sk-from-env"]
    assert [(b.key, b.value) for b in out.facts] == [("location", "Kwekwe")]


@pytest.mark.parametrize(
    ("spec", "variable"),
    [("openai:gpt-4o-mini", "OPENAI_API_KEY"), ("anthropic:claude-x", "ANTHROPIC_API_KEY")],
)
def test_a_missing_key_is_a_clear_error(spec: str, variable: str) -> None:
    with pytest.raises(ValueError, match=variable):
        make_extractor(spec)


def test_anthropic_builds_with_the_environment_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-from-env")
    assert make_extractor("anthropic:claude-x").name == "anthropic:claude-x"


def test_an_openai_compatible_server_needs_no_key() -> None:
    extractor = make_extractor("openai:qwen2.5", base_url="http://127.0.0.1:8080/v1")
    assert extractor.name == "openai:qwen2.5"


def test_ollama_takes_only_an_httpx_client() -> None:
    with pytest.raises(TypeError, match=r"httpx\.AsyncClient"):
        make_extractor("ollama:llama3.2", http_client=object())


def test_the_service_runs_without_the_sdks(monkeypatch: pytest.MonkeyPatch) -> None:
    # Block the SDKs (a None entry makes `import openai` fail) and import app.llm afresh.
    monkeypatch.setitem(sys.modules, "openai", None)
    monkeypatch.setitem(sys.modules, "anthropic", None)
    monkeypatch.setattr(app, "llm", importlib.import_module("app.llm"))
    for name in [n for n in sys.modules if n == "app.llm" or n.startswith("app.llm.")]:
        monkeypatch.delitem(sys.modules, name)

    factory = importlib.import_module("app.llm.factory")
    importlib.import_module("app.llm.reconcile")
    assert isinstance(factory.make_extractor("rules"), RuleExtractor)
    assert factory.make_extractor("ollama:llama3.2").name == "ollama:llama3.2"
    with pytest.raises(ImportError, match=r"tessera\[openai\]"):
        factory.make_extractor("openai:gpt-4o-mini", api_key="sk-test")
    with pytest.raises(ImportError, match=r"tessera\[anthropic\]"):
        factory.make_extractor("anthropic:claude-x", api_key="sk-test")


FORBIDDEN = ("app.db", "app.api", "app.services", "app.cli", "workers", "fastapi", "sqlalchemy")


def test_app_llm_imports_only_inward() -> None:
    violations = []
    for path in (ROOT / "app" / "llm").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            for name in names:
                if any(name == f or name.startswith(f + ".") for f in FORBIDDEN):
                    violations.append(f"{path.relative_to(ROOT)} imports {name}")
    assert violations == []
