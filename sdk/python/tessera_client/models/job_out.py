from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.job_out_result import JobOutResult
    from ..models.progress import Progress
    from ..models.usage import Usage


T = TypeVar("T", bound="JobOut")


@_attrs_define
class JobOut:
    """An ingest job and where it stands.

    Attributes:
        attempts (int):
        created_at (datetime.datetime):
        error (None | str): Why the job (or some of its segments) failed.
        finished_at (datetime.datetime | None):
        job_id (UUID):
        kind (str): ingest, reprocess or compact
        progress (Progress): Segments processed of the total.
        result (JobOutResult): What the job changed (summary), which segments failed, the plan.
        started_at (datetime.datetime | None):
        status (str): queued, running, done or failed
        status_url (str):
        usage (Usage): Model usage of a job, over all its runs.
        user_key (str):
        version_after (int | None): The passport version this job produced.
    """

    attempts: int
    created_at: datetime.datetime
    error: None | str
    finished_at: datetime.datetime | None
    job_id: UUID
    kind: str
    progress: Progress
    result: JobOutResult
    started_at: datetime.datetime | None
    status: str
    status_url: str
    usage: Usage
    user_key: str
    version_after: int | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        attempts = self.attempts

        created_at = self.created_at.isoformat()

        error: None | str
        error = self.error

        finished_at: None | str
        if isinstance(self.finished_at, datetime.datetime):
            finished_at = self.finished_at.isoformat()
        else:
            finished_at = self.finished_at

        job_id = str(self.job_id)

        kind = self.kind

        progress = self.progress.to_dict()

        result = self.result.to_dict()

        started_at: None | str
        if isinstance(self.started_at, datetime.datetime):
            started_at = self.started_at.isoformat()
        else:
            started_at = self.started_at

        status = self.status

        status_url = self.status_url

        usage = self.usage.to_dict()

        user_key = self.user_key

        version_after: int | None
        version_after = self.version_after

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "attempts": attempts,
                "created_at": created_at,
                "error": error,
                "finished_at": finished_at,
                "job_id": job_id,
                "kind": kind,
                "progress": progress,
                "result": result,
                "started_at": started_at,
                "status": status,
                "status_url": status_url,
                "usage": usage,
                "user_key": user_key,
                "version_after": version_after,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.job_out_result import JobOutResult  # noqa: PLC0415
        from ..models.progress import Progress  # noqa: PLC0415
        from ..models.usage import Usage  # noqa: PLC0415

        d = dict(src_dict)
        attempts = d.pop("attempts")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error = _parse_error(d.pop("error"))

        def _parse_finished_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                finished_at_type_0 = datetime.datetime.fromisoformat(data)

                return finished_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        finished_at = _parse_finished_at(d.pop("finished_at"))

        job_id = UUID(d.pop("job_id"))

        kind = d.pop("kind")

        progress = Progress.from_dict(d.pop("progress"))

        result = JobOutResult.from_dict(d.pop("result"))

        def _parse_started_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                started_at_type_0 = datetime.datetime.fromisoformat(data)

                return started_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        started_at = _parse_started_at(d.pop("started_at"))

        status = d.pop("status")

        status_url = d.pop("status_url")

        usage = Usage.from_dict(d.pop("usage"))

        user_key = d.pop("user_key")

        def _parse_version_after(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        version_after = _parse_version_after(d.pop("version_after"))

        job_out = cls(
            attempts=attempts,
            created_at=created_at,
            error=error,
            finished_at=finished_at,
            job_id=job_id,
            kind=kind,
            progress=progress,
            result=result,
            started_at=started_at,
            status=status,
            status_url=status_url,
            usage=usage,
            user_key=user_key,
            version_after=version_after,
        )

        job_out.additional_properties = d
        return job_out

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
