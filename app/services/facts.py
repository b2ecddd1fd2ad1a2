"""Facts and preferences written by the client: the same merge and versioning, no extraction."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pydantic import ValidationError

from app.db.uow import UowFactory
from app.domain.extraction import Extraction
from app.domain.ids import canonical_bytes, content_hash, content_id
from app.domain.memory.log import HEAD_CAPS, LogChange, LogDraft, row_hash
from app.domain.memory.merge import MergeReport, merge_beliefs
from app.domain.passport import Belief, Passport, Source
from app.domain.storable import json_problem, storable
from app.services import passports, quotas
from app.services.errors import Unprocessable
from app.services.origin import ANONYMOUS, Origin
from app.settings import Settings


@dataclass(frozen=True)
class FactsResult:
    """The version after the write, whether it changed, and the counts of what changed."""

    version: int
    changed: bool
    summary: dict[str, int]


async def write_facts(
    uows: UowFactory,
    tenant_id: uuid.UUID,
    user_key: str,
    beliefs: Extraction,
    *,
    settings: Settings,
    origin: Origin = ANONYMOUS,
) -> FactsResult:
    """Merge client facts/prefs (``beliefs``) under the row lock; those without ts are stamped
    now. Their bytes count against the tenant's daily quota."""
    facts, prefs, actor = beliefs.facts, beliefs.prefs, origin.actor
    now = datetime.now(UTC)
    stamp = now.strftime("%Y-%m-%dT%H:%M:%SZ")
    # As JSONB stores it (no NUL, no integer past 64 bits): the beliefs are read back from it.
    body = storable({"facts": [b.to_dict() for b in facts], "prefs": [b.to_dict() for b in prefs]})
    problem = json_problem(body)
    if problem:
        raise Unprocessable(problem)
    try:
        facts = [Belief.model_validate(b) for b in body["facts"]]
        prefs = [Belief.model_validate(b) for b in body["prefs"]]
    except ValidationError as error:
        # A key of nothing but NUL characters is empty once NUL is dropped.
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise Unprocessable(f"without its NUL characters, {where}: {first['msg']}") from None
    source = Source(
        id=content_id("api", body), kind="api", ts=stamp, hash=content_hash(body), turn_ids=[]
    )
    for belief in (*facts, *prefs):
        if belief.ts is None:
            belief.ts = stamp
        if belief.source is None:
            belief.source = source.id
    size = len(canonical_bytes(body))
    async with uows() as uow:
        repo = uow.tenant(tenant_id)
        await quotas.check_bytes(repo, size, now, settings)
        await passports.create_if_missing(repo, user_key, now, actor=actor)
        row = await repo.passport(user_key, lock=True)
        assert row is not None  # created above or already there; we hold its lock now
        # The client's write is its own source, kept in the log: the same body again is a no-op.
        draft = LogDraft(await repo.rows_by_hash(user_key, {row_hash("source", source.to_dict())}))
        # A thousand new keys are CPU work: in a thread, so this process keeps serving meanwhile.
        passport, report, change = await asyncio.to_thread(
            _merged, row.doc, draft, Extraction(facts=facts, prefs=prefs), source, stamp
        )
        version = row.version
        if report.changed:
            new = passports.NewVersion(
                row.doc,
                passport.to_dict(),
                row.version,
                "facts",
                now,
                change,
                old_root=row.root,
                actor=actor,
            )
            every = settings.version_snapshot_every
            recorded = await passports.record_version(repo, user_key, new, every)
            version = recorded.version
        await quotas.charge_bytes(repo, size, now, settings)
        await uow.commit()
    return FactsResult(version=version, changed=report.changed, summary=report.summary())


def _merged(
    doc: dict[str, Any], draft: LogDraft, beliefs: Extraction, source: Source, now: str
) -> tuple[Passport, MergeReport, LogChange]:
    passport = Passport.from_dict(doc)
    draft.seed(passport)
    report = merge_beliefs(passport, beliefs.facts, beliefs.prefs, source, now=now)
    return passport, report, draft.collect(passport, spill=HEAD_CAPS)
