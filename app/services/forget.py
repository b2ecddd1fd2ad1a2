"""Forget a turn, a source or a session: a hard delete from the passport and from its history.

One transaction under the passport's row lock: the turn rows and every row derived from them are
deleted; the head loses what was derived from them; every stored version from the one that added
the turns is rewritten without it; stored job payloads lose the turns; extractions cached for
their segments are dropped; a new version records that something was forgotten (how much, never
what). What this process caches of the user goes after the commit; other processes see the
log's new epoch and build the user's index again.
"""

from __future__ import annotations

import asyncio
import dataclasses
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from app.db.repository import TenantRepository
from app.db.uow import UowFactory
from app.domain.ingest import IngestLimits, IngestPayload, InputError
from app.domain.integrity.canonical import digest, row_hash
from app.domain.integrity.chain import Erased, Redactions
from app.domain.memory import delta
from app.domain.memory.forget import (
    WITHHELD,
    Forgetting,
    entity_candidates,
    payload_without,
    payload_without_units,
)
from app.domain.memory.log import StoredRow, unit_identities
from app.services import passports, receipts
from app.services.cache import ContextCaches, Dropped, forget_cached
from app.services.errors import NotFound
from app.settings import Settings

# Stored payloads read at a time while a forget looks for the forgotten turns in them.
SCRUB_BATCH = 50
# A payload was accepted before: it is read again without the limits it passed then.
ANY_SIZE = IngestLimits(max_items=2**31, max_turn_chars=2**40, max_total_chars=2**40)


@dataclass(frozen=True)
class Forgotten:
    """What a forget did: the version it made and how much went (and, once done, its receipt)."""

    version: int
    turns: int
    derived_rows: int
    beliefs: int
    versions_rewritten: int
    payloads_scrubbed: int
    cached_extractions: int
    rows_rewritten: int = 0
    redacted: tuple[str, ...] = ()
    receipt: dict[str, Any] = dataclasses.field(default_factory=dict)

    def summary(self) -> dict[str, int]:
        """The counts, as the version row records them."""
        return {
            "turns": self.turns,
            "derived_rows": self.derived_rows,
            "beliefs": self.beliefs,
            "versions_rewritten": self.versions_rewritten,
            "payloads_scrubbed": self.payloads_scrubbed,
            "cached_extractions": self.cached_extractions,
        }


@dataclass(frozen=True)
class ForgetTarget:
    """What to forget: the turns a client id names, every turn of a source, or every turn of a
    session; and who asks (the prefix of their API key, the forget's actor in the hash chain)."""

    turn_id: str | None = None
    source: str | None = None
    session: str | None = None
    actor: str = ""

    @property
    def scope(self) -> str:
        """turn, source or session: what the receipt says was forgotten."""
        if self.turn_id is not None:
            return "turn"
        return "source" if self.source is not None else "session"

    @property
    def name(self) -> str:
        """The client id, source id or session named."""
        return str(self.turn_id or self.source or self.session)


async def forget(
    uows: UowFactory,
    caches: ContextCaches,
    tenant_id: uuid.UUID,
    user_key: str,
    target: ForgetTarget,
    settings: Settings,
) -> Forgotten:
    """Hard-delete the turns with this client id (or of this source or session) and what came
    of them; the result carries the signed erasure receipt, stored before the forget commits."""
    held = caches.indexes.peek(tenant_id, user_key) is not None
    done = await _forget(uows, caches, tenant_id, user_key, target, settings)
    # Again after the commit: a read may have cached the old log meanwhile. The other
    # processes drop theirs on the signal the forget sent when it committed.
    forget_cached(caches, tenant_id, user_key)
    if held and caches.index_again is not None:
        caches.index_again(tenant_id, user_key)  # the user is being read: keep it warm
    return done


