"""Exact values and open loops from chat, and a three-session merge end to end."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from app.domain.extraction.extractor import Extraction, ExtractionInput
from app.domain.extraction.rules import extract_rules
from app.domain.extraction.rules.pronouns import third_person
from app.domain.ingest.segmentation import make_segment
from app.domain.ingest.turns import Segment, Turn
from app.domain.memory.merge import merge_extraction
from app.domain.passport import Passport, Source

MAY_8 = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def extract(*turns: tuple[str, str], subject: str | None = None, **kw: Any) -> Extraction:
    ts = kw.pop("ts", MAY_8)
    segment = Segment(id="seg_events", turns=tuple(Turn(s, t, ts=ts) for s, t in turns), tokens=1)
    return extract_rules(ExtractionInput(segment=segment, subject=subject, **kw))


def loops(*turns: tuple[str, str], **kw: Any) -> list[str]:
    return [loop.item for loop in extract(*turns, **kw).open_loops]


# --- pronouns ----------------------------------------------------------------------------------


def test_third_person() -> None:
    assert third_person("I love my dog", "Ann", None) == "Ann loves Ann's dog"
    assert third_person("I'm happy and I've won", "Ann", None) == "Ann is happy and Ann has won"
    assert third_person("We are here and have fun", "Ann", None) == "Ann is here and has fun"
    assert third_person("Call me later", "Ann", None) == "Call Ann later"
    assert third_person("I gave you my book", "Ann", "Ben") == "Ann gave Ben Ann's book"
    assert third_person("I gave you my book", "Ann", None) is None
    assert third_person("I'd been there", "Ann", None) == "Ann had been there"
    assert third_person("I need to go", "the user", None) == "The user needs to go"
    assert third_person("We flew to the US", "Ann", None) == "Ann flew to the US"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I bought some notebooks I never use", "Ann bought some notebooks Ann never uses"),
        ("We always forget our keys", "Ann always forgets Ann's keys"),
        ("I really want it", "Ann really wants it"),
        ("I still think so", "Ann still thinks so"),
        ("We just go", "Ann just goes"),
        ("I also rarely watch TV", "Ann also rarely watches TV"),
    ],
)
def test_third_person_verbs_agree_past_adverbs(text: str, expected: str) -> None:
    assert third_person(text, "Ann", None) == expected


# --- chat's short forms: dropped subjects, objects said before, other people's events -----------


# --- exact values -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "My order number is ORD-88412.",
        "Ticket JIRA-77 is blocking me.",
        "The request id was 3f2a9c1e-8b7d-4e6f-9a0b-1c2d3e4f5a6b.",
        "The docs are at https://example.com/docs/v2?lang=en.",
        "The config lives in /etc/tessera/config.yaml.",
        "My server is at 192.168.1.20.",
        "We upgraded to 3.11.7 today.",
        "I call `Fetch User Profile` before rendering.",
    ],
)
def test_identifiers_paths_and_urls_are_never_entities(text: str) -> None:
    # They stay verbatim in the turn log, where search finds them as exact values.
    out = extract(("Jon", text), ("Ann", "ok"))
    assert {e.name for e in out.entities} == {"Jon", "Ann"}


# --- open loops ---------------------------------------------------------------------------------


def test_plan_with_a_relative_date() -> None:
    assert loops(("Melanie", "We're thinking about going camping next month."), ("C", "ok")) == [
        "Melanie is thinking about going camping (said 8 May 2023; next month = June 2023)"
    ]


@pytest.mark.parametrize(
    ("text", "item"),
    [
        ("I need to buy groceries.", "Jon needs to buy groceries (said 8 May 2023)"),
        (
            "I'm going to adopt a dog next year.",
            "Jon is going to adopt a dog (said 8 May 2023; next year = 2024)",
        ),
        (
            "Remind me to call mom on Friday.",
            "Jon asked to be reminded to call mom (said 8 May 2023; on Friday = 12 May 2023)",
        ),
        # A hedge of time is left out of the task.
        ("We should go hiking soon.", "Jon should go hiking (said 8 May 2023)"),
        ("I plan to start a blog.", "Jon plans to start a blog (said 8 May 2023)"),
        ("I'm planning on visiting Rome.", "Jon plans to visit Rome (said 8 May 2023)"),
        # A filler at the end is no part of the task.
        (
            "I want to help others, um, any ideas where to start?",
            "Jon wants to help others (said 8 May 2023)",
        ),
        # Getting better at a thing is a task; getting anxious is not.
        ("I want to get better at chess.", "Jon wants to get better at chess (said 8 May 2023)"),
        # Weighing a thing is no plan to do it.
        (
            "I'm considering buying a new laptop.",
            "Jon is considering buying a new laptop (said 8 May 2023)",
        ),
        (
            "I promise I'll finish the painting by Sunday.",
            "Jon promised to finish the painting (said 8 May 2023; by Sunday = 14 May 2023)",
        ),
        (
            "I'm visiting my parents next week.",
            "Jon is visiting Jon's parents (said 8 May 2023; next week = the week of 15 May 2023)",
        ),
        # A full date the task lost is kept beside it as written.
        (
            "I've got a dentist appointment coming up on June 20, 2023.",
            "Jon has a dentist appointment coming up (said 8 May 2023; on June 20, 2023)",
        ),
        (
            "I'm going to the pride parade next Saturday, wanna come?",
            "Jon is going to the pride parade (said 8 May 2023; next Saturday = 20 May 2023)",
        ),
        # A date of another clause is not the task's.
        (
            "The choir starts in July, but first I need to finish my course by Friday.",
            "Jon needs to finish Jon's course (said 8 May 2023; by Friday = 12 May 2023)",
        ),
    ],
)
def test_open_loops(text: str, item: str) -> None:
    assert loops(("Jon", text), ("Ann", "ok")) == [item]


@pytest.mark.parametrize(
    "text",
    [
        "Are you going to the parade?",
        "I'll be honest with you.",
        "I have to say, that's amazing.",
        "I'll look into it.",
        "I need to go.",
        "I'm not going to the party.",
        "I'll never go skydiving again.",
        "If I need to move, I will.",
        "I would love to visit Paris someday.",
        # Promises and pleasantries: nothing an agent could follow up on.
        "I'll send you the photos tonight!",
        "I'll surely remember that.",
        "Let's catch up tomorrow!",
        "I can't wait to hear how the wedding went.",
        # A pronoun, a second clause, a choice or a state is no task.
        "I need to pick him up.",
        "I'm gonna go grab something in a bit.",
        "I'll write it down so that I can call them.",
        "I need to find or build better routines.",
        "I want to be healthy and happy.",
        "I wanna go swimming but at the same time I dont.",
        "I only drink it when I really need to focus.",
        "I'm going to in Miami",
        # A task inside a request to the other is the request's.
        "I've mastered soups, can you suggest some new skills I should learn to expand my menu",
        # A feeling that grows and an expectation are no tasks.
        "I have until May 20 to pick a bike, and I'm growing a little nervous about "
        "picking the wrong one.",
        "I should have the money for the deposit ready by June.",
    ],
)
def test_not_open_loops(text: str) -> None:
    assert loops(("Jon", text), ("Ann", "ok")) == []


@pytest.mark.parametrize(
    ("turn", "item"),
    [
        (
            "can't do drinks on Wednesday, I have my eye test",
            "Jon has Jon's eye test (said 8 May 2023; on Wednesday = 10 May 2023)",
        ),
        (
            "Can't make Wednesday. I have my eye test",
            "Jon has Jon's eye test (said 8 May 2023; Wednesday = 10 May 2023)",
        ),
        (
            "my interview is on Thursday",
            "Jon has Jon's interview (said 8 May 2023; on Thursday = 11 May 2023)",
        ),
        (  # a full date is kept too: it is what makes the thing a plan
            "My current deadline is February 28, 2024, but I'm not sure",
            "Jon has Jon's current deadline (said 8 May 2023; February 28, 2024)",
        ),
        (
            "I've got a dentist appointment tomorrow morning",
            "Jon has a dentist appointment (said 8 May 2023; tomorrow morning = 9 May 2023)",
        ),
        (
            "I fly to Lisbon on Friday",
            "Jon flies to Lisbon (said 8 May 2023; on Friday = 12 May 2023)",
        ),
    ],
)
def test_plans_told_ahead_with_their_day(turn: str, item: str) -> None:
    assert loops(("Jon", turn), ("Ann", "ok")) == [item]


@pytest.mark.parametrize(
    ("text", "item"),
    [
        ("we're moving to Austin!", "Jon is moving to Austin (said 8 May 2023)"),
        (
            "we're moving to Austin next month",
            "Jon is moving to Austin (said 8 May 2023; next month = June 2023)",
        ),
        (
            "starting at Kestrel Labs in two weeks",
            "Jon is starting at Kestrel Labs (said 8 May 2023; in two weeks = 22 May 2023)",
        ),
        (
            "off to Rome next week!",
            "Jon is off to Rome (said 8 May 2023; next week = the week of 15 May 2023)",
        ),
    ],
)
def test_moves_and_starts_are_plans(text: str, item: str) -> None:
    out = extract(("Jon", text), ("Ann", "ok"))
    assert [loop.item for loop in out.open_loops] == [item]
    assert out.observations == []  # not yet happened


@pytest.mark.parametrize(
    "text",
    [
        "I'm beginning to feel better",
        "I'm moving on",
        "my sister is visiting next week",  # hers, and no thing booked
        "I have a dog",
        "I had my eye test yesterday",
        "we moved to Austin last month",
    ],
)
def test_no_booked_plan(text: str) -> None:
    assert loops(("Jon", text), ("Ann", "ok")) == []


def test_open_loop_provenance() -> None:
    loop = extract(("Ann", "I need to renew my passport."), ("Ben", "ok")).open_loops[0]
    assert loop.to_dict() == {
        "item": "Ann needs to renew Ann's passport (said 8 May 2023)",
        "ts": "2023-05-08T13:56:00Z",
        "source": "seg_events",
    }


# --- episodes and determinism -------------------------------------------------------------------


def test_rows_give_no_observations_or_loops() -> None:
    segment = Segment(
        id="seg_rows",
        turns=(
            Turn("orders", "id: ORD-12345, note: I need to ship it", kind="row", table="orders"),
        ),
        tokens=1,
    )
    out = extract_rules(ExtractionInput(segment=segment))
    assert out.observations == [] and out.open_loops == [] and out.facts == []


def test_deterministic() -> None:
    turns = (
        ("Caroline", "I went to a support group yesterday. My ticket is #4521."),
        ("Melanie", "We're thinking about going camping next month. I ran a race last Saturday."),
    )
    first, second = extract(*turns), extract(*turns)
    assert first.items_dict() == second.items_dict()


# --- end to end: three sessions through the extractor and the merge ------------------------------


async def test_three_sessions_a_move_replaces_the_old_location() -> None:
    """Melanie lives in Harare, moves to Kwekwe, then talks about her new life there."""
    sessions = [
        (
            datetime(2023, 3, 1, 18, 0, tzinfo=UTC),
            [
                ("Caroline", "Hey Mel! How's life?"),
                ("Melanie", "Busy! I live in Harare and I work as a teacher."),
                ("Caroline", "I moved to Bulawayo last year and I love it."),
            ],
        ),
        (
            datetime(2023, 6, 1, 18, 0, tzinfo=UTC),
            [
                ("Melanie", "Big news: I moved to Kwekwe last week for a new job at Zimplats!"),
                ("Caroline", "Congrats! When do you start?"),
                ("Melanie", "Monday. I need to buy a desk."),
            ],
        ),
        (
            datetime(2023, 9, 1, 18, 0, tzinfo=UTC),
            [
                ("Caroline", "How is Kwekwe treating you?"),
                ("Melanie", "I love it here. We went camping last weekend with the kids."),
            ],
        ),
    ]
    passport = Passport.empty("u_melanie")
    extractor_output: list[Extraction] = []
    for when, chat in sessions:
        segment = make_segment([Turn(speaker, text, ts=when) for speaker, text in chat])
        out = extract_rules(
            ExtractionInput(
                segment=segment, subject="Melanie", known_keys=tuple(passport.known_keys())
            )
        )
        extractor_output.append(out)
        source = Source(
            id=segment.id,
            kind="chat",
            ts=out.episode.ts if out.episode else None,
            hash=segment.hash,
        )
        merge_extraction(passport, out, source, now=when.isoformat())

    current = {b.key: b.value for b in passport.facts}
    assert current["location"] == "Kwekwe"
    assert current["employer"] == "Zimplats"
    assert current["occupation"] == "teacher"
    assert current["caroline.location"] == "Bulawayo"
    assert [(c.key, c.old, c.new) for c in passport.contradictions] == [
        ("location", "Harare", "Kwekwe")
    ]
    contradiction = passport.contradictions[0]
    assert (contradiction.ts_old, contradiction.ts_new) == (
        "2023-03-01T18:00:00Z",
        "2023-06-01T18:00:00Z",
    )
    assert [loop.item for loop in passport.open_loops] == [
        "Melanie needs to buy a desk (said 1 June 2023)"
    ]
    assert {e.name: e.type for e in passport.entities}["Kwekwe"] == "place"
    assert passport.observations == []
    # One episode per session, in the sessions' own words.
    assert len(passport.episodes) == 3
    assert all(e.to_dict()["quoted"] is True for e in passport.episodes)


def test_a_plan_is_not_cut_inside_a_number_or_an_address() -> None:
    said = "I need to allow only addresses from the range 10.0.0.0/8 on the firewall."
    [item] = loops(("Ann", said))
    assert item.startswith(
        "Ann needs to allow only addresses from the range 10.0.0.0/8 on the fire"
    )
    [item] = loops(("Ann", "I plan to upgrade the base image to python 3.12 next week."))
    assert item.startswith("Ann plans to upgrade the base image to python 3.12 (")
