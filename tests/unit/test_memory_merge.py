"""Merging extractions and client beliefs into a passport, as a user of the memory would see it."""

from __future__ import annotations

from typing import Any

from app.domain.extraction.extractor import Extraction
from app.domain.memory.merge import (
    DEDUPE_DECISIONS_CAP,
    HEAD_BELIEFS_CAP,
    merge_beliefs,
    merge_extraction,
)
from app.domain.passport import (
    Belief,
    Entity,
    Episode,
    Observation,
    OpenLoop,
    Passport,
    Source,
)

NOW = "2024-06-01T12:00:00Z"
LATER = "2024-06-02T12:00:00Z"


def src(n: int, ts: str | None = None) -> Source:
    return Source(id=f"seg_{n}", kind="chat", ts=ts, hash=f"sha256:{n:064x}")


def fact(key: str, value: Any, ts: str | None, confidence: float | None = None) -> Belief:
    data: dict[str, Any] = {"key": key, "value": value, "ts": ts}
    if confidence is not None:
        data["confidence"] = confidence
    return Belief.model_validate(data)


def facts(p: Passport) -> dict[str, Any]:
    return {b.key: b.value for b in p.facts}


def merge_facts(p: Passport, n: int, *beliefs: Belief, now: str = NOW):
    return merge_beliefs(p, list(beliefs), [], src(n), now=now)


def test_new_fact_is_added_with_provenance() -> None:
    p = Passport.empty("u1")
    report = merge_facts(p, 1, fact("location", "Harare", "2024-01-01T00:00:00Z", 0.9))
    assert report.changed
    assert report.summary() == {"facts_added": 1, "sources_added": 1}
    assert p.facts[0].to_dict() == {
        "key": "location",
        "value": "Harare",
        "ts": "2024-01-01T00:00:00Z",
        "confidence": 0.9,
        "source": "seg_1",
    }
    assert p.updated_at == NOW
    assert [s.id for s in p.sources] == ["seg_1"]
    assert p.sources[0].to_dict() == {
        "id": "seg_1",
        "kind": "chat",
        "ts": None,
        "hash": f"sha256:{1:064x}",
    }


def test_missing_ts_and_source_come_from_the_source() -> None:
    p = Passport.empty("u1")
    seg = src(1, "2024-03-03T00:00:00Z")
    merge_beliefs(p, [], [Belief(key="tone", value="direct")], seg, now=NOW)
    assert p.prefs[0].to_dict() == {
        "key": "tone",
        "value": "direct",
        "ts": "2024-03-03T00:00:00Z",
        "source": "seg_1",
    }


def test_newer_value_replaces_and_logs_a_contradiction() -> None:
    p = Passport.empty("u1")
    merge_facts(p, 1, fact("location", "Harare", "2024-01-01T00:00:00Z", 0.9))
    report = merge_facts(p, 2, fact("location", "Kwekwe", "2024-05-01T00:00:00Z", 0.8), now=LATER)
    assert facts(p) == {"location": "Kwekwe"}
    assert p.facts[0].source == "seg_2"
    assert p.facts[0].confidence == 0.8
    assert report.counts["facts_updated"] == 1
    assert [c.to_dict() for c in p.contradictions] == [
        {
            "key": "location",
            "old": "Harare",
            "new": "Kwekwe",
            "ts_old": "2024-01-01T00:00:00Z",
            "ts_new": "2024-05-01T00:00:00Z",
            "source_old": "seg_1",
            "source_new": "seg_2",
        }
    ]
    assert p.updated_at == LATER


def test_older_incoming_value_loses_but_is_logged() -> None:
    p = Passport.empty("u1")
    merge_facts(p, 1, fact("location", "Kwekwe", "2024-05-01T00:00:00Z"))
    report = merge_facts(p, 2, fact("location", "Harare", "2024-01-01T00:00:00Z"))
    assert facts(p) == {"location": "Kwekwe"}
    assert p.facts[0].source == "seg_1"
    assert report.counts["facts_updated"] == 0
    assert report.counts["contradictions_added"] == 1
    c = p.contradictions[0]
    assert (c.old, c.new, c.ts_old, c.ts_new) == (
        "Harare",
        "Kwekwe",
        "2024-01-01T00:00:00Z",
        "2024-05-01T00:00:00Z",
    )
    assert (c.source_old, c.source_new) == ("seg_2", "seg_1")


