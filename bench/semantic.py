"""``--embeddings local`` of the answer benchmarks: the local model embeds a chat's passages once
it is ingested (as a read that finds them missing does), and each question as a read does."""

from __future__ import annotations

import time

from app.adapters.embeddings.static import StaticEmbedder
from app.domain.context import MemoryIndex
from app.domain.context.vectors import Vectors
from app.services.embedding import catch_up

CHOICES = ("off", "local")


class Semantic:
    """The local model when on, and the seconds it spent embedding passages."""

    def __init__(self, spec: str) -> None:
        self.embedder = StaticEmbedder() if spec == "local" else None
        self.seconds = 0.0

    async def embed_passages(self, index: MemoryIndex) -> None:
        """Every passage of the index embedded (nothing when off)."""
        if self.embedder is not None:
            started = time.perf_counter()
            await catch_up(index.evidence, self.embedder)
            self.seconds += time.perf_counter() - started

    def vector(self, q: str) -> Vectors | None:
        """The question's vector; None when off."""
        return self.embedder.vectors([q])[0] if self.embedder is not None else None
