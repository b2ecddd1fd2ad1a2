from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.imported_item import ImportedItem


T = TypeVar("T", bound="ImportEnvelope")


@_attrs_define
class ImportEnvelope:
    """The items under the key another service's export puts them, with ingest's options.

    Attributes:
        memories (list[ImportedItem] | None | Unset):
        messages (list[ImportedItem] | None | Unset):
        results (list[ImportedItem] | None | Unset):
        session_ts (float | int | None | str | Unset):
        subject (None | str | Unset):
    """

    memories: list[ImportedItem] | None | Unset = UNSET
    messages: list[ImportedItem] | None | Unset = UNSET
    results: list[ImportedItem] | None | Unset = UNSET
    session_ts: float | int | None | str | Unset = UNSET
    subject: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        memories: list[dict[str, Any]] | None | Unset
        if isinstance(self.memories, Unset):
            memories = UNSET
        elif isinstance(self.memories, list):
            memories = []
            for memories_type_0_item_data in self.memories:
                memories_type_0_item = memories_type_0_item_data.to_dict()
                memories.append(memories_type_0_item)

        else:
            memories = self.memories

        messages: list[dict[str, Any]] | None | Unset
        if isinstance(self.messages, Unset):
            messages = UNSET
        elif isinstance(self.messages, list):
            messages = []
            for messages_type_0_item_data in self.messages:
                messages_type_0_item = messages_type_0_item_data.to_dict()
                messages.append(messages_type_0_item)

        else:
            messages = self.messages

        results: list[dict[str, Any]] | None | Unset
        if isinstance(self.results, Unset):
            results = UNSET
        elif isinstance(self.results, list):
            results = []
            for results_type_0_item_data in self.results:
                results_type_0_item = results_type_0_item_data.to_dict()
                results.append(results_type_0_item)

        else:
            results = self.results

        session_ts: float | int | None | str | Unset
        if isinstance(self.session_ts, Unset):
            session_ts = UNSET
        else:
            session_ts = self.session_ts

        subject: None | str | Unset
        if isinstance(self.subject, Unset):
            subject = UNSET
        else:
            subject = self.subject

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if memories is not UNSET:
            field_dict["memories"] = memories
        if messages is not UNSET:
            field_dict["messages"] = messages
        if results is not UNSET:
            field_dict["results"] = results
        if session_ts is not UNSET:
            field_dict["session_ts"] = session_ts
        if subject is not UNSET:
            field_dict["subject"] = subject

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.imported_item import ImportedItem  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_memories(data: object) -> list[ImportedItem] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                memories_type_0 = []
                _memories_type_0 = data
                for memories_type_0_item_data in _memories_type_0:
                    memories_type_0_item = ImportedItem.from_dict(memories_type_0_item_data)

                    memories_type_0.append(memories_type_0_item)

                return memories_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ImportedItem] | None | Unset, data)

        memories = _parse_memories(d.pop("memories", UNSET))

        def _parse_messages(data: object) -> list[ImportedItem] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                messages_type_0 = []
                _messages_type_0 = data
                for messages_type_0_item_data in _messages_type_0:
                    messages_type_0_item = ImportedItem.from_dict(messages_type_0_item_data)

                    messages_type_0.append(messages_type_0_item)

                return messages_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ImportedItem] | None | Unset, data)

        messages = _parse_messages(d.pop("messages", UNSET))

        def _parse_results(data: object) -> list[ImportedItem] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                results_type_0 = []
                _results_type_0 = data
                for results_type_0_item_data in _results_type_0:
                    results_type_0_item = ImportedItem.from_dict(results_type_0_item_data)

                    results_type_0.append(results_type_0_item)

                return results_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ImportedItem] | None | Unset, data)

        results = _parse_results(d.pop("results", UNSET))

        def _parse_session_ts(data: object) -> float | int | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | int | None | str | Unset, data)

        session_ts = _parse_session_ts(d.pop("session_ts", UNSET))

        def _parse_subject(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        subject = _parse_subject(d.pop("subject", UNSET))

        import_envelope = cls(
            memories=memories,
            messages=messages,
            results=results,
            session_ts=session_ts,
            subject=subject,
        )

        return import_envelope