async def _forget(
    uows: UowFactory,
    caches: ContextCaches,
    tenant_id: uuid.UUID,
    user_key: str,
    target: ForgetTarget,
    settings: Settings,
) -> Forgotten:
    snapshot_every = settings.version_snapshot_every
    async with uows() as uow:
        repo = uow.tenant(tenant_id)
        row = await repo.passport(user_key, lock=True)
        if row is None:
            raise NotFound(f"no user {user_key!r}")
        turns = await repo.turns_named(
            user_key, turn_id=target.turn_id, source=target.source, session=target.session
        )
        if not turns:
            raise NotFound(f"user {user_key!r} has no {target.scope} {target.name!r}")
        gone = await _with_listing_sources(repo, user_key, _forgetting(turns))
        derived, rewritten = await _derived_rows(repo, user_key, gone)
        ledger = _Ledger(row.version + 1)
        await ledger.rows(repo, user_key, [*turns, *derived], rewritten)
        await repo.delete_rows(user_key, [t.id for t in turns] + [r.id for r in derived])
        for stored, item in rewritten:
            await repo.rewrite_row(user_key, stored.id, item)
        # Entities are names: one goes when no turn left in the log mentions it.
        names = entity_candidates(row.doc, [text for _, text in gone.said])
        kept = {n.casefold() for n in names if await repo.turn_text_mentions(user_key, n)}
        gone = Forgetting(
            gone.turn_ids,
            gone.sources,
            gone.said,
            frozenset(n.casefold() for n in names) - kept,
        )
        head = gone.scrub_head(row.doc)
        first = min(t.version for t in turns)
        deleted = {t.id for t in turns} | {r.id for r in derived}
        versions = await _rewrite_history(repo, user_key, first, gone, deleted, ledger)
        erased = await ledger.record(repo, user_key)
        hashes = frozenset(t.hash for t in turns)
        payloads = await _scrub_payloads(repo, user_key, gone, hashes)
        await _scrub_compactions(repo, user_key)
        cached = await repo.drop_cached_segments(user_key, gone.sources)
        done = Forgotten(
            version=row.version + 1,
            turns=len(turns),
            derived_rows=len(derived),
            beliefs=passports.belief_count(row.doc) - passports.belief_count(head),
            versions_rewritten=versions,
            payloads_scrubbed=payloads,
            cached_extractions=cached,
            rows_rewritten=len(rewritten),
            redacted=erased.redacted,
        )
        now = datetime.now(UTC)
        new = passports.NewVersion(
            head,
            head,
            row.version,
            "forget",
            now,
            new_epoch=True,
            extra_summary={"forgotten": done.summary()},
            turns_deleted=len(turns),
            old_root=row.root,
            actor=target.actor,
            erased=erased,
        )
        recorded = await passports.record_version(repo, user_key, new, snapshot_every)
        dropped = forget_cached(caches, tenant_id, user_key)
        account = _account(target, done, recorded, dropped)
        receipt = await receipts.issue(repo, user_key, account, now, receipts.secret_of(settings))
        await uow.system.signal_forgotten(tenant_id, user_key)
        await uow.commit()
    return dataclasses.replace(done, receipt=receipt)


def _account(
    target: ForgetTarget, done: Forgotten, recorded: passports.Recorded, dropped: Dropped
) -> dict[str, Any]:
    """What a forget's receipt says: what went from each store, and the chain's root after it."""
    return {
        "scope": target.scope,
        "target": target.name,
        "version": done.version,
        "root": recorded.root,
        "actor": target.actor,
        "removed": {
            "log_rows": done.turns + done.derived_rows,
            "turns": done.turns,
            "derived_rows": done.derived_rows,
            "rows_rewritten": done.rows_rewritten,
            "head_beliefs": done.beliefs,
            "versions_rewritten": done.versions_rewritten,
            "job_payloads": done.payloads_scrubbed,
            "extraction_cache": done.cached_extractions,
            "cached_contexts": dropped.contexts,
            "indexes": dropped.indexes,
            "index_vectors": dropped.vectors,
            "stored_index_segments": recorded.segments_dropped,
        },
        "redacted": list(done.redacted),
    }


