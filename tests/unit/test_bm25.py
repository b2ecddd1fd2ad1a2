"""BM25: the relevant document ranks first, rare terms weigh more, edge cases are safe."""

from __future__ import annotations

import math

import numpy as np

from app.domain.bm25 import K1, B, BM25Index
from app.domain.text import tokenize

DOCS = [
    "Melanie ran a charity race for mental health",
    "Caroline went to an LGBTQ support group",
    "Caroline is painting a sunrise over the lake",
    "Melanie took the kids camping at the lake",
    "Caroline and Melanie talked about the lake house",
]


def _index(docs: list[str]) -> BM25Index:
    return BM25Index([tokenize(d) for d in docs])


def _best(index: BM25Index, query: str) -> int:
    return int(np.argmax(index.scores(tokenize(query))))


def test_relevant_document_ranks_first() -> None:
    index = _index(DOCS)
    assert _best(index, "charity race") == 0
    assert _best(index, "support group") == 1
    assert _best(index, "who painted the sunrise?") == 2
    assert _best(index, "camping trip") == 3


def test_scores_are_float32_one_per_document() -> None:
    scores = _index(DOCS).scores(tokenize("lake"))
    assert scores.dtype == np.float32
    assert scores.shape == (len(DOCS),)
    assert scores[0] == 0 and scores[1] == 0
    assert (scores[2:] > 0).all()


def test_rare_term_beats_common_term() -> None:
    # "lake" is in three documents, "sunrise" in one: a document matching only the rare term
    # outranks one matching only the common term.
    index = _index(DOCS)
    scores = index.scores(tokenize("lake sunrise"))
    assert scores[2] > scores[3]
    assert index.scores(["sunris"])[2] > index.scores(["lake"])[3]


def test_matches_the_lucene_formula() -> None:
    docs = [["a", "b", "a"], ["b", "c"], ["c"]]
    index = BM25Index(docs)
    avgdl = 6 / 3
    idf_a = math.log(1 + (3 - 1 + 0.5) / (1 + 0.5))
    expected = idf_a * 2 / (2 + K1 * (1 - B + B * 3 / avgdl))
    assert index.scores(["a"])[0] == np.float32(expected)


def test_repeated_query_token_counts_once_per_occurrence() -> None:
    index = _index(DOCS)
    once = index.scores(["lake"])
    assert np.allclose(index.scores(["lake", "lake"]), 2 * once)


def test_shorter_document_wins_on_equal_term_frequency() -> None:
    index = BM25Index([["lisbon", "trip"], ["lisbon", "trip", "x", "y", "z", "w", "v"], ["x"]])
    scores = index.scores(["lisbon"])
    assert scores[0] > scores[1] > 0


def test_empty_query_unknown_terms_and_empty_index_are_safe() -> None:
    index = _index(DOCS)
    assert not index.scores([]).any()
    assert not index.scores(["zzz-unknown"]).any()
    empty = BM25Index([])
    assert len(empty) == 0
    assert empty.scores(["lake"]).shape == (0,)
    blank = BM25Index([[], []])
    assert not blank.scores(["lake"]).any()


def test_docs_with_lists_the_documents_holding_a_term() -> None:
    index = _index(DOCS)
    assert index.docs_with("lake").tolist() == [2, 3, 4]
    assert index.docs_with("nothing").tolist() == []


def test_approx_bytes_grows_with_the_corpus() -> None:
    small = _index(DOCS)
    large = _index(DOCS * 50)
    assert 0 < small.approx_bytes() < large.approx_bytes()


def test_each_documents_terms_are_known_by_document() -> None:
    docs = [["cat", "sat", "cat"], [], ["dog", "cat"], ["emu"]]
    index = BM25Index(docs)
    for doc, tokens in enumerate(docs):
        assert sorted(index.terms_in(doc)) == sorted(index.term_ids(set(tokens)))
    assert index.term_ids({"cat", "unicorn"}) == set(index.terms_in(0)) & set(index.terms_in(2))
    assert index.term_ids({"unicorn"}) == set()
