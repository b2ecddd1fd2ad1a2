"""Use cases on an in-memory unit of work: what they commit, refuse and enqueue, no database."""

from __future__ import annotations

import asyncio
import copy
import json
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import datetime
from types import SimpleNamespace
from typing import Any

import pytest
from sqlalchemy import inspect

from app.domain.ingest.payload import IngestPayload
from app.domain.memory.log import LogRow, StoredRow
from app.services import ingest, jobs, passports
from app.services.errors import Conflict, LimitExceeded, NotFound, PreconditionFailed
from app.services.origin import ANONYMOUS, Origin
from app.settings import Settings

TENANT = uuid.uuid4()
# Settings whose passports keep a full snapshot every tenth version.
TEN = Settings(version_snapshot_every=10)
OTHER = uuid.uuid4()


@dataclass
class Store:
    """What a committed database would hold: rows per (tenant, table)."""

    passports: dict[tuple[uuid.UUID, str], SimpleNamespace] = field(default_factory=dict)
    versions: dict[tuple[uuid.UUID, str], list[SimpleNamespace]] = field(default_factory=dict)
    jobs: dict[tuple[uuid.UUID, uuid.UUID], SimpleNamespace] = field(default_factory=dict)
    rows: dict[tuple[uuid.UUID, str], list[StoredRow]] = field(default_factory=dict)
    removed: dict[int, int] = field(default_factory=dict)  # row id -> version that removed it
    enqueued: list[tuple[uuid.UUID, uuid.UUID]] = field(default_factory=list)
    ingest_bytes: dict[tuple[uuid.UUID, datetime], int] = field(default_factory=dict)
    commits: int = 0


def _row(obj: Any) -> SimpleNamespace:
    """A detached copy of a model's column values, as a committed row would hold them."""
    return SimpleNamespace(**{a.key: getattr(obj, a.key) for a in inspect(obj).mapper.column_attrs})


