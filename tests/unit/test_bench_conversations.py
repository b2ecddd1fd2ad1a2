"""The user–assistant benchmark's source measure, on a made-up chat."""

from __future__ import annotations

from datetime import UTC, datetime

from bench.conversations.data import Chat, Message, Question
from bench.conversations.run import TESSERA, RawMessages, Results


def made_up() -> Chat:
    day = datetime(2025, 3, 4, tzinfo=UTC)
    said = [
        ("1", "user", "My kiln fires at 1220 degrees for stoneware."),
        ("2", "assistant", "Stoneware at 1220 degrees is a common cone 6 firing."),
        ("3", "user", "The glaze I like is a celadon from the corner shop."),
        ("4", "assistant", "Celadon needs a reduction atmosphere to go green."),
    ]
    messages = tuple(Message(i, role, text, day) for i, role, text in said)
    asked = "What temperature does my kiln fire at?"
    question = Question(asked, "extraction", ("1220",), ("1", "2"))
    return Chat("c", (messages,), (question,))


def test_source_recall_is_the_share_of_a_questions_source_messages_named() -> None:
    chat = made_up()
    question = chat.questions[0]
    results = Results()
    results.add(TESSERA, 1000, question, "1220 degrees", named={"1", "4"})
    results.add(TESSERA, 2000, question, "1220 degrees", named={"1", "2", "3"})
    assert results.tally(TESSERA, 1000, "all").source_recall == 0.5
    assert results.tally(TESSERA, 2000, "extraction").source_recall == 1.0
    # A question the set gives no sources for counts in neither the sum nor the share.
    unsourced = Question("Which glaze?", "extraction", ("celadon",))
    results.add(TESSERA, 1000, unsourced, "celadon", named=set())
    assert results.tally(TESSERA, 1000, "all").source_recall == 0.5


def test_the_baseline_names_the_messages_it_shows() -> None:
    chat = made_up()
    text, named = RawMessages(chat).context("kiln temperature", 80)
    assert named and all(m.text in text for m in chat.messages if m.id in named)
