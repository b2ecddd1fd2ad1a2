"""Standing instructions: read from the user's own words, newest wins, shown first, forgettable."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.domain.context import MemoryIndex, build_context
from app.domain.context.render import INSTRUCTION_SHARE
from app.domain.extraction.extractor import Extraction, ExtractionInput
from app.domain.extraction.rules import extract_rules
from app.domain.extraction.rules.instructions import instruction_key
from app.domain.ingest.turns import Segment, Turn
from app.domain.memory.forget import Forgetting
from app.domain.memory.merge import merge_extraction, remove_sources
from app.domain.passport import Passport, Source

DAY = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)


def extract(*turns: tuple[str | None, str, str], day: int = 0, seg: str = "seg_a") -> Extraction:
    """Turns as (role, speaker, text); a role of None is a person in a chat between people."""
    ts = DAY + timedelta(days=day)
    segment = Segment(
        id=seg,
        turns=tuple(
            Turn(speaker, text, ts=ts, id=f"{seg}-{n}", role=role)  # type: ignore[arg-type]
            for n, (role, speaker, text) in enumerate(turns)
        ),
        tokens=1,
    )
    return extract_rules(ExtractionInput(segment=segment, reference_ts=ts))


def said(text: str, day: int = 0, seg: str = "seg_a") -> Extraction:
    return extract(("user", "user", text), ("assistant", "assistant", "Sure."), day=day, seg=seg)


def merged(*extractions: tuple[Extraction, str, int]) -> Passport:
    passport = Passport.empty("u")
    for extraction, seg, day in extractions:
        ts = (DAY + timedelta(days=day)).isoformat()
        merge_extraction(passport, extraction, Source(id=seg, ts=ts), now=ts)
    return passport


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("Please always answer in French.", "reply language"),
        ("From now on, reply in Spanish.", "reply language"),
        ("Use TypeScript, not JavaScript.", "use javascript or typescript"),
        ("Never use emojis in your answers.", "use emojis your answers"),
        ("Stop using emojis in your answers.", "use emojis your answers"),
        ("Don't suggest paid services ever again.", "suggest paid services"),
        ("I want you to always include type hints.", "include type hints"),
    ],
)
def test_a_users_standing_instruction_is_kept_with_what_it_governs(text: str, key: str) -> None:
    out = said(text)
    assert [(i.key, i.text) for i in out.instructions] == [(key, text)]
    assert out.instructions[0].turn_ids == ["seg_a-0"]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "text",
    [
        "Can you always answer in French?",  # a question
        "Don't worry about the tests.",  # no verb an answer is governed by
        "Never give up!",
        "Don't use recursion here.",  # for this answer only: nothing says it stands
        "You always forget the semicolons.",  # a complaint, not an instruction
        "I always use tabs at work.",  # about the user: a fact, not an instruction
    ],
)
def test_what_only_looks_like_an_instruction_is_not_one(text: str) -> None:
    assert said(text).instructions == []


def test_only_the_user_of_a_user_assistant_chat_gives_instructions() -> None:
    assistant = extract(("user", "user", "Hi."), ("assistant", "assistant", "Always use pnpm."))
    friends = extract((None, "Ana", "Always answer in French."), (None, "Ben", "Ok!"))
    assert assistant.instructions == [] and friends.instructions == []


def test_a_newer_instruction_replaces_the_older_which_stays_in_its_history() -> None:
    passport = merged(
        (said("Always answer in French.", seg="seg_a"), "seg_a", 0),
        (said("From now on, answer in Spanish.", day=5, seg="seg_b"), "seg_b", 5),
        (said("Always answer in German.", day=2, seg="seg_c"), "seg_c", 2),  # a backfill
    )
    [current] = passport.instructions
    assert current.text == "From now on, answer in Spanish."
    history = [entry["text"] for entry in current.history]
    assert history == ["Always answer in German.", "Always answer in French."]  # newest first


def test_forgetting_the_current_instruction_brings_back_the_one_before() -> None:
    passport = merged(
        (said("Always answer in French.", seg="seg_a"), "seg_a", 0),
        (said("Always answer in Spanish.", day=5, seg="seg_b"), "seg_b", 5),
    )
    head = passport.to_dict()
    forgetting = Forgetting(turn_ids=frozenset({"seg_b-0"}), sources=frozenset(), said=frozenset())
    [left] = forgetting.scrub_head(head)["instructions"]
    assert (left["text"], left["history"]) == ("Always answer in French.", [])
    both = Forgetting(
        turn_ids=frozenset({"seg_a-0", "seg_b-0"}), sources=frozenset(), said=frozenset()
    )
    assert both.scrub_head(head)["instructions"] == []
    remove_sources(passport, {"seg_b"})  # a reprocess of seg_b redoes what it gave
    assert [i.text for i in passport.instructions] == ["Always answer in French."]


def test_instructions_come_first_in_the_context_within_their_share() -> None:
    passport = merged(
        (said("Always answer in French.", seg="seg_a"), "seg_a", 0),
        (said("Use TypeScript, not JavaScript.", day=1, seg="seg_b"), "seg_b", 1),
    )
    index = MemoryIndex(passport)
    text = build_context(index, "what is the weather", 2000).text
    assert text.startswith(
        "Instructions:\n- Use TypeScript, not JavaScript.\n- Always answer in French."
    )
    # A budget whose share holds only the newest shows only the newest.
    small = build_context(
        index,
        None,
        int(len("Instructions:\n- Use TypeScript, not JavaScript.") / INSTRUCTION_SHARE) + 5,
    )
    assert small.instructions == ("Use TypeScript, not JavaScript.",)
    assert build_context(index, None, 100).instructions == ()


def test_the_instructions_a_question_needs_come_first() -> None:
    passport = merged(
        (said("Always use 24-hour time when I ask about meeting schedules.", seg="a"), "a", 0),
        (said("Always add a chart when I ask about test coverage.", 1, "b"), "b", 1),
        (said("Always add a latency graph when I ask about profiling.", 2, "c"), "c", 2),
    )
    index = MemoryIndex(passport)
    # Room for one: the one whose condition the question names, though two are newer.
    longest = max(len(i.text) for i in passport.instructions)
    budget = int(len(f"Instructions:\n- {'x' * longest}") / INSTRUCTION_SHARE) + 5
    asked = build_context(index, "When is our next team meeting scheduled?", budget)
    assert asked.instructions == ("Always use 24-hour time when I ask about meeting schedules.",)
    # A question that names no condition gets none of them: an instruction that does not hold
    # for it would only mislead; without a question, the newest.
    assert build_context(index, "What is the weather like?", budget).instructions == ()
    newest = build_context(index, None, budget)
    assert newest.instructions == ("Always add a latency graph when I ask about profiling.",)
    # "ask" is in nearly every condition and names none.
    asking = merged(
        (said("Always add tests when I ask about refactoring.", 0, "a"), "a", 0),
        (said("Always use tabs when I write Python.", 1, "b"), "b", 1),
    )
    one = build_context(MemoryIndex(asking), "What should I ask my manager?", budget)
    assert one.instructions == ()
    python = build_context(MemoryIndex(asking), "Should I ask my manager about Python?", budget)
    assert python.instructions == ("Always use tabs when I write Python.",)
    # One that holds for every question comes before any that holds only sometimes.
    plain = merged(
        (said("Always answer in French.", seg="a"), "a", 0),
        (said("Always add a chart when I ask about test coverage.", 1, "b"), "b", 1),
    )
    shown = build_context(MemoryIndex(plain), "What is my test coverage now?", 2000).instructions
    assert shown[0] == "Always answer in French."


@given(st.text(alphabet=st.sampled_from(list("alwys nevruse,ot.!?'dn")), max_size=400))
@settings(max_examples=300, deadline=None)
def test_any_sentence_gives_a_key_made_of_its_own_words_or_none(text: str) -> None:
    key = instruction_key(text)
    # A key's words are the sentence's, but for the template of a choice ("use x or y") and the
    # base form of a gerund ("using" -> "use").
    assert key is None or all(w in text.lower() or w in ("use", "or") for w in key.split())
