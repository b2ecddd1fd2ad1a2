from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="SearchHit")


@_attrs_define
class SearchHit:
    """One passage of the log that matches, with its provenance.

    Attributes:
        id (str): The log row it is in.
        kind (str): turn, observation or episode
        score (float):
        speaker (str):
        text (str): The passage that matches (a long turn is cut in passages).
        ts (None | str): When it was said (or happened), ISO 8601.
        turn_ids (list[str]): The client's own message ids behind it.
    """

    id: str
    kind: str
    score: float
    speaker: str
    text: str
    ts: None | str
    turn_ids: list[str]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        kind = self.kind

        score = self.score

        speaker = self.speaker

        text = self.text

        ts: None | str
        ts = self.ts

        turn_ids = self.turn_ids

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "kind": kind,
                "score": score,
                "speaker": speaker,
                "text": text,
                "ts": ts,
                "turn_ids": turn_ids,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        kind = d.pop("kind")

        score = d.pop("score")

        speaker = d.pop("speaker")

        text = d.pop("text")

        def _parse_ts(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        ts = _parse_ts(d.pop("ts"))

        turn_ids = cast(list[str], d.pop("turn_ids"))

        search_hit = cls(
            id=id,
            kind=kind,
            score=score,
            speaker=speaker,
            text=text,
            ts=ts,
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
