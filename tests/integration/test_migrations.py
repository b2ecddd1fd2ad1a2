"""The Alembic migrations go up, down and up again on an empty database."""

from __future__ import annotations

import uuid

import psycopg
import pytest

from app.db import engine
from tests.conftest import _libpq

pytestmark = pytest.mark.integration

TABLES = {
    "tenant",
    "api_key",
    "passport",
    "passport_version",
    "ingest_job",
    "extraction_cache",
    "tenant_usage",
    "memory",
}


def _tables(url: str) -> set[str]:
    with psycopg.connect(_libpq(url)) as conn:
        rows = conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
        ).fetchall()
    return {r[0] for r in rows} - {"alembic_version"}


def test_upgrade_downgrade_upgrade(test_servers):
    url = test_servers.create_database(f"tessera_mig_{uuid.uuid4().hex[:8]}")
    engine.upgrade(url)
    assert _tables(url) == TABLES
    engine.downgrade(url, "base")
    assert _tables(url) == set()
    engine.upgrade(url)
    assert _tables(url) == TABLES
    with psycopg.connect(_libpq(url)) as conn:
        names = {
            r[0]
            for r in conn.execute(
                "SELECT conname FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace"
                " WHERE n.nspname = 'public'"
            ).fetchall()
        }
    assert {
        "pk_passport",
        "pk_ingest_job",
        "uq_api_key_prefix",
        "uq_ingest_job_tenant_id_idempotency_key",
        "ck_ingest_job_status_known",
        "ck_ingest_job_kind_known",
        "pk_extraction_cache",
        "fk_extraction_cache_tenant_id_user_key_passport",
        "pk_tenant_usage",
        "fk_tenant_usage_tenant_id_tenant",
    } <= names


def test_downgrade_to_0001_is_exact(test_servers):
    """0002 down leaves the schema exactly as 0001 made it, and up again works."""
    url = test_servers.create_database(f"tessera_mig_{uuid.uuid4().hex[:8]}")
    engine.upgrade(url, "0001")
    before = _schema(url)
    engine.upgrade(url)
    assert _schema(url) != before
    engine.downgrade(url, "0001")
    assert _schema(url) == before
    engine.upgrade(url)
    assert _tables(url) == TABLES


def _schema(url: str) -> set[tuple[str, ...]]:
    with psycopg.connect(_libpq(url)) as conn:
        columns = conn.execute(
            "SELECT table_name, column_name, data_type, is_nullable, column_default"
            " FROM information_schema.columns WHERE table_schema = 'public'"
        ).fetchall()
        constraints = conn.execute(
            "SELECT conname, pg_get_constraintdef(c.oid) FROM pg_constraint c"
            " JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = 'public'"
        ).fetchall()
        indexes = conn.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'"
        ).fetchall()
    return {tuple(str(v) for v in row) for row in [*columns, *constraints, *indexes]}


OLD_DOCS = [
    {
        "version": "2.1",
        "user_key": "mel",
        "facts": [],
        "prefs": [],
        "entities": [],
        "open_loops": [],
        "contradictions": [],
        "observations": [],
        "episodes": [],
        "sources": [],
        "meta": {},
    },
]


def _old_history() -> list[dict]:
    """Three versions of a passport as the previous schema stored whole documents."""
    first = {
        **OLD_DOCS[0],
        "facts": [{"key": "location", "value": "Kwekwe", "ts": "2023-05-08T13:56:00Z"}],
        "observations": [
            {"text": "Melanie ran a charity race.", "when": "2023-05-20", "source": "seg_a"}
        ],
        "episodes": [{"id": "seg_a", "summary": "Melanie ran a race.", "source": "seg_a"}],
        "sources": [{"id": "seg_a", "kind": "chat", "hash": "sha256:a", "turn_ids": ["m7"]}],
    }
    second = {
        **first,
        "observations": [
            *first["observations"],
            {"text": "Melanie painted a lake.", "when": "2023-06-02", "source": "seg_b"},
        ],
        "sources": [*first["sources"], {"id": "seg_b", "kind": "chat", "hash": "sha256:b"}],
        "unknown_key": {"kept": True},
    }
    return [OLD_DOCS[0], first, second]


def test_the_log_migration_moves_old_passports_and_keeps_every_version(test_servers):
    """Data written by the previous schema reads the same after 0003, at every version."""
    import asyncio
    import json

    from app.db.engine import create_engine, session_factory
    from app.db.uow import uow_factory
    from app.domain import delta
    from app.domain.ids import canonical_bytes
    from app.services import passports

    url = test_servers.create_database(f"tessera_mig_{uuid.uuid4().hex[:8]}")
    engine.upgrade(url, "0002")
    history = _old_history()
    tenant = uuid.uuid4()
    with psycopg.connect(_libpq(url)) as conn:
        conn.execute("INSERT INTO tenant (id, name) VALUES (%s, 'old')", (tenant,))
        conn.execute(
            "INSERT INTO passport (tenant_id, user_key, doc, version) VALUES (%s, 'mel', %s, 2)",
            (tenant, json.dumps(history[-1])),
        )
        for version, doc in enumerate(history):
            change = None if version == 0 else delta.diff(history[version - 1], doc)
            conn.execute(
                "INSERT INTO passport_version (tenant_id, user_key, version, delta, snapshot, "
                "cause) VALUES (%s, 'mel', %s, %s, %s, 'import')",
                (
                    tenant,
                    version,
                    None if change is None else json.dumps(change),
                    json.dumps(doc) if version == 0 else None,
                ),
            )
    engine.upgrade(url)

    with psycopg.connect(_libpq(url)) as conn:
        head, epoch = conn.execute("SELECT doc, log_epoch FROM passport").fetchone()
        kinds = conn.execute("SELECT kind, count(*) FROM memory GROUP BY kind").fetchall()
    assert "observations" in head and head["observations"] == [] and epoch == 0
    assert dict(kinds) == {"observation": 2, "episode": 1, "source": 2}

    async def read_all() -> list[bytes]:
        eng = create_engine(url, pool_size=1)
        uows = uow_factory(session_factory(eng))
        try:
            return [
                (await passports.read_passport(uows, tenant, "mel", v)).body for v in range(3)
            ] + [(await passports.read_passport(uows, tenant, "mel")).body]
        finally:
            await eng.dispose()

    bodies = asyncio.run(read_all())
    for version, doc in enumerate(history):
        assert json.loads(bodies[version]) == doc, version
    assert bodies[3] == bodies[2] == canonical_bytes(history[2])
    # Down again: the documents hold their sections once more, and 0003 runs again cleanly.
    engine.downgrade(url, "0002")
    with psycopg.connect(_libpq(url)) as conn:
        (doc,) = conn.execute("SELECT doc FROM passport").fetchone()
    assert canonical_bytes({k: v for k, v in doc.items()}) == canonical_bytes(history[2])
    engine.upgrade(url)
