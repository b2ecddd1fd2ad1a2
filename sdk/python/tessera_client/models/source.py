from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="Source")


@_attrs_define
class Source:
    """Where memory came from; ``turn_ids`` trace it back to the client's own message ids.

    Attributes:
        id (str):
        hash_ (None | str | Unset):
        kind (str | Unset):  Default: 'chat'.
        ts (None | str | Unset):
        turn_ids (list[str] | Unset):
    """

    id: str
    hash_: None | str | Unset = UNSET
    kind: str | Unset = "chat"
    ts: None | str | Unset = UNSET
    turn_ids: list[str] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        hash_: None | str | Unset
        if isinstance(self.hash_, Unset):
            hash_ = UNSET
        else:
            hash_ = self.hash_

        kind = self.kind

        ts: None | str | Unset
        if isinstance(self.ts, Unset):
            ts = UNSET
        else:
            ts = self.ts

        turn_ids: list[str] | Unset = UNSET
        if not isinstance(self.turn_ids, Unset):
            turn_ids = self.turn_ids

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
            }
        )
        if hash_ is not UNSET:
            field_dict["hash"] = hash_
        if kind is not UNSET:
            field_dict["kind"] = kind
        if ts is not UNSET:
            field_dict["ts"] = ts
        if turn_ids is not UNSET:
            field_dict["turn_ids"] = turn_ids

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        def _parse_hash_(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        hash_ = _parse_hash_(d.pop("hash", UNSET))

        kind = d.pop("kind", UNSET)

        def _parse_ts(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        ts = _parse_ts(d.pop("ts", UNSET))

        turn_ids = cast(list[str], d.pop("turn_ids", UNSET))

        source = cls(
            id=id,
            hash_=hash_,
            kind=kind,
            ts=ts,
            turn_ids=turn_ids,
        )

        source.additional_properties = d
        return source

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
