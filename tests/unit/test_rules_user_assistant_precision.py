"""What a user says to an assistant that only looks like a belief is not kept as one."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from app.domain.extraction.extractor import Extraction, ExtractionInput
from app.domain.extraction.rules import extract_rules
from app.domain.ingest.turns import Segment, Turn

TS = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)


def said(text: str) -> Extraction:
    turn = Turn("user", text, ts=TS, id="t1", role="user")
    segment = Segment(id="s", turns=(turn,), tokens=1)
    return extract_rules(ExtractionInput(segment=segment, reference_ts=TS))


@pytest.mark.parametrize(
    "text",
    [
        "I'll put my phone away and nod along to show I'm engaged.",
        "I'm engaged in a big refactor at work this month.",
    ],
)
def test_being_engaged_in_something_is_not_a_relationship(text: str) -> None:
    assert ("relationship_status", "engaged") not in [(f.key, f.value) for f in said(text).facts]


def test_an_engagement_is_still_one() -> None:
    facts = [(f.key, f.value) for f in said("I'm engaged to Tom!").facts]
    assert ("relationship_status", "engaged") in facts and ("partner", "Tom") in facts


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("I'm deep into the Database Migration for my site today.", "Database Migration"),
        ("I signed up for a Career Advancement workshop.", "Career Advancement"),
    ],
)
def test_a_capitalised_activity_is_not_an_entity(text: str, name: str) -> None:
    assert name not in [e.name for e in said(text).entities]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ('I\'m reading "Nonviolent Communication" this month.', "Nonviolent Communication"),
        ("I got a grant from the Ford Foundation last week.", "Ford Foundation"),
        ("I had coffee with Jennifer Lawrence yesterday.", "Jennifer Lawrence"),
    ],
)
def test_titles_in_quotes_organisations_and_people_stay_entities(text: str, name: str) -> None:
    assert name in [e.name for e in said(text).entities]


@pytest.mark.parametrize(
    "text",
    [
        "I must have made a small arithmetic mistake somewhere.",
        "I need to use the formula m = (y2 and then check it.",
        "I need to simplify \\( x^2 \\) before the next step.",
    ],
)
def test_a_guess_at_the_past_or_a_formula_cut_short_is_not_an_open_loop(text: str) -> None:
    assert said(text).open_loops == []


def test_a_plain_need_is_still_an_open_loop() -> None:
    [loop] = said("I need to renew my passport before the trip.").open_loops
    assert "renew" in loop.item
