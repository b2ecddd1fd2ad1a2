"""The SozoGraph reading of a passport: turns as observations the real library loads, and back."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import sozograph
from hypothesis import given, settings
from hypothesis import strategies as st

from app.domain.ingest.turns import Turn
from app.domain.memory.log import turn_item
from app.domain.passport import Passport
from app.domain.sozograph import sozograph_document, turn_observation, turns_of_observations


def document() -> dict[str, Any]:
    turns = [
        {
            "id": "m1",
            "speaker": "Ana",
            "role": "user",
            "text": "My sister Ines adopted a greyhound called Pixel last week.",
            "ts": "2024-05-08T13:56:00Z",
            "session": "s1",
            "dates": [{"said": "last week", "day": "2024-04-29"}],
        },
        {
            "id": "m2",
            "speaker": "assistant",
            "role": "assistant",
            "text": "Greyhounds love short sprints and long naps.",
            "ts": "2024-05-08T13:57:00Z",
            "session": "s1",
        },
    ]
    doc = Passport.empty("ana").to_dict()
    doc["turns"] = turns
    doc["facts"] = [{"key": "pet", "value": "Pixel", "turn_ids": ["m1"], "source": "seg_1"}]
    return doc


def test_each_turn_is_an_observation_of_who_said_what_when() -> None:
    out = sozograph_document(document())
    assert "turns" not in out
    assert out["observations"][0] == {
        "text": "Ana: My sister Ines adopted a greyhound called Pixel last week.",
        "ts": "2024-05-08T13:56:00Z",
        "when": "2024-04-29",
        "source": "s1",
        "participants": ["Ana"],
    }
    assert out["observations"][1]["participants"] == ["assistant"]
    assert out["observations"][1]["when"] == ""
    # Tessera's own item fields (turn_ids) are left out: the library refuses them.
    assert out["facts"] == [{"key": "pet", "value": "Pixel", "source": "seg_1"}]


def test_the_real_library_loads_it_and_its_context_answers_from_a_turn() -> None:
    loaded = sozograph.Passport.from_dict(sozograph_document(document()))
    assert len(loaded.observations) == 2
    assert loaded.observations[0].when == "2024-04-29"
    context = loaded.context(query="What is the name of Ines's greyhound?")
    assert "Pixel" in context and "greyhound" in context


def test_a_file_the_library_saved_gives_the_turns_back() -> None:
    saved = sozograph.Passport.from_dict(sozograph_document(document())).to_compact_dict()
    back = Passport.from_dict(turns_of_observations(saved)).to_dict()
    assert [(t["speaker"], t["text"], t["ts"], t["session"]) for t in back["turns"]] == [
        (
            "Ana",
            "My sister Ines adopted a greyhound called Pixel last week.",
            "2024-05-08T13:56:00Z",
            "s1",
        ),
        ("assistant", "Greyhounds love short sprints and long naps.", "2024-05-08T13:57:00Z", "s1"),
    ]
    assert back["observations"] == []


def test_observations_that_are_not_someones_words_stay_observations() -> None:
    doc = {
        "version": "2.1",
        "observations": [
            {"text": "Rui ran a half marathon.", "source": "seg_1"},
            {"text": "Rui: ", "participants": ["Rui"], "source": "seg_1"},
            {"text": "Bo: hello", "participants": ["Rui"], "source": "seg_1"},
            {"text": "Rui: hi", "participants": ["Rui", "Bo"], "source": "seg_1"},
        ],
    }
    assert turns_of_observations(doc) == doc
    # A Tessera document (it has turns, even none) is never read so.
    native = {**doc, "turns": []}
    native["observations"] = [{"text": "Rui: hi", "participants": ["Rui"], "source": "s"}]
    assert turns_of_observations(native) == native


def test_a_turn_without_text_is_no_observation() -> None:
    assert turn_observation({"speaker": "Ana", "text": ""}) is None
    assert turn_observation({"speaker": "Ana"}) is None
    assert turn_observation("not a turn") is None


@settings(max_examples=100, deadline=None)
@given(
    st.text(min_size=1, max_size=40).filter(lambda s: s.strip() == s and ":" not in s),
    st.text(min_size=1, max_size=200),
)
def test_any_speaker_and_text_come_back_as_they_went(speaker: str, text: str) -> None:
    turn = {"speaker": speaker, "text": text, "session": "s1"}
    observation = turn_observation(turn)
    assert observation is not None
    back = turns_of_observations({"version": "2.1", "observations": [observation]})
    [again] = back["turns"]
    assert {k: again[k] for k in turn} == turn and again["id"].startswith("t_")


def test_a_turn_the_client_gave_no_id_comes_back_with_the_same_id() -> None:
    when = datetime(2024, 5, 8, 13, 56, tzinfo=UTC)
    items = [
        turn_item(Turn("Ana", "ok", ts=when, session="s1"), "seg_1", when, nth)
        for nth in range(2)  # the same words twice: told apart by their place
    ]
    observations = [turn_observation(item) for item in items]
    saved = sozograph.Passport.from_dict({"observations": observations}).to_compact_dict()
    back = turns_of_observations(saved)["turns"]
    assert [t["id"] for t in back] == [item["id"] for item in items]
    assert len({t["id"] for t in back}) == 2
