"""The passport document: lossless round trip, 1.0 migration, unknown keys, determinism."""

from __future__ import annotations

import copy
import json

import pytest

from app.domain.ids import content_hash, content_id
from app.domain.passport import Belief, Episode, Passport, PassportError

FULL = {
    "version": "2.1",
    "updated_at": "2024-03-01T10:00:00Z",
    "user_key": "u_123",
    "facts": [
        {
            "key": "location",
            "value": "Kwekwe",
            "ts": "2024-02-01T00:00:00Z",
            "confidence": 0.95,
            "source": "seg_a1b2",
            "x_fact_note": {"why": "said so"},
        }
    ],
    "prefs": [
        {
            "key": "tone",
            "value": "direct",
            "ts": "2024-02-01T00:00:00Z",
            "confidence": 0.9,
            "source": "seg_a1b2",
        }
    ],
    "entities": [{"name": "SozoGraph", "type": "project", "aliases": ["Sozo Graph"]}],
    "open_loops": [{"item": "Book the flight", "ts": "2024-02-01T00:00:00Z", "source": "seg_a1b2"}],
    "contradictions": [
        {
            "key": "location",
            "old": "Harare",
            "new": "Kwekwe",
            "ts_old": "2023-01-01",
            "ts_new": "2024-02-01",
            "source_old": "seg_9f",
            "source_new": "seg_a1",
        }
    ],
    "observations": [
        {
            "text": "Melanie ran a charity race.",
            "when": "2023-05-20",
            "ts": "2023-05-21T00:00:00Z",
            "source": "seg_a1b2",
            "participants": ["Melanie"],
        }
    ],
    "episodes": [
        {
            "id": "seg_a1b2",
            "ts": "2024-02-01T00:00:00Z",
            "summary": "Melanie moved.",
            "salience": 0.8,
            "source": "seg_a1b2",
            "participants": ["Melanie"],
            "keywords": ["kwekwe"],
        }
    ],
    "sources": [
        {
            "id": "seg_a1b2",
            "kind": "chat",
            "ts": "2024-02-01T00:00:00Z",
            "hash": "sha256:00",
            "turn_ids": ["m1", "m2"],
        }
    ],
    "meta": {"dedupe": {"decisions": []}, "vendor": [1, 2, 3]},
    "x_top_level": {"nested": [{"deep": True}]},
}


def test_round_trip_is_lossless():
    assert Passport.from_dict(copy.deepcopy(FULL)).to_dict() == FULL


def test_unknown_keys_survive_at_every_level():
    out = Passport.from_dict(copy.deepcopy(FULL)).to_dict()
    assert out["x_top_level"] == {"nested": [{"deep": True}]}
    assert out["facts"][0]["x_fact_note"] == {"why": "said so"}
    assert out["meta"]["vendor"] == [1, 2, 3]


def test_missing_optional_fields_are_not_invented():
    doc = {"version": "2.0", "facts": [{"key": "a", "value": 1}]}
    assert Passport.from_dict(doc).to_dict() == doc


def test_serialisation_is_byte_stable_and_sorted():
    a = Passport.from_dict(copy.deepcopy(FULL)).to_bytes()
    shuffled = dict(reversed(list(copy.deepcopy(FULL).items())))
    b = Passport.from_dict(shuffled).to_bytes()
    assert a == b
    assert a == json.dumps(FULL, sort_keys=True, separators=(",", ":")).encode()


def test_version_one_migrates():
    legacy = {
        "version": "1.0",
        "user_key": "u",
        "facts": {"city": "Harare"},
        "prefs": [{"key": "tone", "value": "direct"}],
        "legacy_field": 7,
    }
    p = Passport.from_dict(legacy)
    out = p.to_dict()
    assert out["version"] == "2.1"
    assert out["episodes"] == [] and out["observations"] == []
    assert out["facts"] == [{"key": "city", "value": "Harare"}]
    assert out["legacy_field"] == 7
    assert out["meta"]["migrated_from"] == "1.0"
    # Migrating is idempotent: the result reloads to itself.
    assert Passport.from_dict(out).to_dict() == out


def test_unsupported_or_malformed_documents_are_refused():
    with pytest.raises(PassportError):
        Passport.from_dict({"version": "3.0"})
    with pytest.raises(PassportError):
        Passport.from_dict([1, 2])
    with pytest.raises(PassportError):
        Passport.from_dict({"version": "2.1", "facts": [{"value": "no key"}]})
    with pytest.raises(PassportError):
        Passport.from_dict({"version": "2.1", "entities": [{"name": "X", "type": "planet"}]})


def test_items_added_after_loading_are_written():
    p = Passport.from_dict({"version": "2.1"})
    p.facts.append(Belief(key="a", value=1))
    p.episodes.append(Episode(id="seg_1", summary="s"))
    out = p.to_dict()
    assert out["facts"] == [{"key": "a", "value": 1}]
    assert out["episodes"] == [{"id": "seg_1", "summary": "s"}]


def test_ids_are_sha256_of_content():
    assert content_id("seg", ["a", "b"]) == content_id("seg", ["a", "b"])
    assert content_id("seg", ["a", "b"]) != content_id("seg", ["b", "a"])
    assert content_hash("abc") == (
        "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    )
    assert content_id("seg", {"b": 1, "a": 2}) == content_id("seg", {"a": 2, "b": 1})


def test_loaded_passport_shares_nothing_with_its_input():
    doc = {"version": "2.1", "meta": {"dedupe": {"decisions": []}}, "x": {"list": [1]}}
    p = Passport.from_dict(doc)
    p.meta["dedupe"]["decisions"].append({"a": 1})
    p.to_dict()["x"]["list"].append(2)
    assert doc == {"version": "2.1", "meta": {"dedupe": {"decisions": []}}, "x": {"list": [1]}}
