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
