"""Every statement a tenant repository sends carries its tenant: in the WHERE, or in the row."""

from __future__ import annotations

import inspect
import re
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import event

from app.db.engine import create_engine, session_factory
from app.db.models import ErasureReceipt, ExtractionCache, IngestJob, PassportVersion, Tenant
from app.db.repository import TenantRepository
from app.db.segments import SegmentInfo
from app.db.system import SystemRepository
from app.domain.memory.log import log_row

TENANT_TABLES = (
    "passport_version",
    "passport",
    "ingest_job",
    "extraction_cache",
    "tenant_usage",
    "memory",
    "erasure_receipt",
    "index_segment",
)


# Repository methods that take a lock of the tenant's own and read no table.
LOCKS = ("lock_user_turns",)


def _flat(parameters: Any) -> list[Any]:
    if isinstance(parameters, dict):
        return list(parameters.values())
    if isinstance(parameters, list | tuple):
        return [v for p in parameters for v in _flat(p)] if parameters else []
    return [parameters]


def _carries_tenant(statement: str, parameters: Any, tenant_id: uuid.UUID) -> bool:
    """Whether this SQL names the tenant: a tenant_id = $n filter, or the tenant in an INSERT."""
    values = _flat(parameters)
    sql = " ".join(statement.split())
    if sql.upper().startswith("INSERT"):
        return "tenant_id" in sql.split("VALUES")[0] and tenant_id in values
    where = sql.upper().find(" WHERE ")
    if where < 0:
        return False
    for index in re.findall(r"\btenant_id = \$(\d+)", sql[where:]):
        if values[int(index) - 1] == tenant_id:
            return True
    return False


def _tables(statement: str) -> set[str]:
    sql = " ".join(statement.split()).lower()
    return {t for t in TENANT_TABLES if re.search(rf"\b{t}\b", sql)}


