"""The ranker: each named feature on written examples, and the fitted scorer's invariants."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.domain.context import EvidenceIndex
from app.domain.context.ranking.candidates import candidates
from app.domain.context.ranking.features import (
    FEATURES,
    WRITTEN_DATE,
    cheap_features,
    said_together,
    says_date,
    text_features,
    whole_words,
)
from app.domain.context.ranking.question import Question
from app.domain.context.ranking.scorer import rank, similarity_of
from app.domain.context.ranking.weights import BIAS, WEIGHTS
from app.domain.context.vectors import PassageVectors
from tests.unit.test_context_budget import FILLER, chat


def features(lines: list[tuple[str, str]], q: str, **kwargs: int) -> dict[int, dict[str, float]]:
    """Every candidate's features for ``q`` over ``lines``, by passage."""
    index = EvidenceIndex(chat(lines, **kwargs))
    question = Question.of(q)
    assert question is not None
    found = candidates(index, question.tokens)
    rows = cheap_features(index, question, found)
    text_features(index, question, found.docs.tolist(), rows)
    return {
        int(doc): dict(zip(FEATURES, map(float, row), strict=True))
        for doc, row in zip(found.docs, rows, strict=True)
    }


def test_bm25_is_a_share_of_the_best_match() -> None:
    got = features([("Ana", "the red kite"), ("Ben", "a red kite and a red kite"), *FILLER], "kite")
    assert max(f["bm25"] for f in got.values()) == 1.0
    assert all(0.0 <= f["bm25"] <= 1.0 for f in got.values())


def test_an_assistants_passage_is_marked_and_a_persons_is_not() -> None:
    got = features([("user", "my kite broke"), ("assistant", "kites break in wind")], "kite")
    assert got[0]["assistant"] == 0.0 and got[1]["assistant"] == 1.0
    assert got[1]["assistant_bm25"] == got[1]["bm25"]


def test_a_neighbour_takes_its_session_neighbours_match_and_no_other_sessions() -> None:
    lines = [("Ana", "the kite festival is soon"), ("Ben", "nice, which day?"), ("Ana", "kite")]
    got = features(lines, "kite festival", session_every=2)
    assert got[1]["neighbours"] > 0  # beside the first, in its session
    assert got[1]["bm25"] == 0.0
    # Passage 2 starts the next session: passage 1's neighbour count holds only passage 0.
    alone = features(lines[:2], "kite festival", session_every=2)
    assert got[1]["neighbours"] == pytest.approx(alone[1]["neighbours"], rel=0.2)


def test_a_named_speaker_is_marked() -> None:
    got = features(
        [("Ana", "the kite flew"), ("Ben", "the kite fell")], "What did Ana say of the kite?"
    )
    assert got[0]["speaker"] == 1.0 and got[1]["speaker"] == 0.0


def test_coverage_counts_a_rare_word_for_more_than_a_common_one() -> None:
    lines = [("Ana", "the kite"), ("Ana", "the zeppelin"), *[("Ben", "the kite again")] * 5]
    got = features(lines, "kite zeppelin")
    assert got[1]["coverage"] > got[0]["coverage"] > 0.0


def test_word_pairs_count_when_said_side_by_side_as_whole_words() -> None:
    asked = Question.of("When is the garden party?")
    assert asked is not None and asked.pairs == ("garden party",)
    pairs = [whole_words(pair) for pair in asked.pairs]
    assert said_together("the garden party moved to sunday", pairs) == 1.0
    assert said_together("the garden was lovely, the party too", pairs) == 0.0
    assert said_together("the party in the garden", pairs) == 0.0
    assert said_together("the aftermath classes", [whole_words("math class")]) == 0.0


def test_a_question_names_its_pairs_without_function_words_or_what_how_asks() -> None:
    def pairs(q: str) -> set[str]:
        asked = Question.of(q)
        return set(asked.pairs) if asked else set()

    assert pairs("Which date did we pick for the garden party at your place?") == {"garden party"}
    assert pairs("How many weeks went by between Omar's 40th birthday and the trip?") == {
        "weeks went",
        "omar's 40th",
        "40th birthday",
    }
    assert pairs("How long is my night shift rota?") == {"night shift", "shift rota"}
    assert pairs("What did she say?") == set()


