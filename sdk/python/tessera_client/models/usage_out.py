from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.day_out import DayOut
    from ..models.usage_counts import UsageCounts


T = TypeVar("T", bound="UsageOut")


@_attrs_define
class UsageOut:
    """Sums over the period and one row per UTC day that had any usage.

    Attributes:
        days (list[DayOut]):
        since (datetime.date):
        totals (UsageCounts): What was spent.
        until (datetime.date):
    """

    days: list[DayOut]
    since: datetime.date
    totals: UsageCounts
    until: datetime.date
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        days = []
        for days_item_data in self.days:
            days_item = days_item_data.to_dict()
            days.append(days_item)

        since = self.since.isoformat()

        totals = self.totals.to_dict()

        until = self.until.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "days": days,
                "since": since,
                "totals": totals,
                "until": until,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.day_out import DayOut  # noqa: PLC0415
        from ..models.usage_counts import UsageCounts  # noqa: PLC0415

        d = dict(src_dict)
        days = []
        _days = d.pop("days")
        for days_item_data in _days:
            days_item = DayOut.from_dict(days_item_data)

            days.append(days_item)

        since = datetime.date.fromisoformat(d.pop("since"))

        totals = UsageCounts.from_dict(d.pop("totals"))

        until = datetime.date.fromisoformat(d.pop("until"))

        usage_out = cls(
            days=days,
            since=since,
            totals=totals,
            until=until,
        )

        usage_out.additional_properties = d
        return usage_out

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
