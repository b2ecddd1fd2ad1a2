"""SQLAlchemy 2 typed models of DESIGN §2. Per-tenant primary keys start with tenant_id."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    DateTime,
    ForeignKey,
    ForeignKeyConstraint,
    Identity,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    SmallInteger,
    String,
    Text,
    UniqueConstraint,
    func,
    text,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB, UUID

# A Python None in these columns means SQL NULL, not the JSON value null.
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# Named constraints, so migrations can refer to them and downgrades are exact.
NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_N_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    """Declarative base with the naming convention."""

    metadata = MetaData(naming_convention=NAMING)


def _stamp() -> Mapped[datetime]:
    """A timestamp column the database fills in when the row is written."""
    return mapped_column(DateTime(timezone=True), nullable=False, server_default=func.now())


def _tenant_ref(*, primary_key: bool) -> Mapped[uuid.UUID]:
    """The owning tenant's id: deleting the tenant deletes the row."""
    return mapped_column(
        UUID(as_uuid=True),
        ForeignKey("tenant.id", ondelete="CASCADE"),
        primary_key=primary_key,
        nullable=False,
    )


def _user_key(*, primary_key: bool) -> Mapped[str]:
    """The end user's key, unique within a tenant."""
    return mapped_column(String(256), primary_key=primary_key, nullable=False)


def _of_passport() -> ForeignKeyConstraint:
    """The row belongs to one user's passport and goes when the passport goes."""
    return ForeignKeyConstraint(
        ["tenant_id", "user_key"],
        ["passport.tenant_id", "passport.user_key"],
        ondelete="CASCADE",
    )


def _where_set(name: str, column: str) -> Index:
    """An index of a user's rows by ``column``, over the rows where it is set."""
    return Index(name, "tenant_id", "user_key", column, postgresql_where=f"{column} IS NOT NULL")


class Tenant(Base):
    """An app that holds API keys and keeps passports."""

    __tablename__ = "tenant"
    id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True)
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    created_at: Mapped[datetime] = _stamp()
    limits: Mapped[dict[str, Any]] = mapped_column(JSONB, nullable=False, server_default="{}")
    # When a worker last took one of its jobs: the tenant served longest ago goes first.
    last_served_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class ApiKey(Base):
    """A tenant's API key: only its SHA-256 is stored."""

    __tablename__ = "api_key"
    id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True)
    tenant_id: Mapped[uuid.UUID] = _tenant_ref(primary_key=False)
    prefix: Mapped[str] = mapped_column(String(32), nullable=False, unique=True)
    key_sha256: Mapped[str] = mapped_column(String(64), nullable=False)
    name: Mapped[str] = mapped_column(String(200), nullable=False, server_default="")
    created_at: Mapped[datetime] = _stamp()
    last_used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    __table_args__ = (Index(None, "tenant_id"),)


class PassportRow(Base):
    """One user's passport head (what is believed now) and its current version."""

    __tablename__ = "passport"
    tenant_id: Mapped[uuid.UUID] = _tenant_ref(primary_key=True)
    user_key: Mapped[str] = mapped_column(String(256), primary_key=True)
    doc: Mapped[dict[str, Any]] = mapped_column(JSONB, nullable=False)
    version: Mapped[int] = mapped_column(Integer, nullable=False)
    # Bumped whenever log rows are removed or rewritten (forget, reprocess, an import): an index
    # grown row by row from an older epoch must be built again.
    log_epoch: Mapped[int] = mapped_column(Integer, nullable=False, server_default="0")
    # Turns the log holds now (kept by every write), for the per-user limit.
    turn_count: Mapped[int] = mapped_column(Integer, nullable=False, server_default="0")
    # The hash of the newest version (the chain's root, app.domain.integrity.chain).
    root: Mapped[str] = mapped_column(String(64), nullable=False)
    created_at: Mapped[datetime] = _stamp()
    updated_at: Mapped[datetime] = _stamp()
    __table_args__ = (CheckConstraint("version >= 0", name="version_nonnegative"),)


