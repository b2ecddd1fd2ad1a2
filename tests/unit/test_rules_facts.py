"""Facts and preferences the rule extractor reads from how people talk in chat."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from app.domain.extract import Extraction, ExtractionInput
from app.domain.rules import extract_rules
from app.domain.rules_facts import reuse_key, topic_key
from app.domain.turns import Segment, Turn

MAY_8 = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def extract(
    *turns: tuple[str, str],
    subject: str | None = "Jon",
    known: tuple[str, ...] = (),
    ts: datetime | None = MAY_8,
    reference: datetime | None = None,
) -> Extraction:
    segment = Segment(id="seg_facts", turns=tuple(Turn(s, t, ts=ts) for s, t in turns), tokens=100)
    request = ExtractionInput(
        segment=segment, subject=subject, known_keys=known, reference_ts=reference
    )
    return extract_rules(request)


def facts(text: str, speaker: str = "Jon", **kw: Any) -> dict[str, Any]:
    return {b.key: b.value for b in extract((speaker, text), **kw).facts}


def prefs(text: str, speaker: str = "Jon", **kw: Any) -> dict[str, Any]:
    return {b.key: b.value for b in extract((speaker, text), **kw).prefs}


# --- where people live ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("I moved to Kwekwe last week for a new job.", "Kwekwe"),
        ("We just relocated to Portland, Oregon!", "Portland, Oregon"),
        ("I live in New York City now.", "New York City"),
        ("Oh, I'm based in Berlin these days.", "Berlin"),
        ("i live in sweden lol", "Sweden"),
        ("I just got back home to Harare.", "Harare"),
        ("I finally moved back to St. Louis.", "St. Louis"),
        ("I've been living in Lisbon for two years.", "Lisbon"),
    ],
)
def test_location(text: str, place: str) -> None:
    assert facts(text)["location"] == place


@pytest.mark.parametrize(
    ("text", "key", "place"),
    [
        ("I'm originally from Bulawayo.", "hometown", "Bulawayo"),
        ("I grew up in Texas.", "hometown", "Texas"),
        ("My hometown is Mutare.", "hometown", "Mutare"),
        ("I'm from the UK.", "home_country", "the UK"),
        ("I moved here from Sweden 4 years ago.", "home_country", "Sweden"),
        ("I moved from Harare to Kwekwe.", "previous_location", "Harare"),
        ("I was born in Gweru.", "birthplace", "Gweru"),
    ],
)
def test_origin(text: str, key: str, place: str) -> None:
    assert facts(text)[key] == place


def test_moving_from_a_to_b_sets_both() -> None:
    got = facts("I moved from Harare to Kwekwe.")
    assert got["location"] == "Kwekwe"
    assert got["previous_location"] == "Harare"


# --- work and study -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I work as a nurse.", {"occupation": "nurse"}),
        (
            "I'm a teacher at Hope Elementary.",
            {"occupation": "teacher", "employer": "Hope Elementary"},
        ),
        (
            "I'm a software engineer at Google.",
            {"occupation": "software engineer", "employer": "Google"},
        ),
        ("I started a new job at Acme Corp last month.", {"employer": "Acme Corp"}),
        ("I got promoted to senior manager!", {"occupation": "senior manager"}),
        ("I got hired by Microsoft as a data analyst.", {"employer": "Microsoft"}),
        ("I work for the Red Cross.", {"employer": "the Red Cross"}),
        ("I work at a local bakery.", {"workplace": "a local bakery"}),
        ("I moved to Kwekwe for a job at Zimplats.", {"employer": "Zimplats"}),
    ],
)
def test_work(text: str, expected: dict[str, str]) -> None:
    got = facts(text)
    assert {k: got.get(k) for k in expected} == expected


def test_study() -> None:
    got = facts("I'm studying nursing at Harare Polytechnic.")
    assert got["field_of_study"] == "nursing"
    assert got["school"] == "Harare Polytechnic"
    assert facts("I'm a student at UCLA.")["school"] == "UCLA"
    assert facts("I'm majoring in history.")["field_of_study"] == "history"


def test_being_a_fan_is_no_occupation() -> None:
    assert "occupation" not in facts("I'm a big fan of jazz.")
    assert "occupation" not in facts("I'm a mom of two.")


# --- age and birthday ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "age"),
    [
        ("I'm 32.", 32),
        ("I'm 32 years old and loving it.", 32),
        ("I turned 30 last week!", 30),
        ("I'm thirty-five now.", 35),
        ("I just turned 40, can you believe it.", 40),
    ],
)
def test_age(text: str, age: int) -> None:
    assert facts(text)["age"] == age


@pytest.mark.parametrize(
    "text", ["I'm 5 minutes away.", "I'm 100% sure.", "I turned 30 pages today.", "I'm 2 and"]
)
def test_numbers_that_are_not_ages(text: str) -> None:
    assert "age" not in facts(text)


@pytest.mark.parametrize(
    ("text", "birthday"),
    [
        ("My birthday is 5 June.", "5 June"),
        ("My birthday is on June 5th.", "5 June"),
        ("It's my birthday today!", "8 May"),
        ("Yesterday was my birthday.", "7 May"),
        ("My birthday is in June.", "June"),
    ],
)
def test_birthday(text: str, birthday: str) -> None:
    assert facts(text)["birthday"] == birthday


def test_born_on_gives_birthday_and_year() -> None:
    got = facts("I was born on 5 June 1990.")
    assert got["birthday"] == "5 June"
    assert got["birth_year"] == 1990


def test_a_birthday_party_date_is_not_a_birthday() -> None:
    assert "birthday" not in facts("My birthday party is on Saturday.")


# --- family, partners, pets ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "key", "name"),
    [
        ("My husband John and I went hiking.", "spouse", "John"),
        ("My wife, Ann, loves it.", "spouse", "Ann"),
        ("My girlfriend is called Sam.", "partner", "Sam"),
        ("My daughter Mia started school.", "daughter", "Mia"),
        ("My son Leo's team won.", "son", "Leo"),
        ("My mom Jane called.", "mother", "Jane"),
        ("Our dog Max loves the park.", "dog", "Max"),
        ("We got a puppy named Biscuit.", "dog", "Biscuit"),
        ("My cat's name is Luna.", "cat", "Luna"),
    ],
)
def test_named_relations(text: str, key: str, name: str) -> None:
    assert facts(text)[key] == name


def test_groups_and_counts() -> None:
    assert facts("My kids Mia and Leo are at camp.")["children"] == "Mia and Leo"
    assert facts("My dogs Max, Bella and Rex are loud.")["pets"] == "Max, Bella and Rex"
    assert facts("I have two kids.")["children_count"] == 2
    assert facts("We've been married for 5 years and have three kids.")["children_count"] == 3
    assert facts("I'm a mom of four.")["children_count"] == 4


@pytest.mark.parametrize(
    ("text", "status"),
    [
        ("I'm married.", "married"),
        ("I'm single again.", "single"),
        ("My girlfriend and I broke up.", "single"),
        ("We broke up last month.", "single"),
        ("I got divorced last year.", "divorced"),
        ("I got engaged!", "engaged"),
        ("We've been married for 10 years.", "married"),
        ("My husband makes great pasta.", "married"),
    ],
)
def test_relationship_status(text: str, status: str) -> None:
    assert facts(text)["relationship_status"] == status


def test_an_ex_is_no_current_relation() -> None:
    got = facts("My ex-husband John moved away.")
    assert "spouse" not in got
    assert got.get("relationship_status") != "married"
    assert "spouse" not in facts("My late husband John loved the sea.")


def test_engaged_and_dating_name_the_partner() -> None:
    assert facts("I got engaged to Sam!")["partner"] == "Sam"
    assert facts("I'm married to Ann.")["spouse"] == "Ann"
    got = facts("I'm dating Alex.")
    assert got["partner"] == "Alex"
    assert got["relationship_status"] == "in a relationship"


# --- names --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("I changed my name to Alex.", "Alex"),
        ("Call me Sam now.", "Sam"),
        ("My name is Jonathan.", "Jonathan"),
        ("I go by Jo these days.", "Jo"),
        ("I've legally changed my name to Robin Lee.", "Robin Lee"),
    ],
)
def test_name(text: str, name: str) -> None:
    assert facts(text)["name"] == name


def test_a_new_name_becomes_an_alias_of_the_speaker() -> None:
    out = extract(("Caroline", "Call me Caz from now on."), subject="Melanie")
    assert {b.key: b.value for b in out.facts} == {"caroline.name": "Caz"}
    caroline = next(e for e in out.entities if e.name == "Caroline")
    assert caroline.aliases == ["Caz"]


def test_call_me_needs_a_name() -> None:
    assert "name" not in facts("Call me when you're free.")
    assert "name" not in facts("Call me Monday.")


# --- preferences --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("I love camping with the kids.", "likes_camping", "camping with the kids"),
        ("I really enjoy hiking in the mountains.", "likes_hiking", "hiking in the mountains"),
        ("I'm into pottery these days.", "likes_pottery", "pottery"),
        ("I'm a big fan of jazz.", "likes_jazz", "jazz"),
        ("I prefer tea over coffee.", "likes_tea", "tea over coffee"),
        ("I've always loved painting.", "likes_painting", "painting"),
        ("We love going to the beach.", "likes_beach", "going to the beach"),
    ],
)
def test_likes(text: str, key: str, value: str) -> None:
    assert prefs(text) == {key: value}


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("I don't like crowds.", "dislikes_crowds", "crowds"),
        ("I hate waiting in lines.", "dislikes_waiting", "waiting in lines"),
        ("I can't stand horror movies.", "dislikes_horror_movies", "horror movies"),
        ("I'm not into football.", "dislikes_football", "football"),
        ("I'm not a big fan of sushi.", "dislikes_sushi", "sushi"),
        ("I'll never go skydiving again.", "dislikes_skydiving", "skydiving"),
        ("Skydiving, never again!", "dislikes_skydiving", "Skydiving"),
    ],
)
def test_dislikes(text: str, key: str, value: str) -> None:
    assert prefs(text) == {key: value}


def test_never_again_after_the_topic() -> None:
    out = extract(("Jon", "Camping in the rain? Never again."))
    assert {b.key: b.value for b in out.prefs} == {"dislikes_camping": "Camping in the rain"}


def test_likes_and_dislikes_are_separate_keys() -> None:
    out = extract(("Jon", "I love camping."), ("Jon", "Actually I hate camping now."))
    assert {b.key for b in out.prefs} == {"likes_camping", "dislikes_camping"}


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("My favorite movie is The Matrix.", "favorite_movie", "The Matrix"),
        ("My favourite colour is purple.", "favorite_colour", "purple"),
        ("My all-time favorite band has to be Queen.", "favorite_band", "Queen"),
        ("Purple is my favourite colour.", "favorite_colour", "Purple"),
        ("Pottery is my favorite!", "likes_pottery", "Pottery"),
    ],
)
def test_favourites(text: str, key: str, value: str) -> None:
    assert prefs(text) == {key: value}


def test_known_keys_are_reused() -> None:
    got = prefs("My favorite color is green.", known=("favourite_colour", "location"))
    assert got == {"favourite_colour": "green"}
    assert facts("I moved to Paris.", known=("city",)) == {"city": "Paris"}
    # Another person's namespace is not the subject's: no reuse across people.
    got = prefs("My favorite color is green.", speaker="Ann", known=("favourite_colour",))
    assert got == {"ann.favorite_color": "green"}


def test_reuse_key_and_topic_key() -> None:
    assert reuse_key("favorite_color", ("favourite_colour",)) == "favourite_colour"
    assert reuse_key("ann.location", ("location", "ann.city")) == "ann.city"
    assert reuse_key("likes_camping", ("dislikes_camping",)) == "likes_camping"
    assert topic_key("going camping with the kids") == "camping"
    assert topic_key("the Italian food") == "italian_food"
    assert topic_key("it") == "it"


@pytest.mark.parametrize(
    "text",
    ["I love you!", "I love that!", "I love how you said it.", "I like your photos.", "I like it."],
)
def test_no_preference_about_the_conversation(text: str) -> None:
    assert prefs(text) == {}


# --- who the facts are about --------------------------------------------------------------------


def test_keys_are_namespaced_for_everyone_but_the_subject() -> None:
    out = extract(
        ("Melanie", "I moved to Kwekwe."),
        ("Caroline", "I live in Sweden and I'm 32."),
        subject="Melanie",
    )
    assert {b.key: b.value for b in out.facts} == {
        "location": "Kwekwe",
        "caroline.location": "Sweden",
        "caroline.age": 32,
    }


def test_user_is_the_subject_without_one() -> None:
    out = extract(
        ("user", "I live in Lisbon."), ("assistant", "I live in the cloud."), subject=None
    )
    assert {b.key: b.value for b in out.facts} == {"location": "Lisbon"}
    # With a subject, "user" is that person and everyone else is namespaced.
    out = extract(("user", "I live in Lisbon."), ("Ann", "I live in Porto."), subject="Dana")
    assert {b.key: b.value for b in out.facts} == {"location": "Lisbon", "ann.location": "Porto"}


def test_machines_state_no_facts() -> None:
    out = extract(("assistant", "I'm a software engineer and I love helping."), subject="Jon")
    assert out.facts == [] and out.prefs == []


def test_named_relatives_get_their_own_namespace() -> None:
    got = facts("My sister Anna moved to Rome.")
    assert got["sister"] == "Anna"
    assert got["anna.location"] == "Rome"
    assert "location" not in got
    assert facts("My brother Tom works as a chef.")["tom.occupation"] == "chef"


def test_the_other_speaker_named_in_the_third_person() -> None:
    out = extract(
        ("Melanie", "Caroline lives in Stockholm."),
        ("Caroline", "Yes!"),
        subject="Melanie",
    )
    assert {b.key: b.value for b in out.facts} == {"caroline.location": "Stockholm"}


# --- what must not fire -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Do you like camping?",
        "Have you moved?",
        "Did you move to Paris last year?",
        "If I moved to Paris I'd be so happy.",
        "I would love to live in Rome.",
        "I'd love to try surfing.",
        "I wish I lived in Spain.",
        "Maybe I'm a teacher at heart.",
        "My sister said she moved to Rome.",
        "She thinks I'm a nurse.",
        "I didn't move.",
        "I don't live in Paris anymore.",
        "I'm not from here.",
        "I never worked as a nurse.",
        "I used to live in Harare.",
        "Hey Mel, good to see you!",
    ],
)
def test_negative_cases(text: str) -> None:
    out = extract(("Jon", text))
    assert out.facts == [] and out.prefs == []


def test_a_statement_with_a_question_tag_still_counts() -> None:
    assert facts("I moved to Paris, did you know?")["location"] == "Paris"


# --- provenance, entities, determinism ----------------------------------------------------------


def test_beliefs_carry_turn_time_source_and_confidence() -> None:
    belief = extract(("Jon", "I moved to Kwekwe.")).facts[0]
    assert belief.to_dict() == {
        "key": "location",
        "value": "Kwekwe",
        "ts": "2023-05-08T13:56:00Z",
        "confidence": 0.85,
        "source": "seg_facts",
    }
    reference = datetime(2024, 1, 2, tzinfo=UTC)
    untimed = extract(("Jon", "I moved to Kwekwe."), ts=None, reference=reference).facts[0]
    assert untimed.ts == "2024-01-02T00:00:00Z"
    weak = extract(("Jon", "My husband cooks.")).facts[0]
    assert 0.6 <= (weak.confidence or 0) < (belief.confidence or 0) <= 0.9


def test_facts_type_their_entities() -> None:
    out = extract(
        ("Jon", "I moved to Kwekwe for a job at Zimplats. My wife Ann and our dog Max came too.")
    )
    kinds = {e.name: e.type for e in out.entities}
    assert kinds == {
        "Jon": "person",
        "Kwekwe": "place",
        "Zimplats": "organization",
        "Ann": "person",
        "Max": "other",
    }


def test_aliases_from_how_others_address_a_speaker() -> None:
    out = extract(
        ("Caroline", "Hey Mel! How are you?"),
        ("Melanie", "Great, Caroline!"),
        subject="Melanie",
    )
    melanie = next(e for e in out.entities if e.name == "Melanie")
    assert melanie.aliases == ["Mel"]
    caroline = next(e for e in out.entities if e.name == "Caroline")
    assert caroline.aliases == []  # called by her full name: no alias


def test_deterministic() -> None:
    turns = (
        ("Jon", "I moved to Kwekwe. I love camping. My wife Ann is 32. I hate crowds."),
        ("Ann", "I'm a nurse at Parirenyatwa. My favourite colour is blue."),
    )
    first, second = extract(*turns), extract(*turns)
    assert [b.to_dict() for b in first.facts] == [b.to_dict() for b in second.facts]
    assert [b.to_dict() for b in first.prefs] == [b.to_dict() for b in second.prefs]
    assert [e.to_dict() for e in first.entities] == [e.to_dict() for e in second.entities]