async def test_every_tenant_repository_statement_is_scoped(settings):
    engine = create_engine(settings.require_database_url(), pool_size=1)
    seen: list[tuple[str, Any]] = []

    def record(conn: Any, cursor: Any, statement: str, parameters: Any, *args: Any) -> None:
        seen.append((statement, parameters))

    event.listen(engine.sync_engine, "before_cursor_execute", record)
    tenant_id = uuid.uuid4()
    now = datetime.now(UTC)
    try:
        async with session_factory(engine)() as session:
            await SystemRepository(session).add_tenant(
                Tenant(id=tenant_id, name="scoped", created_at=now, limits={})
            )
            repo = TenantRepository(session, tenant_id)
            doc = {"version": "2.1", "user_key": "ana"}

            def job(key: str | None) -> IngestJob:
                return IngestJob(
                    id=uuid.uuid4(),
                    user_key="ana",
                    kind="ingest",
                    status="queued",
                    idempotency_key=key,
                    request_hash="h",
                    payload={"turns": []},
                    created_at=now,
                    updated_at=now,
                )

            first, keyed, again = job(None), job("k"), job("k")
            version = PassportVersion(
                user_key="ana",
                version=1,
                snapshot=doc,
                summary={},
                cause="import",
                created_at=now,
                hash="0" * 64,
                chain={},
            )
            receipt = ErasureReceipt(id=uuid.uuid4(), user_key="ana", receipt={}, created_at=now)
            later = now + timedelta(hours=1)
            turn = log_row("turn", {"id": "m1", "speaker": "Ana", "text": "hi", "source": "seg_a"})
            calls: dict[str, Callable[[], Awaitable[Any]]] = {
                "create_passport_if_missing": lambda: repo.create_passport_if_missing(
                    "ana", doc, now, "0" * 64
                ),
                "versions_after": lambda: repo.versions_after("ana", 0, 10),
                "versions_numbered": lambda: repo.versions_numbered("ana", [0, 1]),
                "rows_added_between": lambda: repo.rows_added_between("ana", 0, 2),
                "rows_removed_across": lambda: repo.rows_removed_across("ana", 1),
                "row_versions": lambda: repo.row_versions("ana", [1, 2]),
                "add_receipt": lambda: repo.add_receipt(receipt),
                "receipt": lambda: repo.receipt("ana", receipt.id),
                "user_holdings": lambda: repo.user_holdings("ana"),
                "passport": lambda: repo.passport("ana", lock=True),
                "passport_version": lambda: repo.passport_version("ana"),
                "passport_stamp": lambda: repo.passport_stamp("ana"),
                "passport_state": lambda: repo.passport_state("ana", lock=True),
                "save_passport": lambda: repo.save_passport("ana", doc, 1, now, root="0" * 64),
                "add_version": lambda: repo.add_version(version),
                "list_versions": lambda: repo.list_versions("ana", 10, 5),
                "versions_to_rebuild": lambda: repo.versions_to_rebuild("ana", 1),
                "list_users": lambda: repo.list_users(10, "a", "n"),
                "add_job": lambda: repo.add_job(first),
                "add_job_once": lambda: _both(repo.add_job_once(keyed), repo.add_job_once(again)),
                "job": lambda: repo.job(first.id, lock=True),
                "job_by_idempotency_key": lambda: repo.job_by_idempotency_key("k"),
                "list_jobs": lambda: repo.list_jobs("ana", 10, later),
                "claim_job": lambda: repo.claim_job(first.id, now, now),
                "job_waits": lambda: repo.job_waits(first.id, now),
                "claim_next_job": lambda: repo.claim_next_job("tessera", now),
                "claim_user_jobs": lambda: repo.claim_user_jobs(first, now, 4, 32),
                "jobs_by_id": lambda: repo.jobs_by_id([first.id], lock=True),
                "update_job": lambda: repo.update_job(first.id, status="done", finished_at=now),
                "requeue_finished_job": lambda: repo.requeue_finished_job(first.id, now),
                "unfinished_job_of_kind": lambda: repo.unfinished_job_of_kind("ana", "ingest"),
                "stored_ingest_jobs": lambda: repo.stored_ingest_jobs("ana"),
                "cache_extraction": lambda: repo.cache_extraction(
                    ExtractionCache(
                        key="key",
                        user_key="ana",
                        segment="seg_a",
                        job_id=first.id,
                        extractor="rules",
                        output={},
                        input_tokens=1,
                        output_tokens=2,
                        created_at=now,
                    )
                ),
                "add_rows": lambda: repo.add_rows("ana", [turn], 1, None),
                "remove_rows": lambda: repo.remove_rows("ana", [1], 2),
                "rows_by_hash": lambda: repo.rows_by_hash("ana", {turn.hash}),
                "rows_of_sources": lambda: repo.rows_of_sources("ana", {"seg_a"}, ["source"]),
                "sources_of_turns": lambda: repo.sources_of_turns("ana", {"seg_a"}),
                "rows_added_after": lambda: repo.rows_added_after("ana", 0),
                "live_rows_between": lambda: repo.live_rows_between("ana", 0, 2, ["turn"]),
                "page_rows": lambda: repo.page_rows(
                    "ana", version=1, kinds=["turn"], after=0, limit=5, since=now, until=later
                ),
                "stream_rows": lambda: _drain(
                    repo.stream_rows("ana", version=1, kinds=["turn"]),
                    repo.stream_rows("ana", version=None, kinds=["turn"], newest_first=True),
                ),
                "sessions": lambda: _each(
                    repo.sessions("ana", None, None, 5), repo.sessions("ana", "s", 9, 5)
                ),
                "recent_turns": lambda: _each(
                    repo.recent_turns("ana", "s1", None, 5), repo.recent_turns("ana", None, 9, 5)
                ),
                "turn_counts": lambda: repo.turn_counts("ana"),
                "turns_named": lambda: repo.turns_named("ana", turn_id="m1"),
                "turns_with_ids": lambda: repo.turns_with_ids("ana", {"m1"}, 1),
                "rows_with_ids": lambda: repo.rows_with_ids("ana", [1, 2]),
                "rows_derived_from": lambda: repo.rows_derived_from("ana", {"seg_a"}, {"m1"}),
                "delete_rows": lambda: repo.delete_rows("ana", [1]),
                "rewrite_row": lambda: repo.rewrite_row("ana", 1, {"text": "x"}),
                "turn_text_mentions": lambda: repo.turn_text_mentions("ana", "hi"),
                "versions_from": lambda: repo.versions_from("ana", 0),
                "rewrite_version": lambda: repo.rewrite_version("ana", 1, summary={}),
                "jobs_with_payloads": lambda: repo.jobs_with_payloads("ana", (now, first.id), 5),
                "jobs_of_kind": lambda: repo.jobs_of_kind("ana", "compact"),
                "drop_cached_segments": lambda: repo.drop_cached_segments("ana", {"seg_a"}),
                "add_segment": lambda: repo.add_segment(
                    "ana", SegmentInfo(0, 1, 0, 0, 1), b"x", "0" * 64
                ),
                "segment_infos": lambda: repo.segment_infos("ana"),
                "version_hashes": lambda: repo.version_hashes("ana", {0, 1}),
                "segments": lambda: repo.segments("ana", [1]),
                "drop_segments": lambda: repo.drop_segments("ana", [1]),
                "cached_extractions": lambda: repo.cached_extractions(["key"]),
                "add_usage": lambda: repo.add_usage(now, {"jobs": 1}),
                "usage_by_day": lambda: repo.usage_by_day(now - timedelta(days=1), later),
                "ingest_bytes_since": lambda: repo.ingest_bytes_since(now),
                "charge_ingest_bytes": lambda: repo.charge_ingest_bytes(now, 5, now),
                "lock_user_turns": lambda: repo.lock_user_turns("ana"),
                "delete_user": lambda: repo.delete_user("ana"),
            }
            public = {
                name
                for name, member in inspect.getmembers(TenantRepository)
                if (inspect.iscoroutinefunction(member) or inspect.isasyncgenfunction(member))
                and not name.startswith("_")
            }
            # A new repository method must be added here, or this test no longer proves much.
            assert public == set(calls)

            unscoped = []
            for name, call in calls.items():
                seen.clear()
                await call()
                if name in LOCKS:
                    # A lock of the tenant's own: no table, its key names the tenant.
                    assert any(str(tenant_id) in str(_flat(p)) for _, p in seen), name
                    continue
                touching = [(s, p) for s, p in seen if _tables(s)]
                assert touching, f"{name} sent no statement"
                unscoped += [
                    f"{name}: {' '.join(s.split())[:160]}"
                    for s, p in touching
                    if not _carries_tenant(s, p, tenant_id)
                ]
            assert unscoped == []
            await session.rollback()
    finally:
        event.remove(engine.sync_engine, "before_cursor_execute", record)
        await engine.dispose()


