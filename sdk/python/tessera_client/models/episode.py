from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="Episode")


@_attrs_define
class Episode:
    """A summary of one segment of conversation.

    Attributes:
        id (str):
        keywords (list[str] | Unset):
        participants (list[str] | Unset):
        salience (float | None | Unset):
        source (None | str | Unset):
        summary (str | Unset):  Default: ''.
        ts (None | str | Unset):
    """

    id: str
    keywords: list[str] | Unset = UNSET
    participants: list[str] | Unset = UNSET
    salience: float | None | Unset = UNSET
    source: None | str | Unset = UNSET
    summary: str | Unset = ""
    ts: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        keywords: list[str] | Unset = UNSET
        if not isinstance(self.keywords, Unset):
            keywords = self.keywords

        participants: list[str] | Unset = UNSET
        if not isinstance(self.participants, Unset):
            participants = self.participants

        salience: float | None | Unset
        if isinstance(self.salience, Unset):
            salience = UNSET
        else:
            salience = self.salience

        source: None | str | Unset
        if isinstance(self.source, Unset):
            source = UNSET
        else:
            source = self.source

        summary = self.summary

        ts: None | str | Unset
        if isinstance(self.ts, Unset):
            ts = UNSET
        else:
            ts = self.ts

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
            }
        )
        if keywords is not UNSET:
            field_dict["keywords"] = keywords
        if participants is not UNSET:
            field_dict["participants"] = participants
        if salience is not UNSET:
            field_dict["salience"] = salience
        if source is not UNSET:
            field_dict["source"] = source
        if summary is not UNSET:
            field_dict["summary"] = summary
        if ts is not UNSET:
            field_dict["ts"] = ts

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        keywords = cast(list[str], d.pop("keywords", UNSET))

        participants = cast(list[str], d.pop("participants", UNSET))

        def _parse_salience(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        salience = _parse_salience(d.pop("salience", UNSET))

        def _parse_source(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        source = _parse_source(d.pop("source", UNSET))

        summary = d.pop("summary", UNSET)

        def _parse_ts(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        ts = _parse_ts(d.pop("ts", UNSET))

        episode = cls(
            id=id,
            keywords=keywords,
            participants=participants,
            salience=salience,
            source=source,
            summary=summary,
            ts=ts,
        )

        episode.additional_properties = d
        return episode

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
