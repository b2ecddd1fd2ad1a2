"""The offline rule extractor: deterministic, claims only, turn provenance, failures isolated."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.domain.extraction.extractor import Extraction, ExtractionInput, Extractor
from app.domain.extraction.rules import RuleExtractor, extract_rules, extractor
from app.domain.extraction.rules.facts import fact_family
from app.domain.extraction.rules.view import PatternFamily, View
from app.domain.ingest.turns import Segment, Turn

MAY_8 = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def _segment(turns: list[Turn], seg_id: str = "seg_0123456789abcdef", **kw: object) -> Segment:
    return Segment(id=seg_id, turns=tuple(turns), tokens=sum(len(t.text) for t in turns) // 4, **kw)  # type: ignore[arg-type]


def _chat() -> Segment:
    return _segment(
        [
            Turn("Caroline", "Hey Mel! Good to see you! How have you been?", ts=MAY_8, id="c1"),
            Turn("Melanie", "Hey Caroline! I moved to Kwekwe last month.", ts=MAY_8, id="m1"),
            Turn("Caroline", "I love hiking. I need to book the flight to Lisbon.", ts=MAY_8),
            Turn("Melanie", "I went to a LGBTQ support group yesterday.", ts=MAY_8, id="m2"),
        ],
        start_ts=MAY_8 - timedelta(minutes=5),
        end_ts=MAY_8,
    )


async def _run(segment: Segment, **kw: object) -> Extraction:
    return await RuleExtractor().extract(ExtractionInput(segment=segment, **kw))  # type: ignore[arg-type]


def test_is_an_extractor() -> None:
    extractor: Extractor = RuleExtractor()
    assert extractor.name == "rules"


async def test_no_observations_the_turn_log_keeps_what_happened_and_an_episode_quotes_it() -> None:
    out = await _run(_chat(), subject="Melanie")
    assert out.observations == []
    assert out.episode is not None
    assert any(out.episode.summary in t.text for t in _chat().turns)
    assert "observations" in out.items_dict() and "failures" not in out.items_dict()


async def test_beliefs_and_loops_name_the_turn_they_came_from() -> None:
    out = await _run(_chat(), subject="Melanie")
    assert [(b.key, b.to_dict().get("turn_ids")) for b in out.facts] == [("location", ["m1"])]
    # The turn without a client id gives no turn_ids at all, not an empty or null one.
    assert [(b.key, "turn_ids" in b.to_dict()) for b in out.prefs] == [
        ("caroline.likes_hiking", False)
    ]
    assert [loop.to_dict().get("turn_ids") for loop in out.open_loops] == [None]


async def test_empty_segment() -> None:
    out = await _run(_segment([]))
    assert out.items_dict() == Extraction().items_dict()
    assert out.failures == []


async def test_deterministic() -> None:
    first = await _run(_chat(), subject="Caroline")
    second = await _run(_chat(), subject="Caroline")
    assert first.items_dict() == second.items_dict()


async def test_generic_speakers_are_not_people() -> None:
    segment = _segment(
        [Turn("user", "I started a pottery class."), Turn("assistant", "Pottery sounds fun!")]
    )
    out = await _run(segment)
    assert out.entities == []


def _explodes_on(word: str, family: PatternFamily) -> PatternFamily:
    def family_that_fails(view: View, out: Extraction) -> None:
        if any(word in s.text for s in view.sentences):
            raise KeyError(word)
        family(view, out)

    return family_that_fails


def test_a_rule_that_raises_costs_only_its_own_sentence(monkeypatch: pytest.MonkeyPatch) -> None:
    families = tuple(
        _explodes_on("Lisbon", f) if f is fact_family else f for f in extractor.FAMILIES
    )
    monkeypatch.setattr(extractor, "FAMILIES", families)
    segment = _segment(
        [
            Turn("Ann", "I moved to Kwekwe last month.", ts=MAY_8, id="a1"),
            Turn("Ann", "I live in Lisbon now. I work as a nurse.", ts=MAY_8, id="a2"),
        ]
    )
    out = extract_rules(ExtractionInput(segment=segment, subject="Ann"))
    # The failing sentence gives no fact; its neighbour in the same turn and the turn before do.
    assert {b.key: b.value for b in out.facts} == {"location": "Kwekwe", "occupation": "nurse"}
    assert out.failures == [{"rule": "family_that_fails", "turn_id": "a2", "error": "KeyError"}]
    # Every other family ran on the whole segment.
    assert any(e.name == "Ann" for e in out.entities)