def test_time_comparison_is_by_instant_and_none_is_oldest() -> None:
    p = Passport.empty("u1")
    merge_facts(p, 1, fact("city", "A", "2024-05-01T10:00:00+02:00"))  # 08:00 UTC
    merge_facts(p, 2, fact("city", "B", "2024-05-01T09:00:00Z"))  # later instant
    assert facts(p) == {"city": "B"}
    merge_facts(p, 3, fact("city", "C", None))  # undated: oldest, loses
    assert facts(p) == {"city": "B"}
    assert p.contradictions[-1].old == "C"


def test_tie_goes_to_the_incoming_value() -> None:
    p = Passport.empty("u1")
    merge_facts(p, 1, fact("city", "A", "2024-05-01T00:00:00Z"))
    merge_facts(p, 2, fact("city", "B", "2024-05-01T00:00:00Z"))
    assert facts(p) == {"city": "B"}


def test_equal_value_keeps_newer_ts_and_higher_confidence() -> None:
    p = Passport.empty("u1")
    merge_facts(p, 1, fact("location", "Kwekwe", "2024-01-01T00:00:00Z", 0.95))
    report = merge_facts(p, 2, fact("location", "  kwekwe ", "2024-05-01T00:00:00Z", 0.6))
    assert len(p.facts) == 1
    b = p.facts[0]
    assert (b.value, b.ts, b.confidence, b.source) == (
        "Kwekwe",
        "2024-05-01T00:00:00Z",
        0.95,
        "seg_2",
    )
    assert p.contradictions == []
    assert report.counts["facts_updated"] == 1
    # an older confirmation with higher confidence raises confidence but keeps time and source
    merge_facts(p, 3, fact("location", "KWEKWE", "2023-01-01T00:00:00Z", 0.99))
    b = p.facts[0]
    assert (b.ts, b.confidence, b.source) == ("2024-05-01T00:00:00Z", 0.99, "seg_2")


def test_remerging_the_same_source_is_a_noop() -> None:
    p = Passport.empty("u1")
    extraction = Extraction(
        facts=[fact("location", "Kwekwe", "2024-05-01T00:00:00Z")],
        entities=[Entity(name="SozoGraph", type="project")],
        episode=Episode(id="seg_1", summary="Moved to Kwekwe."),
    )
    merge_extraction(p, extraction, src(1), now=NOW)
    before = p.to_bytes()
    report = merge_extraction(p, extraction, src(1), now=LATER)
    assert report.changed is False
    assert report.summary() == {}
    assert p.to_bytes() == before
    assert p.updated_at == NOW


def test_merge_is_deterministic() -> None:
    def run() -> bytes:
        p = Passport.empty("u1")
        merge_facts(
            p, 1, fact("location", "Harare", "2024-01-01T00:00:00Z"), fact("tone", "x", None)
        )
        merge_extraction(
            p,
            Extraction(
                facts=[
                    fact("Location", "Kwekwe", "2024-05-01T00:00:00Z"),
                    fact("email", "a@b", None),
                ],
                prefs=[fact("favourite_color", "blue", None)],
                entities=[Entity(name="Melanie", type="person", aliases=["Mel"])],
                open_loops=[OpenLoop(item="Book the flight")],
                observations=[Observation(text="Melanie ran a race.", when="2023-05-20")],
                episode=Episode(id="seg_2", summary="s", keywords=["race"]),
            ),
            src(2, "2024-05-01T00:00:00Z"),
            now=LATER,
        )
        return p.to_bytes()

    assert run() == run()


def test_fuzzy_merge_updates_the_one_belief_and_records_the_decision() -> None:
    p = Passport.empty("u1")
    merge_beliefs(p, [], [fact("favorite_color", "green", "2024-01-01T00:00:00Z")], src(1), now=NOW)
    report = merge_beliefs(
        p, [], [fact("favourite_color", "blue", "2024-05-01T00:00:00Z")], src(2), now=LATER
    )
    assert [(b.key, b.value) for b in p.prefs] == [("favorite_color", "blue")]
    assert p.contradictions[0].key == "favorite_color"
    decisions = p.meta["dedupe"]["decisions"]
    assert len(decisions) == 1
    d = decisions[0]
    assert (d["incoming"], d["resolved"], d["action"], d["tier"]) == (
        "favourite_color",
        "favorite_color",
        "merge",
        2,
    )
    assert (d["section"], d["source"], d["ts"]) == ("prefs", "seg_2", LATER)
    assert report.decisions == decisions
    assert report.counts["keys_merged"] == 1


def test_exact_normalised_key_reuses_the_known_spelling_silently() -> None:
    p = Passport.empty("u1")
    merge_facts(p, 1, fact("favorite_color", "green", "2024-01-01T00:00:00Z"))
    merge_facts(p, 2, fact("Favorite Color", "green", "2024-02-01T00:00:00Z"))
    assert [b.key for b in p.facts] == ["favorite_color"]
    assert "dedupe" not in p.meta  # tier 1 is not a decision worth logging


