from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="TextIn")


@_attrs_define
class TextIn:
    """A free-text block (a note, a document, a transcript without turns).

    Attributes:
        text (str): The text.
        id (None | str | Unset):
        speaker (None | str | Unset): Author; 'user' when absent.
        ts (float | int | None | str | Unset):
    """

    text: str
    id: None | str | Unset = UNSET
    speaker: None | str | Unset = UNSET
    ts: float | int | None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        text = self.text

        id: None | str | Unset
        if isinstance(self.id, Unset):
            id = UNSET
        else:
            id = self.id

        speaker: None | str | Unset
        if isinstance(self.speaker, Unset):
            speaker = UNSET
        else:
            speaker = self.speaker

        ts: float | int | None | str | Unset
        if isinstance(self.ts, Unset):
            ts = UNSET
        else:
            ts = self.ts

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "text": text,
            }
        )
        if id is not UNSET:
            field_dict["id"] = id
        if speaker is not UNSET:
            field_dict["speaker"] = speaker
        if ts is not UNSET:
            field_dict["ts"] = ts

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        text = d.pop("text")

        def _parse_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        id = _parse_id(d.pop("id", UNSET))

        def _parse_speaker(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        speaker = _parse_speaker(d.pop("speaker", UNSET))

        def _parse_ts(data: object) -> float | int | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | int | None | str | Unset, data)

        ts = _parse_ts(d.pop("ts", UNSET))

        text_in = cls(
            text=text,
            id=id,
            speaker=speaker,
            ts=ts,
        )

        return text_in
