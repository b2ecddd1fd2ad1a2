from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.belief import Belief


T = TypeVar("T", bound="FactsIn")


@_attrs_define
class FactsIn:
    """Facts and preferences the client already knows; merged without extraction.

    Attributes:
        facts (list[Belief] | Unset):
        prefs (list[Belief] | Unset):
    """

    facts: list[Belief] | Unset = UNSET
    prefs: list[Belief] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        facts: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.facts, Unset):
            facts = []
            for facts_item_data in self.facts:
                facts_item = facts_item_data.to_dict()
                facts.append(facts_item)

        prefs: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.prefs, Unset):
            prefs = []
            for prefs_item_data in self.prefs:
                prefs_item = prefs_item_data.to_dict()
                prefs.append(prefs_item)

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if facts is not UNSET:
            field_dict["facts"] = facts
        if prefs is not UNSET:
            field_dict["prefs"] = prefs

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.belief import Belief  # noqa: PLC0415

        d = dict(src_dict)
        _facts = d.pop("facts", UNSET)
        facts: list[Belief] | Unset = UNSET
        if _facts is not UNSET:
            facts = []
            for facts_item_data in _facts:
                facts_item = Belief.from_dict(facts_item_data)

                facts.append(facts_item)

        _prefs = d.pop("prefs", UNSET)
        prefs: list[Belief] | Unset = UNSET
        if _prefs is not UNSET:
            prefs = []
            for prefs_item_data in _prefs:
                prefs_item = Belief.from_dict(prefs_item_data)

                prefs.append(prefs_item)

        facts_in = cls(
            facts=facts,
            prefs=prefs,
        )

        return facts_in