class FakeTenantRepo:
    """The TenantRepository methods these use cases call, on the unit of work's own copy."""

    def __init__(self, data: Store, tenant_id: uuid.UUID) -> None:
        self.data = data
        self.tenant_id = tenant_id

    async def passport(self, user_key: str, *, lock: bool = False) -> SimpleNamespace | None:
        return self.data.passports.get((self.tenant_id, user_key))

    async def passport_version(self, user_key: str) -> int | None:
        row = self.data.passports.get((self.tenant_id, user_key))
        return None if row is None else int(row.version)

    async def create_passport_if_missing(
        self, user_key: str, doc: dict[str, Any], now: datetime, root: str
    ) -> bool:
        if (self.tenant_id, user_key) in self.data.passports:
            return False
        self.data.passports[(self.tenant_id, user_key)] = SimpleNamespace(
            user_key=user_key, doc=doc, version=0, created_at=now, updated_at=now, root=root
        )
        return True

    async def save_passport(
        self,
        user_key: str,
        doc: dict[str, Any],
        version: int,
        now: datetime,
        *,
        root: str,
        new_epoch: bool = False,
        turns: int = 0,
    ) -> int:
        row = self.data.passports[(self.tenant_id, user_key)]
        row.doc, row.version, row.updated_at, row.root = doc, version, now, root
        row.turn_count = max(0, getattr(row, "turn_count", 0) + turns)
        row.log_epoch = getattr(row, "log_epoch", 0) + int(new_epoch)
        return int(row.log_epoch)

    async def segment_infos(self, user_key: str) -> list[Any]:
        return []  # no stored index here: reads build from the log

    async def turn_counts(self, user_key: str) -> tuple[int, int, bool]:
        row = self.data.passports.get((self.tenant_id, user_key))
        pending = sum(
            job.result["plan"]["interactions"]
            for (tenant, _), job in self.data.jobs.items()
            if tenant == self.tenant_id and job.user_key == user_key and job.status == "queued"
        )
        return (0 if row is None else getattr(row, "turn_count", 0)), pending, row is not None

    async def lock_user_turns(self, user_key: str) -> None:
        """One event loop, no other writer: checks and counts already run one at a time."""

    async def ingest_bytes_since(self, since: datetime) -> int:
        return sum(
            n
            for (tenant, hour), n in self.data.ingest_bytes.items()
            if tenant == self.tenant_id and hour >= since
        )

    async def add_usage(self, hour: datetime, counts: dict[str, int]) -> None:
        key = (self.tenant_id, hour)
        self.data.ingest_bytes[key] = self.data.ingest_bytes.get(key, 0) + counts["ingest_bytes"]

    async def charge_ingest_bytes(self, hour: datetime, size: int, since: datetime) -> int:
        await self.add_usage(hour, {"ingest_bytes": size})
        return await self.ingest_bytes_since(since)

    async def add_rows(
        self, user_key: str, rows: list[LogRow], version: int, job_id: Any
    ) -> list[int]:
        held = self.data.rows.setdefault((self.tenant_id, user_key), [])
        first = 1 + max((r.id for rs in self.data.rows.values() for r in rs), default=0)
        added = [
            StoredRow(first + n, row.kind, row.item, row.hash, version)
            for n, row in enumerate(rows)
        ]
        held.extend(added)
        return [r.id for r in added]

    async def remove_rows(
        self, user_key: str, ids: list[int], version: int
    ) -> list[tuple[str, dict[str, Any]]]:
        for row_id in ids:
            self.data.removed[row_id] = version
        held = self.data.rows.get((self.tenant_id, user_key), [])
        return [(r.kind, r.item) for r in held if r.id in ids]

    async def stream_rows(
        self, user_key: str, *, version: int | None, kinds: Any = None
    ) -> AsyncIterator[StoredRow]:
        for row in self.data.rows.get((self.tenant_id, user_key), []):
            gone = self.data.removed.get(row.id)
            alive = (
                gone is None
                if version is None
                else row.version <= version and (gone is None or gone > version)
            )
            if alive and (kinds is None or row.kind in kinds):
                yield row

    async def page_rows(
        self, user_key: str, *, version: int | None, kinds: Any, after: int | None, limit: int
    ) -> list[StoredRow]:
        rows = [r async for r in self.stream_rows(user_key, version=version, kinds=kinds)]
        return [r for r in rows if after is None or r.id > after][:limit]

    async def add_version(self, row: Any) -> None:
        self.data.versions.setdefault((self.tenant_id, row.user_key), []).append(_row(row))

    async def versions_to_rebuild(self, user_key: str, version: int) -> list[SimpleNamespace]:
        rows = [r for r in self.data.versions.get((self.tenant_id, user_key), [])]
        base = max(r.version for r in rows if r.snapshot is not None and r.version <= version)
        return [r for r in rows if base <= r.version <= version]

    async def versions_numbered(self, user_key: str, numbers: Any) -> list[SimpleNamespace]:
        rows = self.data.versions.get((self.tenant_id, user_key), [])
        return [r for r in rows if r.version in numbers]

    async def job_by_idempotency_key(self, key: str) -> SimpleNamespace | None:
        for (tenant, _), job in self.data.jobs.items():
            if tenant == self.tenant_id and job.idempotency_key == key:
                return job
        return None

    async def add_job(self, job: Any) -> None:
        self.data.jobs[(self.tenant_id, job.id)] = _row(job)

    async def add_job_once(self, job: Any) -> tuple[Any, bool]:
        earlier = await self.job_by_idempotency_key(job.idempotency_key)
        if earlier is not None:
            return earlier, False
        await self.add_job(job)
        return job, True

    async def job(self, job_id: uuid.UUID, *, lock: bool = False) -> SimpleNamespace | None:
        return self.data.jobs.get((self.tenant_id, job_id))


