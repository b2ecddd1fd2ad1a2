"""The local model: static word vectors averaged over a text's tokens, shipped in a package.

The vectors and the tokenizer are the ``wordllama`` package's (its 256-dimension "l2 supercat"
model, MIT licensed), read from site-packages: nothing is downloaded at run time. A text costs
one tokenizer pass and one sum of its tokens' rows, so it embeds at many megabytes a second on
one core; a sentence-transformer reads under a tenth of that on this kind of machine.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from importlib.resources import files

import numpy as np
import numpy.typing as npt

from app.adapters.embeddings.base import EmbeddingError
from app.domain.context.vectors import Embedding, Vectors, unit_rows

MODEL = "wordllama-l2-supercat-256"
_WEIGHTS = "weights/l2_supercat_256.safetensors"
_TOKENIZER = "tokenizers/l2_supercat_tokenizer_config.json"
# Texts are embedded in groups of about this many tokens, so the rows summed at once stay small.
_GROUP_TOKENS = 50_000
# Characters embedded on the caller's thread; more go to a worker thread.
_INLINE_CHARS = 20_000


class StaticEmbedder:
    """``local``: the mean of a text's token vectors, unit length."""

    model = MODEL

    def __init__(self) -> None:
        try:
            from safetensors.numpy import load_file
            from tokenizers import Tokenizer

            package = files("wordllama")
        except ImportError as exc:
            raise EmbeddingError(
                "TESSERA_EMBEDDINGS=local needs the embeddings extra: "
                "pip install 'tessera[embeddings]'"
            ) from exc
        self._tokenizer = Tokenizer.from_file(str(package / _TOKENIZER))
        self._tokenizer.no_padding()
        self._tokenizer.no_truncation()
        table = load_file(str(package / _WEIGHTS))["embedding.weight"]
        # Widened once: summing rows already in single precision is faster than widening them
        # at each read, for 16 MB more.
        self._table: npt.NDArray[np.float32] = np.asarray(table, dtype=np.float32)
        self.dim = int(self._table.shape[1])

    async def embed(self, texts: Sequence[str]) -> Vectors:
        """One unit vector per text (off the event loop when there is much to read)."""
        if sum(len(t) for t in texts) <= _INLINE_CHARS:
            return self.vectors(texts)
        return await asyncio.to_thread(self.vectors, texts)

    async def aclose(self) -> None:
        """Nothing is held open."""

    def here(self) -> Embedding:
        """This model as what embeds in process, on the caller's thread (the stored index's)."""
        return Embedding(self.model, self.vectors)

    def vectors(self, texts: Sequence[str]) -> Vectors:
        """One unit vector per text, on this thread."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        encodings = self._tokenizer.encode_batch(list(texts), add_special_tokens=False)
        group: list[int] = []
        ids: list[npt.NDArray[np.int64]] = []
        tokens = 0
        for row, encoding in enumerate(encodings):
            group.append(row)
            ids.append(np.asarray(encoding.ids, dtype=np.int64))
            tokens += len(ids[-1])
            if tokens >= _GROUP_TOKENS:
                self._sum_into(out, group, ids)
                group, ids, tokens = [], [], 0
        self._sum_into(out, group, ids)
        return unit_rows(out)

    def _sum_into(self, out: Vectors, rows: list[int], ids: list[npt.NDArray[np.int64]]) -> None:
        """Each of ``rows`` gets the sum of its tokens' vectors (a text without tokens: zeros)."""
        counts = np.array([len(i) for i in ids], dtype=np.int64)
        kept = counts > 0
        if not kept.any():
            return
        flat = np.concatenate([i for i in ids if len(i)])
        starts = np.concatenate(([0], np.cumsum(counts[kept])[:-1]))
        sums = np.add.reduceat(self._table[flat], starts, axis=0)
        out[np.asarray(rows)[kept]] = sums
