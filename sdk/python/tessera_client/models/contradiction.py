from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="Contradiction")


@_attrs_define
class Contradiction:
    """A keyed belief that changed: the old value, the new one, and when each was said.

    Attributes:
        key (str):
        new (Any | Unset):
        old (Any | Unset):
        source_new (None | str | Unset):
        source_old (None | str | Unset):
        ts_new (None | str | Unset):
        ts_old (None | str | Unset):
    """

    key: str
    new: Any | Unset = UNSET
    old: Any | Unset = UNSET
    source_new: None | str | Unset = UNSET
    source_old: None | str | Unset = UNSET
    ts_new: None | str | Unset = UNSET
    ts_old: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        key = self.key

        new = self.new

        old = self.old

        source_new: None | str | Unset
        if isinstance(self.source_new, Unset):
            source_new = UNSET
        else:
            source_new = self.source_new

        source_old: None | str | Unset
        if isinstance(self.source_old, Unset):
            source_old = UNSET
        else:
            source_old = self.source_old

        ts_new: None | str | Unset
        if isinstance(self.ts_new, Unset):
            ts_new = UNSET
        else:
            ts_new = self.ts_new

        ts_old: None | str | Unset
        if isinstance(self.ts_old, Unset):
            ts_old = UNSET
        else:
            ts_old = self.ts_old

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "key": key,
            }
        )
        if new is not UNSET:
            field_dict["new"] = new
        if old is not UNSET:
            field_dict["old"] = old
        if source_new is not UNSET:
            field_dict["source_new"] = source_new
        if source_old is not UNSET:
            field_dict["source_old"] = source_old
        if ts_new is not UNSET:
            field_dict["ts_new"] = ts_new
        if ts_old is not UNSET:
            field_dict["ts_old"] = ts_old

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        key = d.pop("key")

        new = d.pop("new", UNSET)

        old = d.pop("old", UNSET)

        def _parse_source_new(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        source_new = _parse_source_new(d.pop("source_new", UNSET))

        def _parse_source_old(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        source_old = _parse_source_old(d.pop("source_old", UNSET))

        def _parse_ts_new(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        ts_new = _parse_ts_new(d.pop("ts_new", UNSET))

        def _parse_ts_old(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        ts_old = _parse_ts_old(d.pop("ts_old", UNSET))

        contradiction = cls(
            key=key,
            new=new,
            old=old,
            source_new=source_new,
            source_old=source_old,
            ts_new=ts_new,
            ts_old=ts_old,
        )

        contradiction.additional_properties = d
        return contradiction

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
