"""SQL on a tenant's data: every query here adds the tenant filter, in one helper (``_scoped``).

Queries across tenants (tenants, keys, the sweeper's) are in ``app.db.system``.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Collection, Sequence
from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import (
    ColumnElement,
    Integer,
    String,
    any_,
    delete,
    func,
    inspect,
    literal,
    or_,
    select,
    tuple_,
    update,
)
from sqlalchemy.dialects.postgresql import ARRAY, array, insert
from sqlalchemy.exc import IntegrityError

from app.db.conversations import ConversationRepository
from app.db.history import HistoryRepository
from app.db.models import (
    ExtractionCache,
    IngestJob,
    MemoryRow,
    PassportRow,
)
from app.db.segments import SegmentRepository
from app.db.usage import UsageRepository
from app.domain.memory.log import LogRow, StoredRow

# Rows fetched per round trip when a log is streamed.
STREAM_BATCH = 2000


def _stored(row: Any) -> StoredRow:
    return StoredRow(row.id, row.kind, row.item, row.hash, row.version_added)


class PassportState(NamedTuple):
    """What a write checks under the passport's lock when it merged the head already."""

    version: int
    log_epoch: int
    root: str


class PassportStamp(NamedTuple):
    """What identifies a passport's content: its version, and when this user's row was created.

    Versions restart at 0 when a user is deleted and created again; the creation time tells
    the new passport's version 3 from the old one's, so no cache serves the deleted user.
    """

    version: int
    created_at: datetime


