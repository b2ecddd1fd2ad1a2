from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.issued_key_out import IssuedKeyOut
    from ..models.tenant_out import TenantOut


T = TypeVar("T", bound="TenantCreated")


@_attrs_define
class TenantCreated:
    """A new tenant and its first API key (shown once).

    Attributes:
        api_key (IssuedKeyOut): A new API key. The full key is shown this once and never stored.
        tenant (TenantOut): A tenant.
    """

    api_key: IssuedKeyOut
    tenant: TenantOut
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        api_key = self.api_key.to_dict()

        tenant = self.tenant.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "api_key": api_key,
                "tenant": tenant,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.issued_key_out import IssuedKeyOut  # noqa: PLC0415
        from ..models.tenant_out import TenantOut  # noqa: PLC0415

        d = dict(src_dict)
        api_key = IssuedKeyOut.from_dict(d.pop("api_key"))

        tenant = TenantOut.from_dict(d.pop("tenant"))

        tenant_created = cls(
            api_key=api_key,
            tenant=tenant,
        )

        tenant_created.additional_properties = d
        return tenant_created

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
