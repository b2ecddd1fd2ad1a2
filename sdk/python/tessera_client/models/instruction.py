from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.instruction_history_item import InstructionHistoryItem


T = TypeVar("T", bound="Instruction")


@_attrs_define
class Instruction:
    """A standing instruction the user gave the agent ("always answer in French").

    ``key`` is what it governs: a newer instruction of the same key replaces it, and the ones it
    replaced stay in ``history``, newest first, each with its own ``ts``, ``source`` and
    ``turn_ids``, so a forget can take any of them away.

        Attributes:
            key (str):
            text (str):
            history (list[InstructionHistoryItem] | Unset):
            source (None | str | Unset):
            ts (None | str | Unset):
    """

    key: str
    text: str
    history: list[InstructionHistoryItem] | Unset = UNSET
    source: None | str | Unset = UNSET
    ts: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        key = self.key

        text = self.text

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
                "text": text,
            }
        )
        if history is not UNSET:
            field_dict["history"] = history
        if source is not UNSET:
            field_dict["source"] = source
        if ts is not UNSET:
            field_dict["ts"] = ts

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.instruction_history_item import InstructionHistoryItem  # noqa: PLC0415

        d = dict(src_dict)
        key = d.pop("key")

        text = d.pop("text")

        _history = d.pop("history", UNSET)
        history: list[InstructionHistoryItem] | Unset = UNSET
        if _history is not UNSET:
            history = []
            for history_item_data in _history:
                history_item = InstructionHistoryItem.from_dict(history_item_data)

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

        instruction = cls(
            key=key,
            text=text,
            history=history,
            source=source,
            ts=ts,
        )

        instruction.additional_properties = d
        return instruction

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
