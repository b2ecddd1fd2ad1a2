"""A passage that says nothing new is not shown: the one rule against repeats."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
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


def test_nothing_restates_before_anything_is_shown() -> None:
    assert not _runs().restates(BOOKED)
    assert not _runs(BOOKED).restates("we rented a small flat in the hills for a whole week")


def test_without_the_questions_words_every_word_must_be_said_again() -> None:
    runs = _runs("a b c d e f g")
    assert runs.restates("a b c d e f g")  # word for word
    assert runs.restates("b c d e f g")  # inside what was shown
    assert not runs.restates("a b c d e f g h")  # "h" is new
    assert _runs("sure").restates("Sure!") and not _runs("sure thing").restates("sure")


def test_the_same_words_from_someone_else_are_new() -> None:
    runs = ShownRuns(query_tokens(QUESTION))
    runs.add(BOOKED, speaker=0)
    assert runs.restates(BOOKED, speaker=0)
    assert not runs.restates(BOOKED, speaker=1)


WORDS = ["cabin", "lake", "the", "by", "we", "3-day", "old", "14-16,", "rented", "..."]


@given(st.lists(st.sampled_from(WORDS), max_size=60), st.lists(st.sampled_from(WORDS), max_size=60))
@settings(max_examples=300, deadline=None)
def test_a_shown_passage_restates_itself_and_reading_never_fails(
    shown: list[str], other: list[str]
) -> None:
    text = " ".join(shown)
    runs = _runs(text)
    runs.restates(" ".join(other))
    words = [w for w in shown if w != "..."]
    assert runs.restates(text) == bool(words)


def test_long_adversarial_passages_are_read_through() -> None:
    text = "cabin lake " * 20000
    runs = _runs(text)
    assert runs.restates(text)
    assert not runs.restates("lake cabin " + "x " * 40000)
    assert not runs.restates("x " * 40000 + "lake cabin moose")


@given(st.text(max_size=300), st.text(max_size=300))
@example(shown="0}", other="0{")
@example(shown=f"{BOOKED}, then home", other=f"so: {BOOKED}!")
@settings(max_examples=300, deadline=None)
def test_any_text_is_read_and_what_is_new_restates_nothing(shown: str, other: str) -> None:
    runs = _runs(shown)
    if not runs.restates(other):
        return

    # What restates says again, in what was shown, the question's words it holds, or all its words.
    def pieces(text: str) -> set[str]:
        return set(re.findall(r"[^\W_]+", text.lower()))

    said, before = pieces(other), pieces(shown)
    asked = {word for word in said if word.startswith(("cabin", "lake"))}
    assert (asked and asked <= before) or said <= before


PLAIN = ["cabin", "lake", "the", "by", "we", "3-day", "old", "rented", "boat"]
Said = tuple[int, list[str]]  # a speaker's number and the words of a passage


def _restated_by_definition(shown: list[Said], speaker: int, words: list[str]) -> bool:
    """The rule as the module states it, word by word and window by window, with no shortcut."""
    runs = set()
    for who, said in shown:
        runs.add((who, *said[:RESTATED_RUN]))
        runs.update((who, *said[s : s + RESTATED_RUN]) for s in range(len(said) - RESTATED_RUN + 1))
    if not shown or not words:
        return False
    run = min(RESTATED_RUN, len(words))
    covered = [False] * len(words)
    for start in range(len(words) - run + 1):
        if (speaker, *words[start : start + run]) in runs:
            covered[start : start + run] = [True] * run
    asked = set(query_tokens(QUESTION))
    matter = [at for at, w in enumerate(words) if not asked.isdisjoint(query_tokens(w))]
    return all(covered[at] for at in matter or range(len(words)))


@given(
    st.lists(
        st.tuples(st.integers(0, 1), st.lists(st.sampled_from(PLAIN), max_size=14)), max_size=4
    ),
    st.integers(0, 1),
    st.lists(st.sampled_from(PLAIN), max_size=14),
)
@settings(max_examples=500, deadline=None)
def test_a_repeat_is_what_the_rule_says_word_by_word(
    shown: list[Said], speaker: int, words: list[str]
) -> None:
    runs = ShownRuns(query_tokens(QUESTION))
    for who, said in shown:
        runs.add(" ".join(said), who)
    expected = _restated_by_definition(shown, speaker, words)
    assert runs.restates(" ".join(words), speaker) == expected
    assert runs.restates(" ".join(words), speaker) == expected  # asked again, the same
