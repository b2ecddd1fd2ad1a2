"""Passport use cases: read (current or any version), import/replace, delete, list users."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

from app.db.models import PassportVersion
from app.db.repository import PassportStamp, TenantRepository
from app.db.uow import Uow, UowFactory
from app.domain import delta
from app.domain.ids import canonical_bytes
from app.domain.jsoncheck import json_problem, storable
from app.domain.passport import Passport, PassportError
from app.services.errors import NotFound, PreconditionFailed, Unprocessable

T = TypeVar("T")


@dataclass(frozen=True)
class PassportBytes:
    """A passport as canonical JSON bytes, with the version it is at."""

    body: bytes
    version: int


@dataclass(frozen=True)
class WriteResult:
    """Outcome of a write: the version now current and whether the passport is new."""

    user_key: str
    version: int
    created: bool
    changed: bool


@dataclass(frozen=True)
class UserSummary:
    """One row of the user listing."""

    user_key: str
    version: int
    created_at: datetime
    updated_at: datetime


def etag(version: int) -> str:
    """The ETag of a passport version."""
    return f'"{version}"'


def etag_matches(header: str | None, version: int) -> bool:
    """Whether an If-Match / If-None-Match header names this version (or ``*``)."""
    if header is None:
        return False
    for part in header.split(","):
        tag = part.strip()
        if tag == "*":
            return True
        tag = tag.removeprefix("W/").strip('"')
        if tag == str(version):
            return True
    return False


async def require_user(repo: TenantRepository, user_key: str) -> int:
    """The user's current version number, or NotFound."""
    version = await repo.passport_version(user_key)
    if version is None:
        raise NotFound(f"no user {user_key!r}")
    return version


async def read_of_user(
    uows: UowFactory,
    tenant_id: uuid.UUID,
    user_key: str,
    read: Callable[[TenantRepository], Awaitable[T]],
) -> T:
    """What ``read`` finds in the tenant's rows once the user is known; else NotFound."""
    async with uows() as uow:
        repo = uow.tenant(tenant_id)
        await require_user(repo, user_key)
        return await read(repo)


async def fresh_stamp(uows: UowFactory, tenant_id: uuid.UUID, user_key: str) -> PassportStamp:
    """The current version and creation time (what caches are keyed by), or NotFound."""
    async with uows() as uow:
        stamp = await uow.tenant(tenant_id).passport_stamp(user_key)
    if stamp is None:
        raise NotFound(f"no user {user_key!r}")
    return stamp


async def read_passport(
    uows: UowFactory, tenant_id: uuid.UUID, user_key: str, version: int | None = None
) -> PassportBytes:
    """The passport now, or exactly as it was at ``version``."""
    async with uows() as uow:
        repo = uow.tenant(tenant_id)
        row = await repo.passport(user_key)
        if row is None:
            raise NotFound(f"no user {user_key!r}")
        if version is None or version == row.version:
            return PassportBytes(canonical_bytes(row.doc), row.version)
        if version < 0 or version > row.version:
            raise NotFound(f"user {user_key!r} has no version {version} (current: {row.version})")
        doc = await rebuild(repo, user_key, version)
    return PassportBytes(canonical_bytes(doc), version)


async def rebuild(repo: TenantRepository, user_key: str, version: int) -> dict[str, Any]:
    """Rebuild a past version from the newest snapshot before it and the deltas after."""
    rows = await repo.versions_to_rebuild(user_key, version)
    if not rows or rows[-1].version != version:
        raise NotFound(f"version {version} of user {user_key!r} is not recorded")
    doc: Any = rows[0].snapshot
    for row in rows[1:]:
        doc = row.snapshot if row.snapshot is not None else delta.apply(doc, row.delta)
    return dict(doc)


