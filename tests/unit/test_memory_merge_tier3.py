"""Dedupe tier 3 applied to a passport, and removing what some sources said (for reprocess)."""

from __future__ import annotations

from typing import Any

from app.domain.memory.merge import apply_key_merges, remove_sources
from app.domain.passport import Passport
from app.llm.reconcile import KeyMerge, check_merges

NOW = "2024-06-01T12:00:00Z"


def passport(**sections: Any) -> Passport:
    return Passport.from_dict({"version": "2.1", "user_key": "u", **sections})


def belief(key: str, value: Any, ts: str, source: str, confidence: float = 0.8) -> dict[str, Any]:
    return {"key": key, "value": value, "ts": ts, "source": source, "confidence": confidence}


def decisions(p: Passport) -> list[dict[str, Any]]:
    return list(p.meta["dedupe"]["decisions"])


def test_synonyms_merge_newest_value_wins_and_the_loser_is_a_contradiction() -> None:
    p = passport(
        prefs=[
            belief("code_style", "terse", "2024-01-01T00:00:00Z", "seg_a"),
            belief("tone", "direct", "2024-01-01T00:00:00Z", "seg_a"),
            belief("boilerplate_preference", "no boilerplate", "2024-03-01T00:00:00Z", "seg_b"),
        ],
        meta={
            "dedupe": {
                "pending_review": [
                    {"a": "boilerplate_preference", "b": "code_style", "section": "prefs"},
                    {"a": "tone", "b": "voice", "section": "prefs"},
                ]
            }
        },
    )
    merge = KeyMerge("code_style", "boilerplate_preference", "both say how they like code")
    report = apply_key_merges(p, [merge], now=NOW)

    assert report.changed and report.counts["keys_merged"] == 1
    assert [(b.key, b.value, b.source) for b in p.prefs] == [
        ("code_style", "no boilerplate", "seg_b"),  # the newer statement, under the kept key
        ("tone", "direct", "seg_a"),
    ]
    [contradiction] = p.contradictions
    assert (contradiction.key, contradiction.old, contradiction.new) == (
        "code_style",
        "terse",
        "no boilerplate",
    )
    # The settled pair leaves the review queue; the unrelated one stays.
    assert p.meta["dedupe"]["pending_review"] == [{"a": "tone", "b": "voice", "section": "prefs"}]
    [entry] = decisions(p)
    assert entry["tier"] == 3 and entry["action"] == "merge"
    assert (entry["incoming"], entry["resolved"], entry["section"]) == (
        "boilerplate_preference",
        "code_style",
        "prefs",
    )
    assert entry["reason"] == "both say how they like code" and entry["ts"] == NOW
    assert p.updated_at == NOW


def test_an_older_dropped_value_loses_but_is_recorded() -> None:
    p = passport(
        facts=[
            belief("home_city", "Kwekwe", "2024-05-01T00:00:00Z", "seg_new"),
            belief("city_of_residence", "Harare", "2023-01-01T00:00:00Z", "seg_old"),
        ]
    )
    apply_key_merges(p, [KeyMerge("home_city", "city_of_residence", "same")], now=NOW)
    assert [(b.key, b.value) for b in p.facts] == [("home_city", "Kwekwe")]
    assert [(c.old, c.new) for c in p.contradictions] == [("Harare", "Kwekwe")]


def test_same_value_merges_quietly_keeping_the_higher_confidence() -> None:
    p = passport(
        facts=[
            belief("home_city", "Kwekwe", "2024-01-01T00:00:00Z", "seg_a", confidence=0.6),
            belief("city", "kwekwe", "2024-02-01T00:00:00Z", "seg_b", confidence=0.95),
        ]
    )
    apply_key_merges(p, [KeyMerge("home_city", "city", "same")], now=NOW)
    [kept] = p.facts
    assert (kept.key, kept.confidence, kept.ts) == ("home_city", 0.95, "2024-02-01T00:00:00Z")
    assert p.contradictions == []


def test_a_key_only_in_one_section_is_renamed_there() -> None:
    p = passport(
        facts=[belief("home_city", "Kwekwe", "2024-01-01T00:00:00Z", "seg_a")],
        prefs=[belief("city", "Kwekwe", "2024-01-01T00:00:00Z", "seg_a")],
    )
    apply_key_merges(p, [KeyMerge("home_city", "city", "same")], now=NOW)
    assert [b.key for b in p.facts] == ["home_city"]
    assert [b.key for b in p.prefs] == ["home_city"]
    assert [d["section"] for d in decisions(p)] == ["prefs"]


def test_opposites_are_refused_upstream_and_the_refusal_is_recorded() -> None:
    p = passport(
        prefs=[
            belief("likes_jazz", True, "2024-01-01T00:00:00Z", "seg_a"),
            belief("dislikes_jazz", False, "2024-02-01T00:00:00Z", "seg_b"),
        ]
    )
    keys = {"likes_jazz", "dislikes_jazz"}
    checked = check_merges([KeyMerge("likes_jazz", "dislikes_jazz", "same topic")], keys)
    assert checked.merges == []

    report = apply_key_merges(p, checked.merges, rejected=checked.rejected, now=NOW)

    assert [b.key for b in p.prefs] == ["likes_jazz", "dislikes_jazz"]  # both kept, untouched
    assert report.counts["keys_refused"] == 1 and report.changed
    [entry] = decisions(p)
    assert (entry["tier"], entry["action"], entry["incoming"]) == (3, "refuse", "dislikes_jazz")
    assert entry["reason"].startswith("polarity")


def test_a_merge_of_keys_gone_meanwhile_changes_no_belief() -> None:
    p = passport(facts=[belief("location", "Kwekwe", "2024-01-01T00:00:00Z", "seg_a")])
    apply_key_merges(p, [KeyMerge("home_city", "city", "same")], now=NOW)
    assert [(b.key, b.value) for b in p.facts] == [("location", "Kwekwe")]
    assert decisions(p)[0]["action"] == "skip"


def test_no_proposals_change_nothing() -> None:
    p = passport(facts=[belief("location", "Kwekwe", "2024-01-01T00:00:00Z", "seg_a")])
    before = p.to_dict()
    report = apply_key_merges(p, [], now=NOW)
    assert not report.changed and p.to_dict() == before


def test_remove_sources_takes_only_what_those_sources_said() -> None:
    p = passport(
        facts=[
            belief("location", "Kwekwe", "2024-01-01T00:00:00Z", "seg_a"),
            belief("employer", "ACME", "2024-01-01T00:00:00Z", "facts_1"),  # a client write
        ],
        open_loops=[{"item": "Book the flight", "source": "seg_a"}],
        observations=[
            {"text": "Moved.", "source": "seg_a"},
            {"text": "Imported.", "source": "import"},
        ],
        episodes=[{"id": "seg_a", "summary": "old", "source": "seg_a"}],
        sources=[{"id": "seg_a", "hash": "sha256:a"}, {"id": "facts_1", "hash": "sha256:f"}],
        entities=[{"name": "Kwekwe", "type": "place"}],
        contradictions=[{"key": "location", "old": "Harare", "new": "Kwekwe"}],
    )
    removed = remove_sources(p, {"seg_a"})
    assert removed == 5
    assert [b.key for b in p.facts] == ["employer"]
    assert p.open_loops == [] and p.episodes == []
    assert [o.text for o in p.observations] == ["Imported."]
    assert [s.id for s in p.sources] == ["facts_1"]
    # Names and history are not claims of one source: they stay.
    assert [e.name for e in p.entities] == ["Kwekwe"] and len(p.contradictions) == 1
