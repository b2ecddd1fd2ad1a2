"""The migrated schema holds what Citus needs to distribute every per-tenant table by tenant_id.

Citus distributes a table by one column and enforces a primary key or a unique index only when
it holds that column; a foreign key between two distributed tables must include it too (one to
a reference table need not). This reads the schema the migrations make, on a real Postgres, and
checks each rule; docs/operations.md ("Distributing by tenant") says what runs beside it.
"""

from __future__ import annotations

import uuid

import psycopg
import pytest

from app.db import engine
from tests.conftest import _libpq

pytestmark = pytest.mark.integration

# Replicated to every node (Citus reference tables): looked up without a tenant.
REFERENCE = {"tenant", "api_key"}


def _catalog(url: str, sql: str) -> list[tuple]:  # type: ignore[type-arg]
    with psycopg.connect(_libpq(url)) as conn:
        return conn.execute(sql).fetchall()


@pytest.fixture(scope="module")
def migrated(test_servers) -> str:  # type: ignore[no-untyped-def]
    url = test_servers.create_database(f"tessera_citus_{uuid.uuid4().hex[:8]}")
    engine.upgrade(url)
    return url


def _per_tenant(url: str) -> set[str]:
    rows = _catalog(
        url,
        "SELECT table_name FROM information_schema.columns "
        "WHERE table_schema = 'public' AND column_name = 'tenant_id'",
    )
    return {r[0] for r in rows} - REFERENCE


def test_every_table_is_per_tenant_or_a_reference_table(migrated: str) -> None:
    tables = {
        r[0]
        for r in _catalog(migrated, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
    } - {"alembic_version"}
    per_tenant = _per_tenant(migrated)
    assert tables == per_tenant | REFERENCE
    assert {"passport", "memory", "passport_version", "ingest_job", "erasure_receipt"} <= per_tenant


def test_every_key_and_unique_index_of_a_per_tenant_table_starts_with_tenant_id(
    migrated: str,
) -> None:
    rows = _catalog(
        migrated,
        "SELECT t.relname, i.relname, ix.indisprimary, "
        "  (SELECT array_agg(a.attname ORDER BY k.n) FROM unnest(ix.indkey) WITH ORDINALITY "
        "     AS k(attnum, n) JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum) "
        "FROM pg_index ix JOIN pg_class t ON t.oid = ix.indrelid "
        "JOIN pg_class i ON i.oid = ix.indexrelid JOIN pg_namespace s ON s.oid = t.relnamespace "
        "WHERE s.nspname = 'public' AND ix.indisunique",
    )
    per_tenant = _per_tenant(migrated)
    checked = [(table, index, columns) for table, index, _, columns in rows if table in per_tenant]
    assert any(index == "pk_memory" for _, index, _ in checked)
    wrong = [
        f"{table}.{index} {columns}"
        for table, index, columns in checked
        if columns[0] != "tenant_id"
    ]
    assert wrong == []


def test_foreign_keys_between_per_tenant_tables_hold_tenant_id(migrated: str) -> None:
    rows = _catalog(
        migrated,
        "SELECT c.conname, src.relname, dst.relname, "
        "  (SELECT array_agg(a.attname) FROM unnest(c.conkey) k JOIN pg_attribute a "
        "     ON a.attrelid = c.conrelid AND a.attnum = k), "
        "  (SELECT array_agg(a.attname) FROM unnest(c.confkey) k JOIN pg_attribute a "
        "     ON a.attrelid = c.confrelid AND a.attnum = k) "
        "FROM pg_constraint c JOIN pg_class src ON src.oid = c.conrelid "
        "JOIN pg_class dst ON dst.oid = c.confrelid JOIN pg_namespace s ON s.oid = c.connamespace "
        "WHERE s.nspname = 'public' AND c.contype = 'f'",
    )
    per_tenant = _per_tenant(migrated)
    between = [r for r in rows if r[1] in per_tenant and r[2] in per_tenant]
    assert between, "the per-tenant tables reference each other (passport, jobs, log)"
    wrong = [
        name
        for name, _, _, source, target in between
        if "tenant_id" not in source or source.index("tenant_id") != target.index("tenant_id")
    ]
    assert wrong == []
    # A per-tenant table may point at a reference table (the tenant), never the reverse.
    backwards = [r[0] for r in rows if r[1] in REFERENCE and r[2] in per_tenant]
    assert backwards == []