def test_polarity_pair_stays_two_beliefs() -> None:
    p = Passport.empty("u1")
    merge_facts(p, 1, fact("budget_min", 100, "2024-01-01T00:00:00Z"))
    report = merge_facts(p, 2, fact("budget_max", 500, "2024-05-01T00:00:00Z"))
    assert facts(p) == {"budget_min": 100, "budget_max": 500}
    assert p.contradictions == []
    assert report.counts["keys_refused"] == 1
    assert p.meta["dedupe"]["decisions"][0]["action"] == "refuse"
    assert "pending_review" not in p.meta["dedupe"]


def test_namespaced_key_does_not_overwrite_the_subjects_own() -> None:
    p = Passport.empty("u1")
    merge_facts(p, 1, fact("location", "Kwekwe", "2024-01-01T00:00:00Z"))
    merge_facts(p, 2, fact("caroline.location", "Boston", "2024-05-01T00:00:00Z"))
    assert facts(p) == {"location": "Kwekwe", "caroline.location": "Boston"}
    assert p.contradictions == []


def test_review_keeps_keys_apart_and_queues_the_pair_once() -> None:
    p = Passport.empty("u1")
    merge_facts(p, 1, fact("email_address", "a@example.com", "2024-01-01T00:00:00Z"))
    merge_facts(p, 2, fact("email", "a@example.com", "2024-02-01T00:00:00Z"))
    assert [b.key for b in p.facts] == ["email_address", "email"]
    pending = p.meta["dedupe"]["pending_review"]
    assert len(pending) == 1
    assert pending[0]["a"] == "email" and pending[0]["b"] == "email_address"
    assert pending[0]["ts"] == NOW
    assert 0 < pending[0]["score"] < 1
    # "email" is now a known key itself: the same pair is not queued again
    merge_facts(p, 3, fact("Email", "b@example.com", "2024-03-01T00:00:00Z"))
    assert len(p.meta["dedupe"]["pending_review"]) == 1


def test_facts_and_prefs_are_separate_key_spaces() -> None:
    p = Passport.empty("u1")
    merge_beliefs(
        p,
        [fact("tone", "a", "2024-01-01T00:00:00Z")],
        [fact("tone", "b", "2024-01-01T00:00:00Z")],
        src(1),
        now=NOW,
    )
    assert facts(p) == {"tone": "a"}
    assert [(b.key, b.value) for b in p.prefs] == [("tone", "b")]
    assert p.contradictions == []


def test_episodes_upsert_by_id() -> None:
    p = Passport.empty("u1")
    merge_extraction(
        p, Extraction(episode=Episode(id="ep1", summary="first", salience=0.2)), src(1), now=NOW
    )
    merge_extraction(p, Extraction(episode=Episode(id="ep2", summary="other")), src(2), now=NOW)
    report = merge_extraction(
        p, Extraction(episode=Episode(id="ep1", summary="second", salience=0.9)), src(3), now=NOW
    )
    assert [(e.id, e.summary, e.salience) for e in p.episodes] == [
        ("ep1", "second", 0.9),
        ("ep2", "other", None),
    ]
    assert p.episodes[0].source == "seg_3"
    assert report.counts["episodes_updated"] == 1


def test_entity_aliases_union_and_type_upgrade() -> None:
    p = Passport.empty("u1")
    merge_extraction(
        p, Extraction(entities=[Entity(name="SozoGraph", aliases=["Sozo Graph"])]), src(1), now=NOW
    )
    report = merge_extraction(
        p,
        Extraction(
            entities=[
                Entity(name="sozo graph", type="project", aliases=["SG", "sozograph", "sg"]),
                Entity(name="Melanie", type="person"),
            ]
        ),
        src(2),
        now=NOW,
    )
    assert [e.to_dict() for e in p.entities] == [
        {"name": "SozoGraph", "type": "project", "aliases": ["Sozo Graph", "SG"]},
        {"name": "Melanie", "type": "person", "aliases": []},
    ]
    assert report.counts["entities_updated"] == 1
    assert report.counts["entities_added"] == 1
    # a specific type is never downgraded to "other"
    merge_extraction(p, Extraction(entities=[Entity(name="sg", type="other")]), src(3), now=NOW)
    assert p.entities[0].type == "project"


