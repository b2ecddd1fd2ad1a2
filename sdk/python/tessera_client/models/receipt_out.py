from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.receipt_out_removed import ReceiptOutRemoved


T = TypeVar("T", bound="ReceiptOut")


@_attrs_define
class ReceiptOut:
    """A signed account of what a forget removed from each store; holds no content.

    Attributes:
        actor (str): The prefix of the API key that asked ('' if none).
        algorithm (None | str): HMAC-SHA256, or none when unsigned.
        at (str): When, in UTC (ISO 8601).
        id (UUID):
        redacted (list[str]): Content hashes of the log rows deleted; the chain keeps them, marked redacted.
        removed (ReceiptOutRemoved): How much went, per store.
        root (None | str): The chain's root after the forget (user: the root of the history deleted).
        scope (str): turn, source, session or user
        signature (None | str): Hex HMAC of the receipt's canonical JSON without this field (docs/memory.md).
        target (None | str): The turn id or source id forgotten (user: none).
        tenant_id (UUID):
        user_key (str):
        version (int | None): The version that records the forget (user: none).
    """

    actor: str
    algorithm: None | str
    at: str
    id: UUID
    redacted: list[str]
    removed: ReceiptOutRemoved
    root: None | str
    scope: str
    signature: None | str
    target: None | str
    tenant_id: UUID
    user_key: str
    version: int | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        actor = self.actor

        algorithm: None | str
        algorithm = self.algorithm

        at = self.at

        id = str(self.id)

        redacted = self.redacted

        removed = self.removed.to_dict()

        root: None | str
        root = self.root

        scope = self.scope

        signature: None | str
        signature = self.signature

        target: None | str
        target = self.target

        tenant_id = str(self.tenant_id)

        user_key = self.user_key

        version: int | None
        version = self.version

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "actor": actor,
                "algorithm": algorithm,
                "at": at,
                "id": id,
                "redacted": redacted,
                "removed": removed,
                "root": root,
                "scope": scope,
                "signature": signature,
                "target": target,
                "tenant_id": tenant_id,
                "user_key": user_key,
                "version": version,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.receipt_out_removed import ReceiptOutRemoved  # noqa: PLC0415

        d = dict(src_dict)
        actor = d.pop("actor")

        def _parse_algorithm(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        algorithm = _parse_algorithm(d.pop("algorithm"))

        at = d.pop("at")

        id = UUID(d.pop("id"))

        redacted = cast(list[str], d.pop("redacted"))

        removed = ReceiptOutRemoved.from_dict(d.pop("removed"))

        def _parse_root(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        root = _parse_root(d.pop("root"))

        scope = d.pop("scope")

        def _parse_signature(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        signature = _parse_signature(d.pop("signature"))

        def _parse_target(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        target = _parse_target(d.pop("target"))

        tenant_id = UUID(d.pop("tenant_id"))

        user_key = d.pop("user_key")

        def _parse_version(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        version = _parse_version(d.pop("version"))

        receipt_out = cls(
            actor=actor,
            algorithm=algorithm,
            at=at,
            id=id,
            redacted=redacted,
            removed=removed,
            root=root,
            scope=scope,
            signature=signature,
            target=target,
            tenant_id=tenant_id,
            user_key=user_key,
            version=version,
        )

        receipt_out.additional_properties = d
        return receipt_out

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
