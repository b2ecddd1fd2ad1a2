"""Beliefs, open loops and entities read as sentences, whatever shape their keys have."""

from __future__ import annotations

from typing import Any

import pytest

from app.domain.context.belief_sentences import belief_text, entity_text, loop_text
from app.domain.passport import Belief, Contradiction, Entity, OpenLoop


def fact(key: str, value: Any, **kw: Any) -> str:
    return belief_text("facts", Belief(key=key, value=value), **kw)


def pref(key: str, value: Any, **kw: Any) -> str:
    return belief_text("prefs", Belief(key=key, value=value), **kw)


@pytest.mark.parametrize(
    ("key", "value", "sentence"),
    [
        ("melanie.likes_hiking", "hiking in the hills", "Melanie likes hiking in the hills"),
        ("melanie.dislikes_olives", "olives", "Melanie does not like olives"),
        ("melanie.favorite_color", "teal", "Melanie's favorite color is teal"),
        ("melanie.hobby_pottery", True, "Melanie's hobbies include pottery"),
        ("likes_jazz", "jazz", "Tawanda likes jazz"),
    ],
)
def test_preferences(key: str, value: Any, sentence: str) -> None:
    assert pref(key, value, subject="Tawanda") == sentence


@pytest.mark.parametrize(
    ("key", "value", "sentence"),
    [
        ("caroline.location", "Denver", "Caroline lives in Denver"),
        ("caroline.hometown", "Harare", "Caroline is from Harare"),
        ("caroline.occupation", "engineer", "Caroline is an engineer"),
        ("caroline.employer", "Zimplats", "Caroline works at Zimplats"),
        ("caroline.field_of_study", "nursing", "Caroline studies nursing"),
        ("caroline.age", 32, "Caroline is 32 years old"),
        ("caroline.birthday", "5 June", "Caroline's birthday is 5 June"),
        ("caroline.relationship_status", "married", "Caroline is married"),
        ("caroline.spouse", "John", "Caroline's spouse is John"),
        ("caroline.best_friend", "Kim", "Caroline's best friend is Kim"),
        ("caroline.dog", "Max", "Caroline's dog is Max"),
        ("caroline.children", "Mia and Leo", "Caroline's children are Mia and Leo"),
        ("caroline.children_count", 2, "Caroline has 2 children"),
        ("caroline.turtle_count", 3, "Caroline has 3 turtles"),
        ("caroline.car", "Golf", "Caroline's car is a Golf"),
        ("caroline.plays_cello", True, "Caroline plays cello"),
        ("caroline.learning_spanish", True, "Caroline is learning Spanish"),
        ("caroline.allergic_to_cats", True, "Caroline is allergic to cats"),
        ("caroline.does_not_eat_pork", True, "Caroline does not eat pork"),
        ("caroline.never_been_to_japan", True, "Caroline has never been to japan"),
        ("caroline.cannot_swim", True, "Caroline cannot swim"),
        ("caroline.quit_smoking", True, "Caroline quit smoking"),
        ("caroline.name", "Caro", "Caroline goes by the name Caro"),
        ("james.location", "Paris", "James lives in Paris"),
    ],
)
def test_facts_the_rules_write(key: str, value: Any, sentence: str) -> None:
    assert fact(key, value) == sentence


def test_the_subject_is_named_or_is_the_user() -> None:
    assert fact("location", "Kwekwe", subject="Tawanda") == "Tawanda lives in Kwekwe"
    assert fact("location", "Kwekwe") == "The user lives in Kwekwe"
    assert fact("location", "Kwekwe", subject="  ") == "The user lives in Kwekwe"


@pytest.mark.parametrize(
    ("section", "key", "value", "sentence"),
    [
        ("facts", "favorite_food", "sadza", "The user's favorite food is sadza"),
        ("facts", "budget_max", 500, "The user's budget max is 500"),
        ("facts", "vegetarian", True, "The user: vegetarian"),
        ("facts", "smoker", False, "The user: not smoker"),
        ("facts", "languages", ["Shona", "English"], "The user's languages are Shona and English"),
        ("facts", "phone", None, "The user: phone (unknown)"),
        ("prefs", "tone", "direct", "The user's preferred tone is direct"),
        ("prefs", "favoriteColor", "blue", "The user's favorite color is blue"),
        ("facts", "Caroline.Location", "Denver", "Caroline lives in Denver"),
    ],
)
def test_keys_from_clients_and_models_still_read(
    section: str, key: str, value: Any, sentence: str
) -> None:
    assert belief_text(section, Belief(key=key, value=value)) == sentence  # type: ignore[arg-type]


def test_a_changed_fact_says_since_when_and_what_it_was() -> None:
    changes = [
        Contradiction(key="caroline.location", old="Harare", new="Boston", ts_new="2022-01-03"),
        Contradiction(
            key="caroline.location", old="Boston", new="Denver", ts_new="2023-05-20T10:00:00Z"
        ),
    ]
    text = fact("caroline.location", "Denver", changes=changes)
    assert text == "Caroline lives in Denver (since May 2023; before: Boston)"
    # An older value that did not win (the last change is not what is believed) dates nothing.
    assert fact("caroline.location", "Boston", changes=changes) == "Caroline lives in Boston"


def test_loops_and_entities() -> None:
    loop = OpenLoop(item="melanie needs to book the flight (said 8 May 2023)")
    assert loop_text(loop) == "Melanie needs to book the flight (said 8 May 2023)"
    assert entity_text(Entity(name="Kwekwe", type="place")) == "Kwekwe (place)"
    mel = Entity(name="Melanie", type="person", aliases=["Mel", "Mels"])
    assert entity_text(mel) == "Melanie (person; also called Mel and Mels)"