class FakeUow:
    """A unit of work on a copy of the store: commit publishes it, leaving drops it."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.work = copy.deepcopy(store)
        self.pending: list[tuple[uuid.UUID, uuid.UUID]] = []

    async def __aenter__(self) -> FakeUow:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.pending = []

    def tenant(self, tenant_id: uuid.UUID) -> FakeTenantRepo:
        return FakeTenantRepo(self.work, tenant_id)

    def enqueue_after_commit(self, tenant_id: uuid.UUID, job_id: uuid.UUID) -> None:
        self.pending.append((tenant_id, job_id))

    async def commit(self) -> None:
        self.store.passports = self.work.passports
        self.store.versions = self.work.versions
        self.store.jobs = self.work.jobs
        self.store.rows = self.work.rows
        self.store.removed = self.work.removed
        self.store.ingest_bytes = self.work.ingest_bytes
        self.store.commits += 1
        self.store.enqueued.extend(self.pending)
        self.pending = []
        self.work = copy.deepcopy(self.store)


def factory(store: Store) -> Any:
    return lambda: FakeUow(store)


def run(coro: Any) -> Any:
    return asyncio.run(coro)


PASSPORT = {
    "version": "2.1",
    "user_key": "ana",
    "facts": [{"key": "location", "value": "Kwekwe", "ts": "2024-05-01T10:00:00Z"}],
}


async def _body(uows: Any, user: str, version: int | None = None, tenant: Any = TENANT) -> bytes:
    """The passport exported as one body, as a client reads it."""
    return await (await passports.export(uows, tenant, user, version)).body()


def test_a_put_passport_reads_back_and_its_first_version_too():
    store = Store()
    uows = factory(store)
    written = run(
        passports.put_passport(uows, TENANT, "ana", PASSPORT, settings=TEN, origin=ANONYMOUS)
    )
    assert (written.created, written.changed, written.version) == (True, True, 1)

    assert run(passports.export(uows, TENANT, "ana")).version == 1
    assert json.loads(run(_body(uows, "ana")))["facts"][0]["value"] == "Kwekwe"
    empty = json.loads(run(_body(uows, "ana", 0)))
    assert empty["facts"] == []


def test_the_same_passport_again_makes_no_new_version():
    store = Store()
    uows = factory(store)
    run(passports.put_passport(uows, TENANT, "ana", PASSPORT, settings=TEN, origin=ANONYMOUS))
    again = run(
        passports.put_passport(
            uows, TENANT, "ana", PASSPORT, settings=TEN, origin=Origin(if_match='"1"')
        )
    )
    assert (again.version, again.changed, again.created) == (1, False, False)


def test_a_stale_if_match_changes_nothing():
    store = Store()
    uows = factory(store)
    run(passports.put_passport(uows, TENANT, "ana", PASSPORT, settings=TEN, origin=ANONYMOUS))
    commits = store.commits
    moved = {**PASSPORT, "facts": [{**PASSPORT["facts"][0], "value": "Harare"}]}
    with pytest.raises(PreconditionFailed):
        run(
            passports.put_passport(
                uows, TENANT, "ana", moved, settings=TEN, origin=Origin(if_match='"0"')
            )
        )
    assert store.commits == commits
    body = json.loads(run(_body(uows, "ana")))
    assert body["facts"][0]["value"] == "Kwekwe"


def test_another_tenant_does_not_see_the_passport():
    uows = factory(Store())
    run(passports.put_passport(uows, TENANT, "ana", PASSPORT, settings=TEN, origin=ANONYMOUS))
    with pytest.raises(NotFound):
        run(_body(uows, "ana", tenant=OTHER))


def _payload(text: str) -> IngestPayload:
    return IngestPayload.model_validate({"turns": [{"speaker": "ana", "text": text}]})


def test_an_ingest_is_queued_once_per_idempotency_key():
    store = Store()
    uows = factory(store)
    settings = Settings()
    first = run(
        ingest.accept(
            uows,
            TENANT,
            "ana",
            _payload("I moved to Kwekwe."),
            settings,
            Origin(idempotency_key="k1"),
        )
    )
    again = run(
        ingest.accept(
            uows,
            TENANT,
            "ana",
            _payload("I moved to Kwekwe."),
            settings,
            Origin(idempotency_key="k1"),
        )
    )

    assert (first.replayed, again.replayed) == (False, True)
    assert again.job.id == first.job.id
    assert first.job.status == "queued" and first.job.kind == "ingest"
    assert len(store.jobs) == 1
    # Enqueued once, and only after the job row was committed.
    assert store.enqueued == [(TENANT, first.job.id)]


def test_an_idempotency_key_reused_for_another_request_is_refused():
    store = Store()
    uows = factory(store)
    settings = Settings()
    run(
        ingest.accept(
            uows,
            TENANT,
            "ana",
            _payload("I moved to Kwekwe."),
            settings,
            Origin(idempotency_key="k1"),
        )
    )
    with pytest.raises(Conflict, match="different request"):
        run(
            ingest.accept(
                uows,
                TENANT,
                "ana",
                _payload("I moved to Harare."),
                settings,
                Origin(idempotency_key="k1"),
            )
        )
    assert len(store.jobs) == 1 and len(store.enqueued) == 1


def test_an_idempotency_key_belongs_to_its_tenant():
    store = Store()
    uows = factory(store)
    settings = Settings()
    mine = run(
        ingest.accept(
            uows, TENANT, "ana", _payload("Hello."), settings, Origin(idempotency_key="k1")
        )
    )
    theirs = run(
        ingest.accept(
            uows, OTHER, "ana", _payload("Hello."), settings, Origin(idempotency_key="k1")
        )
    )
    assert theirs.job.id != mine.job.id and not theirs.replayed
    assert run(jobs.get_job(uows, OTHER, theirs.job.id)).user_key == "ana"
    with pytest.raises(NotFound):
        run(jobs.get_job(uows, OTHER, mine.job.id))


def test_an_ingest_past_the_users_turns_is_refused_and_nothing_stored():
    store = Store()
    uows = factory(store)
    settings = Settings(user_max_turns=2)
    run(ingest.accept(uows, TENANT, "ana", _payload("I moved to Kwekwe."), settings))
    run(ingest.accept(uows, TENANT, "ana", _payload("I moved to Gweru."), settings))
    with pytest.raises(LimitExceeded, match="user_max_turns") as refused:
        run(ingest.accept(uows, TENANT, "ana", _payload("I moved to Harare."), settings))
    assert (refused.value.status, refused.value.limit) == (413, "user_max_turns")
    assert len(store.jobs) == 2 and len(store.enqueued) == 2  # the two queued turns counted
    run(ingest.accept(uows, TENANT, "bo", _payload("I moved to Harare."), settings))  # per user


def test_an_ingest_past_the_tenants_daily_bytes_is_refused_until_an_hour_frees_up():
    store = Store()
    uows = factory(store)
    text = "I moved to Kwekwe. " * 20
    settings = Settings(tenant_ingest_bytes_per_day=len(text) + 200)
    run(ingest.accept(uows, TENANT, "ana", _payload(text), settings))
    with pytest.raises(LimitExceeded, match="tenant_ingest_bytes_per_day") as refused:
        run(ingest.accept(uows, TENANT, "bo", _payload(text), settings))
    assert refused.value.status == 429
    assert refused.value.retry_after is not None and 0 < refused.value.retry_after <= 3601
    assert len(store.jobs) == 1
    run(ingest.accept(uows, OTHER, "ana", _payload(text), settings))  # another tenant's own day


def test_an_import_with_more_turns_than_a_user_may_hold_is_refused():
    store = Store()
    uows = factory(store)
    doc = copy.deepcopy(PASSPORT)
    doc["turns"] = [{"id": f"t{n}", "speaker": "ana", "text": f"line {n}"} for n in range(3)]
    with pytest.raises(LimitExceeded, match="user_max_turns"):
        run(passports.put_passport(uows, TENANT, "ana", doc, settings=Settings(user_max_turns=2)))
    assert store.passports == {}