class MemoryRow(Base):
    """The log: one verbatim turn, observation, episode or source of a user, append-only.

    ``version_added`` is the version that wrote it; ``version_removed`` the one that took it out
    of the passport (the row stays, so earlier versions can be rebuilt). Forgetting deletes it.
    """

    __tablename__ = "memory"
    tenant_id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True)
    user_key: Mapped[str] = _user_key(primary_key=True)
    # The autoincrement column of the composite key: a write inserts its rows in one statement
    # and gets their ids back in order, instead of one INSERT per row.
    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True, autoincrement=True)
    kind: Mapped[str] = mapped_column(String(16), nullable=False)
    hash: Mapped[str] = mapped_column(String(80), nullable=False)
    ts: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    session: Mapped[str | None] = mapped_column(String(200))
    source: Mapped[str | None] = mapped_column(String(64))
    turn_id: Mapped[str | None] = mapped_column(String(200))
    job_id: Mapped[uuid.UUID | None] = mapped_column(UUID(as_uuid=True))
    version_added: Mapped[int] = mapped_column(Integer, nullable=False)
    version_removed: Mapped[int | None] = mapped_column(Integer)
    item: Mapped[dict[str, Any]] = mapped_column(JSONB, nullable=False)
    __table_args__ = (
        _of_passport(),
        CheckConstraint(
            "kind IN ('turn', 'observation', 'episode', 'source', 'contradiction', 'open_loop')",
            name="kind_known",
        ),
        # Duplicate checks of a merge look rows up by identity, never by a scan.
        Index(None, "tenant_id", "user_key", "hash"),
        # An index catching up reads the rows added since the version it holds.
        Index(None, "tenant_id", "user_key", "version_added"),
        # Forgetting finds a turn by the client's id, and what came from its source.
        _where_set("ix_memory_turn_id", "turn_id"),
        _where_set("ix_memory_source", "source"),
        # An agent's working memory: a session's newest turns, read backwards by id.
        Index(
            "ix_memory_session",
            "tenant_id",
            "user_key",
            "session",
            "id",
            postgresql_where="session IS NOT NULL",
        ),
        Index(None, "tenant_id", "user_key", "ts"),
    )


class PassportVersion(Base):
    """What one version changed: the head's delta (a snapshot every so often) and its log rows."""

    __tablename__ = "passport_version"
    tenant_id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True)
    user_key: Mapped[str] = _user_key(primary_key=True)
    version: Mapped[int] = mapped_column(Integer, primary_key=True)
    delta: Mapped[Any] = mapped_column(JSONB(none_as_null=True), nullable=True)
    snapshot: Mapped[dict[str, Any] | None] = mapped_column(JSONB(none_as_null=True), nullable=True)
    rows_added: Mapped[list[int] | None] = mapped_column(ARRAY(BigInteger))
    rows_removed: Mapped[list[int] | None] = mapped_column(ARRAY(BigInteger))
    summary: Mapped[dict[str, Any]] = mapped_column(JSONB, nullable=False, server_default="{}")
    cause: Mapped[str] = mapped_column(String(32), nullable=False)
    job_id: Mapped[uuid.UUID | None] = mapped_column(UUID(as_uuid=True))
    created_at: Mapped[datetime] = _stamp()
    # The hash chain (app.domain.integrity.chain): this version's hash, what it was taken over
    # (never changed after the version is written), and what later forgets did to this version.
    hash: Mapped[str] = mapped_column(String(64), nullable=False)
    chain: Mapped[dict[str, Any]] = mapped_column(JSONB, nullable=False)
    redactions: Mapped[dict[str, Any]] = mapped_column(JSONB, nullable=False, server_default="{}")
    __table_args__ = (_of_passport(),)


class IngestJob(Base):
    """The outbox: an accepted ingest request and its processing state."""

    __tablename__ = "ingest_job"
    tenant_id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True)
    id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True)
    user_key: Mapped[str] = mapped_column(String(256), nullable=False)
    status: Mapped[str] = mapped_column(String(16), nullable=False, server_default="queued")
    kind: Mapped[str] = mapped_column(String(16), nullable=False, server_default="ingest")
    idempotency_key: Mapped[str | None] = mapped_column(String(256))
    request_hash: Mapped[str] = mapped_column(String(64), nullable=False)
    payload: Mapped[dict[str, Any] | None] = mapped_column(JSONB(none_as_null=True))
    progress_done: Mapped[int] = mapped_column(Integer, nullable=False, server_default="0")
    progress_total: Mapped[int] = mapped_column(Integer, nullable=False, server_default="0")
    usage: Mapped[dict[str, Any]] = mapped_column(JSONB, nullable=False, server_default="{}")
    result: Mapped[dict[str, Any]] = mapped_column(JSONB, nullable=False, server_default="{}")
    error: Mapped[str | None] = mapped_column(Text)
    attempts: Mapped[int] = mapped_column(Integer, nullable=False, server_default="0")
    version_after: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = _stamp()
    updated_at: Mapped[datetime] = _stamp()
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # A deferred job is not taken before this time (its tenant's next budget window).
    not_before: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # The prefix of the API key that sent it: the chain names it as the version's actor.
    actor: Mapped[str | None] = mapped_column(String(32))
    # The queue it was accepted on: workers take the jobs of their own queue.
    queue: Mapped[str] = mapped_column(String(200), nullable=False, server_default="tessera:queue")
    __table_args__ = (
        _of_passport(),
        UniqueConstraint("tenant_id", "idempotency_key"),
        # Which tenants have jobs queued, and each one's oldest: the fair pick reads these.
        Index(
            "ix_ingest_job_queued",
            "queue",
            "tenant_id",
            "created_at",
            postgresql_where=text("status = 'queued'"),
        ),
        Index("ix_ingest_job_running", "tenant_id", postgresql_where=text("status = 'running'")),
        # A user's unfinished jobs (the turns they will add) without reading its finished ones.
        Index(
            "ix_ingest_job_user_unfinished",
            "tenant_id",
            "user_key",
            postgresql_where=text("status IN ('queued', 'running')"),
        ),
        CheckConstraint("status IN ('queued', 'running', 'done', 'failed')", name="status_known"),
        CheckConstraint("kind IN ('ingest', 'reprocess', 'compact')", name="kind_known"),
        Index(None, "tenant_id", "user_key", "created_at"),
        # The sweeper scans unfinished jobs only.
        Index(
            "ix_ingest_job_unfinished",
            "status",
            "updated_at",
            postgresql_where="status IN ('queued', 'running')",
        ),
        # The payload retention sweep scans only finished jobs that still hold a payload.
        Index(
            "ix_ingest_job_payload_kept",
            "finished_at",
            postgresql_where="payload IS NOT NULL AND finished_at IS NOT NULL",
        ),
    )


