"""Embedding models behind one interface: a local one shipped as a package, or an
OpenAI-compatible ``/v1/embeddings`` endpoint. Off by default (``TESSERA_EMBEDDINGS``).

Specs: ``off``; ``local`` (static word vectors averaged, from the ``tessera[embeddings]``
extra); ``openai:<model>`` (any OpenAI-compatible server, with ``TESSERA_EMBEDDINGS_BASE_URL``:
OpenAI, Ollama, vLLM, TEI).
"""

from __future__ import annotations

import os

from app.adapters.embeddings.base import SPEC_HELP, Embedder, EmbeddingError, parse_spec
from app.domain.context.vectors import Embedding

__all__ = [
    "SPEC_HELP",
    "Embedder",
    "EmbeddingError",
    "local_embedding",
    "make_embedder",
    "parse_spec",
]


def make_embedder(
    spec: str,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    timeout: float = 10.0,
) -> Embedder | None:
    """The model a ``TESSERA_EMBEDDINGS`` spec names; None for ``off``."""
    provider, model = parse_spec(spec)
    if provider == "off":
        return None
    if provider == "local":
        from app.adapters.embeddings.static import StaticEmbedder

        return StaticEmbedder()
    from app.adapters.embeddings.openai_compatible import OpenAIEmbedder

    key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY") or None
    return OpenAIEmbedder(model, base_url=base_url, api_key=key, timeout=timeout)


def local_embedding(spec: str) -> Embedding | None:
    """The local model as a worker embeds with it, in process; None unless the spec is ``local``."""
    if parse_spec(spec)[0] != "local":
        return None
    from app.adapters.embeddings.static import StaticEmbedder

    return StaticEmbedder().here()
