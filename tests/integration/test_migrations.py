"""The Alembic migrations go up, down and up again on an empty database."""

from __future__ import annotations

import uuid

import psycopg
import pytest

from app.db import engine
from tests.conftest import _libpq

pytestmark = pytest.mark.integration

TABLES = {"tenant", "api_key", "passport", "passport_version", "ingest_job"}


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
    } <= names
