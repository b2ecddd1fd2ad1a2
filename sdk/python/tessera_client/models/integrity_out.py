from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="IntegrityOut")


@_attrs_define
class IntegrityOut:
    """What recomputing a user's hash chain from the stored rows found.

    Attributes:
        first_bad_version (int | None): Where the chain first fails, if it does.
        from_version (int): The first version checked.
        reason (None | str): Why it fails there.
        root (str): The root the passport holds (its newest version's hash).
        rows (int): Log rows checked.
        valid (bool):
        versions (int): Versions checked.
        index_segments (int | Unset): Stored index segments checked against the log and the chain (derived data a first
            read loads); one that differs makes the check fail, named in reason. Default: 0.
        root_version (int | None | Unset): With ?root=: the checked version whose hash it is (null when none is).
    """

    first_bad_version: int | None
    from_version: int
    reason: None | str
    root: str
    rows: int
    valid: bool
    versions: int
    index_segments: int | Unset = 0
    root_version: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        first_bad_version: int | None
        first_bad_version = self.first_bad_version

        from_version = self.from_version

        reason: None | str
        reason = self.reason

        root = self.root

        rows = self.rows

        valid = self.valid

        versions = self.versions

        index_segments = self.index_segments

        root_version: int | None | Unset
        if isinstance(self.root_version, Unset):
            root_version = UNSET
        else:
            root_version = self.root_version

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "first_bad_version": first_bad_version,
                "from_version": from_version,
                "reason": reason,
                "root": root,
                "rows": rows,
                "valid": valid,
                "versions": versions,
            }
        )
        if index_segments is not UNSET:
            field_dict["index_segments"] = index_segments
        if root_version is not UNSET:
            field_dict["root_version"] = root_version

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_first_bad_version(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        first_bad_version = _parse_first_bad_version(d.pop("first_bad_version"))

        from_version = d.pop("from_version")

        def _parse_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        reason = _parse_reason(d.pop("reason"))

        root = d.pop("root")

        rows = d.pop("rows")

        valid = d.pop("valid")

        versions = d.pop("versions")

        index_segments = d.pop("index_segments", UNSET)

        def _parse_root_version(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        root_version = _parse_root_version(d.pop("root_version", UNSET))

        integrity_out = cls(
            first_bad_version=first_bad_version,
            from_version=from_version,
            reason=reason,
            root=root,
            rows=rows,
            valid=valid,
            versions=versions,
            index_segments=index_segments,
            root_version=root_version,
        )

        integrity_out.additional_properties = d
        return integrity_out

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
