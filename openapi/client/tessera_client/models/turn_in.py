from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="TurnIn")


@_attrs_define
class TurnIn:
    """One chat turn.

    Attributes:
        speaker (str): Who said it.
        text (str): What was said. Empty turns are skipped.
        id (None | str | Unset):
        session (None | str | Unset):
        ts (float | int | None | str | Unset):
    """

    speaker: str
    text: str
    id: None | str | Unset = UNSET
    session: None | str | Unset = UNSET
    ts: float | int | None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        speaker = self.speaker

        text = self.text

        id: None | str | Unset
        if isinstance(self.id, Unset):
            id = UNSET
        else:
            id = self.id

        session: None | str | Unset
        if isinstance(self.session, Unset):
            session = UNSET
        else:
            session = self.session

        ts: float | int | None | str | Unset
        if isinstance(self.ts, Unset):
            ts = UNSET
        else:
            ts = self.ts

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "speaker": speaker,
                "text": text,
            }
        )
        if id is not UNSET:
            field_dict["id"] = id
        if session is not UNSET:
            field_dict["session"] = session
        if ts is not UNSET:
            field_dict["ts"] = ts

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        speaker = d.pop("speaker")

        text = d.pop("text")

        def _parse_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        id = _parse_id(d.pop("id", UNSET))

        def _parse_session(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        session = _parse_session(d.pop("session", UNSET))

        def _parse_ts(data: object) -> float | int | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | int | None | str | Unset, data)

        ts = _parse_ts(d.pop("ts", UNSET))

        turn_in = cls(
            speaker=speaker,
            text=text,
            id=id,
            session=session,
            ts=ts,
        )

        return turn_in
