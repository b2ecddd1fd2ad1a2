"""The benchmarks' in-memory ingest path gives the passport the worker writes to Postgres."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

import orjson
import pytest

from app.db.engine import create_engine, session_factory
from app.db.models import Tenant
from app.db.uow import uow_factory
from app.domain.extraction.rules import RuleExtractor
from app.domain.ingest.payload import IngestPayload
from app.services import ingest, passports, processing
from app.services.claimed import WorkerResources
from bench.ingest import user_sessions
from bench.pipeline import InMemoryUser

pytestmark = pytest.mark.integration

COMPARED = (
    "facts",
    "prefs",
    "entities",
    "open_loops",
    "contradictions",
    "turns",
    "sources",
    "observations",
    "episodes",
)


def _content(doc: dict[str, Any]) -> dict[str, Any]:
    return {section: doc.get(section) for section in COMPARED}


async def test_the_in_memory_pipeline_writes_what_the_worker_writes(settings):
    engine = create_engine(settings.require_database_url(), pool_size=2)
    uows = uow_factory(session_factory(engine))
    tenant = uuid.uuid4()
    try:
        async with uows() as uow:
            await uow.system.add_tenant(
                Tenant(id=tenant, name="pipeline", created_at=datetime.now(UTC), limits={})
            )
            await uow.commit()
        user = InMemoryUser("twin")
        extractor = RuleExtractor()
        pipeline = WorkerResources(extractor=extractor)
        for body in user_sessions(7, "twin", 12, 12):
            payload = IngestPayload.model_validate(body)
            accepted = await ingest.accept(uows, tenant, "twin", payload, settings)
            outcome = await processing.run_job(uows, tenant, accepted.job.id, settings, pipeline)
            assert outcome.status == "done"
            await user.ingest(payload, accepted.job.created_at, extractor.extract)
        stored = await (await passports.export(uows, tenant, "twin")).body()
    finally:
        await engine.dispose()
    served = orjson.loads(stored)
    mine = user.document()
    assert served["turns"] and served["facts"]
    assert _content(served) == _content(mine)
