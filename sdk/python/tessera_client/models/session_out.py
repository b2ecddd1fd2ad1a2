from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="SessionOut")


@_attrs_define
class SessionOut:
    """One session of a user: its name, how many live turns it holds, when it was last spoken.

    Attributes:
        last_ts (datetime.datetime | None): The time of its newest turn, if it has one.
        name (str):
        turns (int):
    """

    last_ts: datetime.datetime | None
    name: str
    turns: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        last_ts: None | str
        if isinstance(self.last_ts, datetime.datetime):
            last_ts = self.last_ts.isoformat()
        else:
            last_ts = self.last_ts

        name = self.name

        turns = self.turns

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "last_ts": last_ts,
                "name": name,
                "turns": turns,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_last_ts(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_ts_type_0 = datetime.datetime.fromisoformat(data)

                return last_ts_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        last_ts = _parse_last_ts(d.pop("last_ts"))

        name = d.pop("name")

        turns = d.pop("turns")

        session_out = cls(
            last_ts=last_ts,
            name=name,
            turns=turns,
        )

        session_out.additional_properties = d
        return session_out

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
