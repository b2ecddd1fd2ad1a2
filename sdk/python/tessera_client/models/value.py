from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.value_history_item import ValueHistoryItem


T = TypeVar("T", bound="Value")


@_attrs_define
class Value:
    """A value the user stated about a thing of theirs ("Redis memory usage: 200MB").

    ``key`` is what it is about (the subject's stemmed words), ``about`` the subject as said.
    A newer value of the same key replaces it; the ones it replaced stay in ``history``, newest
    first, each with its own ``value``, ``ts``, ``source`` and ``turn_ids``.

        Attributes:
            key (str):
            value (str):
            about (str | Unset):  Default: ''.
            history (list[ValueHistoryItem] | Unset):
            source (None | str | Unset):
            ts (None | str | Unset):
    """

    key: str
    value: str
    about: str | Unset = ""
    history: list[ValueHistoryItem] | Unset = UNSET
    source: None | str | Unset = UNSET
    ts: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        key = self.key

        value = self.value

        about = self.about

        history: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.history, Unset):
            history = []
            for history_item_data in self.history:
                history_item = history_item_data.to_dict()
                history.append(history_item)

        source: None | str | Unset
        if isinstance(self.source, Unset):
            source = UNSET
        else:
            source = self.source

        ts: None | str | Unset
        if isinstance(self.ts, Unset):
            ts = UNSET
        else:
            ts = self.ts

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "key": key,
                "value": value,
            }
        )
        if about is not UNSET:
            field_dict["about"] = about
        if history is not UNSET:
            field_dict["history"] = history
        if source is not UNSET:
            field_dict["source"] = source
        if ts is not UNSET:
            field_dict["ts"] = ts

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.value_history_item import ValueHistoryItem  # noqa: PLC0415

        d = dict(src_dict)
        key = d.pop("key")

        value = d.pop("value")

        about = d.pop("about", UNSET)

        _history = d.pop("history", UNSET)
        history: list[ValueHistoryItem] | Unset = UNSET
        if _history is not UNSET:
            history = []
            for history_item_data in _history:
                history_item = ValueHistoryItem.from_dict(history_item_data)

                history.append(history_item)

        def _parse_source(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        source = _parse_source(d.pop("source", UNSET))

        def _parse_ts(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        ts = _parse_ts(d.pop("ts", UNSET))

        value = cls(
            key=key,
            value=value,
            about=about,
            history=history,
            source=source,
            ts=ts,
        )

        value.additional_properties = d
        return value

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
