from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.version_changes_out_changes import VersionChangesOutChanges
    from ..models.version_changes_out_items import VersionChangesOutItems


T = TypeVar("T", bound="VersionChangesOut")


@_attrs_define
class VersionChangesOut:
    """One version and what it changed, item by item (an edited item: one removed, one added).

    Attributes:
        cause (str): create, import, ingest, facts, reprocess, compact or forget
        changes (VersionChangesOutChanges): Items added/removed per section.
        created_at (datetime.datetime):
        hash_ (str): This version's hash in the user's chain (the newest one is the root).
        items (VersionChangesOutItems): Per section, the items added and removed (at most ``limit`` of each; ``changes``
            counts them all). Forgotten turns and what came of them are not shown.
        job_id (None | UUID):
        version (int):
    """

    cause: str
    changes: VersionChangesOutChanges
    created_at: datetime.datetime
    hash_: str
    items: VersionChangesOutItems
    job_id: None | UUID
    version: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        cause = self.cause

        changes = self.changes.to_dict()

        created_at = self.created_at.isoformat()

        hash_ = self.hash_

        items = self.items.to_dict()

        job_id: None | str
        if isinstance(self.job_id, UUID):
            job_id = str(self.job_id)
        else:
            job_id = self.job_id

        version = self.version

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cause": cause,
                "changes": changes,
                "created_at": created_at,
                "hash": hash_,
                "items": items,
                "job_id": job_id,
                "version": version,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.version_changes_out_changes import VersionChangesOutChanges  # noqa: PLC0415
        from ..models.version_changes_out_items import VersionChangesOutItems  # noqa: PLC0415

        d = dict(src_dict)
        cause = d.pop("cause")

        changes = VersionChangesOutChanges.from_dict(d.pop("changes"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        hash_ = d.pop("hash")

        items = VersionChangesOutItems.from_dict(d.pop("items"))

        def _parse_job_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                job_id_type_0 = UUID(data)

                return job_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        job_id = _parse_job_id(d.pop("job_id"))

        version = d.pop("version")

        version_changes_out = cls(
            cause=cause,
            changes=changes,
            created_at=created_at,
            hash_=hash_,
            items=items,
            job_id=job_id,
            version=version,
        )

        version_changes_out.additional_properties = d
        return version_changes_out

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
