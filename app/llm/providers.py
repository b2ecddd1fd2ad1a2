"""LLM providers: OpenAI (and OpenAI-compatible servers), Anthropic and Ollama.

Each client gives the provider the JSON schema through its native structured-output mechanism:
OpenAI ``response_format`` json_schema (strict), an Anthropic tool forced with ``tool_choice``
whose ``input_schema`` is the schema, Ollama's ``format``. The SDKs are optional extras and are
imported only when their client is built, so the service installs and runs without them.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Awaitable, Callable
from typing import Any, TypedDict, Unpack

import httpx

from app.domain.extraction.extractor import Extraction, ExtractionInput
from app.llm.errors import (
    RetryPolicy,
    TransientProviderError,
    classify_status,
    with_retries,
)
from app.llm.prompt import clip_for_repair, extraction_prompt, repair_note
from app.llm.schema import SCHEMA_NAME, output_json_schema, to_extraction
from app.llm.structured import Completion, StructuredClient, StructuredRequest, ask_structured

DEFAULT_TIMEOUT = 60.0
DEFAULT_MAX_OUTPUT_TOKENS = 4096
DEFAULT_OLLAMA_URL = "http://localhost:11434"
# OpenAI-compatible local servers (vLLM, llama.cpp, LM Studio) take no key, but the SDK insists.
PLACEHOLDER_KEY = "not-needed"
TOOL_DESCRIPTION = "Record the answer. Always call this tool, with the complete answer."


def _import_sdk(name: str) -> Any:
    """Import an optional SDK, or say which extra installs it."""
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise ImportError(
            f"the {name} provider needs the {name!r} package: pip install 'tessera[{name}]'"
        ) from exc


def _sdk_failure(sdk: Any, exc: Exception, retry: RetryPolicy) -> Exception:
    """An SDK exception as this package's error; anything unrecognised is returned unchanged."""
    if isinstance(exc, sdk.APIStatusError):
        detail = str(getattr(exc, "message", "") or exc)
        return classify_status(exc.status_code, exc.response.headers, detail, now=retry.clock())
    if isinstance(exc, sdk.APITimeoutError):
        return TransientProviderError("the request timed out")
    if isinstance(exc, sdk.APIConnectionError):
        return TransientProviderError(f"could not reach the provider: {exc}")
    return exc


async def _sdk_call(
    sdk: Any, retry: RetryPolicy, create: Callable[..., Awaitable[Any]], body: dict[str, Any]
) -> Any:
    """One SDK request, its failures translated into this package's errors."""
    try:
        return await create(**body)
    except sdk.APIError as exc:
        mapped = _sdk_failure(sdk, exc, retry)
        if mapped is exc:
            raise
        raise mapped from exc


class Connection(TypedDict, total=False):
    """How a client reaches its provider; every key may be left out."""

    api_key: str | None
    base_url: str | None
    timeout: float
    retry: RetryPolicy | None
    http_client: object | None  # lent by the caller, who then closes it


class _SdkClient:
    """What the SDK-backed clients share: the SDK's async client, one retry policy, closing."""

    provider: str
    sdk_class: str  # the name of the SDK's async client class

    def __init__(self, sdk: Any, model: str, api_key: str, connection: Connection) -> None:
        self._sdk = sdk
        self.model = model
        self._retry = connection.get("retry") or RetryPolicy()
        http_client = connection.get("http_client")
        self._owns_http = http_client is None
        # max_retries=0: retries happen in with_retries, the same way for every provider.
        kwargs: dict[str, Any] = {
            "api_key": api_key,
            "timeout": connection.get("timeout", DEFAULT_TIMEOUT),
            "max_retries": 0,
        }
        if connection.get("base_url") is not None:
            kwargs["base_url"] = connection.get("base_url")
        if http_client is not None:
            kwargs["http_client"] = http_client
        self._client: Any = getattr(sdk, self.sdk_class)(**kwargs)

    async def aclose(self) -> None:
        """Close the SDK's connections, unless the caller lent the HTTP client."""
        if self._owns_http:
            await self._client.close()


def chat_messages(request: StructuredRequest) -> list[dict[str, Any]]:
    """System and user messages, plus the failed answer and the repair note on a repair."""
    system = {"role": "system", "content": request.system}
    if request.repair is None:
        return [system, {"role": "user", "content": request.user}]
    failed, error = request.repair
    if not failed.text.strip():
        return [system, {"role": "user", "content": f"{request.user}\n\n{repair_note(error)}"}]
    return [
        system,
        {"role": "user", "content": request.user},
        {"role": "assistant", "content": clip_for_repair(failed.text)},
        {"role": "user", "content": repair_note(error)},
    ]