async def record_version(
    repo: TenantRepository,
    user_key: str,
    *,
    old_doc: dict[str, Any],
    new_doc: dict[str, Any],
    old_version: int,
    cause: str,
    now: datetime,
    snapshot_every: int,
    job_id: uuid.UUID | None = None,
) -> int:
    """Save a new document as the next version and append its version row (caller holds lock)."""
    version = old_version + 1
    snapshot = new_doc if snapshot_every > 0 and version % snapshot_every == 0 else None
    change = delta.diff(old_doc, new_doc)
    await repo.save_passport(user_key, new_doc, version, now)
    await repo.add_version(
        PassportVersion(
            user_key=user_key,
            version=version,
            delta=change,
            snapshot=snapshot,
            summary=delta.summarize_delta(old_doc, change),
            cause=cause,
            job_id=job_id,
            created_at=now,
        )
    )
    return version


async def create_if_missing(
    repo: TenantRepository, user_key: str, now: datetime, cause: str = "create"
) -> bool:
    """Create an empty version-0 passport (with its snapshot row) unless the user exists."""
    doc = Passport.empty(user_key).to_dict()
    created = await repo.create_passport_if_missing(user_key, doc, now)
    if created:
        await repo.add_version(
            PassportVersion(
                user_key=user_key,
                version=0,
                delta=None,
                snapshot=doc,
                summary={},
                cause=cause,
                created_at=now,
            )
        )
    return created


def parse_document(doc: Any) -> dict[str, Any]:
    """Validate an imported document and return it in canonical 2.x form (1.x migrates)."""
    # JSONB cannot hold NUL; the character carries nothing a reader could see.
    doc = storable(doc)
    problem = json_problem(doc)
    if problem:
        raise Unprocessable(problem)
    try:
        return Passport.from_dict(doc).to_dict()
    except PassportError as exc:
        raise Unprocessable(f"not a passport: {exc}") from exc


async def put_passport(
    uows: UowFactory,
    tenant_id: uuid.UUID,
    user_key: str,
    doc: Any,
    *,
    if_match: str | None,
    snapshot_every: int,
) -> WriteResult:
    """Import or replace a whole passport; If-Match guards against lost updates."""
    new_doc = parse_document(doc)
    async with uows() as uow:
        return await _put(uow, tenant_id, user_key, new_doc, if_match, snapshot_every)


async def _put(
    uow: Uow,
    tenant_id: uuid.UUID,
    user_key: str,
    new_doc: dict[str, Any],
    if_match: str | None,
    snapshot_every: int,
) -> WriteResult:
    repo = uow.tenant(tenant_id)
    now = datetime.now(UTC)
    if if_match is not None and await repo.passport_version(user_key) is None:
        raise PreconditionFailed(f"If-Match {if_match} given, but user {user_key!r} does not exist")
    created = await create_if_missing(repo, user_key, now, cause="import")
    row = await repo.passport(user_key, lock=True)
    assert row is not None  # created above or already there; we hold its lock now
    if if_match is not None and not etag_matches(if_match, row.version):
        raise PreconditionFailed(
            f"If-Match {if_match} does not match the current version {etag(row.version)}"
        )
    if row.doc == new_doc:
        await uow.commit()
        return WriteResult(user_key, row.version, created, changed=created)
    version = await record_version(
        repo,
        user_key,
        old_doc=row.doc,
        new_doc=new_doc,
        old_version=row.version,
        cause="import",
        now=now,
        snapshot_every=snapshot_every,
    )
    await uow.commit()
    return WriteResult(user_key, version, created, changed=True)


async def delete_user(uows: UowFactory, tenant_id: uuid.UUID, user_key: str) -> None:
    """Hard-delete a user's passport, versions, jobs and stored payloads."""
    async with uows() as uow:
        if not await uow.tenant(tenant_id).delete_user(user_key):
            raise NotFound(f"no user {user_key!r}")
        await uow.commit()


async def list_users(
    uows: UowFactory, tenant_id: uuid.UUID, limit: int, cursor: str | None
) -> tuple[list[UserSummary], str | None]:
    """A page of the tenant's users and the cursor of the next page (None at the end)."""
    # The cursor is the last key of the previous page: any key is a valid place to start after.
    async with uows() as uow:
        rows = await uow.tenant(tenant_id).list_users(limit + 1, cursor or None)
    items = [UserSummary(*row) for row in rows[:limit]]
    next_cursor = items[-1].user_key if len(rows) > limit else None
    return items, next_cursor
