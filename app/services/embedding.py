"""Passage vectors kept caught up with a user's index, and the question's vector, when an
embedding model is on (``TESSERA_EMBEDDINGS``)."""

from __future__ import annotations

import logging

import numpy as np

from app.adapters.embeddings import Embedder, EmbeddingError
from app.adapters.embeddings.static import StaticEmbedder
from app.domain.context.index import EvidenceIndex
from app.domain.context.vectors import Embedding, PassageVectors, Vectors

log = logging.getLogger(__name__)

# Passages embedded per call of the model: a remote endpoint takes a list of bounded size.
BATCH = 256


async def catch_up(index: EvidenceIndex, embedder: Embedder) -> int:
    """Embed the passages the index holds no vector of this model for; how many were added.

    Vectors of another model are dropped (they are never compared with this one's). Two reads
    may catch the same index up at once: only the first to finish adds its rows.
    """
    held = index.vectors
    if held is not None and held.model != embedder.model:
        held = None
    start, end = (len(held) if held is not None else 0), index.n_passages
    if start >= end:
        return 0
    parts = []
    for first in range(start, end, BATCH):
        texts = [index.passage_text(d) for d in range(first, min(first + BATCH, end))]
        parts.append(await embedder.embed(texts))
    rows = np.concatenate(parts)
    now = (
        index.vectors
        if index.vectors is not None and index.vectors.model == embedder.model
        else None
    )
    if (len(now) if now is not None else 0) != start:
        return 0  # another read caught it up meanwhile
    if now is None:
        now = PassageVectors(embedder.model, int(rows.shape[1]))
        index.vectors = now
    now.extend(rows)
    return end - start


async def question_vector(embedder: Embedder | None, q: str | None) -> Vectors | None:
    """The question's vector; None without a model or a question, or when the model fails (the
    read is then ranked without similarity rather than refused)."""
    if embedder is None or q is None or not q.strip():
        return None
    try:
        return (await embedder.embed([q]))[0]
    except EmbeddingError as exc:
        log.warning("embedding the question failed; ranking without similarity: %s", exc)
        return None


def in_process(embedder: Embedder | None) -> Embedding | None:
    """The model as something that embeds here and now: the local one; None for a remote one."""
    if isinstance(embedder, StaticEmbedder):
        return embedder.here()
    return None
