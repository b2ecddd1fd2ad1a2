from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.said_date import SaidDate


T = TypeVar("T", bound="TurnEntry")


@_attrs_define
class TurnEntry:
    """One turn as it was said, verbatim: Tessera's addition to the SozoGraph format.

    ``id`` is the client's own message id (a content-derived ``t_...`` id when it gave none),
    ``dates`` the relative dates of the text resolved at ingest, beside the text, never in it.

        Attributes:
            id (str):
            text (str):
            dates (list[SaidDate] | Unset):
            role (None | str | Unset):
            session (None | str | Unset):
            source (None | str | Unset):
            speaker (str | Unset):  Default: ''.
            ts (None | str | Unset):
    """

    id: str
    text: str
    dates: list[SaidDate] | Unset = UNSET
    role: None | str | Unset = UNSET
    session: None | str | Unset = UNSET
    source: None | str | Unset = UNSET
    speaker: str | Unset = ""
    ts: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        text = self.text

        dates: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.dates, Unset):
            dates = []
            for dates_item_data in self.dates:
                dates_item = dates_item_data.to_dict()
                dates.append(dates_item)

        role: None | str | Unset
        if isinstance(self.role, Unset):
            role = UNSET
        else:
            role = self.role

        session: None | str | Unset
        if isinstance(self.session, Unset):
            session = UNSET
        else:
            session = self.session

        source: None | str | Unset
        if isinstance(self.source, Unset):
            source = UNSET
        else:
            source = self.source

        speaker = self.speaker

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
                "text": text,
            }
        )
        if dates is not UNSET:
            field_dict["dates"] = dates
        if role is not UNSET:
            field_dict["role"] = role
        if session is not UNSET:
            field_dict["session"] = session
        if source is not UNSET:
            field_dict["source"] = source
        if speaker is not UNSET:
            field_dict["speaker"] = speaker
        if ts is not UNSET:
            field_dict["ts"] = ts

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.said_date import SaidDate  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        text = d.pop("text")

        _dates = d.pop("dates", UNSET)
        dates: list[SaidDate] | Unset = UNSET
        if _dates is not UNSET:
            dates = []
            for dates_item_data in _dates:
                dates_item = SaidDate.from_dict(dates_item_data)

                dates.append(dates_item)

        def _parse_role(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        role = _parse_role(d.pop("role", UNSET))

        def _parse_session(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        session = _parse_session(d.pop("session", UNSET))

        def _parse_source(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        source = _parse_source(d.pop("source", UNSET))

        speaker = d.pop("speaker", UNSET)

        def _parse_ts(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        ts = _parse_ts(d.pop("ts", UNSET))

        turn_entry = cls(
            id=id,
            text=text,
            dates=dates,
            role=role,
            session=session,
            source=source,
            speaker=speaker,
            ts=ts,
        )

        turn_entry.additional_properties = d
        return turn_entry

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
