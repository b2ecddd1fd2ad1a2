"""What use cases hand back to the API and CLI: plain records, not database rows."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any, TypeVar

from app.db.models import IngestJob, PassportVersion, Tenant

View = TypeVar("View", "JobView", "VersionView", "TenantView")


@dataclass(frozen=True)
class JobView:
    """An ingest, reprocess or compact job as it stood when read."""

    id: uuid.UUID
    user_key: str
    kind: str
    status: str
    progress_done: int
    progress_total: int
    usage: dict[str, int]
    error: str | None
    result: dict[str, Any]
    version_after: int | None
    attempts: int
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None

    @property
    def finished(self) -> bool:
        """Whether the job ended (done or failed)."""
        return self.status in ("done", "failed")


@dataclass(frozen=True)
class VersionView:
    """One version of a passport: when, why, and a summary of what changed."""

    version: int
    created_at: datetime
    cause: str
    job_id: uuid.UUID | None
    summary: dict[str, Any]
    hash: str


@dataclass(frozen=True)
class TenantView:
    """A tenant."""

    id: uuid.UUID
    name: str
    created_at: datetime


def _record(view: type[View], row: object, **copies: Any) -> View:
    """A ``view`` of ``row``: each field read from the row's column of that name, or ``copies``."""
    columns = {field.name for field in fields(view)} - copies.keys()
    return view(**{name: getattr(row, name) for name in columns}, **copies)


def job_view(job: IngestJob) -> JobView:
    """The record of a job row."""
    return _record(JobView, job, usage=dict(job.usage or {}), result=dict(job.result or {}))


def version_view(row: PassportVersion) -> VersionView:
    """The record of a version row."""
    return _record(VersionView, row, summary=dict(row.summary or {}))


def tenant_view(row: Tenant) -> TenantView:
    """The record of a tenant row."""
    return _record(TenantView, row)
