"""Appending to the log: a write's rows get their ids in the order given, in few statements."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import event

from app.db.engine import create_engine, session_factory
from app.db.models import Tenant
from app.db.repository import TenantRepository
from app.db.system import SystemRepository
from app.domain.memory.log import log_row
from app.domain.passport import Passport

pytestmark = pytest.mark.integration


async def test_a_writes_rows_get_ids_in_log_order_from_one_insert_per_column_set(settings):  # type: ignore[no-untyped-def]
    engine = create_engine(settings.require_database_url(), pool_size=1)
    inserts: list[str] = []

    def record(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if statement.lstrip().upper().startswith("INSERT INTO MEMORY"):
            inserts.append(statement)

    tenant_id, now = uuid.uuid4(), datetime.now(UTC)
    # Turns carry a turn id, sources and episodes none: the rows come in runs of both shapes.
    rows = [
        log_row("source", {"id": "seg_a", "session": "s1"}),
        *(
            log_row(
                "turn", {"id": f"m{n}", "speaker": "Ana", "text": f"line {n}", "source": "seg_a"}
            )
            for n in range(30)
        ),
        log_row("episode", {"id": "ep_a", "summary": "a talk", "source": "seg_a"}),
        log_row("turn", {"id": "m99", "speaker": "Bo", "text": "last", "source": "seg_a"}),
    ]
    try:
        async with session_factory(engine)() as session:
            await SystemRepository(session).add_tenant(
                Tenant(id=tenant_id, name="log rows", created_at=now, limits={})
            )
            repo = TenantRepository(session, tenant_id)
            doc = Passport.empty("ana").to_dict()
            await repo.create_passport_if_missing("ana", doc, now, "0" * 64)
            event.listen(engine.sync_engine, "before_cursor_execute", record)
            ids = await repo.add_rows("ana", rows, 1, None)
            event.remove(engine.sync_engine, "before_cursor_execute", record)
            stored = await repo.rows_with_ids("ana", ids)
            await session.rollback()
    finally:
        await engine.dispose()
    assert len(ids) == len(rows) and ids == sorted(set(ids))
    by_id = {row.id: row for row in stored}
    assert [by_id[i].hash for i in ids] == [row.hash for row in rows]
    # One statement per run of rows with the same columns, not one per row.
    assert len(inserts) <= 4