class TenantRepository(
    HistoryRepository, SegmentRepository, ConversationRepository, UsageRepository
):
    """Every query here is scoped to one tenant, by ``_scoped`` or by the row's own tenant_id."""

    # -- passports -------------------------------------------------------------------------

    async def passport(self, user_key: str, *, lock: bool = False) -> PassportRow | None:
        """The passport row; with lock=True it is held FOR UPDATE until commit."""
        return await self._one(PassportRow, PassportRow.user_key == user_key, lock=lock)

    async def _passport_column(self, user_key: str, column: Any) -> Any:
        """One column of the user's passport row (None without one)."""
        result = await self.session.execute(
            self._scoped(select(column), PassportRow).where(PassportRow.user_key == user_key)
        )
        return result.scalar_one_or_none()

    async def passport_version(self, user_key: str) -> int | None:
        """Only the current version number: the cheap read behind ETags."""
        stamp = await self.passport_stamp(user_key)
        return None if stamp is None else stamp.version

    async def turn_counts(self, user_key: str) -> tuple[int, int, bool]:
        """The turns the user's log holds, those its queued or running ingests carry, and
        whether the user's passport exists.

        One statement, so one snapshot: a job finishing between two reads would move its turns
        from pending to stored unseen, and a limit checked on the two would be passed.
        """
        planned = IngestJob.result["plan"]["interactions"].astext.cast(Integer)
        pending = (
            self._scoped(select(func.sum(planned)), IngestJob)
            .where(
                IngestJob.user_key == user_key,
                IngestJob.kind == "ingest",
                IngestJob.status.in_(("queued", "running")),
            )
            .scalar_subquery()
        )
        stored = (
            self._scoped(select(PassportRow.turn_count), PassportRow)
            .where(PassportRow.user_key == user_key)
            .scalar_subquery()
        )
        row = (await self.session.execute(select(stored, pending))).one()
        return int(row[0] or 0), int(row[1] or 0), row[0] is not None

    async def passport_state(self, user_key: str, *, lock: bool = False) -> PassportState | None:
        """The row's version, log epoch and root without its head; lock=True holds the row."""
        stmt = self._scoped(
            select(PassportRow.version, PassportRow.log_epoch, PassportRow.root), PassportRow
        ).where(PassportRow.user_key == user_key)
        row = (await self.session.execute(stmt.with_for_update() if lock else stmt)).first()
        return None if row is None else PassportState(row[0], row[1], row[2])

    async def passport_stamp(self, user_key: str) -> PassportStamp | None:
        """The current version and creation time: what caches of a passport are keyed by."""
        stmt = self._scoped(select(PassportRow.version, PassportRow.created_at), PassportRow).where(
            PassportRow.user_key == user_key
        )
        row = (await self.session.execute(stmt)).first()
        return None if row is None else PassportStamp(row[0], row[1])

    async def create_passport_if_missing(
        self, user_key: str, doc: dict[str, Any], now: datetime, root: str
    ) -> bool:
        """Insert a version-0 passport unless one exists; True when this call created it."""
        result = await self.session.execute(
            insert(PassportRow)
            .values(
                tenant_id=self.tenant_id,
                user_key=user_key,
                doc=doc,
                version=0,
                root=root,
                created_at=now,
                updated_at=now,
            )
            .on_conflict_do_nothing(index_elements=["tenant_id", "user_key"])
            .returning(PassportRow.version)
        )
        return result.first() is not None

    async def save_passport(
        self,
        user_key: str,
        doc: dict[str, Any],
        version: int,
        now: datetime,
        *,
        root: str,
        new_epoch: bool = False,
        turns: int = 0,
    ) -> int:
        """Write a new head, version and root (the caller holds the row lock); the log's epoch.

        ``new_epoch`` says that log rows were removed or rewritten, so indexes grown from the
        rows must be built again; ``turns`` is how many turns the log gained (or lost).
        """
        values: dict[str, Any] = {"doc": doc, "version": version, "updated_at": now, "root": root}
        if new_epoch:
            values["log_epoch"] = PassportRow.log_epoch + 1
        if turns:
            values["turn_count"] = func.greatest(PassportRow.turn_count + turns, 0)
        result = await self.session.execute(
            self._scoped(update(PassportRow), PassportRow)
            .where(PassportRow.user_key == user_key)
            .values(**values)
            .returning(PassportRow.log_epoch)
        )
        return int(result.scalar_one())

    async def delete_user(self, user_key: str) -> bool:
        """Hard-delete a passport; versions and jobs go with it (ON DELETE CASCADE)."""
        result = await self.session.execute(
            self._scoped(delete(PassportRow), PassportRow)
            .where(PassportRow.user_key == user_key)
            .returning(PassportRow.user_key)
        )
        return result.first() is not None

    async def list_users(
        self, limit: int, after: str | None, containing: str | None = None
    ) -> Sequence[tuple[str, int, datetime, datetime]]:
        """Users in key order after a cursor: (user_key, version, created_at, updated_at).

        With ``containing``, only keys that hold it, in any case (the inspector's search).
        """
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
        if containing:
            stmt = stmt.where(PassportRow.user_key.icontains(containing, autoescape=True))
        result = await self.session.execute(stmt)
        return [(row[0], row[1], row[2], row[3]) for row in result.all()]

    # -- the log ---------------------------------------------------------------------------

    @staticmethod
    def _alive_at(version: int | None) -> ColumnElement[bool]:
        """Rows in the passport at ``version`` (None: now)."""
        if version is None:
            return MemoryRow.version_removed.is_(None)
        return (MemoryRow.version_added <= version) & (
            MemoryRow.version_removed.is_(None) | (MemoryRow.version_removed > version)
        )

    async def add_rows(
        self, user_key: str, rows: Sequence[LogRow], version: int, job_id: uuid.UUID | None
    ) -> list[int]:
        """Append rows written by ``version``; their ids, in the order given (log order)."""
        if not rows:
            return []
        values = [
            {
                "tenant_id": self.tenant_id,
                "user_key": user_key,
                "kind": row.kind,
                "hash": row.hash,
                "ts": row.ts,
                "session": row.session,
                "source": row.source,
                "turn_id": row.turn_id,
                "job_id": job_id,
                "version_added": version,
                "item": row.item,
            }
            for row in rows
        ]
        result = await self.session.execute(
            insert(MemoryRow).returning(MemoryRow.id, sort_by_parameter_order=True), values
        )
        return [int(r[0]) for r in result.all()]

    async def remove_rows(
        self, user_key: str, ids: Collection[int], version: int
    ) -> list[tuple[str, dict[str, Any]]]:
        """Take rows out of the passport as of ``version`` (they stay for earlier versions);
        the (kind, item) of each row taken out."""
        if not ids:
            return []
        result = await self.session.execute(
            self._scoped(update(MemoryRow), MemoryRow)
            .where(MemoryRow.user_key == user_key, MemoryRow.id.in_(list(ids)))
            .values(version_removed=version)
            .returning(MemoryRow.kind, MemoryRow.item)
        )
        return [(str(r[0]), r[1]) for r in result.all()]

    async def rows_by_hash(self, user_key: str, hashes: Collection[str]) -> list[StoredRow]:
        """The live rows with these identities (an index lookup)."""
        if not hashes:
            return []
        result = await self.session.execute(
            self._rows(user_key)
            .where(_one_of(MemoryRow.hash, hashes), self._alive_at(None))
            .order_by(MemoryRow.id)
        )
        return [_stored(r) for r in result.all()]

    async def rows_of_sources(
        self, user_key: str, sources: Collection[str], kinds: Collection[str]
    ) -> list[StoredRow]:
        """The live rows of these kinds that came from these sources."""
        if not sources:
            return []
        return await self._live_rows(
            user_key, _one_of(MemoryRow.source, sources), MemoryRow.kind.in_(sorted(kinds))
        )

    async def sources_of_turns(self, user_key: str, sources: Collection[str]) -> set[str]:
        """Which of these sources the user's live turns are filed under (an index lookup)."""
        if not sources:
            return set()
        result = await self.session.execute(
            self._rows(user_key, MemoryRow.source)
            .where(
                MemoryRow.kind == "turn",
                _one_of(MemoryRow.source, sources),
                self._alive_at(None),
            )
            .distinct()
        )
        return {str(r[0]) for r in result.all()}

    async def _live_rows(self, user_key: str, *where: ColumnElement[bool]) -> list[StoredRow]:
        """The user's live rows that meet ``where``, in log order."""
        result = await self.session.execute(
            self._rows(user_key).where(*where, self._alive_at(None)).order_by(MemoryRow.id)
        )
        return [_stored(r) for r in result.all()]

    async def rows_added_after(self, user_key: str, version: int) -> list[StoredRow]:
        """The live rows written after ``version``, in log order: what an index lacks."""
        return await self._live_rows(user_key, MemoryRow.version_added > version)

    async def live_rows_between(
        self, user_key: str, after: int, upto: int, kinds: Collection[str]
    ) -> list[StoredRow]:
        """The live rows of these kinds written by versions after ``after`` up to ``upto``."""
        return await self._live_rows(
            user_key,
            MemoryRow.version_added > after,
            MemoryRow.version_added <= upto,
            MemoryRow.kind.in_(sorted(kinds)),
        )

    async def rows_with_ids(self, user_key: str, ids: Collection[int]) -> list[StoredRow]:
        """These rows, alive or not, in log order; a forgotten row is simply not there."""
        if not ids:
            return []
        result = await self.session.execute(
            self._rows(user_key).where(MemoryRow.id.in_(sorted(ids))).order_by(MemoryRow.id)
        )
        return [_stored(r) for r in result.all()]

    async def turns_with_ids(
        self, user_key: str, turn_ids: Collection[str], version: int | None
    ) -> list[StoredRow]:
        """The turns with these client ids in the passport at ``version`` (None: now)."""
        if not turn_ids:
            return []
        result = await self.session.execute(
            self._rows(user_key)
            .where(
                MemoryRow.kind == "turn",
                MemoryRow.turn_id.in_(sorted(turn_ids)),
                self._alive_at(version),
            )
            .order_by(MemoryRow.id)
        )
        return [_stored(r) for r in result.all()]

    async def page_rows(
        self,
        user_key: str,
        *,
        version: int | None,
        kinds: Collection[str],
        after: int | None,
        limit: int,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> list[StoredRow]:
        """Up to ``limit`` rows of the passport at ``version``, in log order after a cursor."""
        stmt = (
            self._rows(user_key)
            .where(MemoryRow.kind.in_(sorted(kinds)), self._alive_at(version))
            .order_by(MemoryRow.id)
            .limit(limit)
        )
        if after is not None:
            stmt = stmt.where(MemoryRow.id > after)
        if since is not None:
            stmt = stmt.where(MemoryRow.ts >= since)
        if until is not None:
            stmt = stmt.where(MemoryRow.ts <= until)
        result = await self.session.execute(stmt)
        return [_stored(r) for r in result.all()]

    async def stream_rows(
        self,
        user_key: str,
        *,
        version: int | None,
        kinds: Collection[str] | None = None,
        newest_first: bool = False,
    ) -> AsyncIterator[StoredRow]:
        """Every row of the passport at ``version`` in log order (or newest first), in batches."""
        last: int | None = None
        while True:
            order = MemoryRow.id.desc() if newest_first else MemoryRow.id
            stmt = self._rows(user_key).where(self._alive_at(version)).order_by(order)
            if last is not None:
                stmt = stmt.where(MemoryRow.id < last if newest_first else MemoryRow.id > last)
            if kinds is not None:
                stmt = stmt.where(MemoryRow.kind.in_(sorted(kinds)))
            batch = (await self.session.execute(stmt.limit(STREAM_BATCH))).all()
            for row in batch:
                yield _stored(row)
            if len(batch) < STREAM_BATCH:
                return
            last = batch[-1].id

    async def turns_named(
        self,
        user_key: str,
        *,
        turn_id: str | None = None,
        source: str | None = None,
        session: str | None = None,
    ) -> list[StoredRow]:
        """Every turn row (live or not) with this client id, of this source, or of this
        session."""
        stmt = self._rows(user_key).where(MemoryRow.kind == "turn").order_by(MemoryRow.id)
        if turn_id is not None:
            stmt = stmt.where(MemoryRow.turn_id == turn_id)
        if source is not None:
            stmt = stmt.where(MemoryRow.source == source)
        if session is not None:
            stmt = stmt.where(MemoryRow.session == session)
        result = await self.session.execute(stmt)
        return [_stored(r) for r in result.all()]

    async def rows_derived_from(
        self, user_key: str, sources: Collection[str], turn_ids: Collection[str]
    ) -> list[StoredRow]:
        """Rows other than turns (live or not) that came from these sources or name these turns."""
        picked: list[ColumnElement[bool]] = []
        if sources:
            picked.append(MemoryRow.source.in_(sorted(sources)))
        if turn_ids:
            picked.append(MemoryRow.item["turn_ids"].has_any(array(sorted(turn_ids))))
        if not picked:
            return []
        result = await self.session.execute(
            self._rows(user_key)
            .where(MemoryRow.kind != "turn", or_(*picked))
            .order_by(MemoryRow.id)
        )
        return [_stored(r) for r in result.all()]

    async def delete_rows(self, user_key: str, ids: Collection[int]) -> None:
        """Hard-delete rows (forgetting): they leave every version."""
        if ids:
            await self.session.execute(
                self._scoped(delete(MemoryRow), MemoryRow).where(
                    MemoryRow.user_key == user_key, MemoryRow.id.in_(list(ids))
                )
            )

    async def rewrite_row(self, user_key: str, row_id: int, item: dict[str, Any]) -> None:
        """Replace a row's content in place (forgetting scrubs what other rows say of a turn)."""
        await self.session.execute(
            self._scoped(update(MemoryRow), MemoryRow)
            .where(MemoryRow.user_key == user_key, MemoryRow.id == row_id)
            .values(item=item)
        )

    async def turn_text_mentions(self, user_key: str, needle: str) -> bool:
        """Whether any live turn's text holds ``needle`` (case-insensitive)."""
        escaped = needle.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        result = await self.session.execute(
            self._rows(user_key, MemoryRow.id)
            .where(
                MemoryRow.kind == "turn",
                self._alive_at(None),
                MemoryRow.item["text"].astext.ilike(f"%{escaped}%"),
            )
            .limit(1)
        )
        return result.first() is not None

    # -- versions --------------------------------------------------------------------------

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
                ((IngestJob.status == "queued") & _due(now))
                | ((IngestJob.status == "running") & (IngestJob.updated_at < stale_before)),
            )
            .values(**_claimed(now))
            .returning(IngestJob)
        )
        return result.scalar_one_or_none()

    async def job_waits(self, job_id: uuid.UUID, now: datetime) -> bool:
        """Whether the job is queued and due: no worker has it yet."""
        query = self._scoped(select(IngestJob.id), IngestJob).where(
            IngestJob.id == job_id, IngestJob.status == "queued", _due(now)
        )
        return (await self.session.execute(query)).first() is not None

    async def claim_next_job(self, queue: str, now: datetime) -> IngestJob | None:
        """Take the tenant's oldest queued job on ``queue`` that is due; None if none is left.

        SKIP LOCKED passes over a job another worker is claiming at this moment, so workers
        picking the same tenant at once each take a different job instead of racing for one.
        """
        oldest = (
            self._scoped(select(IngestJob.id), IngestJob)
            .where(IngestJob.status == "queued", IngestJob.queue == queue, _due(now))
            .order_by(IngestJob.created_at, IngestJob.id)
            .limit(1)
            .with_for_update(skip_locked=True)
            .scalar_subquery()
        )
        result = await self.session.execute(
            self._scoped(update(IngestJob), IngestJob)
            .where(IngestJob.id == oldest)
            .values(**_claimed(now))
            .returning(IngestJob)
        )
        return result.scalar_one_or_none()

    async def claim_user_jobs(
        self, lead: IngestJob, now: datetime, limit: int, max_segments: int
    ) -> list[IngestJob]:
        """Take up to ``limit`` more of the lead job's user's queued ingest jobs, oldest first.

        Only jobs never tried and done in one slice (at most ``max_segments`` segments) are
        taken: a job that raised before runs alone, so one that always raises fails alone.
        """
        if limit < 1:
            return []
        taken = (
            self._scoped(select(IngestJob.id), IngestJob)
            .where(
                IngestJob.status == "queued",
                IngestJob.queue == lead.queue,
                IngestJob.user_key == lead.user_key,
                IngestJob.kind == "ingest",
                IngestJob.attempts == 0,
                IngestJob.progress_total <= max_segments,
                _due(now),
            )
            .order_by(IngestJob.created_at, IngestJob.id)
            .limit(limit)
            .with_for_update(skip_locked=True)
            .cte("taken")  # taken once: as a subquery, the planner may run the LIMIT again
        )
        result = await self.session.execute(
            self._scoped(update(IngestJob), IngestJob)
            .where(IngestJob.id.in_(select(taken.c.id)))
            .values(**_claimed(now))
            .returning(IngestJob)
        )
        return sorted(result.scalars().all(), key=lambda job: (job.created_at, job.id))

    async def jobs_by_id(
        self, job_ids: Collection[uuid.UUID], *, lock: bool = False
    ) -> dict[uuid.UUID, IngestJob]:
        """These jobs by id (those that exist); with lock=True held FOR UPDATE, in id order."""
        query = (
            self._scoped(select(IngestJob), IngestJob)
            .where(IngestJob.id.in_(sorted(job_ids)))
            .order_by(IngestJob.id)
        )
        if lock:
            query = query.with_for_update()
        result = await self.session.execute(query)
        return {job.id: job for job in result.scalars().all()}

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

    async def jobs_with_payloads(
        self, user_key: str, after: tuple[datetime, uuid.UUID] | None, limit: int
    ) -> Sequence[IngestJob]:
        """The user's jobs holding a payload, in order of acceptance, after a (time, id) cursor."""
        stmt = self._scoped(select(IngestJob), IngestJob).where(
            IngestJob.user_key == user_key, IngestJob.payload.is_not(None)
        )
        if after is not None:
            stmt = stmt.where(tuple_(IngestJob.created_at, IngestJob.id) > tuple_(*after))
        result = await self.session.execute(
            stmt.order_by(IngestJob.created_at, IngestJob.id).limit(limit)
        )
        return result.scalars().all()

    async def jobs_of_kind(self, user_key: str, kind: str) -> Sequence[IngestJob]:
        """The user's jobs of one kind, oldest first."""
        result = await self.session.execute(
            self._scoped(select(IngestJob), IngestJob)
            .where(IngestJob.user_key == user_key, IngestJob.kind == kind)
            .order_by(IngestJob.created_at, IngestJob.id)
        )
        return result.scalars().all()

    # -- extraction cache ------------------------------------------------------------------

    async def drop_cached_segments(self, user_key: str, segments: Collection[str]) -> int:
        """Forget what was extracted from these segments (and cache rows of unknown segment)."""
        result = await self.session.execute(
            self._scoped(delete(ExtractionCache), ExtractionCache)
            .where(
                ExtractionCache.user_key == user_key,
                ExtractionCache.segment.in_(sorted(segments)) | ExtractionCache.segment.is_(None),
            )
            .returning(ExtractionCache.key)
        )
        return len(result.all())

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

    async def cache_extraction(self, row: ExtractionCache) -> bool:
        """Store one extraction unless its key is there; False when its job or user is gone."""
        values = {c.key: getattr(row, c.key) for c in inspect(ExtractionCache).columns}
        stmt = (
            insert(ExtractionCache)
            .values({**values, "tenant_id": self.tenant_id})
            .on_conflict_do_nothing(index_elements=["tenant_id", "key"])
        )
        try:
            # A savepoint: a job or user deleted since the call fails a foreign key, not the
            # session; a delete under way waits for this insert and then takes the row too.
            async with self.session.begin_nested():
                await self.session.execute(stmt)
        except IntegrityError:
            return False
        return True

    async def lock_user_turns(self, user_key: str) -> None:
        """Hold the user's turn lock until this transaction ends: checks of that user's turns
        run one at a time (a transaction-scoped advisory lock, keyed by tenant and user)."""
        key = func.hashtextextended(f"tessera-turns:{self.tenant_id}:{user_key}", 0)
        await self.session.execute(select(func.pg_advisory_xact_lock(key)))


def _due(now: datetime) -> ColumnElement[bool]:
    """A job not deferred past ``now``."""
    return IngestJob.not_before.is_(None) | (IngestJob.not_before <= now)


def _claimed(now: datetime) -> dict[str, Any]:
    """What claiming sets on a job row: running, one more attempt, started (once), not deferred."""
    return {
        "status": "running",
        "attempts": IngestJob.attempts + 1,
        "started_at": func.coalesce(IngestJob.started_at, now),
        "updated_at": now,
        "not_before": None,
    }


def _one_of(column: Any, values: Collection[str]) -> ColumnElement[bool]:
    """``column = ANY(values)``: one array parameter, so the statement reads the same for any
    number of values and is prepared once per connection (an ``IN`` list is a new statement for
    each length)."""
    return column == any_(literal(sorted(values), ARRAY(String)))