async def _drain(*streams: Any) -> None:
    for rows in streams:
        async for _ in rows:
            pass


async def _each(*reads: Awaitable[Any]) -> None:
    for read in reads:
        await read


async def _both(first: Awaitable[Any], second: Awaitable[Any]) -> None:
    """The insert path, then the conflict path that selects the row that won."""
    await first
    stored, created = await second
    assert not created and stored.idempotency_key == "k"


def test_the_filter_check_itself_refuses_an_unscoped_statement():
    tenant_id = uuid.uuid4()
    scoped = "SELECT passport.doc FROM passport WHERE passport.tenant_id = $1 AND user_key = $2"
    assert _carries_tenant(scoped, (tenant_id, "ana"), tenant_id)
    assert not _carries_tenant(scoped, (uuid.uuid4(), "ana"), tenant_id)
    assert not _carries_tenant(
        "SELECT passport.doc FROM passport WHERE user_key = $1", ("ana",), tenant_id
    )
    insert = "INSERT INTO ingest_job (tenant_id, id) VALUES ($1, $2)"
    assert _carries_tenant(insert, (tenant_id, uuid.uuid4()), tenant_id)
    assert not _carries_tenant(
        "INSERT INTO ingest_job (id) VALUES ($1)", (uuid.uuid4(),), tenant_id
    )
