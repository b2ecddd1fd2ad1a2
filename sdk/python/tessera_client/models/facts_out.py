from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.facts_out_summary import FactsOutSummary


T = TypeVar("T", bound="FactsOut")


@_attrs_define
class FactsOut:
    """The version after the write and what changed.

    Attributes:
        changed (bool):
        summary (FactsOutSummary):
        user_key (str):
        version (int):
    """

    changed: bool
    summary: FactsOutSummary
    user_key: str
    version: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        changed = self.changed

        summary = self.summary.to_dict()

        user_key = self.user_key

        version = self.version

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "changed": changed,
                "summary": summary,
                "user_key": user_key,
                "version": version,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.facts_out_summary import FactsOutSummary  # noqa: PLC0415

        d = dict(src_dict)
        changed = d.pop("changed")

        summary = FactsOutSummary.from_dict(d.pop("summary"))

        user_key = d.pop("user_key")

        version = d.pop("version")

        facts_out = cls(
            changed=changed,
            summary=summary,
            user_key=user_key,
            version=version,
        )

        facts_out.additional_properties = d
        return facts_out

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
