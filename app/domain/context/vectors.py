"""Passage vectors: one unit vector per indexed passage from an embedding model, beside BM25.

They are derived: made again from the passages' words by the same model, so they are held and
stored with the index (in half precision, ``segments``) but never exported. In memory a vector is
kept in single precision: numpy multiplies half-precision matrices without BLAS, many times
slower than the read it serves.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]
Scores = npt.NDArray[np.float32]


@dataclass(frozen=True)
class Embedding:
    """A model that embeds here and now (no I/O: the local one): its name, and texts to rows."""

    name: str
    embed: Callable[[Sequence[str]], Vectors]


def unit_rows(rows: npt.NDArray[np.floating]) -> Vectors:
    """``rows`` scaled to length 1 (a row of zeros stays zeros)."""
    matrix = np.asarray(rows, dtype=np.float32)
    if matrix.ndim != 2:
        raise ValueError(f"vectors must be a matrix, got {matrix.ndim} dimensions")
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)


class PassageVectors:
    """The vectors of an index's first passages, in passage order, all from one model."""

    def __init__(self, model: str, dim: int) -> None:
        self.model = model
        self.dim = dim
        # Room for more rows than are held, doubled when full: a write adds a few rows at the
        # cost of those rows (and, now and then, one copy of all).
        self._data = np.zeros((0, dim), dtype=np.float32)
        self._rows = 0

    def __len__(self) -> int:
        return self._rows

    def extend(self, rows: npt.NDArray[np.floating]) -> None:
        """Add the vectors of the next passages (made unit length here)."""
        if rows.shape[0] == 0:
            return
        if rows.ndim != 2 or rows.shape[1] != self.dim:
            raise ValueError(f"expected vectors of {self.dim} dimensions, got {rows.shape}")
        end = self._rows + rows.shape[0]
        if end > self._data.shape[0]:
            grown = np.zeros((max(end, 2 * self._data.shape[0]), self.dim), dtype=np.float32)
            grown[: self._rows] = self._data[: self._rows]
            self._data = grown
        self._data[self._rows : end] = unit_rows(rows)
        self._rows = end

    def matrix(self) -> npt.NDArray[np.float32]:
        """Every vector held, one row per passage (a view: not to be changed)."""
        return self._data[: self._rows]

    def cosine(self, question: npt.NDArray[np.floating]) -> Scores:
        """Each passage's cosine similarity with ``question`` (any length but this dimension)."""
        q = unit_rows(np.asarray(question, dtype=np.float32).reshape(1, -1))[0]
        if q.shape[0] != self.dim:
            raise ValueError(f"expected a vector of {self.dim} dimensions, got {q.shape[0]}")
        return np.asarray(self.matrix() @ q, dtype=np.float32)

    def approx_bytes(self) -> int:
        """What the vectors take in memory."""
        return self._data.shape[0] * self.dim * 4 + 200
