"""The named features of a candidate passage: each a number in [0, 1], zero when it does not apply.

The first ``CHEAP`` are read for every candidate from the index's columns at once; the rest read
the passage's words, and are read only for the ``RERANKED`` best candidates by the first (the
others keep zero there, and being weaker matches could not use them to reach a budget).
"""

from __future__ import annotations

import re

import numpy as np
import numpy.typing as npt

from app.domain.context.index import EvidenceIndex, Scores
from app.domain.context.ranking.candidates import Candidates, neighbour_scores, sort_time
from app.domain.context.ranking.question import Question
from app.domain.dates import SPAN_OF_TIME, WRITTEN_DAY

FEATURES = (
    "bm25",  # BM25 as a share of the best candidate's
    "assistant",  # an assistant (system, tool) said it
    "assistant_bm25",  # the two above multiplied: how much an assistant's match counts
    "neighbours",  # BM25 of the passages beside it in the session, as a share of the best
    "speaker",  # the question names who said it
    "coverage",  # the share of the question's distinct words it holds, rare words counting more
    "similarity",  # its embedding's cosine with the question's, as a share of the best (0: off)
    "pairs",  # the share of the question's word pairs it says side by side, as whole words
    "amount",  # the question asks an amount and a person states a number (not a date) in it
    "date",  # the question asks a time and it says a date
    "first",  # the question asks the first time: how early it is among the reranked candidates
)
CHEAP = FEATURES.index("pairs")  # those before read the index's columns, the rest the words
# The candidates whose words are read for the last features: more than a budget of a few thousand
# characters shows.
RERANKED = 100
_PAIRS, _AMOUNT, _DATE, _FIRST = (FEATURES.index(f) for f in ("pairs", "amount", "date", "first"))

_DIGIT = re.compile(r"\d")
# A day written out, read in lower case: "march 22", "22nd of march", "2024-03-22".
WRITTEN_DATE = re.compile(rf"\b(?:{WRITTEN_DAY})\b")


def cheap_features(
    index: EvidenceIndex, question: Question, found: Candidates, similarity: Scores | None = None
) -> npt.NDArray[np.float32]:
    """The first ``CHEAP`` features of every candidate, one row each (``similarity``: per
    passage, its cosine with the question, when an embedding model is on)."""
    docs, bm25 = found.docs, found.bm25
    rows = np.zeros((docs.size, len(FEATURES)), dtype=np.float32)
    if not docs.size:
        return rows
    best = float(bm25[docs].max()) or 1.0
    rows[:, 0] = bm25[docs] / best
    machine = index.machine_passages()
    if machine is not None:
        rows[:, 1] = machine[docs]
        rows[:, 2] = rows[:, 0] * rows[:, 1]
    rows[:, 3] = np.minimum(neighbour_scores(index, docs, bm25) / best, 1.0)
    named = index.speakers_named(question.tokens)
    if named:
        rows[:, 4] = index.speaker_mask(named)[docs]
    rows[:, 5] = index.coverage(question.tokens)[docs]
    if similarity is not None:
        near = np.maximum(similarity[docs], 0.0)
        rows[:, 6] = near / (float(near.max()) or 1.0)
    return rows


def text_features(
    index: EvidenceIndex, question: Question, docs: list[int], rows: npt.NDArray[np.float32]
) -> None:
    """Fill the features that read a passage's words into ``rows`` (one per doc of ``docs``)."""
    machine = index.machine_passages()
    asks = question.asks
    pairs = [whole_words(pair) for pair in question.pairs]
    for row, doc in zip(rows, docs, strict=True):
        text = index.passage_text(doc)
        person = machine is None or not machine[doc]
        if pairs:
            row[_PAIRS] = said_together(text.lower(), pairs)
        if "amount" in asks and person:
            row[_AMOUNT] = states_amount(index, doc, text, "span" in asks)
        if "time" in asks:
            row[_DATE] = says_date(index, doc, text, person)
    if "first" in asks:
        rows[:, _FIRST] = _earliness(index, docs, machine)


# A phrase, and the pattern that finds it as whole words.
WholeWords = tuple[str, re.Pattern[str]]


def said_together(lowered: str, pairs: list[WholeWords]) -> float:
    """The share of the question's word ``pairs`` (as ``whole_words``) that ``lowered`` says."""
    # Most passages do not hold a pair at all: the plain substring test says so first.
    said = sum(1 for phrase, words in pairs if phrase in lowered and words.search(lowered))
    return said / len(pairs)


def whole_words(phrase: str) -> WholeWords:
    """``phrase`` as whole words: "math class", not "aftermath classes"."""
    return phrase, re.compile(rf"(?<!\w){re.escape(phrase)}(?!\w)")


def states_amount(index: EvidenceIndex, doc: int, text: str, span: bool = False) -> float:
    """1 when the passage holds a digit, or (``span``: the question asks how long) a span of
    time ("an hour"), outside the dates its record resolved."""
    for said in index.dates(index.turn_of(doc)):
        text = text.replace(said.said, " ")
    return 1.0 if _DIGIT.search(text) or (span and SPAN_OF_TIME.search(text)) else 0.0


def says_date(index: EvidenceIndex, doc: int, text: str, person: bool) -> float:
    """1 when the passage holds one of its record's resolved dates, or (a person's passage) a
    date written out in full."""
    if any(said.said in text for said in index.dates(index.turn_of(doc))):
        return 1.0
    # Every written day has a digit: most passages are passed over without the pattern.
    return 1.0 if person and _DIGIT.search(text) and WRITTEN_DATE.search(text.lower()) else 0.0


def _earliness(
    index: EvidenceIndex, docs: list[int], machine: npt.NDArray[np.bool_] | None
) -> npt.NDArray[np.float32]:
    """Per doc: the share of the other person's candidates that are later; 0 for an assistant's
    (its repeat of what the user said is never the first saying)."""
    out = np.zeros(len(docs), dtype=np.float32)
    epochs, turns = index.record_epochs(), index.passage_turns()
    people = [i for i, d in enumerate(docs) if machine is None or not machine[d]]
    people.sort(key=lambda i: (sort_time(float(epochs[turns[docs[i]]])), docs[i]))
    out[people] = np.linspace(1.0, 0.0, len(people)) if len(people) > 1 else 0.0
    return out


def features_of(
    index: EvidenceIndex,
    question: Question,
    found: Candidates,
    weights: npt.NDArray[np.float32],
    similarity: Scores | None = None,
) -> tuple[npt.NDArray[np.float32], Scores]:
    """Every candidate's features, and its logit under ``weights`` (the bias last)."""
    rows = cheap_features(index, question, found, similarity)
    logits = rows[:, :CHEAP] @ weights[:CHEAP] + weights[-1]
    if rows.shape[0]:
        top = _top(logits, RERANKED)
        view = rows[top]  # a copy: filled, then put back
        text_features(index, question, found.docs[top].tolist(), view)
        rows[top] = view
        logits[top] = view @ weights[:-1] + weights[-1]
    return rows, logits


def _top(values: Scores, k: int) -> npt.NDArray[np.intp]:
    """The places of the ``k`` largest values (all when there are fewer)."""
    return np.argpartition(-values, k)[:k] if values.size > k else np.arange(values.size)


def sigmoid(logits: Scores) -> Scores:
    """The logistic function, elementwise: a score in (0, 1) that keeps the logits' order."""
    return np.asarray(1.0 / (1.0 + np.exp(-np.clip(logits, -30, 30))), dtype=np.float32)
