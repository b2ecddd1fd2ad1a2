from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.row_in import RowIn
    from ..models.text_in import TextIn
    from ..models.turn_in import TurnIn


T = TypeVar("T", bound="IngestPayload")


@_attrs_define
class IngestPayload:
    """What to remember: a text, chat turns, database rows, or a mixed list of them.

    Attributes:
        items (list[RowIn | TextIn | TurnIn] | None | Unset): A mixed list, order kept: an item with 'table' is a row,
            one with 'speaker' is a chat turn, anything else is a text block.
        rows (list[RowIn] | None | Unset): Database rows, in order.
        session_ts (float | int | None | str | Unset): Time of the whole session, used for items without their own ts.
        subject (None | str | Unset): Which speaker the passport is about (default: the end user).
        text (None | str | Unset): A block of free text.
        turns (list[TurnIn] | None | Unset): Chat turns, in order.
    """

    items: list[RowIn | TextIn | TurnIn] | None | Unset = UNSET
    rows: list[RowIn] | None | Unset = UNSET
    session_ts: float | int | None | str | Unset = UNSET
    subject: None | str | Unset = UNSET
    text: None | str | Unset = UNSET
    turns: list[TurnIn] | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.row_in import RowIn  # noqa: PLC0415
        from ..models.turn_in import TurnIn  # noqa: PLC0415

        items: list[dict[str, Any]] | None | Unset
        if isinstance(self.items, Unset):
            items = UNSET
        elif isinstance(self.items, list):
            items = []
            for items_type_0_item_data in self.items:
                items_type_0_item: dict[str, Any]
                if isinstance(items_type_0_item_data, TurnIn):
                    items_type_0_item = items_type_0_item_data.to_dict()
                elif isinstance(items_type_0_item_data, RowIn):
                    items_type_0_item = items_type_0_item_data.to_dict()
                else:
                    items_type_0_item = items_type_0_item_data.to_dict()

                items.append(items_type_0_item)

        else:
            items = self.items

        rows: list[dict[str, Any]] | None | Unset
        if isinstance(self.rows, Unset):
            rows = UNSET
        elif isinstance(self.rows, list):
            rows = []
            for rows_type_0_item_data in self.rows:
                rows_type_0_item = rows_type_0_item_data.to_dict()
                rows.append(rows_type_0_item)

        else:
            rows = self.rows

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

        text: None | str | Unset
        if isinstance(self.text, Unset):
            text = UNSET
        else:
            text = self.text

        turns: list[dict[str, Any]] | None | Unset
        if isinstance(self.turns, Unset):
            turns = UNSET
        elif isinstance(self.turns, list):
            turns = []
            for turns_type_0_item_data in self.turns:
                turns_type_0_item = turns_type_0_item_data.to_dict()
                turns.append(turns_type_0_item)

        else:
            turns = self.turns

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if items is not UNSET:
            field_dict["items"] = items
        if rows is not UNSET:
            field_dict["rows"] = rows
        if session_ts is not UNSET:
            field_dict["session_ts"] = session_ts
        if subject is not UNSET:
            field_dict["subject"] = subject
        if text is not UNSET:
            field_dict["text"] = text
        if turns is not UNSET:
            field_dict["turns"] = turns

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.row_in import RowIn  # noqa: PLC0415
        from ..models.text_in import TextIn  # noqa: PLC0415
        from ..models.turn_in import TurnIn  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_items(data: object) -> list[RowIn | TextIn | TurnIn] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                items_type_0 = []
                _items_type_0 = data
                for items_type_0_item_data in _items_type_0:

                    def _parse_items_type_0_item(data: object) -> RowIn | TextIn | TurnIn:
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            items_type_0_item_type_0 = TurnIn.from_dict(data)

                            return items_type_0_item_type_0
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            items_type_0_item_type_1 = RowIn.from_dict(data)

                            return items_type_0_item_type_1
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        if not isinstance(data, dict):
                            raise TypeError()
                        items_type_0_item_type_2 = TextIn.from_dict(data)

                        return items_type_0_item_type_2

                    items_type_0_item = _parse_items_type_0_item(items_type_0_item_data)

                    items_type_0.append(items_type_0_item)

                return items_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[RowIn | TextIn | TurnIn] | None | Unset, data)

        items = _parse_items(d.pop("items", UNSET))

        def _parse_rows(data: object) -> list[RowIn] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                rows_type_0 = []
                _rows_type_0 = data
                for rows_type_0_item_data in _rows_type_0:
                    rows_type_0_item = RowIn.from_dict(rows_type_0_item_data)

                    rows_type_0.append(rows_type_0_item)

                return rows_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[RowIn] | None | Unset, data)

        rows = _parse_rows(d.pop("rows", UNSET))

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

        def _parse_text(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        text = _parse_text(d.pop("text", UNSET))

        def _parse_turns(data: object) -> list[TurnIn] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                turns_type_0 = []
                _turns_type_0 = data
                for turns_type_0_item_data in _turns_type_0:
                    turns_type_0_item = TurnIn.from_dict(turns_type_0_item_data)

                    turns_type_0.append(turns_type_0_item)

                return turns_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[TurnIn] | None | Unset, data)

        turns = _parse_turns(d.pop("turns", UNSET))

        ingest_payload = cls(
            items=items,
            rows=rows,
            session_ts=session_ts,
            subject=subject,
            text=text,
            turns=turns,
        )

        return ingest_payload