def _count(value: object) -> int:
    """A token count from a usage field; anything odd counts as 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


# --- OpenAI -------------------------------------------------------------------------------------


class OpenAIClient(_SdkClient):
    """Chat Completions with strict ``json_schema`` output; ``base_url`` for compatible servers."""

    provider = "openai"
    sdk_class = "AsyncOpenAI"

    def __init__(
        self, model: str, *, temperature: float | None = 0.0, **connection: Unpack[Connection]
    ) -> None:
        sdk = _import_sdk("openai")
        api_key = connection.get("api_key")
        if api_key is None:
            if connection.get("base_url") is None:
                raise ValueError("the openai provider needs an API key: set OPENAI_API_KEY")
            api_key = PLACEHOLDER_KEY
        super().__init__(sdk, model, api_key, connection)
        self._temperature = temperature

    async def complete(self, request: StructuredRequest) -> Completion:
        """One chat completion in the request's schema, retried on transient failures."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": chat_messages(request),
            "response_format": {
                "type": "json_schema",
                "json_schema": {
                    "name": request.schema_name,
                    "schema": request.schema,
                    "strict": True,
                },
            },
        }
        if self._temperature is not None:
            body["temperature"] = self._temperature

        async def once() -> Completion:
            create = self._client.chat.completions.create
            return _openai_completion(await _sdk_call(self._sdk, self._retry, create, body))

        return await with_retries(once, self._retry)


def _openai_completion(response: Any) -> Completion:
    choices = getattr(response, "choices", None) or []
    message = getattr(choices[0], "message", None) if choices else None
    usage = getattr(response, "usage", None)
    return Completion(
        text=getattr(message, "content", None) or "",
        refusal=getattr(message, "refusal", None) or None,
        input_tokens=_count(getattr(usage, "prompt_tokens", 0)),
        output_tokens=_count(getattr(usage, "completion_tokens", 0)),
    )


# --- Anthropic ----------------------------------------------------------------------------------


class AnthropicClient(_SdkClient):
    """Messages API with one tool whose ``input_schema`` is the schema, forced by tool_choice."""

    provider = "anthropic"
    sdk_class = "AsyncAnthropic"

    def __init__(
        self,
        model: str,
        *,
        temperature: float | None = None,
        max_output_tokens: int = DEFAULT_MAX_OUTPUT_TOKENS,
        **connection: Unpack[Connection],
    ) -> None:
        sdk = _import_sdk("anthropic")
        api_key = connection.get("api_key")
        if api_key is None:
            raise ValueError("the anthropic provider needs an API key: set ANTHROPIC_API_KEY")
        super().__init__(sdk, model, api_key, connection)
        self._temperature = temperature
        self._max_output_tokens = max_output_tokens

    async def complete(self, request: StructuredRequest) -> Completion:
        """One message whose forced tool call carries the answer, retried on transient failures."""
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": self._max_output_tokens,
            "system": request.system,
            "messages": anthropic_messages(request),
            "tools": [
                {
                    "name": request.schema_name,
                    "description": TOOL_DESCRIPTION,
                    "input_schema": request.schema,
                }
            ],
            "tool_choice": {"type": "tool", "name": request.schema_name},
        }
        if self._temperature is not None:
            # Newer SDK releases take no temperature argument; the request body still carries it.
            body["extra_body"] = {"temperature": self._temperature}

        async def once() -> Completion:
            response = await _sdk_call(self._sdk, self._retry, self._client.messages.create, body)
            return _anthropic_completion(response, request.schema_name)

        return await with_retries(once, self._retry)


def anthropic_messages(request: StructuredRequest) -> list[dict[str, Any]]:
    """The user message; on a repair, the failed tool call answered by an error tool result."""
    user = {"role": "user", "content": request.user}
    if request.repair is None:
        return [user]
    failed, error = request.repair
    note = repair_note(error)
    if failed.call_id is not None and isinstance(failed.data, dict):
        # A tool_use turn must be followed by its tool_result: the repair note travels in it.
        call = {"type": "tool_use", "id": failed.call_id, "name": request.schema_name}
        result = {"type": "tool_result", "tool_use_id": failed.call_id, "is_error": True}
        return [
            user,
            {"role": "assistant", "content": [{**call, "input": failed.data}]},
            {"role": "user", "content": [{**result, "content": note}]},
        ]
    if failed.text.strip():
        return [
            user,
            {"role": "assistant", "content": clip_for_repair(failed.text)},
            {"role": "user", "content": note},
        ]
    return [{"role": "user", "content": f"{request.user}\n\n{note}"}]