class _Ledger:
    """What a forget does to the chain: the hashes it redacts, the rows and deltas it rewrites,
    recorded on the versions they belong to and, as ``Erased``, in the forget's own link."""

    def __init__(self, forget_version: int) -> None:
        self.forget = forget_version
        self.redactions: dict[int, Redactions] = {}
        self.rewritten_rows: list[tuple[str, str]] = []
        self.rewritten_deltas: list[tuple[int, str]] = []
        # (version, side, hash now) of each deleted row, and (version, hash now, after) of each
        # rewritten one, resolved against the versions' redactions once they are read.
        self._gone: list[tuple[int, str, str]] = []
        self._changed: list[tuple[int, int | None, str, str]] = []

    async def rows(
        self,
        repo: TenantRepository,
        user_key: str,
        deleted: list[StoredRow],
        rewritten: list[tuple[StoredRow, dict[str, Any]]],
    ) -> None:
        """Note the rows about to be deleted and rewritten (before they are)."""
        where = await repo.row_versions(
            user_key, [r.id for r in deleted] + [r.id for r, _ in rewritten]
        )
        for stored in deleted:
            added, removed = where[stored.id]
            now = row_hash(stored.kind, stored.item)
            self._gone.append((added, "added", now))
            if removed is not None:
                self._gone.append((removed, "removed", now))
        for stored, after in rewritten:
            added, removed = where[stored.id]
            now, new = row_hash(stored.kind, stored.item), row_hash(stored.kind, after)
            self._changed.append((added, removed, now, new))

    def delta_rewritten(self, version: int, value: Any) -> None:
        """Note that a version's [delta, snapshot] is now ``value``."""
        self.rewritten_deltas.append((version, digest(value)))

    async def record(self, repo: TenantRepository, user_key: str) -> Erased:
        """Write each touched version's redactions; what the forget's link lists."""
        touched = {v for v, _, _ in self._gone} | {v for v, _ in self.rewritten_deltas}
        touched |= {v for a, r, _, _ in self._changed for v in (a, r) if v is not None}
        for stored in await repo.versions_numbered(user_key, touched):
            self.redactions[stored.version] = Redactions.from_json(stored.redactions)
        redacted: set[str] = set()
        for version, side, now in self._gone:
            red = self.redactions[version]
            written = red.written(now)
            red.rows.pop(written, None)
            getattr(red, side).append((written, self.forget))
            redacted.add(written)
        for added, removed, now, new in self._changed:
            written = self.redactions[added].rewrite_row(now, new, self.forget)
            if removed is not None:
                self.redactions[removed].rewrite_row(now, new, self.forget)
            self.rewritten_rows.append((written, new))
        for version, value in self.rewritten_deltas:
            self.redactions[version].delta = (value, self.forget)
        for version, red in self.redactions.items():
            await repo.rewrite_version(user_key, version, redactions=red.to_json())
        return Erased(
            tuple(sorted(redacted)),
            tuple(sorted(set(self.rewritten_rows))),
            tuple(sorted(set(self.rewritten_deltas))),
        )


def _forgetting(turns: list[StoredRow]) -> Forgetting:
    ids = {str(t.item["id"]) for t in turns if t.item.get("id") is not None}
    sources = {str(t.item["source"]) for t in turns if t.item.get("source")}
    said = {(str(t.item.get("speaker") or ""), str(t.item.get("text") or "")) for t in turns}
    return Forgetting(frozenset(ids), frozenset(sources), frozenset(said))


async def _with_listing_sources(
    repo: TenantRepository, user_key: str, gone: Forgetting
) -> Forgetting:
    """``gone`` with every source that lists a forgotten turn, not only the one it was filed under.

    A reprocess under other segmentation settings cuts the same turns into new segments: what an
    extractor made of those names the new source, while the turn still names the old one.
    """
    rows = await repo.rows_derived_from(user_key, (), gone.turn_ids)
    listing = {str(r.item["id"]) for r in rows if r.kind == "source" and r.item.get("id")}
    return dataclasses.replace(gone, sources=gone.sources | listing)


async def _derived_rows(
    repo: TenantRepository, user_key: str, gone: Forgetting
) -> tuple[list[StoredRow], list[tuple[StoredRow, dict[str, Any]]]]:
    """The rows that go with the turns, and the rows that stay scrubbed (a source's turn ids)."""
    deleted: list[StoredRow] = []
    rewritten: list[tuple[StoredRow, dict[str, Any]]] = []
    for row in await repo.rows_derived_from(user_key, gone.sources, gone.turn_ids):
        after = gone.row_after(row.kind, row.item)
        if after is None:
            deleted.append(row)
        elif after != row.item:
            rewritten.append((row, after))
    return deleted, rewritten


