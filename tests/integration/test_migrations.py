"""The Alembic migrations go up, down and up again on an empty database."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import psycopg
import pytest

from app.db import engine
from tests.conftest import _libpq, without_witness

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
    "erasure_receipt",
    "index_segment",
}


def test_the_stored_index_writes_no_wal_and_is_not_compressed(test_servers):
    url = test_servers.create_database(f"tessera_mig_{uuid.uuid4().hex[:8]}")
    engine.upgrade(url)
    with psycopg.connect(_libpq(url)) as conn:
        found = conn.execute(
            "SELECT c.relpersistence, a.attstorage FROM pg_class c"
            " JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'body'"
            " WHERE c.relname = 'index_segment'"
        ).fetchone()
    assert found == ("u", "e")  # unlogged; stored external, uncompressed


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
    from app.domain.ids import canonical_bytes
    from app.domain.memory import delta
    from app.services import integrity, passports

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

    async def read_all() -> tuple[list[bytes], integrity.Integrity]:
        eng = create_engine(url, pool_size=1)
        uows = uow_factory(session_factory(eng))
        try:
            bodies = [
                await (await passports.export(uows, tenant, "mel", v)).body() for v in range(3)
            ] + [await (await passports.export(uows, tenant, "mel")).body()]
            return bodies, await integrity.check(uows, tenant, "mel")
        finally:
            await eng.dispose()

    bodies, chained = asyncio.run(read_all())
    for version, doc in enumerate(history):
        assert without_witness(json.loads(bodies[version])) == doc, version
    assert bodies[3] == bodies[2]
    assert canonical_bytes(without_witness(json.loads(bodies[2]))) == canonical_bytes(history[2])
    # 0007 chained the history it found: it verifies, and its root is the export's.
    assert chained.valid and chained.versions == 3, chained
    assert json.loads(bodies[2])["witness"]["root"] == chained.root
    # Down again: the documents hold their sections once more, and 0003 runs again cleanly.
    engine.downgrade(url, "0002")
    with psycopg.connect(_libpq(url)) as conn:
        (doc,) = conn.execute("SELECT doc FROM passport").fetchone()
    assert canonical_bytes({k: v for k, v in doc.items()}) == canonical_bytes(history[2])
    engine.upgrade(url)


def test_identities_stored_before_0004_are_keyed_by_time_and_still_found(test_servers, settings):
    """Turns and sources stored under bare-hash identities and untimed segment ids, then upgraded.

    The same chat sent again adds nothing; a segment whose turns were stored but never extracted
    is extracted under the id its turns name; a reprocess keeps every stored source's id.
    """
    import asyncio
    import json

    from app.db.engine import create_engine, session_factory
    from app.db.uow import uow_factory
    from app.domain.extraction.rules import RuleExtractor
    from app.domain.ids import sha256_hex
    from app.domain.ingest.payload import IngestPayload
    from app.domain.memory.log import row_hash, turn_rows
    from app.domain.passport import Passport
    from app.services import ingest, processing, reprocess
    from app.services.claimed import WorkerResources
    from app.services.ingest import segments_of

    body = {
        "turns": [
            {"speaker": "Ann", "text": "We moved to Leeds.", "ts": "2023-05-08T13:56:00Z"},
            {"speaker": "Bo", "text": "How is it?", "ts": "2023-05-08T13:57:00Z", "id": "b1"},
        ]
    }
    payload = IngestPayload.model_validate(body)
    failed = IngestPayload.model_validate(
        {"turns": [{"speaker": "Ann", "text": "The flat is tiny.", "ts": "2023-06-01T09:00:00Z"}]}
    )
    (segment,) = segments_of(payload, settings)
    legacy_source = "seg_" + segment.id.rsplit("_", 1)[1]  # ids carried no time before 0004
    rows, now_keyed = [], []
    for _, row in turn_rows([segment], datetime(2023, 5, 9, tzinfo=UTC)):
        item = {**row.item, "source": legacy_source}
        rows.append(("turn", item, row.hash.rsplit(":", 1)[1], item["ts"]))
        now_keyed.append(row.hash)
    source = {"id": legacy_source, "kind": "chat", "ts": "2023-05-08T13:57:00Z"}
    source |= {"hash": segment.hash, "turn_ids": list(segment.turn_ids)}
    rows.append(("source", source, sha256_hex(["source", segment.hash]), source["ts"]))
    # Times at the calendar's ends: keyed exactly as the application keys them, or not at all.
    for n, ts in enumerate(
        ["0005-03-01T04:05:06Z", "0001-01-01T00:30:00+05:00", "9999-12-31T23:00:00-05:00"]
    ):
        item = {"id": f"x{n}", "speaker": "Ann", "text": "old", "ts": ts, "session": None}
        rows.append(("turn", item, row_hash("turn", item).rsplit(":", 1)[-1], ts))

    # Turns whose extraction failed before the upgrade: stored, with no source row.
    (unextracted,) = segments_of(failed, settings)
    failed_source = "seg_" + unextracted.id.rsplit("_", 1)[1]
    for _, row in turn_rows([unextracted], datetime(2023, 6, 2, tzinfo=UTC)):
        item = {**row.item, "source": failed_source}
        rows.append(("turn", item, row.hash.rsplit(":", 1)[1], item["ts"]))
        now_keyed.append(row.hash)

    url = test_servers.create_database(f"tessera_mig_{uuid.uuid4().hex[:8]}")
    engine.upgrade(url, "0003")
    tenant = uuid.uuid4()
    head = Passport.empty("ann").to_dict() | {"turns": []}
    with psycopg.connect(_libpq(url)) as conn:
        conn.execute("INSERT INTO tenant (id, name) VALUES (%s, 'old')", (tenant,))
        conn.execute(
            "INSERT INTO passport (tenant_id, user_key, doc, version) VALUES (%s, 'ann', %s, 1)",
            (tenant, json.dumps(head)),
        )
        for kind, item, key, ts in rows:
            conn.execute(
                "INSERT INTO memory (tenant_id, user_key, kind, hash, ts, source, turn_id, "
                "version_added, item) VALUES (%s, 'ann', %s, %s, %s::timestamptz, %s, %s, 1, %s)",
                (tenant, kind, key, ts, item.get("source"), item.get("id"), json.dumps(item)),
            )
    engine.upgrade(url)

    with psycopg.connect(_libpq(url)) as conn:
        stored = conn.execute("SELECT kind, item, hash FROM memory ORDER BY id").fetchall()
    # The chat's turns under the keys the worker gives them now, the rest as the items say.
    assert [h for _, _, h in stored[:2] + stored[6:]] == now_keyed
    assert now_keyed[0] == "20230508T135600:" + rows[0][2]
    assert stored[3][2].startswith("00050301T040506:")
    for kind, item, key in stored[2:6]:
        assert key == row_hash(kind, item), item

    async def run(job_of) -> tuple[str, bool, int, set[str]]:  # type: ignore[no-untyped-def]
        eng = create_engine(url, pool_size=2)
        uows = uow_factory(session_factory(eng))
        try:
            accepted = await job_of(uows)
            pipeline = WorkerResources(extractor=RuleExtractor())
            done = await processing.run_job(uows, tenant, accepted.id, settings, pipeline)
            async with eng.connect() as conn:
                count = (await conn.exec_driver_sql("SELECT count(*) FROM memory")).scalar_one()
                named = await conn.exec_driver_sql(
                    "SELECT DISTINCT coalesce(item->>'source', item->>'id') FROM memory"
                    " WHERE version_removed IS NULL AND kind <> 'turn'"
                )
                sources = {str(r[0]) for r in named.all()}
            return done.status, done.changed, int(count), sources
        finally:
            await eng.dispose()

    async def sent(uows, body):  # type: ignore[no-untyped-def]
        return (await ingest.accept(uows, tenant, "ann", body, settings)).job

    status, changed, count, sources = asyncio.run(run(lambda uows: sent(uows, payload)))
    assert (status, changed, count) == ("done", False, len(rows))
    status, changed, count, sources = asyncio.run(run(lambda uows: sent(uows, failed)))
    # Its source and its episode; no turn again.
    assert (status, changed, count) == ("done", True, len(rows) + 2)
    assert sources == {legacy_source, failed_source}
    redo = asyncio.run(run(lambda uows: reprocess.accept(uows, tenant, "ann", "tessera:queue")))
    assert redo[0] == "done" and redo[3] == {legacy_source, failed_source}

    engine.downgrade(url, "0003")
    with psycopg.connect(_libpq(url)) as conn:
        keys = [r[0] for r in conn.execute("SELECT hash FROM memory ORDER BY id").fetchall()]
    assert keys[: len(rows)] == [key for _, _, key, _ in rows]
    assert not [key for key in keys if ":" in key]
