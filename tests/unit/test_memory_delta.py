"""Structural deltas: apply(old, diff(old, new)) == new, compactly, without mutation."""

from __future__ import annotations

import copy
import functools
import itertools
import random
from typing import Any

import orjson
import pytest

from app.domain.ids import canonical_bytes
from app.domain.memory import delta
from app.domain.memory.delta import DeltaError, apply, diff, summarize


def _roundtrip(old: Any, new: Any) -> Any:
    delta = diff(old, new)
    # The stored form is JSON: check the invariant on what comes back from the database.
    delta = orjson.loads(orjson.dumps(delta))
    got = apply(old, delta)
    assert canonical_bytes(got) == canonical_bytes(new)
    return delta


def _episode(i: int) -> dict[str, Any]:
    return {
        "id": f"seg_{i:016x}",
        "ts": f"2023-05-{1 + i % 28:02d}T10:00:00Z",
        "summary": f"On day {i}, Caroline and Melanie talked about painting and the charity race.",
        "salience": round((i % 10) / 10, 2),
        "source": f"seg_{i:016x}",
        "participants": ["Caroline", "Melanie"],
        "keywords": ["painting", "charity", "race", f"k{i}"],
    }


def _passport(n_episodes: int) -> dict[str, Any]:
    return {
        "version": "2.1",
        "updated_at": "2023-05-08T10:00:00Z",
        "user_key": "u_1",
        "facts": [{"key": "location", "value": "Kwekwe", "ts": "2023-05-08T10:00:00Z"}],
        "prefs": [],
        "entities": [{"name": "Caroline", "type": "person", "aliases": []}],
        "episodes": [_episode(i) for i in range(n_episodes)],
        "meta": {"dedupe": {"decisions": []}},
    }


HAND_MADE: list[tuple[Any, Any]] = [
    (None, None),
    (None, {"a": 1}),
    ({"a": 1}, None),
    (1, 1.0),
    (True, 1),
    (0, False),
    ("x", "y"),
    ([], []),
    ([], [1, 2, 3]),
    ([1, 2, 3], []),
    ([1, 2, 3], [3, 2, 1]),
    ([1, 1, 1, 2], [1, 2, 1, 1]),
    ([1, 2, 3, 4, 5], [1, 2, 9, 4, 5]),
    ([1, 2, 3, 4, 5], [0, 1, 2, 3, 4, 5, 6]),
    ([{"a": 1}, {"a": 2}], [{"a": 1, "b": 2}, {"a": 2}]),
    ({"a": [1, {"b": [2, 3]}]}, {"a": [1, {"b": [2, 4]}], "c": None}),
    ({"a": 1, "b": 2}, {"b": 2}),
    ({"a": {"b": 1}}, {"a": [1]}),
    ({}, _passport(5)),
    (_passport(5), {}),
    (_passport(5), _passport(7)),
    (_passport(7), _passport(5)),
    ({"x": [[1, 2], [3]]}, {"x": [[1, 2, 3], [3], []]}),
    ("", []),
    ({"k": "é ✓"}, {"k": "e"}),
]


@pytest.mark.parametrize(("old", "new"), HAND_MADE)
def test_invariant_hand_made(old: Any, new: Any) -> None:
    _roundtrip(old, new)


def test_no_change_is_empty() -> None:
    doc = _passport(3)
    assert diff(doc, copy.deepcopy(doc)) == {}
    assert apply(doc, {}) == doc


def _random_scalar(rng: random.Random) -> Any:
    return rng.choice(
        [
            None,
            True,
            False,
            0,
            1,
            rng.randint(-1000, 1000),
            rng.random(),
            1.0,
            "",
            rng.choice(["a", "b", "kwekwe", "Melanie", "ü"]),
        ]
    )


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth >= 4 or roll < 0.4:
        return _random_scalar(rng)
    if roll < 0.7:
        return [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 6))]
    keys = rng.sample(["a", "b", "c", "d", "e", "facts", "episodes"], rng.randint(0, 5))
    return {key: _random_value(rng, depth + 1) for key in keys}


