"""A user's stored index segments: read in one query, appended and merged under the user's lock."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from sqlalchemy import delete, select

from app.db.models import IndexSegment
from app.db.scoped import ScopedRepository


@dataclass(frozen=True)
class SegmentInfo:
    """A stored segment without its body: the versions its rows came in, and its size."""

    from_version: int
    to_version: int
    epoch: int
    level: int
    records: int


@dataclass(frozen=True)
class StoredSegment:
    """A stored segment and its body."""

    info: SegmentInfo
    body: bytes
    digest: str


_INFO = (
    IndexSegment.from_version,
    IndexSegment.to_version,
    IndexSegment.epoch,
    IndexSegment.level,
    IndexSegment.records,
)


class SegmentRepository(ScopedRepository):
    """The stored index segments of a tenant's users, oldest versions first."""

    async def segment_infos(self, user_key: str) -> list[SegmentInfo]:
        """A user's segments, without their bodies."""
        result = await self.session.execute(
            self._scoped(select(*_INFO), IndexSegment)
            .where(IndexSegment.user_key == user_key)
            .order_by(IndexSegment.to_version)
        )
        return [SegmentInfo(*r) for r in result.all()]

    async def segments(
        self, user_key: str, to_versions: Collection[int] | None = None
    ) -> list[StoredSegment]:
        """A user's segments with their bodies (all, or those ending at ``to_versions``)."""
        stmt = (
            self._scoped(select(*_INFO, IndexSegment.body, IndexSegment.digest), IndexSegment)
            .where(IndexSegment.user_key == user_key)
            .order_by(IndexSegment.to_version)
        )
        if to_versions is not None:
            stmt = stmt.where(IndexSegment.to_version.in_(sorted(to_versions)))
        result = await self.session.execute(stmt)
        return [StoredSegment(SegmentInfo(*r[:5]), bytes(r[5]), r[6]) for r in result.all()]

    async def add_segment(self, user_key: str, info: SegmentInfo, body: bytes, digest: str) -> None:
        """Store a segment with its digest (the caller holds the user's passport lock)."""
        self.session.add(
            IndexSegment(
                tenant_id=self.tenant_id,
                user_key=user_key,
                from_version=info.from_version,
                to_version=info.to_version,
                epoch=info.epoch,
                level=info.level,
                records=info.records,
                body=body,
                digest=digest,
            )
        )
        await self.session.flush()

    async def drop_segments(self, user_key: str, to_versions: Collection[int] | None = None) -> int:
        """Delete a user's segments (all, or those ending at ``to_versions``); how many went."""
        stmt = self._scoped(delete(IndexSegment), IndexSegment).where(
            IndexSegment.user_key == user_key
        )
        if to_versions is not None:
            stmt = stmt.where(IndexSegment.to_version.in_(sorted(to_versions)))
        result = await self.session.execute(stmt.returning(IndexSegment.to_version))
        return len(result.all())
