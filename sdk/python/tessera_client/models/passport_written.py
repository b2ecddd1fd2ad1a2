from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="PassportWritten")


@_attrs_define
class PassportWritten:
    """Where the passport stands after a write.

    Attributes:
        changed (bool):
        created (bool):
        user_key (str):
        version (int):
    """

    changed: bool
    created: bool
    user_key: str
    version: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        changed = self.changed

        created = self.created

        user_key = self.user_key

        version = self.version

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "changed": changed,
                "created": created,
                "user_key": user_key,
                "version": version,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        changed = d.pop("changed")

        created = d.pop("created")

        user_key = d.pop("user_key")

        version = d.pop("version")

        passport_written = cls(
            changed=changed,
            created=created,
            user_key=user_key,
            version=version,
        )

        passport_written.additional_properties = d
        return passport_written

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
