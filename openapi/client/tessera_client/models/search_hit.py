from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="SearchHit")


@_attrs_define
class SearchHit:
    """One ranked memory with its provenance.

    Attributes:
        date (None | str):
        kind (str): observation or episode
        participants (list[str]):
        score (float):
        source (None | str): The passport source (segment) it came from.
        text (str):
        turn_ids (list[str]): The client's own message ids behind it.
    """

    date: None | str
    kind: str
    participants: list[str]
    score: float
    source: None | str
    text: str
    turn_ids: list[str]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        date: None | str
        date = self.date

        kind = self.kind

        participants = self.participants

        score = self.score

        source: None | str
        source = self.source

        text = self.text

        turn_ids = self.turn_ids

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "date": date,
                "kind": kind,
                "participants": participants,
                "score": score,
                "source": source,
                "text": text,
                "turn_ids": turn_ids,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_date(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        date = _parse_date(d.pop("date"))

        kind = d.pop("kind")

        participants = cast(list[str], d.pop("participants"))

        score = d.pop("score")

        def _parse_source(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        source = _parse_source(d.pop("source"))

        text = d.pop("text")

        turn_ids = cast(list[str], d.pop("turn_ids"))

        search_hit = cls(
            date=date,
            kind=kind,
            participants=participants,
            score=score,
            source=source,
            text=text,
            turn_ids=turn_ids,
        )

        search_hit.additional_properties = d
        return search_hit

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