def test_an_amount_counts_only_for_a_persons_number_when_one_is_asked() -> None:
    lines = [("user", "my kite fund holds $80"), ("assistant", "1. save $5 for the kite fund")]
    asked = features(lines, "How much is in my kite fund?")
    assert asked[0]["amount"] == 1.0 and asked[1]["amount"] == 0.0
    assert features(lines, "Why do I keep a kite fund?")[0]["amount"] == 0.0


def test_a_date_counts_when_a_time_is_asked() -> None:
    lines = [("Ana", "the kite show was yesterday"), ("Ana", "the kite show was fun")]
    got = features(lines, "When was the kite show?")
    assert got[0]["date"] == 1.0 and got[1]["date"] == 0.0
    assert features(lines, "How was the kite show?")[0]["date"] == 0.0
    index = EvidenceIndex(chat([("Ana", "we fly kites on march 3")]))
    assert says_date(index, 0, index.passage_text(0), person=True) == 1.0


_PIECES = ["march", "Dec", "june", "sept", "of", "the", "3", "22nd", "2024", "07", "-", ",", " "]
_DAYISH = st.lists(st.sampled_from(_PIECES), max_size=12).map("".join)


@given(_DAYISH)
@settings(max_examples=300)
def test_a_written_day_always_holds_a_digit(text: str) -> None:
    # says_date passes over a passage without a digit before it tries the pattern.
    if WRITTEN_DATE.search(text.lower()):
        assert any(c.isdigit() for c in text)
    assert WRITTEN_DATE.search("kites in march, june or dec") is None
    assert WRITTEN_DATE.search("kites on june 3") is not None


def test_earliness_orders_a_persons_candidates_when_the_first_time_is_asked() -> None:
    lines = [("Ana", "my kite"), ("Ana", "the kite again"), ("Ana", "kite once more")]
    got = features(lines, "When did Ana first mention her kite?", days=1)
    assert got[0]["first"] == 1.0 and got[2]["first"] == 0.0 and 0 < got[1]["first"] < 1
    assert all(f["first"] == 0.0 for f in features(lines, "Ana's kite?").values())


def with_vectors(index: EvidenceIndex, rows: list[list[float]]) -> EvidenceIndex:
    """``index`` holding ``rows`` as its passages' vectors (a model named "test")."""
    vectors = PassageVectors("test", len(rows[0]))
    vectors.extend(np.array(rows, dtype=np.float32))
    index.vectors = vectors
    return index


def test_similarity_is_a_share_of_the_nearest_and_reaches_passages_without_a_shared_word() -> None:
    lines = [("Ana", "my kite broke"), *FILLER, ("Ana", "we adopted a greyhound")]
    far = [[0.0, 0.0, 1.0]] * len(FILLER)
    index = with_vectors(EvidenceIndex(chat(lines)), [[1, 0, 0], *far, [0.6, 0.8, 0]])
    greyhound = index.n_passages - 1
    question = Question.of("kite")
    assert question is not None
    assert greyhound not in candidates(index, question.tokens).docs
    question = replace(question, vector=np.array([0.0, 1.0, 0.0], dtype=np.float32))
    similarity = similarity_of(index, question)
    assert similarity is not None
    found = candidates(index, question.tokens, similarity=similarity)
    # The greyhound shares no word with the question but is the nearest to it.
    assert greyhound in found.docs
    rows = cheap_features(index, question, found, similarity)
    got = dict(
        zip(found.docs.tolist(), rows[:, FEATURES.index("similarity")].tolist(), strict=True)
    )
    assert got[greyhound] == 1.0 and got[0] == 0.0


