"""``openai:<model>``: any server that speaks OpenAI's ``POST /v1/embeddings`` (OpenAI, Ollama,
vLLM, Text Embeddings Inference), configured by base URL, model and key."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import httpx
import numpy as np

from app.adapters.embeddings.base import EmbeddingError
from app.domain.context.vectors import Vectors, unit_rows

DEFAULT_BASE_URL = "https://api.openai.com/v1"
# A passage longer than this is embedded by its beginning: servers refuse inputs past their
# model's context (OpenAI's take about 8,000 tokens).
MAX_INPUT_CHARS = 8_000
# After a failure the endpoint is not asked for this long: reads rank without similarity at once.
RESTING_SECONDS = 30.0


class OpenAIEmbedder:
    """Vectors from an OpenAI-compatible embeddings endpoint."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = 10.0,
        http_client: httpx.AsyncClient | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._name = model
        self._clock = clock
        self._down_until = 0.0
        self.model = f"openai:{model}"
        self._url = (base_url or DEFAULT_BASE_URL).rstrip("/") + "/embeddings"
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = http_client or httpx.AsyncClient(timeout=timeout)
        self._headers = headers

    async def embed(self, texts: Sequence[str]) -> Vectors:
        """One unit vector per text, in order, from one request; refused at once for
        ``RESTING_SECONDS`` after the endpoint failed, so reads do not each wait on it."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        if self._clock() < self._down_until:
            raise EmbeddingError("embeddings endpoint failed just now; not asked again yet")
        try:
            return await self._ask(texts)
        except EmbeddingError:
            self._down_until = self._clock() + RESTING_SECONDS
            raise

    async def _ask(self, texts: Sequence[str]) -> Vectors:
        body = {
            "model": self._name,
            "input": [t[:MAX_INPUT_CHARS] or " " for t in texts],
            "encoding_format": "float",
        }
        try:
            response = await self._client.post(self._url, json=body, headers=self._headers)
        except httpx.HTTPError as exc:
            raise EmbeddingError(f"embeddings endpoint unreachable: {exc!r}") from exc
        if response.status_code != 200:
            raise EmbeddingError(
                f"embeddings endpoint answered {response.status_code}: {response.text[:200]}"
            )
        return unit_rows(_vectors_of(response, len(texts)))

    async def aclose(self) -> None:
        """Close the HTTP client."""
        await self._client.aclose()


def _vectors_of(response: httpx.Response, expected: int) -> Vectors:
    """The ``data[].embedding`` lists of a reply, in ``index`` order, as a matrix."""
    try:
        data: list[dict[str, Any]] = response.json()["data"]
        ordered = sorted(data, key=lambda item: int(item["index"]))
        rows = np.array([item["embedding"] for item in ordered], dtype=np.float32)
    except (ValueError, KeyError, TypeError) as exc:
        raise EmbeddingError(f"embeddings endpoint answered no vectors: {exc!r}") from exc
    if rows.ndim != 2 or rows.shape[0] != expected or not np.isfinite(rows).all():
        raise EmbeddingError(f"embeddings endpoint answered {rows.shape} for {expected} texts")
    return rows