class ExtractionCache(Base):
    """One model extraction of one segment, so the same input never costs a second call."""

    __tablename__ = "extraction_cache"
    tenant_id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True)
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    # The user whose job paid for it: deleting the user deletes what was extracted for them.
    user_key: Mapped[str] = _user_key(primary_key=False)
    extractor: Mapped[str] = mapped_column(String(256), nullable=False)
    # The segment extracted: forgetting one of its turns drops what was extracted from it.
    segment: Mapped[str | None] = mapped_column(String(64))
    # The job that paid for it (none for rows stored before 0005): the row goes with the job.
    job_id: Mapped[uuid.UUID | None] = mapped_column(UUID(as_uuid=True))
    output: Mapped[dict[str, Any]] = mapped_column(JSONB, nullable=False)
    input_tokens: Mapped[int] = mapped_column(Integer, nullable=False, server_default="0")
    output_tokens: Mapped[int] = mapped_column(Integer, nullable=False, server_default="0")
    created_at: Mapped[datetime] = _stamp()
    __table_args__ = (
        _of_passport(),
        ForeignKeyConstraint(
            ["tenant_id", "job_id"], ["ingest_job.tenant_id", "ingest_job.id"], ondelete="CASCADE"
        ),
        Index(None, "tenant_id", "user_key"),
        Index(
            "ix_extraction_cache_tenant_id_job_id",
            "tenant_id",
            "job_id",
            postgresql_where=text("job_id IS NOT NULL"),
        ),
    )


class TenantUsage(Base):
    """A tenant's jobs, model calls, tokens and cache hits, summed per hour."""

    __tablename__ = "tenant_usage"
    tenant_id: Mapped[uuid.UUID] = _tenant_ref(primary_key=True)
    hour: Mapped[datetime] = mapped_column(DateTime(timezone=True), primary_key=True)
    jobs: Mapped[int] = mapped_column(BigInteger, nullable=False, server_default="0")
    calls: Mapped[int] = mapped_column(BigInteger, nullable=False, server_default="0")
    input_tokens: Mapped[int] = mapped_column(BigInteger, nullable=False, server_default="0")
    output_tokens: Mapped[int] = mapped_column(BigInteger, nullable=False, server_default="0")
    cache_hits: Mapped[int] = mapped_column(BigInteger, nullable=False, server_default="0")
    ingest_bytes: Mapped[int] = mapped_column(BigInteger, nullable=False, server_default="0")


class ErasureReceipt(Base):
    """A signed account of what a forget removed; outlives the user (it holds no content)."""

    __tablename__ = "erasure_receipt"
    tenant_id: Mapped[uuid.UUID] = _tenant_ref(primary_key=True)
    id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True)
    user_key: Mapped[str] = _user_key(primary_key=False)
    receipt: Mapped[dict[str, Any]] = mapped_column(JSONB, nullable=False)
    created_at: Mapped[datetime] = _stamp()
    __table_args__ = (Index(None, "tenant_id", "user_key", "created_at"),)


class IndexSegment(Base):
    """A stored segment of a user's index: what a read needs of a run of versions' log rows.

    Derived data, kept to spare an API process the whole log on its first read of a user: the
    table is UNLOGGED (no WAL; emptied by a crash, after which indexes are built from the log),
    and its rows go when the log is rewritten (a forget), or the user is deleted.
    """

    __tablename__ = "index_segment"
    tenant_id: Mapped[uuid.UUID] = _tenant_ref(primary_key=True)
    user_key: Mapped[str] = _user_key(primary_key=True)
    to_version: Mapped[int] = mapped_column(Integer, primary_key=True)  # its rows' newest
    from_version: Mapped[int] = mapped_column(Integer, nullable=False)  # the version before
    epoch: Mapped[int] = mapped_column(Integer, nullable=False)  # the log's (passport.log_epoch)
    level: Mapped[int] = mapped_column(SmallInteger, nullable=False)  # how merged: log of size
    records: Mapped[int] = mapped_column(Integer, nullable=False)
    body: Mapped[bytes] = mapped_column(LargeBinary, nullable=False)
    # SHA-256 over the hash of its newest version and its body (app.domain.context.segment_checks).
    digest: Mapped[str] = mapped_column(String(64), nullable=False)
    created_at: Mapped[datetime] = _stamp()
    __table_args__ = (_of_passport(), {"prefixes": ["UNLOGGED"]})
