from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.job_out import JobOut
    from ..models.plan_out import PlanOut


T = TypeVar("T", bound="Accepted")


@_attrs_define
class Accepted:
    """The ingest was stored and queued.

    Attributes:
        job (JobOut): An ingest job and where it stands.
        job_id (UUID):
        plan (PlanOut): What processing a payload takes: segments and extraction calls.
        status (str):
        status_url (str):
    """

    job: JobOut
    job_id: UUID
    plan: PlanOut
    status: str
    status_url: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        job = self.job.to_dict()

        job_id = str(self.job_id)

        plan = self.plan.to_dict()

        status = self.status

        status_url = self.status_url

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "job": job,
                "job_id": job_id,
                "plan": plan,
                "status": status,
                "status_url": status_url,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.job_out import JobOut  # noqa: PLC0415
        from ..models.plan_out import PlanOut  # noqa: PLC0415

        d = dict(src_dict)
        job = JobOut.from_dict(d.pop("job"))

        job_id = UUID(d.pop("job_id"))

        plan = PlanOut.from_dict(d.pop("plan"))

        status = d.pop("status")

        status_url = d.pop("status_url")

        accepted = cls(
            job=job,
            job_id=job_id,
            plan=plan,
            status=status,
            status_url=status_url,
        )

        accepted.additional_properties = d
        return accepted

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