def test_without_vectors_on_both_sides_the_scorer_is_the_one_fitted_without_them() -> None:
    lines = [("Ana", "my kite broke"), ("Ben", "the kite flew"), *FILLER]
    plain = EvidenceIndex(chat(lines))
    question = Question.of("kite")
    assert question is not None
    off = rank(plain, question)
    # A question vector with no passage vectors (a model just switched on) changes nothing.
    asked = replace(question, vector=np.ones(3, dtype=np.float32))
    assert rank(plain, asked).scores.tolist() == off.scores.tolist()
    assert off.weights.tolist() == pytest.approx([*(WEIGHTS[f][0] for f in FEATURES), BIAS[0]])
    assert WEIGHTS["similarity"][0] == 0.0 and WEIGHTS["similarity"][1] > 0.0


def test_every_feature_is_tested_here() -> None:
    assert set(FEATURES) == set(WEIGHTS)
    assert len(FEATURES) == 11


# --- the scorer -------------------------------------------------------------------------------


RARE_WORDS = ["zeppelin", "quokka", "ostrich", "lagoon"]


@given(
    st.lists(st.sampled_from(["the", "a", "kite", "sky", "blue", "fun"]), min_size=1, max_size=8),
    st.sampled_from(RARE_WORDS),
)
@settings(max_examples=60, deadline=None)
def test_of_two_passages_alike_the_one_holding_more_rare_question_words_never_scores_lower(
    words: list[str], rare: str
) -> None:
    base = " ".join(words)
    lines = [("Ana", base), ("Ana", f"{base} {rare}"), *[("Ben", "kite sky fun blue")] * 4]
    index = EvidenceIndex(chat(lines))
    question = Question.of(f"kite {rare}")
    assert question is not None
    found = rank(index, question)
    assert found.scores[1] >= found.scores[0]


@given(st.lists(st.sampled_from(["kite", "sky", "my", "blue", "$5", "may 3"]), max_size=6))
@settings(max_examples=60, deadline=None)
def test_scores_are_probabilities_in_order_and_explained(words: list[str]) -> None:
    lines = [("user", " ".join(words) or "kite"), ("assistant", "kite sky"), *FILLER]
    index = EvidenceIndex(chat(lines))
    question = Question.of("How much did my kite cost on may 3?")
    assert question is not None
    found = rank(index, question)
    shown = [float(found.scores[d]) for d in found.order]
    assert shown == sorted(shown, reverse=True)
    assert all(0.0 < s < 1.0 for s in shown)
    for doc in found.order:
        why = found.explain(doc)
        assert why is not None
        logit = why["bias"] + sum(f["adds"] for f in why["features"].values())
        assert 1 / (1 + np.exp(-logit)) == pytest.approx(float(found.scores[doc]), abs=1e-3)
        assert why["bm25"] == pytest.approx(float(found.bm25[doc]), abs=1e-5)


def test_no_passage_of_a_question_without_a_match_is_a_candidate() -> None:
    index = EvidenceIndex(chat(FILLER))
    question = Question.of("zeppelin")
    assert question is not None
    found = rank(index, question)
    assert found.order == [] and found.matching == 0 and found.explain(0) is None


_ASKED = ("kite", "red", "festival")
_OTHER = ("river", "boat", "tea", "garden", "storm", "the", "and")


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(("user", "assistant")),
            st.one_of(  # a message that may say the question's words, or a long one that cannot
                st.lists(st.sampled_from(_ASKED + _OTHER), min_size=1, max_size=160),
                st.lists(st.sampled_from(_OTHER), min_size=60, max_size=160),
            ),
        ),
        min_size=1,
        max_size=12,
    ),
    st.lists(st.sampled_from(_ASKED), min_size=1, max_size=3),
)
def test_matching_counts_each_record_a_match_or_only_a_neighbour_reaches_once(
    lines: list[tuple[str, list[str]]], asked: list[str]
) -> None:
    # Assistants' long messages are cut into several passages: a record counts once, whether
    # one of its passages matched or only a neighbour reached it.
    index = EvidenceIndex(chat([(who, " ".join(words)) for who, words in lines], session_every=3))
    question = Question.of(" ".join(asked))
    assert question is not None
    found = candidates(index, question.tokens)
    turns = index.passage_turns()
    matched = {int(turns[d]) for d in np.flatnonzero(found.bm25 > 0)}
    reached = {int(turns[d]) for d in found.docs if found.bm25[d] <= 0} - matched
    assert found.matching == len(matched) + len(reached)
