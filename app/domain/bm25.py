"""Okapi BM25 over pre-tokenised documents, scored eagerly with numpy.

Scoring follows Lucene's BM25 (the variant ``bm25s`` calls ``lucene``): per query term,
``idf * tf / (tf + k1 * (1 - b + b * dl / avgdl))`` with
``idf = log(1 + (N - df + 0.5) / (df + 0.5))``. Lucene dropped the classic ``(k1 + 1)`` factor
from the numerator: it scales every score alike, so rankings are unchanged and scores stay
comparable with other Lucene-style engines.

Everything that does not depend on the query is computed once, at build time: for each term, the
array of documents that contain it and the array of its finished BM25 weight in each of them
(compressed-sparse-column layout). A query is then one ``scores[doc_ids] += weights`` per query
token, with no per-document Python work.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

# Term-frequency saturation: the usual 1.2-2.0 range; 1.5 is Lucene's and bm25s' default, and
# lets a repeated word count for more without letting repetition dominate.
K1 = 1.5
# Length normalisation: 0.75 is the standard; a long episode summary should not win just for
# containing more words, nor a short observation be punished much for having few.
B = 0.75
# What one vocabulary entry costs beyond its characters (dict slot, str header, int object).
_VOCAB_ENTRY_BYTES = 120

FloatArray = npt.NDArray[np.float32]
IntArray = npt.NDArray[np.int32]
Numbers = npt.NDArray[np.float64]


def idf(n_docs: int, df: Numbers | int) -> Numbers:
    """Lucene's inverse document frequency of terms found in ``df`` of ``n_docs`` documents."""
    return np.log1p((n_docs - df + 0.5) / (np.asarray(df, dtype=np.float64) + 0.5))


def length_norms(doc_lengths: Numbers, avgdl: float, k1: float, b: float) -> Numbers:
    """Each document's length normalisation: what its term frequencies saturate against."""
    return k1 * (1.0 - b + b * doc_lengths / avgdl)


def normed_weights(term_idf: Numbers, tf: npt.NDArray[Any], norms: Numbers) -> Numbers:
    """The BM25 weight of a term in each document, from its idf, frequency and length norm."""
    return term_idf * tf / (tf + norms)


def term_weights(
    term_idf: Numbers, tf: Numbers, doc_lengths: Numbers, avgdl: float, k1: float, b: float
) -> Numbers:
    """The BM25 weight of a term in each document, from its idf and its frequency there."""
    return normed_weights(term_idf, tf, length_norms(doc_lengths, avgdl, k1, b))


class BM25Index:
    """A BM25 index built once from tokenised documents; ``scores`` ranks them for a query."""

    def __init__(self, docs: Sequence[Sequence[str]], *, k1: float = K1, b: float = B) -> None:
        self.k1 = k1
        self.b = b
        n = len(docs)
        vocab: dict[str, int] = {}
        lengths = np.fromiter((len(d) for d in docs), dtype=np.int64, count=n)
        flat: list[int] = []
        for doc in docs:
            flat.extend([vocab.setdefault(t, len(vocab)) for t in doc])
        self._vocab = vocab
        self.n_docs = n
        term_of = np.asarray(flat, dtype=np.int64)
        doc_of = np.repeat(np.arange(n, dtype=np.int64), lengths)
        # One sort groups (term, doc) pairs: unique keys give postings in term order, counts the tf.
        pairs, tf = np.unique(term_of * max(n, 1) + doc_of, return_counts=True)
        terms = pairs // max(n, 1)
        doc_ids = (pairs % max(n, 1)).astype(np.int32)
        df = np.bincount(terms, minlength=len(vocab)).astype(np.float64)
        avgdl = float(lengths.mean()) if n and lengths.sum() else 1.0
        weights = term_weights(
            idf(n, df)[terms], tf.astype(np.float64), lengths[doc_ids], avgdl, k1, b
        )
        self._doc_ids: IntArray = doc_ids
        self._weights: FloatArray = weights.astype(np.float32)
        # A Python list: indexing it in the query loop is several times faster than numpy's.
        self._indptr: list[int] = [0, *np.cumsum(df).astype(np.int64).tolist()]
        # The same postings by document (each document's distinct terms, ascending).
        self._doc_terms: IntArray = terms[np.argsort(doc_ids, kind="stable")].astype(np.int32)
        per_doc = np.bincount(doc_ids, minlength=n)
        self._doc_indptr = np.concatenate(([0], np.cumsum(per_doc))).astype(np.int64)
        self._bytes = (
            self._doc_ids.nbytes
            + self._weights.nbytes
            + self._doc_terms.nbytes
            + self._doc_indptr.nbytes
            + 8 * len(self._indptr)
            + sum(sys.getsizeof(t) for t in vocab)
            + _VOCAB_ENTRY_BYTES * len(vocab)
        )

    def __len__(self) -> int:
        return self.n_docs

    def scores(self, query_tokens: Sequence[str]) -> FloatArray:
        """BM25 score of every document (float32, length N); a repeated query token counts again."""
        out = np.zeros(self.n_docs, dtype=np.float32)
        for token in query_tokens:
            term = self._vocab.get(token)
            if term is not None:
                start, end = self._indptr[term], self._indptr[term + 1]
                # np.add.at is numpy's unbuffered scatter-add; since numpy 2 it is about twice as
                # fast as ``out[ids] += w`` (measured in bench/bm25.py).
                np.add.at(out, self._doc_ids[start:end], self._weights[start:end])
        return out

    def docs_with(self, token: str) -> IntArray:
        """The ids of the documents that contain ``token`` (ascending)."""
        term = self._vocab.get(token)
        if term is None:
            return np.zeros(0, dtype=np.int32)
        return self._doc_ids[self._indptr[term] : self._indptr[term + 1]]

    def term_ids(self, tokens: Iterable[str]) -> set[int]:
        """The ids of the tokens that some document holds."""
        vocab = self._vocab
        return {vocab[t] for t in tokens if t in vocab}

    def terms_in(self, doc: int) -> list[int]:
        """The ids of the distinct terms of one document."""
        start, end = self._doc_indptr[doc], self._doc_indptr[doc + 1]
        return self._doc_terms[start:end].tolist()

    def approx_bytes(self) -> int:
        """An estimate of the memory this index holds, for sizing an LRU cache."""
        return self._bytes
