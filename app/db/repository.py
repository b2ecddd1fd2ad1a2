"""The one place that knows SQL. Tenant-scoped queries add the tenant filter here, once."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any, NamedTuple, Protocol, Self, TypeVar

from sqlalchemy import ColumnElement, Select, delete, func, inspect, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import (
    ApiKey,
    ExtractionCache,
    IngestJob,
    PassportRow,
    PassportVersion,
    Tenant,
    TenantUsage,
)

USAGE_FIELDS = ("jobs", "calls", "input_tokens", "output_tokens", "cache_hits")

# The per-tenant tables: every one has a tenant_id column that starts its primary key.
TenantModel = (
    type[PassportRow]
    | type[PassportVersion]
    | type[IngestJob]
    | type[ExtractionCache]
    | type[TenantUsage]
)


class _Filterable(Protocol):
    def where(self, *whereclause: Any) -> Self: ...


Stmt = TypeVar("Stmt", bound=_Filterable)
# One row type of the per-tenant tables, and of those whose rows belong to one user.
Row = TypeVar("Row", PassportRow, PassportVersion, IngestJob, ExtractionCache, TenantUsage)
UserRow = TypeVar("UserRow", PassportVersion, IngestJob)


class PassportStamp(NamedTuple):
    """What identifies a passport's content: its version, and when this user's row was created.

    Versions restart at 0 when a user is deleted and created again; the creation time tells
    the new passport's version 3 from the old one's, so no cache serves the deleted user.
    """

    version: int
    created_at: datetime


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

    async def count_keys(self, tenant_id: uuid.UUID) -> int:
        """How many live keys a tenant has."""
        result = await self.session.execute(
            select(func.count())
            .select_from(ApiKey)
            .where(ApiKey.tenant_id == tenant_id, ApiKey.revoked_at.is_(None))
        )
        return int(result.scalar_one())

    async def touch_key(self, key_id: uuid.UUID, now: datetime) -> None:
        """Record that a key was used."""
        await self.session.execute(
            update(ApiKey).where(ApiKey.id == key_id).values(last_used_at=now)
        )

    async def revoke_key(self, key_id: uuid.UUID, now: datetime) -> None:
        """Mark a key revoked."""
        await self.session.execute(update(ApiKey).where(ApiKey.id == key_id).values(revoked_at=now))

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


class TenantRepository:
    """Every query here is scoped to one tenant, by ``_scoped`` or by the row's own tenant_id."""

    def __init__(self, session: AsyncSession, tenant_id: uuid.UUID) -> None:
        self.session = session
        self.tenant_id = tenant_id

    def _scoped(self, stmt: Stmt, model: TenantModel) -> Stmt:
        """The one place a tenant filter is added to a SELECT, UPDATE or DELETE."""
        return stmt.where(model.tenant_id == self.tenant_id)

    async def _one(self, model: type[Row], *where: Any, lock: bool = False) -> Row | None:
        """The row of ``model`` that ``where`` picks, if any; with lock=True held FOR UPDATE."""
        stmt = self._scoped(select(model), model).where(*where)
        if lock:
            stmt = stmt.with_for_update()
        result = await self.session.execute(stmt)
        return result.scalar_one_or_none()

    async def _newest_first(
        self,
        model: type[UserRow],
        user_key: str,
        limit: int,
        order: Sequence[ColumnElement[Any]],
        below: ColumnElement[bool] | None,
    ) -> Sequence[UserRow]:
        """Up to ``limit`` of a user's rows in ``order``, only those ``below`` a cursor if given."""
        stmt = (
            self._scoped(select(model), model)
            .where(model.user_key == user_key)
            .order_by(*order)
            .limit(limit)
        )
        if below is not None:
            stmt = stmt.where(below)
        result = await self.session.execute(stmt)
        return result.scalars().all()

    # -- passports -------------------------------------------------------------------------

    async def passport(self, user_key: str, *, lock: bool = False) -> PassportRow | None:
        """The passport row; with lock=True it is held FOR UPDATE until commit."""
        return await self._one(PassportRow, PassportRow.user_key == user_key, lock=lock)

    async def passport_version(self, user_key: str) -> int | None:
        """Only the current version number: the cheap read behind ETags."""
        stamp = await self.passport_stamp(user_key)
        return None if stamp is None else stamp.version

    async def passport_stamp(self, user_key: str) -> PassportStamp | None:
        """The current version and creation time: what caches of a passport are keyed by."""
        stmt = self._scoped(select(PassportRow.version, PassportRow.created_at), PassportRow).where(
            PassportRow.user_key == user_key
        )
        row = (await self.session.execute(stmt)).first()
        return None if row is None else PassportStamp(row[0], row[1])

    async def create_passport_if_missing(
        self, user_key: str, doc: dict[str, Any], now: datetime
    ) -> bool:
        """Insert a version-0 passport unless one exists; True when this call created it."""
        result = await self.session.execute(
            insert(PassportRow)
            .values(
                tenant_id=self.tenant_id,
                user_key=user_key,
                doc=doc,
                version=0,
                created_at=now,
                updated_at=now,
            )
            .on_conflict_do_nothing(index_elements=["tenant_id", "user_key"])
            .returning(PassportRow.version)
        )
        return result.first() is not None

    async def save_passport(
        self, user_key: str, doc: dict[str, Any], version: int, now: datetime
    ) -> None:
        """Write a new document and version (the caller holds the row lock)."""
        await self.session.execute(
            self._scoped(update(PassportRow), PassportRow)
            .where(PassportRow.user_key == user_key)
            .values(doc=doc, version=version, updated_at=now)
        )

    async def delete_user(self, user_key: str) -> bool:
        """Hard-delete a passport; versions and jobs go with it (ON DELETE CASCADE)."""
        result = await self.session.execute(
            self._scoped(delete(PassportRow), PassportRow)
            .where(PassportRow.user_key == user_key)
            .returning(PassportRow.user_key)
        )
        return result.first() is not None

    async def list_users(
        self, limit: int, after: str | None
    ) -> Sequence[tuple[str, int, datetime, datetime]]:
        """Users in key order after a cursor: (user_key, version, created_at, updated_at)."""
        stmt = (
            self._scoped(
                select(
                    PassportRow.user_key,
                    PassportRow.version,
                    PassportRow.created_at,
                    PassportRow.updated_at,
                ),
                PassportRow,
            )
            .order_by(PassportRow.user_key)
            .limit(limit)
        )
        if after is not None:
            stmt = stmt.where(PassportRow.user_key > after)
        result = await self.session.execute(stmt)
        return [(row[0], row[1], row[2], row[3]) for row in result.all()]

    # -- versions --------------------------------------------------------------------------

    async def add_version(self, row: PassportVersion) -> None:
        """Append a version row (tenant id forced to this repository's)."""
        row.tenant_id = self.tenant_id
        self.session.add(row)
        await self.session.flush()

    async def list_versions(
        self, user_key: str, limit: int, before: int | None
    ) -> Sequence[PassportVersion]:
        """Version rows newest first, below an optional cursor."""
        below = None if before is None else PassportVersion.version < before
        order = [PassportVersion.version.desc()]
        return await self._newest_first(PassportVersion, user_key, limit, order, below)

    async def versions_to_rebuild(self, user_key: str, version: int) -> Sequence[PassportVersion]:
        """The rows from the newest snapshot at or below version up to version, in order."""
        base = await self.session.execute(
            self._scoped(select(func.max(PassportVersion.version)), PassportVersion).where(
                PassportVersion.user_key == user_key,
                PassportVersion.version <= version,
                PassportVersion.snapshot.is_not(None),
            )
        )
        start = base.scalar_one_or_none()
        if start is None:
            return []
        result = await self.session.execute(
            self._scoped(select(PassportVersion), PassportVersion)
            .where(
                PassportVersion.user_key == user_key,
                PassportVersion.version >= start,
                PassportVersion.version <= version,
            )
            .order_by(PassportVersion.version)
        )
        return result.scalars().all()

    # -- jobs ------------------------------------------------------------------------------

    async def add_job(self, job: IngestJob) -> None:
        """Insert a job row (tenant id forced to this repository's)."""
        job.tenant_id = self.tenant_id
        self.session.add(job)
        await self.session.flush()

    async def add_job_once(self, job: IngestJob) -> tuple[IngestJob, bool]:
        """Insert a job unless its Idempotency-Key was taken; (the row, whether it is this one).

        ON CONFLICT waits for a concurrent insert of the same key and then yields to it, so
        two requests with one key never both create a job, and neither fails.
        """
        job.tenant_id = self.tenant_id
        values = {
            attr.key: getattr(job, attr.key)
            for attr in inspect(IngestJob).column_attrs
            if getattr(job, attr.key) is not None
        }
        result = await self.session.execute(
            insert(IngestJob)
            .values(**values)
            .on_conflict_do_nothing(index_elements=["tenant_id", "idempotency_key"])
            .returning(IngestJob)
        )
        created = result.scalar_one_or_none()
        if created is not None:
            return created, True
        earlier = await self.job_by_idempotency_key(job.idempotency_key or "")
        if earlier is None:  # only a key conflict makes the insert do nothing
            raise LookupError(f"job insert of {job.id} did nothing, and no job holds its key")
        return earlier, False

    async def job(self, job_id: uuid.UUID, *, lock: bool = False) -> IngestJob | None:
        """A job by id."""
        return await self._one(IngestJob, IngestJob.id == job_id, lock=lock)

    async def job_by_idempotency_key(self, key: str) -> IngestJob | None:
        """The job accepted earlier under this Idempotency-Key."""
        return await self._one(IngestJob, IngestJob.idempotency_key == key)

    async def list_jobs(
        self, user_key: str, limit: int, before: datetime | None
    ) -> Sequence[IngestJob]:
        """A user's jobs, newest first."""
        below = None if before is None else IngestJob.created_at < before
        order: list[ColumnElement[Any]] = [IngestJob.created_at.desc(), IngestJob.id.desc()]
        return await self._newest_first(IngestJob, user_key, limit, order, below)

    async def claim_job(
        self, job_id: uuid.UUID, now: datetime, stale_before: datetime
    ) -> IngestJob | None:
        """Take a queued job, or a running one whose worker went silent; None if not ours."""
        result = await self.session.execute(
            self._scoped(update(IngestJob), IngestJob)
            .where(
                IngestJob.id == job_id,
                (IngestJob.status == "queued")
                | ((IngestJob.status == "running") & (IngestJob.updated_at < stale_before)),
            )
            .values(
                status="running",
                attempts=IngestJob.attempts + 1,
                started_at=func.coalesce(IngestJob.started_at, now),
                updated_at=now,
            )
            .returning(IngestJob)
        )
        return result.scalar_one_or_none()

    async def update_job(self, job_id: uuid.UUID, **values: Any) -> None:
        """Set columns of a job row."""
        await self.session.execute(
            self._scoped(update(IngestJob), IngestJob)
            .where(IngestJob.id == job_id)
            .values(**values)
        )

    async def requeue_finished_job(self, job_id: uuid.UUID, now: datetime) -> IngestJob | None:
        """Put a done or failed job back to queued with fresh attempts; None if it is not one."""
        result = await self.session.execute(
            self._scoped(update(IngestJob), IngestJob)
            .where(IngestJob.id == job_id, IngestJob.status.in_(("done", "failed")))
            .values(status="queued", attempts=0, finished_at=None, updated_at=now)
            .returning(IngestJob)
        )
        return result.scalar_one_or_none()

    async def unfinished_job_of_kind(self, user_key: str, kind: str) -> IngestJob | None:
        """A queued or running job of this kind for the user, if there is one."""
        result = await self.session.execute(
            self._scoped(select(IngestJob), IngestJob)
            .where(
                IngestJob.user_key == user_key,
                IngestJob.kind == kind,
                IngestJob.status.in_(("queued", "running")),
            )
            .limit(1)
        )
        return result.scalar_one_or_none()

    async def stored_ingest_jobs(self, user_key: str) -> Sequence[IngestJob]:
        """The user's done ingest jobs that still hold their payload, oldest first."""
        result = await self.session.execute(
            self._scoped(select(IngestJob), IngestJob)
            .where(
                IngestJob.user_key == user_key,
                IngestJob.kind == "ingest",
                IngestJob.status == "done",
                IngestJob.payload.is_not(None),
            )
            .order_by(IngestJob.created_at, IngestJob.id)
        )
        return result.scalars().all()

    # -- extraction cache ------------------------------------------------------------------

    async def cached_extractions(self, keys: Sequence[str]) -> dict[str, ExtractionCache]:
        """The cached extractions among these keys."""
        if not keys:
            return {}
        result = await self.session.execute(
            self._scoped(select(ExtractionCache), ExtractionCache).where(
                ExtractionCache.key.in_(keys)
            )
        )
        return {row.key: row for row in result.scalars().all()}

    async def cache_extraction(
        self,
        key: str,
        user_key: str,
        extractor: str,
        output: dict[str, Any],
        input_tokens: int,
        output_tokens: int,
        now: datetime,
    ) -> bool:
        """Store one extraction unless the key is there; False when the user is gone meanwhile."""
        stmt = (
            insert(ExtractionCache)
            .values(
                tenant_id=self.tenant_id,
                key=key,
                user_key=user_key,
                extractor=extractor,
                output=output,
                input_tokens=input_tokens,
                output_tokens=output_tokens,
                created_at=now,
            )
            .on_conflict_do_nothing(index_elements=["tenant_id", "key"])
        )
        try:
            # A savepoint: a user deleted since the call fails the foreign key, not the session.
            async with self.session.begin_nested():
                await self.session.execute(stmt)
        except IntegrityError:
            return False
        return True

    # -- usage -----------------------------------------------------------------------------

    async def add_usage(self, hour: datetime, counts: dict[str, int]) -> None:
        """Add a job's counts to the tenant's row for this hour."""
        values = {name: int(counts.get(name, 0)) for name in USAGE_FIELDS}
        if not any(values.values()):
            return
        stmt = insert(TenantUsage).values(tenant_id=self.tenant_id, hour=hour, **values)
        await self.session.execute(
            stmt.on_conflict_do_update(
                index_elements=["tenant_id", "hour"],
                set_={name: getattr(TenantUsage, name) + stmt.excluded[name] for name in values},
            )
        )

    async def usage_by_day(
        self, since: datetime, until: datetime
    ) -> Sequence[tuple[datetime, int, int, int, int, int]]:
        """Per UTC day in [since, until): (day, jobs, calls, input, output tokens, cache hits)."""
        day = func.date_trunc("day", TenantUsage.hour, "UTC")
        result = await self.session.execute(
            self._scoped(
                select(day, *(func.sum(getattr(TenantUsage, name)) for name in USAGE_FIELDS)),
                TenantUsage,
            )
            .where(TenantUsage.hour >= since, TenantUsage.hour < until)
            .group_by(day)
            .order_by(day)
        )
        return [(row[0], *(int(n or 0) for n in row[1:])) for row in result.all()]
