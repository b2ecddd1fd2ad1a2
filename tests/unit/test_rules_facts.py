"""Facts and preferences the rule extractor reads from how people talk in chat."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from app.domain.extraction.extractor import Extraction, ExtractionInput
from app.domain.extraction.rules import extract_rules
from app.domain.extraction.rules.known import KnownKeyNames
from app.domain.extraction.rules.prefs import topic_key
from app.domain.ingest.turns import Segment, Turn
from app.domain.memory.dedupe import resolve_key

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
        # Who the speaker is, said with an age or opening a sentence.
        (
            "I'm a 41-year-old science writer, and I need advice.",
            {"occupation": "science writer", "age": 41},
        ),
        (
            "As an architectural technologist, I like clean lines.",
            {"occupation": "architectural technologist"},
        ),
        ("As a paramedic from Leeds, I'm used to night shifts.", {"occupation": "paramedic"}),
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
    for text in (
        "As a result, I stayed home.",
        "As a kid, I loved trains.",
        "As a parent, I worry.",
    ):
        assert "occupation" not in facts(text)
    # Only a sentence that opens with it says who the speaker is.
    assert "occupation" not in facts("She spoke to me as a doctor, I think.")


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
    assert KnownKeyNames(["favourite_colour"]).reuse("favorite_color") == "favourite_colour"
    assert KnownKeyNames(["location", "ann.city"]).reuse("ann.location") == "ann.city"
    assert KnownKeyNames(["dislikes_camping"]).reuse("likes_camping") == "likes_camping"
    # The first known key that fits, whether by its words or as a synonym.
    both = KnownKeyNames(["ann.residence", "ann.location"])
    assert both.reuse("ann.location") == "ann.residence"
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


# --- casual chat: homes settled into, work started, cars, pets in passing ---------------------


def turn_facts(*turns: tuple[str, str], **kw: Any) -> dict[str, Any]:
    return {b.key: b.value for b in extract(*turns, **kw).facts}


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("first week in Austin done", "Austin"),
        ("Moved to Leeds last month, still unpacking", "Leeds"),
        ("we've moved to Bristol!", "Bristol"),
        ("finally settling into Chicago", "Chicago"),
        ("our new flat in Glasgow has a tiny balcony", "Glasgow"),
        ("we closed on a house in Tucson last week", "Tucson"),
        ("the move to Denver went smoothly", "Denver"),
        ("Living in Lisbon now, loving it", "Lisbon"),
        ("since moving to Toronto I walk everywhere", "Toronto"),
        ("still unpacking in Halifax lol", "Halifax"),
        ("we made it to Perth! the movers come Friday", "Perth"),
    ],
)
def test_a_home_settled_into_is_the_location(text: str, place: str) -> None:
    assert facts(text)["location"] == place


@pytest.mark.parametrize(
    "text",
    [
        "we're moving to Austin next month!",  # a plan: an open loop, not yet a fact
        "our first week in Rome was magic, the hotel was amazing",  # a holiday
        "my sister is settling into Boston",  # someone else
        "My first night in Austin was loud",
        "my first weekend in Paris was rainy",
        "Are you settling into Chicago ok?",
        "If we moved to Leeds we'd have a garden",
        "we made it to Perth! the hotel is lovely",  # an arrival without a move
    ],
)
def test_plans_trips_and_other_people_give_no_location(text: str) -> None:
    assert "location" not in facts(text)


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("I started at Kestrel Labs on Monday", "employer", "Kestrel Labs"),
        ("first week at Kestrel Labs done!", "employer", "Kestrel Labs"),
        ("my new team at Bluefin is great", "employer", "Bluefin"),
        ("got a job at Harbor Health!", "employer", "Harbor Health"),
        ("working at Acme now, it's fine", "employer", "Acme"),
        ("I joined Stripe as a designer", "employer", "Stripe"),
        ("I joined Kestrel Labs last month", "employer", "Kestrel Labs"),
        ("I accepted the offer from Nimbus Health", "employer", "Nimbus Health"),
        ("my coworkers at Zara are so nice", "employer", "Zara"),
        ("my first month at Stanford University was a blur", "school", "Stanford University"),
        ("I lost my job at DoorDash last month", "previous_employer", "DoorDash"),
        ("I got laid off from Initech", "previous_employer", "Initech"),
    ],
)
def test_work_said_casually(text: str, key: str, value: str) -> None:
    assert facts(text)[key] == value


@pytest.mark.parametrize(
    "text",
    [
        "starting at Kestrel Labs in two weeks",  # a plan
        "my kid's first day at Lincoln Elementary",
        "my first day at school was weird",
        "Started at the bottom, now we're here",
        "we started at Nando's then went dancing",
        "I started with Pilates",
        "I joined a book club",
        "I joined The Ramblers",
    ],
)
def test_no_employer_from_plans_or_other_firsts(text: str) -> None:
    got = facts(text)
    assert "employer" not in got and "school" not in got


@pytest.mark.parametrize(
    ("text", "car"),
    [
        ("just got a new car, a blue Civic", "blue Civic"),
        ("I bought a Honda Civic", "Honda Civic"),
        ("we got a used Toyota Corolla last week", "Toyota Corolla"),
        ("my car is a red Mazda 3", "red Mazda 3"),
        ("still driving my old Kia Niro", "Kia Niro"),
        ("I got a new ride: a 2019 Subaru Outback", "2019 Subaru Outback"),
        ("I traded in the Civic for a VW Golf", "VW Golf"),
        ("my new Subaru Outback is great", "Subaru Outback"),
    ],
)
def test_car(text: str, car: str) -> None:
    assert facts(text)["car"] == car


@pytest.mark.parametrize(
    "text",
    [
        "I'm thinking about buying a Tesla",
        "I got a golf lesson for my birthday",
        "did you get a new car?",
        "If I bought a Honda Civic I'd be broke",
    ],
)
def test_no_car(text: str) -> None:
    assert "car" not in facts(text)


def test_a_friends_car_is_theirs() -> None:
    assert "car" not in facts("my friend got a new car, a Golf")


@pytest.mark.parametrize(
    ("turns", "key", "name"),
    [
        ((("Jon", "Biscuit knocked my glass off the table… worst dog ever"),), "dog", "Biscuit"),
        ((("Jon", "Max chewed my shoes again. bad dog!"),), "dog", "Max"),
        ((("Jon", "Luna keeps stealing my socks, silly cat"),), "cat", "Luna"),
        ((("Jon", "We got a new puppy! His name is Oliver"),), "dog", "Oliver"),
        ((("Ann", "what's your cat called?"), ("Jon", "Mochi!")), "cat", "Mochi"),
        ((("Jon", "We adopted a rescue dog, Bailey"),), "dog", "Bailey"),
        ((("Jon", "Oliver, my cat, knocked over a plant"),), "cat", "Oliver"),
        ((("Jon", "Luna is our cat"),), "cat", "Luna"),
        ((("Jon", "our beagle Biscuit loves the park"),), "dog", "Biscuit"),
    ],
)
def test_pets_named_in_passing(turns: tuple[tuple[str, str], ...], key: str, name: str) -> None:
    assert turn_facts(*turns, ("Ann", "aww"))[key] == name


@pytest.mark.parametrize(
    "turns",
    [
        (("Jon", "Jake walked the dog. worst dog ever"),),  # Jake walked it
        (("Jon", "Anyway, my dog is fine"),),
        (("Jon", "Bailey the dog is my neighbour's"),),
        (("Jon", "Remember Max? He broke our window. worst kid ever"),),
        (("Jon", "Max isn't my dog. worst dog ever though"),),
        (("Ann", "what's your dog called?"), ("Jon", "No dog, sadly!")),
        (("Ann", "did your dog like the park?"), ("Jon", "Loved it!")),
    ],
)
def test_no_pet_name(turns: tuple[tuple[str, str], ...]) -> None:
    got = turn_facts(*turns, ("Ann", "ok"))
    assert "dog" not in got and "cat" not in got


def test_pet_counts_and_groups() -> None:
    assert facts("I have three turtles")["turtle_count"] == 3
    assert facts("we've got 2 cats")["cat_count"] == 2
    assert facts("my turtles Tilly and Tank are thriving")["pets"] == "Tilly and Tank"


# --- hobbies, instruments, languages, allergies, diet, education ------------------------------


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("I play the cello", "plays_cello"),
        ("I started learning the piano this spring.", "plays_piano"),
        ("I've been learning to play the violin", "plays_violin"),
        ("I'm taking piano lessons", "plays_piano"),
        ("I picked up my guitar again", "plays_guitar"),
        ("I play tennis on Sundays", "plays_tennis"),
        ("I took up pottery", "hobby_pottery"),
        ("I've been doing a lot of yoga lately", "hobby_yoga"),
        ("I signed up for a pottery class", "hobby_pottery"),
        ("I go climbing every week", "hobby_climbing"),
        ("I run every morning", "hobby_running"),
        ("I paint in my free time", "hobby_painting"),
        ("I'm learning Spanish", "learning_spanish"),
        ("I speak fluent Portuguese", "speaks_portuguese"),
    ],
)
def test_hobbies_instruments_and_languages(text: str, key: str) -> None:
    assert facts(text)[key] is True


@pytest.mark.parametrize(
    ("answer", "key"),
    [
        ("a bit of saxophone", "plays_saxophone"),
        ("a little ukulele lol", "plays_ukulele"),
        ("Drums, badly!", "plays_drums"),
    ],
)
def test_an_instrument_named_in_answer(answer: str, key: str) -> None:
    got = turn_facts(("Ann", "do you play any instruments?"), ("Jon", answer))
    assert got[key] is True


@pytest.mark.parametrize(
    "turns",
    [
        (("Ann", "do you play any instruments?"), ("Jon", "nope, never learned piano")),
        (("Ann", "did you see the piano at the party?"), ("Jon", "the piano was lovely")),
        (("Jon", "I played tennis yesterday"),),
        (("Jon", "I run a small bakery"),),
        (("Jon", "I play with my kids every day"),),
        (("Jon", "I'd love to take up pottery"),),
    ],
)
def test_no_hobby(turns: tuple[tuple[str, str], ...]) -> None:
    got = turn_facts(*turns, ("Ann", "ok"))
    assert not [k for k in got if k.startswith(("plays_", "hobby_"))]


@pytest.mark.parametrize(
    ("text", "keys"),
    [
        ("I'm allergic to peanuts", ["allergic_to_peanuts"]),
        ("allergic to cats, sadly", ["allergic_to_cats"]),
        ("I have a shellfish allergy", ["allergic_to_shellfish"]),
        ("I'm allergic to cats and dogs", ["allergic_to_cats", "allergic_to_dogs"]),
        ("I'm lactose intolerant", ["lactose_intolerant"]),
    ],
)
def test_allergies(text: str, keys: list[str]) -> None:
    assert facts(text) == dict.fromkeys(keys, True)


@pytest.mark.parametrize(
    "text",
    ["I'm not allergic to cats", "my son is allergic to eggs", "Are you allergic to nuts?"],
)
def test_no_allergy(text: str) -> None:
    assert not [k for k in facts(text) if k.startswith("allergic")]


@pytest.mark.parametrize(
    ("text", "diet"),
    [
        ("I'm vegan", "vegan"),
        ("I went vegetarian last year", "vegetarian"),
        ("I'm a pescatarian", "pescatarian"),
    ],
)
def test_diet(text: str, diet: str) -> None:
    assert facts(text)["diet"] == diet


def test_a_planned_diet_is_no_diet() -> None:
    assert "diet" not in facts("I'm going vegan next month")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "I'm doing a masters in nursing",
            {"degree": "masters in nursing", "field_of_study": "nursing"},
        ),
        (
            "I'm studying for a PhD in marine biology at UCSD",
            {
                "degree": "PhD in marine biology",
                "field_of_study": "marine biology",
                "school": "UCSD",
            },
        ),
        ("I have a bachelor's in economics", {"degree": "bachelor's in economics"}),
        ("I finished my nursing degree!", {"field_of_study": "nursing"}),
        ("I'm in law school", {"field_of_study": "law"}),
        ("I finally finished my masters!", {"degree": "masters"}),
        ("I graduated from Rutgers", {"school": "Rutgers"}),
    ],
)
def test_education(text: str, expected: dict[str, str]) -> None:
    got = facts(text)
    assert {k: got.get(k) for k in expected} == expected


@pytest.mark.parametrize(
    "text", ["I'd love to do a masters in art", "Are you doing a masters in law?"]
)
def test_no_education(text: str) -> None:
    assert facts(text) == {}


# --- negative facts ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("I don't eat pork", "does_not_eat_pork"),
        ("we don't own a toaster", "does_not_own_toaster"),
        ("I no longer eat red meat", "does_not_eat_red_meat"),
        ("I don't drink", "does_not_drink"),
        ("I don't drink coffee after 3pm", "does_not_drink_coffee"),
        ("I can't eat gluten", "does_not_eat_gluten"),
        ("we got rid of our TV", "does_not_own_tv"),
        ("I never learned to ski", "never_learned_to_ski"),
        ("I never learned how to swim", "never_learned_to_swim"),
        ("I've never been to Japan", "never_been_to_japan"),
        ("Never been to Iceland, actually", "never_been_to_iceland"),
        ("I've never seen Star Wars", "never_seen_star_wars"),
        ("I can't swim", "cannot_swim"),
        ("I quit smoking two years ago", "quit_smoking"),
        ("I gave up caffeine", "quit_caffeine"),
    ],
)
def test_negative_facts(text: str, key: str) -> None:
    assert facts(text) == {key: True}


@pytest.mark.parametrize(
    "text",
    [
        "do you eat pork?",
        "If I didn't eat pork I would be sad",
        "my dad said he doesn't eat pork",
        "I don't have time for this",
        "I don't have a clue",
        "I don't think so",
        "I've never been happier",
        "I've never seen anything like it",
        "I can't drive tonight",
        "I didn't go to the gym",
    ],
)
def test_no_negative_fact(text: str) -> None:
    assert facts(text) == {}


def test_negative_facts_about_others_are_namespaced() -> None:
    got = turn_facts(("Ann", "I don't eat pork"), ("Jon", "ok"))
    assert got == {"ann.does_not_eat_pork": True}


@pytest.mark.parametrize(
    ("negative", "positive"),
    [
        ("does_not_eat_pork", "eats_pork"),
        ("never_learned_to_ski", "learned_to_ski"),
        ("does_not_own_toaster", "owns_toaster"),
        ("cannot_swim", "can_swim"),
    ],
)
def test_dedupe_keeps_negative_keys_apart(negative: str, positive: str) -> None:
    assert resolve_key(negative, [positive]).resolved == negative


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("I never liked olives", "dislikes_olives"),
        ("I'm not really a coffee person", "dislikes_coffee"),
    ],
)
def test_more_ways_to_say_a_preference(text: str, key: str) -> None:
    assert key in prefs(text)


@pytest.mark.parametrize(
    "text",
    [
        # Fragments of clauses, not things: what the issue saw in real chat.
        "I love melatonin it puts me to sleep",
        "I'm not really into cartoons and stuff",
        "I like bright colors I guess",
        "I like hot soups more but it's warm out",
        "We love to pick apart the outfits from the show",
        "I really like detective shows like Columbo",
        "I like the following:",
        "I've really enjoyed our talk",
        "I love cashews theyre salty",
        "I love using as much garlic as I can",
        "Crystal Lake, east of Denver is my favorite",
        "I'm a chill person",
        "physcis isnt my favorite subject but it surely is useful",
        # The activity is the subject, and it is the other person's.
        "Learning Italian is a wonderful choice!",
        "Doing pilates outside can be really calming.",
    ],
)
def test_fragments_are_no_preferences(text: str) -> None:
    assert prefs(text) == {}
    assert not [k for k in facts(text) if k.startswith(("hobby_", "learning_", "plays_"))]


def test_a_value_keeps_the_thing_and_loses_the_chat_around_it() -> None:
    # The name of the other speaker, said to them, is not part of the value.
    chat = extract(("Jon", "I'm majoring in marine biology Kevin!"), ("Kevin", "Cool!"))
    assert {b.key: b.value for b in chat.facts} == {"field_of_study": "marine biology"}
    assert prefs("Ohh I love Dalmatians ❤️")["likes_dalmatians"] == "Dalmatians"
    said = "Honestly I love warm weather and the sea, so count me in for that!"
    assert prefs(said) == {"likes_warm_weather": "warm weather and the sea"}


@pytest.mark.parametrize(
    "text",
    [
        "I don't have work today",
        "I dont have any of the four lol",
        "I've never had a dog until this spring and now I have two",
        "I never finished the game",
        "I don't really order a lot of their specials",
        "Don't smoke",
    ],
)
def test_no_negative_fact_about_nothing(text: str) -> None:
    assert facts(text) == {}


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("I live for summer. everything just feels better", "likes_summer", "summer"),
        ("nothing beats a cold beer after a hike", "likes_cold_beer", None),
        ("nothing relaxes me like yoga", "likes_yoga", "yoga"),
        ("honestly there's nothing like a good thunderstorm", "likes_good_thunderstorm", None),
        ("I can't get enough of jazz", "likes_jazz", "jazz"),
        ("jazz is my jam", "likes_jazz", "jazz"),
        ("I've watched nothing but westerns this month", "likes_westerns", "westerns"),
        ("autumn is hands down the best season", "favorite_season", "autumn"),
        ("my go-to drink is a flat white", "favorite_drink", "a flat white"),
        ("my usual: oat flat white", "likes_oat_flat_white", "oat flat white"),
    ],
)
def test_preferences_said_as_chat_idioms(text: str, key: str, value: str | None) -> None:
    got = prefs(text)
    assert key in got
    if value is not None:
        assert got[key] == value


@pytest.mark.parametrize(
    "text",
    [
        "it was nothing like Paris",
        "nothing I tried worked like the old one",
        "this is the best day ever",
        "that was the best decision",
        "honestly the food is the best part",
        "I live for the moment",
        "I can't get enough of it",
        "do you live for summer?",
        "if I lived for summer I'd move south",
    ],
)
def test_idioms_that_state_no_preference(text: str) -> None:
    assert prefs(text) == {}


@pytest.mark.parametrize(
    "text",
    ["I have a degree in linguistics", "my degree is in economics", "I got my degree in history"],
)
def test_a_plain_degree_names_the_field(text: str) -> None:
    assert facts(text).get("field_of_study") in ("linguistics", "economics", "history")