async def _rewrite_history(
    repo: TenantRepository,
    user_key: str,
    first: int,
    gone: Forgetting,
    deleted: set[int],
    ledger: _Ledger,
) -> int:
    """Every version from ``first`` on, rewritten as if the turns had never been said.

    Each stored head is rebuilt from the original chain, scrubbed, and stored again as the delta
    from the scrubbed head before it (and as its snapshot where it had one). Returns how many
    version rows changed.
    """
    before = await passports.head_at(repo, user_key, first - 1) if first > 0 else None
    original = before
    scrubbed = gone.scrub_head(before) if before is not None else None
    changed = 0
    for version in await repo.versions_from(user_key, max(first, 0)):
        if version.snapshot is not None:
            head = version.snapshot
        elif original is None:
            continue  # nothing to apply a delta to (never the case for a recorded user)
        else:
            head = delta.apply(original, version.delta)
        clean = gone.scrub_head(head)
        values: dict[str, Any] = {}
        if version.snapshot is not None and clean != version.snapshot:
            values["snapshot"] = clean
        if version.delta is not None and scrubbed is not None:
            new_delta = delta.diff(scrubbed, clean)
            if new_delta != version.delta:
                values["delta"] = new_delta
        for name in ("rows_added", "rows_removed"):
            ids = getattr(version, name)
            if ids and deleted.intersection(ids):
                values[name] = [i for i in ids if i not in deleted]
        if values:
            await repo.rewrite_version(user_key, version.version, **values)
            changed += 1
        if "delta" in values or "snapshot" in values:
            now = [values.get("delta", version.delta), values.get("snapshot", version.snapshot)]
            ledger.delta_rewritten(version.version, now)
        original, scrubbed = head, clean
    return changed


async def _scrub_payloads(
    repo: TenantRepository, user_key: str, gone: Forgetting, hashes: frozenset[str]
) -> int:
    """Stored job payloads lose the forgotten turns; what their jobs reported of them is withheld.

    A payload is read as the worker read it, unit by unit, and a unit goes when the turn it
    became is one of ``hashes`` (the identities of the turns forgotten): however the log's copy
    differs from what was sent (noise pruned, Unicode composed, control characters dropped).
    """
    scrubbed = 0
    after: tuple[datetime, uuid.UUID] | None = None
    while batch := await repo.jobs_with_payloads(user_key, after, SCRUB_BATCH):
        after = (batch[-1].created_at, batch[-1].id)
        for job in batch:
            assert job.payload is not None
            payload, removed = await asyncio.to_thread(
                _without_forgotten, job.payload, job.created_at, hashes, gone.said
            )
            if not removed:
                continue
            scrubbed += 1
            await repo.update_job(
                job.id,
                payload=payload,
                error=WITHHELD if job.error else None,
                result=_withheld(job.result),
            )
    return scrubbed


def _without_forgotten(
    payload: dict[str, Any],
    received: datetime,
    hashes: frozenset[str],
    said: frozenset[tuple[str, str]],
) -> tuple[dict[str, Any] | None, int]:
    """The payload without the units that became forgotten turns (by words, if unreadable)."""
    try:
        units = unit_identities(IngestPayload.model_validate(payload), received, ANY_SIZE)
    except (ValueError, InputError):
        return payload_without(payload, said)  # never ingested: its words decide
    return payload_without_units(payload, {where for where, key in units if key in hashes})


def _withheld(result: dict[str, Any] | None) -> dict[str, Any]:
    """A job's result without what it said of its segments and rules: they may quote a turn."""
    out = dict(result or {})
    for name in ("segments_failed", "rules_failed"):
        failures = out.get(name)
        if isinstance(failures, list):
            out[name] = [{**f, "error": WITHHELD} if isinstance(f, dict) else f for f in failures]
    return out


async def _scrub_compactions(repo: TenantRepository, user_key: str) -> int:
    """Compaction jobs keep counts of what they merged, not the keys: a key may name a turn's
    words, and which keys stayed after this forget is the head's to say."""
    scrubbed = 0
    for job in await repo.jobs_of_kind(user_key, "compact"):
        result = dict(job.result or {})
        lists = {name: result.get(name) for name in ("merges", "rejected")}
        if not any(isinstance(v, list) and v for v in lists.values()):
            continue
        for name, items in lists.items():
            if isinstance(items, list):
                result[name] = [WITHHELD] * len(items)
        await repo.update_job(job.id, result=result)
        scrubbed += 1
    return scrubbed
