"""What every embedding model is: texts in, unit vectors out, or an ``EmbeddingError``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from app.domain.context.vectors import Vectors

SPEC_HELP = "expected 'off', 'local' or 'openai:<model>'"


class EmbeddingError(Exception):
    """The model could not embed the texts (unreachable, refused, or answered nonsense)."""


class Embedder(Protocol):
    """Texts to unit vectors, one row each, of ``dim`` numbers."""

    @property
    def model(self) -> str:
        """Names the model and its settings: vectors of two names are never compared."""
        ...

    async def embed(self, texts: Sequence[str]) -> Vectors:
        """One unit vector per text, in order; raises ``EmbeddingError``."""
        ...

    async def aclose(self) -> None:
        """Let go of what it holds open (a connection pool)."""
        ...


def parse_spec(spec: str) -> tuple[str, str]:
    """("off", ""), ("local", "") or ("openai", model) for a ``TESSERA_EMBEDDINGS`` value."""
    text = spec.strip()
    if text.lower() in ("off", "local"):
        return text.lower(), ""
    provider, colon, model = text.partition(":")
    if provider.strip().lower() != "openai" or not colon or not model.strip():
        raise ValueError(f"unknown embeddings {spec!r}: {SPEC_HELP}")
    return "openai", model.strip()
