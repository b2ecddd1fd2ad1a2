from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="IssuedKeyOut")


@_attrs_define
class IssuedKeyOut:
    """A new API key. The full key is shown this once and never stored.

    Attributes:
        created_at (datetime.datetime):
        key (str):
        name (str):
        prefix (str):
        tenant_id (UUID):
    """

    created_at: datetime.datetime
    key: str
    name: str
    prefix: str
    tenant_id: UUID
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        key = self.key

        name = self.name

        prefix = self.prefix

        tenant_id = str(self.tenant_id)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "key": key,
                "name": name,
                "prefix": prefix,
                "tenant_id": tenant_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        key = d.pop("key")

        name = d.pop("name")

        prefix = d.pop("prefix")

        tenant_id = UUID(d.pop("tenant_id"))

        issued_key_out = cls(
            created_at=created_at,
            key=key,
            name=name,
            prefix=prefix,
            tenant_id=tenant_id,
        )

        issued_key_out.additional_properties = d
        return issued_key_out

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
