from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.row_in_row import RowInRow


T = TypeVar("T", bound="RowIn")


@_attrs_define
class RowIn:
    """One database row, rendered as 'table: col=value; ...' for extraction.

    Attributes:
        row (RowInRow): Column name to value.
        table (str): The client's table name.
        id (None | str | Unset):
        ts (float | int | None | str | Unset):
    """

    row: RowInRow
    table: str
    id: None | str | Unset = UNSET
    ts: float | int | None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        row = self.row.to_dict()

        table = self.table

        id: None | str | Unset
        if isinstance(self.id, Unset):
            id = UNSET
        else:
            id = self.id

        ts: float | int | None | str | Unset
        if isinstance(self.ts, Unset):
            ts = UNSET
        else:
            ts = self.ts

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "row": row,
                "table": table,
            }
        )
        if id is not UNSET:
            field_dict["id"] = id
        if ts is not UNSET:
            field_dict["ts"] = ts

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.row_in_row import RowInRow  # noqa: PLC0415

        d = dict(src_dict)
        row = RowInRow.from_dict(d.pop("row"))

        table = d.pop("table")

        def _parse_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        id = _parse_id(d.pop("id", UNSET))

        def _parse_ts(data: object) -> float | int | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | int | None | str | Unset, data)

        ts = _parse_ts(d.pop("ts", UNSET))

        row_in = cls(
            row=row,
            table=table,
            id=id,
            ts=ts,
        )

        return row_in
