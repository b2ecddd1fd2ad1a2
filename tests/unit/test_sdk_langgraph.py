"""TesseraStore's own parts: item ids that round-trip, LangGraph's matching and filters."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from langgraph.store.base import InvalidNamespaceError, MatchCondition

from tessera.integrations.langgraph import (
    TesseraStore,
    _key_of,
    _matches,
    _meets,
    _session,
    _turn_id,
)

parts = st.text(min_size=1, max_size=30)


@given(st.lists(parts, max_size=4).map(tuple), st.text(min_size=1, max_size=40))
def test_an_items_turn_id_names_its_section_and_key_whatever_they_hold(section, key):
    turn_id = _turn_id(section, key)
    assert _key_of(turn_id) == (section, key)
    assert _session(section) in turn_id


@given(st.text(max_size=200))
def test_any_other_turn_id_is_no_item(turn_id):
    named = _key_of(turn_id)
    assert named is None or turn_id.startswith("store:")


def test_a_namespace_names_its_user_where_the_store_says(monkeypatch):
    monkeypatch.setenv("TESSERA_API_KEY", "tsk_unused")
    first, last = TesseraStore(), TesseraStore(user_at=-1)
    assert first._split(("ada", "memories", "food")) == ("ada", ("memories", "food"))
    assert last._split(("memories", "ada")) == ("ada", ("memories",))
    assert last._join("ada", ("memories",)) == ("memories", "ada")
    assert first._join("ada", ("memories", "food")) == ("ada", "memories", "food")
    with pytest.raises(InvalidNamespaceError):
        first._split(())


def test_matching_is_langgraphs_prefix_and_suffix_with_wildcards():
    ns = ("ada", "memories", "food")
    assert _matches(MatchCondition("prefix", ("ada", "*")), ns)
    assert _matches(MatchCondition("suffix", ("food",)), ns)
    assert not _matches(MatchCondition("prefix", ("bo",)), ns)
    assert not _matches(MatchCondition("suffix", ("x", "ada", "memories", "food")), ns)


def test_filters_compare_fields_nested_values_and_operators():
    value = {"n": 3, "tags": ["a", "b"], "who": {"name": "Ada"}}
    assert _meets(value, {"n": 3, "who": {"name": "Ada"}})
    assert _meets(value, {"n": {"$gte": 3, "$lt": 4}, "tags": ["a", "b"]})
    assert not _meets(value, {"n": {"$gt": 3}})
    assert not _meets(value, {"missing": {"$gt": 0}})  # absent is not a number: no match
    assert _meets(value, {"missing": {"$ne": 1}})
    with pytest.raises(ValueError, match="unsupported"):
        _meets(value, {"n": {"$regex": "3"}})