def _anthropic_completion(response: Any, tool_name: str) -> Completion:
    texts: list[str] = []
    data: object | None = None
    call_id: str | None = None
    for block in getattr(response, "content", None) or []:
        kind = getattr(block, "type", None)
        if kind == "tool_use" and call_id is None and getattr(block, "name", None) == tool_name:
            data = getattr(block, "input", None)
            call_id = getattr(block, "id", None)
        elif kind == "text":
            texts.append(getattr(block, "text", "") or "")
    usage = getattr(response, "usage", None)
    # Cached prompt tokens are reported apart from input_tokens; all of them were read.
    input_tokens = sum(
        _count(getattr(usage, name, 0))
        for name in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    )
    refused = getattr(response, "stop_reason", None) == "refusal"
    text = json.dumps(data, ensure_ascii=False) if data is not None else "".join(texts)
    return Completion(
        text=text,
        data=data,
        input_tokens=input_tokens,
        output_tokens=_count(getattr(usage, "output_tokens", 0)),
        refusal=("".join(texts) or "stop_reason refusal") if refused else None,
        call_id=call_id,
    )


# --- Ollama -------------------------------------------------------------------------------------


class OllamaClient:
    """Ollama's native ``/api/chat`` with ``format`` set to the schema, over httpx."""

    provider = "ollama"

    def __init__(
        self,
        model: str,
        *,
        temperature: float | None = 0.0,
        max_output_tokens: int = DEFAULT_MAX_OUTPUT_TOKENS,
        **connection: Unpack[Connection],
    ) -> None:
        http_client = connection.get("http_client")
        if http_client is not None and not isinstance(http_client, httpx.AsyncClient):
            raise TypeError("the ollama provider needs an httpx.AsyncClient as http_client")
        self.model = model
        base_url = connection.get("base_url") or DEFAULT_OLLAMA_URL
        self._url = base_url.rstrip("/") + "/api/chat"
        self._timeout = connection.get("timeout", DEFAULT_TIMEOUT)
        self._retry = connection.get("retry") or RetryPolicy()
        self._options: dict[str, Any] = {"num_predict": max_output_tokens}
        if temperature is not None:
            self._options["temperature"] = temperature
        # A key only matters behind an authenticating proxy or a hosted Ollama.
        api_key = connection.get("api_key")
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._owns_http = http_client is None
        self._http = http_client or httpx.AsyncClient()

    async def complete(self, request: StructuredRequest) -> Completion:
        """One non-streamed chat answer in the schema, retried on transient failures."""
        body = {
            "model": self.model,
            "messages": chat_messages(request),
            "format": request.schema,
            "stream": False,
            "options": self._options,
        }

        async def once() -> Completion:
            try:
                response = await self._http.post(
                    self._url, json=body, headers=self._headers, timeout=self._timeout
                )
            except httpx.TimeoutException as exc:
                raise TransientProviderError("the request timed out") from exc
            except httpx.TransportError as exc:
                reason = f"could not reach Ollama at {self._url}: {exc}"
                raise TransientProviderError(reason) from exc
            if response.status_code >= 400:
                raise classify_status(
                    response.status_code,
                    response.headers,
                    _ollama_error(response),
                    now=self._retry.clock(),
                )
            return _ollama_completion(response)

        return await with_retries(once, self._retry)

    async def aclose(self) -> None:
        """Close the HTTP client, unless the caller lent it."""
        if self._owns_http:
            await self._http.aclose()


def _ollama_error(response: httpx.Response) -> str:
    try:
        payload = response.json()
    except ValueError:
        return response.text
    if isinstance(payload, dict) and isinstance(payload.get("error"), str):
        return payload["error"]
    return response.text


def _ollama_completion(response: httpx.Response) -> Completion:
    try:
        payload = response.json()
    except ValueError as exc:
        raise TransientProviderError("Ollama answered with something that is not JSON") from exc
    if not isinstance(payload, dict):
        raise TransientProviderError("Ollama answered with something that is not a chat reply")
    if isinstance(payload.get("error"), str):
        raise TransientProviderError(f"Ollama reported an error: {payload['error']}")
    message = payload.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return Completion(
        text=content if isinstance(content, str) else "",
        input_tokens=_count(payload.get("prompt_eval_count")),
        output_tokens=_count(payload.get("eval_count")),
    )


# --- extractors ---------------------------------------------------------------------------------


class LLMExtractor:
    """The domain's ``Extractor`` on top of any structured-output client."""

    name: str

    def __init__(self, client: StructuredClient) -> None:
        self.client = client
        self.name = f"{client.provider}:{client.model}"
        self._schema = output_json_schema()

    async def extract(self, request: ExtractionInput) -> Extraction:
        """One call per segment (two when the first answer needs a repair)."""
        prompt = extraction_prompt(request)
        ask = StructuredRequest(prompt.system, prompt.user, SCHEMA_NAME, self._schema)

        def validate(data: object) -> Extraction:
            return to_extraction(
                data,
                request.segment,
                subject=request.subject,
                known_keys=request.known_keys,
                reference_ts=request.reference_ts,
            )

        result = await ask_structured(self.client, ask, validate)
        extraction = result.value
        extraction.calls = result.calls
        extraction.input_tokens = result.input_tokens
        extraction.output_tokens = result.output_tokens
        return extraction

    async def aclose(self) -> None:
        """Release the client's connections."""
        await self.client.aclose()
