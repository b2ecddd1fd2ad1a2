"""A passage that restates a shown one where the question's words are is not shown again."""

from __future__ import annotations

import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from app.domain.context import EvidenceIndex
from app.domain.context.restated import RESTATED_RUN, ShownRuns
from app.domain.text import query_tokens
from tests.unit.test_context_budget import ask, chat

BOOKED = "we rented the old cabin by the lake for a whole week"
LINES = [
    ("Ana", f"{BOOKED}, so excited"),
    ("Ben", "the lake has a heated pool nearby and a boat costs $90 a day"),
    ("Ana", f"after a long talk {BOOKED}, what should we pack"),
    ("Ana", f"a bit nervous about the concert, and then {BOOKED}"),
]
QUESTION = "What about the cabin by the lake?"


def _runs(*shown: str) -> ShownRuns:
    runs = ShownRuns(query_tokens(QUESTION))
    for text in shown:
        runs.add(text)
    return runs


def test_a_restatement_is_left_out_and_its_room_goes_to_the_next_match() -> None:
    index = EvidenceIndex(chat(LINES, session_every=1))
    # Room for two of the lines: the three that say the cabin rank above the pool's.
    context = ask(index, QUESTION, 260)
    assert context.text.count(BOOKED) == 1
    assert "heated pool" in context.text
    # The cabin said once is not counted as left out.
    assert context.omitted == 0


def test_what_is_new_about_the_question_is_no_restatement() -> None:
    runs = _runs(f"{BOOKED}, so excited")
    assert runs.restates(f"after a long talk {BOOKED}, what should we pack")
    # Its question word outside the shown words: "lake" again, in something new.
    assert not runs.restates(f"{BOOKED}, and the lake is cold in spring")
    # A shorter run than RESTATED_RUN words is a common phrase, not the same statement.
    shared = " ".join(BOOKED.split()[-(RESTATED_RUN - 1) :])
    assert not runs.restates(f"next year {shared} again")


def test_nothing_restates_before_anything_is_shown_and_without_the_questions_words() -> None:
    assert not _runs().restates(BOOKED)
    assert not _runs(BOOKED).restates("we rented a small flat in the hills for a whole week")
    assert not _runs("a b c d e f g").restates("a b c d e f g")  # no word the question asks


WORDS = ["cabin", "lake", "the", "by", "we", "3-day", "old", "14-16,", "rented", "..."]


@given(st.lists(st.sampled_from(WORDS), max_size=60), st.lists(st.sampled_from(WORDS), max_size=60))
@settings(max_examples=300, deadline=None)
def test_a_shown_passage_restates_itself_and_reading_never_fails(
    shown: list[str], other: list[str]
) -> None:
    text = " ".join(shown)
    runs = _runs(text)
    runs.restates(" ".join(other))
    asks = any(w in ("cabin", "lake") for w in shown)
    words = [w for w in shown if w != "..."]
    assert runs.restates(text) == (asks and len(words) >= RESTATED_RUN)


def test_long_adversarial_passages_are_read_through() -> None:
    text = "cabin lake " * 20000
    runs = _runs(text)
    assert runs.restates(text)
    assert not runs.restates("lake cabin " + "x " * 40000)


@given(st.text(max_size=300), st.text(max_size=300))
@settings(max_examples=300, deadline=None)
def test_any_text_is_read_and_what_asks_nothing_restates_nothing(shown: str, other: str) -> None:
    runs = _runs(shown, other)
    folded = unicodedata.normalize("NFKC", other).casefold()
    if not any(word in folded for word in ("cabin", "lake")):
        assert not runs.restates(other)
