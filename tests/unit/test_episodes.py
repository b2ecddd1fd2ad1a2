"""Offline episodes: one per segment, in the person's own words, with when, who and what about."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from app.domain.extraction.extractor import Extraction, ExtractionInput
from app.domain.extraction.rules import extract_rules
from app.domain.ingest.turns import Segment, Turn
from app.domain.memory.forget import Forgetting

START = datetime(2024, 5, 3, 9, 0, tzinfo=UTC)

CODE_ANSWER = (
    "Here is a version with a retry loop:\n\n```python\nfor attempt in range(3):\n"
    "    sourdough_starter_feed(attempt)\n```\n\nThe sourdough starter needs flour and water, "
    "and the sourdough starter likes a warm kitchen."
)


def extract(*turns: tuple[str | None, str, str], seg: str = "seg_a") -> Extraction:
    """Turns as (role, speaker, text), a minute apart; a role of None is a person in a chat."""
    segment = Segment(
        id=seg,
        turns=tuple(
            Turn(who, text, ts=START + timedelta(minutes=n), id=f"{seg}-{n}", role=role)  # type: ignore[arg-type]
            for n, (role, who, text) in enumerate(turns)
        ),
        tokens=1,
        session="s1",
    )
    return extract_rules(ExtractionInput(segment=segment, reference_ts=START))


def test_an_episode_says_when_who_and_what_about_in_the_users_words() -> None:
    out = extract(
        ("user", "user", "Hi!"),
        ("user", "user", "I am baking sourdough bread this weekend. My sourdough starter is new."),
        ("assistant", "assistant", CODE_ANSWER),
        ("user", "user", "Should the sourdough rest overnight?"),
    )
    episode = out.episode
    assert episode is not None
    item = episode.to_dict()
    assert item["id"] == item["source"] == "seg_a"
    assert item["ts"] == "2024-05-03T09:00:00Z" and item["end"] == "2024-05-03T09:03:00Z"
    assert item["session"] == "s1" and item["quoted"] is True
    assert item["participants"] == ["user", "assistant"]
    assert item["turn_ids"] == ["seg_a-0", "seg_a-1", "seg_a-2", "seg_a-3"]
    assert item["keywords"][0] == "sourdough"
    # The summary is a sentence the user said, never the assistant's words or its code.
    assert episode.summary in {
        "I am baking sourdough bread this weekend.",
        "My sourdough starter is new.",
    }
    assert "attempt" not in item["keywords"] and "flour" not in item["keywords"]


def test_in_a_chat_between_people_anyone_may_be_quoted() -> None:
    out = extract(
        (None, "Ana", "We finally booked the cabin by the lake for July."),
        (None, "Bo", "The lake cabin! Do they let you rent kayaks at the lake?"),
    )
    assert out.episode is not None
    assert out.episode.participants == ["Ana", "Bo"]
    assert "lake" in out.episode.keywords
    assert out.episode.summary in {
        "We finally booked the cabin by the lake for July.",
        "Do they let you rent kayaks at the lake?",
    }


def test_no_episode_from_small_talk_or_from_the_assistant_alone() -> None:
    assert extract(("user", "user", "Hi!"), ("user", "user", "Thanks, bye!")).episode is None
    assert extract(("assistant", "assistant", CODE_ANSWER)).episode is None


def test_a_long_sentence_is_clipped_at_a_word() -> None:
    words = " ".join(f"garden{n % 7} tomatoes" for n in range(80))
    out = extract(("user", "user", f"My {words}."))
    assert out.episode is not None
    assert len(out.episode.summary) <= 240 and out.episode.summary.endswith("…")
    assert out.episode.summary[:-1] in f"My {words}."


def test_forgetting_any_turn_of_the_segment_forgets_the_episode() -> None:
    out = extract(("user", "user", "My sourdough starter is new."), ("user", "user", "It's great."))
    assert out.episode is not None
    item = out.episode.to_dict()
    for turn_id in ("seg_a-0", "seg_a-1"):
        forgetting = Forgetting(frozenset({turn_id}), frozenset(), frozenset())
        assert forgetting.derived(item)
    assert not Forgetting(frozenset({"other"}), frozenset(), frozenset()).derived(item)


def test_the_same_segment_gives_the_same_episode() -> None:
    turns = (("user", "user", "I am repainting the kitchen blue."), ("user", "user", "Blue walls."))
    first, second = extract(*turns), extract(*turns)
    assert first.episode is not None and second.episode is not None
    assert first.episode.to_dict() == second.episode.to_dict()


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="ab .!?\n`#-*:", max_size=3000))
def test_any_text_gives_an_episode_quoting_it_or_none(text: str) -> None:
    out = extract(("user", "user", text))
    if out.episode is not None:
        assert len(out.episode.summary) <= 240
        summary = out.episode.summary.removesuffix("…")
        assert summary and set(summary.lower()) <= set(text.lower()) | {" "}