def _mutate(rng: random.Random, value: Any, depth: int = 0) -> Any:
    """A related value: mostly the same structure with a few edits, inserts and removals."""
    if rng.random() < 0.1 or depth > 5:
        return _random_value(rng, depth)
    if isinstance(value, list):
        out = [_mutate(rng, v, depth + 1) if rng.random() < 0.3 else v for v in value]
        for _ in range(rng.randint(0, 2)):
            action = rng.random()
            if action < 0.4:
                out.insert(rng.randint(0, len(out)), _random_value(rng, depth + 1))
            elif action < 0.7 and out:
                out.pop(rng.randrange(len(out)))
            elif len(out) > 1:
                i, j = rng.randrange(len(out)), rng.randrange(len(out))
                out[i], out[j] = out[j], out[i]
        return out
    if isinstance(value, dict):
        out_d = {
            k: _mutate(rng, v, depth + 1) if rng.random() < 0.3 else v for k, v in value.items()
        }
        if out_d and rng.random() < 0.3:
            out_d.pop(rng.choice(sorted(out_d)))
        if rng.random() < 0.3:
            out_d[rng.choice(["a", "z", "new"])] = _random_value(rng, depth + 1)
        return out_d
    return _random_scalar(rng) if rng.random() < 0.5 else value


@pytest.mark.parametrize("seed", range(20))
def test_invariant_random_pairs(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(100):
        old = _random_value(rng)
        related = _mutate(rng, old)
        _roundtrip(old, related)
        _roundtrip(related, old)
        _roundtrip(old, _random_value(rng))


@pytest.mark.parametrize("seed", range(5))
def test_invariant_random_passport_edits(seed: int) -> None:
    rng = random.Random(1000 + seed)
    doc = _passport(50)
    for _ in range(30):
        new = copy.deepcopy(doc)
        episodes = new["episodes"]
        for _ in range(rng.randint(1, 4)):
            action = rng.random()
            if action < 0.3:
                episodes.insert(rng.randint(0, len(episodes)), _episode(rng.randint(0, 10**6)))
            elif action < 0.5 and episodes:
                episodes.pop(rng.randrange(len(episodes)))
            elif episodes:
                episodes[rng.randrange(len(episodes))]["salience"] = rng.random()
        new["updated_at"] = f"2024-01-{rng.randint(1, 28):02d}T00:00:00Z"
        _roundtrip(doc, new)
        doc = new


def test_append_to_long_list_is_small() -> None:
    old = _passport(10_000)
    new = copy.deepcopy(old)
    new["episodes"].append(_episode(10_000))
    new["updated_at"] = "2023-06-01T00:00:00Z"
    delta = _roundtrip(old, new)
    assert len(orjson.dumps(delta)) < 2048


def test_edit_in_the_middle_is_small() -> None:
    old = _passport(10_000)
    new = copy.deepcopy(old)
    new["episodes"][5_000]["summary"] = "Caroline moved to Kwekwe."
    delta = _roundtrip(old, new)
    size = len(orjson.dumps(delta))
    assert size < 512
    # The edit carries only the changed field, not the whole episode.
    assert b"charity race" not in orjson.dumps(delta)


def test_removal_and_insert_in_the_middle_are_small() -> None:
    old = _passport(10_000)
    new = copy.deepcopy(old)
    del new["episodes"][1234]
    new["episodes"].insert(7000, _episode(99_999))
    assert len(orjson.dumps(_roundtrip(old, new))) < 2048


def test_move_is_small() -> None:
    old = list(range(5000))
    new = [4999, *range(4999)]
    assert len(orjson.dumps(_roundtrip(old, new))) < 128


def test_apply_does_not_mutate_and_does_not_alias() -> None:
    old = _passport(20)
    new = copy.deepcopy(old)
    new["episodes"][3]["keywords"].append("kwekwe")
    new["facts"].append({"key": "job", "value": "nurse"})
    del new["meta"]
    before = canonical_bytes(old)
    delta = diff(old, new)
    delta_before = canonical_bytes(delta)
    got = apply(old, delta)
    assert canonical_bytes(old) == before
    assert canonical_bytes(delta) == delta_before
    # Mutating the result must not reach back into the input or the delta.
    got["episodes"][0]["keywords"].append("x")
    got["facts"][-1]["value"] = "changed"
    assert canonical_bytes(old) == before
    assert canonical_bytes(delta) == delta_before


def test_diff_does_not_alias_new() -> None:
    new = {"facts": [{"key": "a", "value": 1}]}
    delta = diff({}, new)
    new["facts"][0]["value"] = 2
    assert apply({}, delta) == {"facts": [{"key": "a", "value": 1}]}


def test_deltas_applied_in_order_rebuild_every_version() -> None:
    versions = [_passport(0), _passport(2), _passport(5), _passport(3)]
    versions[3]["updated_at"] = "2024-01-01T00:00:00Z"
    deltas = [diff(None, versions[0])]
    deltas += [diff(a, b) for a, b in itertools.pairwise(versions)]
    for k, version in enumerate(versions):
        assert functools.reduce(apply, deltas[: k + 1], None) == version


@pytest.mark.parametrize(
    ("old", "delta"),
    [
        ([1], {"d": {"a": {}}}),
        ({"a": 1}, {"l": []}),
        ([1], {"l": [["k", 0, 5]]}),
        ([1], {"l": [["e", 3, {}]]}),
        ({}, {"d": {"a": {"d": {}}}}),
        (1, {"q": 1}),
        (1, [1]),
    ],
)
def test_malformed_delta_raises(old: Any, delta: Any) -> None:
    with pytest.raises(DeltaError):
        apply(old, delta)


def test_summarize_counts_sections_and_fields() -> None:
    old = _passport(3)
    new = copy.deepcopy(old)
    new["episodes"].append(_episode(3))
    new["episodes"].append(_episode(4))
    new["episodes"][0]["salience"] = 0.99  # an edit: one removed, one added
    new["facts"] = []
    new["updated_at"] = "2024-01-01T00:00:00Z"
    new["meta"]["dedupe"]["decisions"].append({"kept": "a"})
    assert summarize(old, new) == {
        "episodes": {"added": 3, "removed": 1},
        "facts": {"added": 0, "removed": 1},
        "fields": ["meta", "updated_at"],
    }


def test_summarize_first_version_and_no_change() -> None:
    doc = _passport(2)
    assert summarize(None, doc) == {
        "facts": {"added": 1, "removed": 0},
        "entities": {"added": 1, "removed": 0},
        "episodes": {"added": 2, "removed": 0},
        "fields": ["meta", "updated_at", "user_key", "version"],
    }
    assert summarize(doc, copy.deepcopy(doc)) == {}


def test_summarize_counts_duplicates() -> None:
    old = {"observations": [{"text": "a"}]}
    new = {"observations": [{"text": "a"}, {"text": "a"}]}
    assert summarize(old, new) == {"observations": {"added": 1, "removed": 0}}


def test_summarize_delta_matches_summarize_for_passport_edits():
    rng = random.Random(7)
    for _ in range(200):
        old = _random_passport_like(rng)
        new = copy.deepcopy(old)
        for section in ("facts", "episodes", "sources"):
            items = new.setdefault(section, [])
            action = rng.choice(["append", "edit", "remove", "none"])
            if action == "append":
                items.append({"id": f"n{rng.random()}", "v": rng.randint(0, 9)})
            elif action == "edit" and items:
                items[rng.randrange(len(items))]["v"] = rng.random()
            elif action == "remove" and items:
                items.pop(rng.randrange(len(items)))
        if rng.random() < 0.3:
            new["updated_at"] = str(rng.random())
        got = delta.summarize_delta(old, delta.diff(old, new))
        assert got == delta.summarize(old, new), (old, new)


def _random_passport_like(rng: random.Random) -> dict:
    return {
        "version": "2.1",
        "updated_at": "t0",
        **{
            section: [
                {"id": f"{section}{i}", "v": rng.randint(0, 3)} for i in range(rng.randint(0, 6))
            ]
            for section in ("facts", "episodes", "sources")
        },
    }


def test_itemize_names_the_items_added_and_removed_per_section() -> None:
    old = {
        "facts": [{"key": "city", "value": "Harare"}, {"key": "job", "value": "nurse"}],
        "entities": [{"name": "Ana"}, {"name": "Ana"}],
        "meta": {"a": 1},
    }
    new = {
        "facts": [{"key": "job", "value": "nurse"}, {"key": "city", "value": "Kwekwe"}],
        "entities": [{"name": "Ana"}],
        "meta": {"a": 2},
    }
    assert delta.itemize(old, new, 10) == {
        "facts": {"added": [{"key": "city", "value": "Kwekwe"}], "removed": [old["facts"][0]]},
        # One of two equal items went: matches are used once each, as summarize counts them.
        "entities": {"added": [], "removed": [{"name": "Ana"}]},
    }
    assert delta.itemize(None, {"facts": []}, 10) == {}
    assert delta.itemize(old, old, 10) == {}


def test_itemize_keeps_at_most_limit_items_per_list() -> None:
    new = {"turns": [{"id": f"m{n}"} for n in range(5)]}
    assert delta.itemize({}, new, 2) == {"turns": {"added": new["turns"][:2], "removed": []}}
