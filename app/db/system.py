"""Queries that are no tenant's: tenants and their keys, and the sweeper's work across tenants."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Select, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import ApiKey, IngestJob, Tenant
from app.db.signals import CHANNEL as JOB_DONE_CHANNEL
from app.db.signals import FORGOTTEN, job_signal, user_signal


class SystemRepository:
    """Queries that are not scoped to one tenant: tenants, key lookup, the job sweeper."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def ping(self) -> None:
        """One round trip to the database (readiness)."""
        await self.session.execute(select(1))

    async def add_tenant(self, tenant: Tenant) -> None:
        """Insert a tenant."""
        self.session.add(tenant)
        await self.session.flush()

    async def get_tenant(self, tenant_id: uuid.UUID) -> Tenant | None:
        """A tenant by id."""
        return await self.session.get(Tenant, tenant_id)

    async def find_tenant(self, id_or_name: str) -> Tenant | None:
        """A tenant by id or, failing that, by its (first-created) name."""
        try:
            found = await self.get_tenant(uuid.UUID(id_or_name))
            if found is not None:
                return found
        except ValueError:
            pass
        result = await self.session.execute(
            select(Tenant).where(Tenant.name == id_or_name).order_by(Tenant.created_at).limit(1)
        )
        return result.scalar_one_or_none()

    async def list_tenants(self) -> Sequence[Tenant]:
        """All tenants, oldest first."""
        result = await self.session.execute(select(Tenant).order_by(Tenant.created_at, Tenant.id))
        return result.scalars().all()

    async def add_key(self, key: ApiKey) -> None:
        """Insert an API key row (hash only)."""
        self.session.add(key)
        await self.session.flush()

    async def key_by_prefix(self, prefix: str) -> ApiKey | None:
        """The key row with this public prefix."""
        result = await self.session.execute(select(ApiKey).where(ApiKey.prefix == prefix))
        return result.scalar_one_or_none()

    async def touch_key(self, key_id: uuid.UUID, now: datetime) -> None:
        """Record that a key was used."""
        await self.session.execute(
            update(ApiKey).where(ApiKey.id == key_id).values(last_used_at=now)
        )

    async def revoke_key(self, key_id: uuid.UUID, now: datetime) -> None:
        """Mark a key revoked."""
        await self.session.execute(update(ApiKey).where(ApiKey.id == key_id).values(revoked_at=now))

    async def signal_job_done(self, job_id: uuid.UUID, tenant_id: uuid.UUID, user_key: str) -> None:
        """Tell API processes that this job ended (delivered when the transaction commits)."""
        payload = job_signal(job_id, tenant_id, user_key)
        await self.session.execute(select(func.pg_notify(JOB_DONE_CHANNEL, payload)))

    async def signal_forgotten(self, tenant_id: uuid.UUID, user_key: str) -> None:
        """Tell every API process that this user was forgotten in part or deleted (on commit)."""
        payload = user_signal(tenant_id, user_key)
        await self.session.execute(select(func.pg_notify(FORGOTTEN, payload)))

    async def requeue_stale_jobs(
        self, older_than: datetime, now: datetime, limit: int = 500
    ) -> Sequence[tuple[uuid.UUID, uuid.UUID]]:
        """Put jobs left queued or running since older_than back to queued; return their ids.

        One UPDATE with the staleness test in its WHERE: a job that finishes meanwhile is never
        put back, and SKIP LOCKED leaves rows a worker is merging right now alone.
        """
        # A job deferred to a later budget window is waiting on purpose until it is due.
        deferred_until = IngestJob.result["deferred_until"].astext
        due = deferred_until.is_(None) | (deferred_until <= now.strftime("%Y-%m-%dT%H:%M:%SZ"))
        stale = (
            select(IngestJob.tenant_id, IngestJob.id)
            .where(
                IngestJob.status.in_(("queued", "running")),
                IngestJob.updated_at < older_than,
                due,
            )
            .order_by(IngestJob.updated_at)
        )
        return await self._update_unlocked_jobs(stale, limit, status="queued", updated_at=now)

    async def expire_payloads(self, finished_before: datetime, limit: int = 1000) -> int:
        """Drop the stored payload of jobs finished before the cutoff; returns how many."""
        expired = select(IngestJob.tenant_id, IngestJob.id).where(
            IngestJob.payload.is_not(None),
            IngestJob.finished_at.is_not(None),
            IngestJob.finished_at < finished_before,
            IngestJob.status.in_(("done", "failed")),
        )
        return len(await self._update_unlocked_jobs(expired, limit, payload=None))

    async def _update_unlocked_jobs(
        self, picked: Select[uuid.UUID, uuid.UUID], limit: int, **values: Any
    ) -> list[tuple[uuid.UUID, uuid.UUID]]:
        """Set ``values`` on up to ``limit`` of the jobs ``picked`` selects; their ids.

        SKIP LOCKED passes over the rows other transactions hold, so a sweep never waits on a
        worker merging a job, nor overwrites what that worker is about to commit.
        """
        locked = picked.limit(limit).with_for_update(skip_locked=True).subquery()
        result = await self.session.execute(
            update(IngestJob)
            .where(IngestJob.tenant_id == locked.c.tenant_id, IngestJob.id == locked.c.id)
            .values(**values)
            .returning(IngestJob.tenant_id, IngestJob.id)
        )
        return [(row[0], row[1]) for row in result.all()]