def test_open_loops_and_observations_are_not_duplicated() -> None:
    p = Passport.empty("u1")
    extraction = Extraction(
        open_loops=[OpenLoop(item="Book the flight"), OpenLoop(item="book  the FLIGHT")],
        observations=[
            Observation(text="Melanie ran a race.", when="2023-05-20"),
            Observation(text="melanie ran a race. ", when="2023-05-20"),
            Observation(text="Melanie ran a race.", when="2024-05-20"),
        ],
    )
    merge_extraction(p, extraction, src(1, "2024-05-21T00:00:00Z"), now=NOW)
    merge_extraction(p, extraction, src(2), now=NOW)
    assert [o.item for o in p.open_loops] == ["Book the flight"]
    assert p.open_loops[0].to_dict() == {
        "item": "Book the flight",
        "ts": "2024-05-21T00:00:00Z",
        "source": "seg_1",
    }
    assert [(o.text, o.when) for o in p.observations] == [
        ("Melanie ran a race.", "2023-05-20"),
        ("Melanie ran a race.", "2024-05-20"),
    ]


def test_identical_contradiction_is_not_logged_twice() -> None:
    p = Passport.empty("u1")
    merge_facts(p, 1, fact("location", "Kwekwe", "2024-05-01T00:00:00Z"))
    stale = Belief(key="location", value="Harare", ts="2024-01-01T00:00:00Z", source="seg_x")
    merge_beliefs(p, [stale], [], src(2), now=NOW)
    merge_beliefs(p, [stale], [], src(3), now=NOW)
    assert len(p.contradictions) == 1


def test_existing_order_is_preserved_and_unknown_fields_survive() -> None:
    doc = {
        "version": "2.1",
        "user_key": "u1",
        "facts": [
            {"key": "zeta", "value": 1, "ts": "2024-01-01T00:00:00Z", "note": "kept"},
            {"key": "alpha", "value": 2, "ts": "2024-01-01T00:00:00Z"},
        ],
    }
    p = Passport.from_dict(doc)
    merge_facts(p, 1, fact("zeta", 3, "2024-02-01T00:00:00Z"), fact("beta", 4, None))
    assert [b.key for b in p.facts] == ["zeta", "alpha", "beta"]
    assert p.facts[0].to_dict()["note"] == "kept"
    assert p.facts[0].value == 3


def test_dedupe_decision_log_is_capped() -> None:
    p = Passport.empty("u1")
    merge_facts(p, 0, fact("budget_min", 1, None))
    p.meta["dedupe"] = {"decisions": [{"i": i} for i in range(DEDUPE_DECISIONS_CAP)]}
    merge_facts(p, 1, fact("min_budget", 5, None))
    log = p.meta["dedupe"]["decisions"]
    assert len(log) == DEDUPE_DECISIONS_CAP
    assert log[0] == {"i": 1}  # the oldest entry went
    assert log[-1]["action"] == "merge"


def test_a_full_section_takes_no_new_key_but_still_updates_the_ones_it_holds() -> None:
    p = Passport.empty("u1")
    held = [fact(f"topic_{i}", f"v{i}", NOW) for i in range(HEAD_BELIEFS_CAP)]
    merge_facts(p, 1, *held)
    assert len(p.facts) == HEAD_BELIEFS_CAP
    report = merge_facts(p, 2, fact("brand_new", "x", LATER), fact("topic_7", "changed", LATER))
    assert "brand_new" not in facts(p)
    assert facts(p)["topic_7"] == "changed"
    assert report.summary()["facts_over_cap"] == 1
    assert len(p.facts) == HEAD_BELIEFS_CAP


def test_a_job_builds_its_key_lookup_once_however_many_segments_it_merges(monkeypatch) -> None:
    from app.domain.memory import merge as merge_module

    built: list[int] = []
    real = merge_module.KnownKeys

    class Counted(real):  # type: ignore[misc, valid-type]
        def __init__(self, keys: Any = ()) -> None:
            built.append(1)
            super().__init__(keys)

    monkeypatch.setattr(merge_module, "KnownKeys", Counted)
    p = Passport.empty("u1")
    for n in range(1, 41):
        merge_facts(p, n, *(fact(f"k{n}_{i}", i, NOW) for i in range(5)))
    assert len(p.facts) > 100
    assert len(built) == 1  # rebuilt per segment, the merge grew with segments x beliefs


def test_tier3_renames_in_place_and_a_later_merge_sees_the_new_keys() -> None:
    from app.domain.memory.merge import apply_key_merges

    class Fold:
        keep, drop, reason = "home_city", "city", "same thing"

    p = Passport.empty("u1")
    merge_facts(p, 1, fact("city", "Harare", NOW))
    apply_key_merges(p, [Fold()], now=NOW)
    merge_facts(p, 2, fact("home_city", "Kwekwe", LATER))
    assert facts(p) == {"home_city": "Kwekwe"}
