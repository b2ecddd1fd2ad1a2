"""What use cases hand back to the API and CLI: plain records, not database rows."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from app.db.models import IngestJob, PassportVersion, Tenant


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


@dataclass(frozen=True)
class TenantView:
    """A tenant."""

    id: uuid.UUID
    name: str
    created_at: datetime


def job_view(job: IngestJob) -> JobView:
    """The record of a job row."""
    return JobView(
        id=job.id,
        user_key=job.user_key,
        kind=job.kind,
        status=job.status,
        progress_done=job.progress_done,
        progress_total=job.progress_total,
        usage=dict(job.usage or {}),
        error=job.error,
        result=dict(job.result or {}),
        version_after=job.version_after,
        attempts=job.attempts,
        created_at=job.created_at,
        started_at=job.started_at,
        finished_at=job.finished_at,
    )


def version_view(row: PassportVersion) -> VersionView:
    """The record of a version row."""
    return VersionView(
        version=row.version,
        created_at=row.created_at,
        cause=row.cause,
        job_id=row.job_id,
        summary=dict(row.summary or {}),
    )


def tenant_view(row: Tenant) -> TenantView:
    """The record of a tenant row."""
    return TenantView(id=row.id, name=row.name, created_at=row.created_at)
