"""Queries that are no tenant's: tenants and their keys, and the sweeper's work across tenants."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Select, func, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.adapters.signals import CHANNEL as JOB_DONE_CHANNEL
from app.adapters.signals import FORGOTTEN, job_signal, user_signal
from app.db.models import ApiKey, IngestJob, Tenant

# The tenants with a job queued are found by skipping from one to the next along the partial
# index of queued jobs (Postgres has no skip scan of its own), so the pick costs the number of
# tenants waiting, not the number of jobs waiting.
_NEXT_FAIR_TENANT = text(
    """
    WITH RECURSIVE waiting(tenant_id) AS (
        (SELECT tenant_id FROM ingest_job WHERE status = 'queued' AND queue = :queue
         ORDER BY tenant_id LIMIT 1)
        UNION ALL
        SELECT (SELECT j.tenant_id FROM ingest_job j
                WHERE j.status = 'queued' AND j.queue = :queue AND j.tenant_id > w.tenant_id
                ORDER BY j.tenant_id LIMIT 1)
        FROM waiting w WHERE w.tenant_id IS NOT NULL
    )
    SELECT w.tenant_id
    FROM waiting w
    JOIN tenant t ON t.id = w.tenant_id
    CROSS JOIN LATERAL (
        SELECT j.id, j.created_at FROM ingest_job j
        WHERE j.tenant_id = w.tenant_id AND j.status = 'queued' AND j.queue = :queue
          AND (j.not_before IS NULL OR j.not_before <= :now)
        ORDER BY j.created_at, j.id LIMIT 1
    ) oldest
    ORDER BY
        (SELECT count(*) FROM ingest_job r
         WHERE r.tenant_id = w.tenant_id AND r.status = 'running'),
        t.last_served_at NULLS FIRST,
        oldest.created_at
    LIMIT 1
    """
)


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

    async def next_fair_tenant(self, queue: str, now: datetime) -> uuid.UUID | None:
        """The tenant a worker of ``queue`` should serve next: of those with a job queued and
        due, the one with the fewest jobs running, then the one served longest ago."""
        row = (await self.session.execute(_NEXT_FAIR_TENANT, {"now": now, "queue": queue})).first()
        return row[0] if row is not None else None

    async def mark_served(self, tenant_id: uuid.UUID, now: datetime) -> None:
        """Note that a worker took one of the tenant's jobs now."""
        await self.session.execute(
            update(Tenant).where(Tenant.id == tenant_id).values(last_served_at=now)
        )

    async def requeue_stale_jobs(
        self, queue: str, older_than: datetime, now: datetime, limit: int = 500
    ) -> Sequence[tuple[uuid.UUID, uuid.UUID]]:
        """Put ``queue``'s jobs left queued or running since older_than back; return their ids.

        One UPDATE with the staleness test in its WHERE: a job that finishes meanwhile is never
        put back, and SKIP LOCKED leaves rows a worker is merging right now alone.
        """
        # A job deferred to a later budget window is waiting on purpose until it is due.
        due = IngestJob.not_before.is_(None) | (IngestJob.not_before <= now)
        stale = (
            select(IngestJob.tenant_id, IngestJob.id)
            .where(
                IngestJob.status.in_(("queued", "running")),
                IngestJob.queue == queue,
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
