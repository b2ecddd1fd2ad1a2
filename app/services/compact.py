"""Compaction (dedupe tier 3): one model pass over a passport's keys, merging synonyms.

The model proposes merges; ``app.llm.reconcile`` refuses invented keys, other people's keys and
opposites; ``app.domain.memory.merge.apply_key_merges`` folds the accepted ones in and records every
verdict in ``meta.dedupe.decisions``.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from dataclasses import dataclass

from app.db.uow import UowFactory
from app.domain.memory.log import LogDraft
from app.domain.memory.merge import KeyMergeLike, MergeReport, apply_key_merges
from app.domain.passport import Passport
from app.llm.errors import FatalProviderError, ProviderError, SegmentOutputError
from app.llm.reconcile import MAX_SAMPLES, KeySample, Reconciliation, reconcile
from app.services import jobs, passports, running
from app.services.claimed import ClaimedJob
from app.services.errors import Conflict
from app.services.extraction import extractor_name, new_usage, uses_model
from app.services.failures import described
from app.services.running import Outcome
from app.services.views import JobView
from app.settings import Settings

KIND = "compact"
NEEDS_LLM = "compaction needs an LLM extractor: set TESSERA_EXTRACTOR to a model"


async def accept(
    uows: UowFactory, tenant_id: uuid.UUID, user_key: str, settings: Settings
) -> JobView:
    """Queue a compaction job; Conflict with the rule extractor or while one is pending."""
    async with uows() as uow:
        # NotFound first: an unknown user learns nothing about the configuration.
        await passports.require_user(uow.tenant(tenant_id), user_key)
        if not uses_model(extractor_name(settings.extractor)):
            raise Conflict(NEEDS_LLM)
        return await jobs.queue_job(uow, tenant_id, user_key, KIND, settings.queue_name)


def key_samples(passport: Passport) -> list[KeySample]:
    """Every fact and preference key with a few of its values, facts first."""
    values: dict[str, list[str]] = {}
    for belief in [*passport.facts, *passport.prefs]:
        text = belief.value if isinstance(belief.value, str) else json.dumps(belief.value)
        samples = values.setdefault(belief.key, [])
        if len(samples) < MAX_SAMPLES and text not in samples:
            samples.append(text)
    return [KeySample(key, tuple(samples)) for key, samples in values.items()]


def pending_pairs(passport: Passport) -> list[tuple[str, str]]:
    """The key pairs tier 2 left for review (``meta.dedupe.pending_review``)."""
    dedupe = passport.meta.get("dedupe")
    items = dedupe.get("pending_review") if isinstance(dedupe, dict) else None
    pairs: list[tuple[str, str]] = []
    for item in items if isinstance(items, list) else []:
        pair = (item.get("a"), item.get("b")) if isinstance(item, dict) else None
        if pair is not None and isinstance(pair[0], str) and isinstance(pair[1], str):
            pairs.append((pair[0], pair[1]))
    return pairs


def _usage(calls: int, input_tokens: int, output_tokens: int) -> dict[str, int]:
    return {
        **new_usage(),
        "calls": calls,
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
    }


@dataclass(frozen=True)
class KeyMerges:
    """Tier 3's verdicts applied to a passport: each merge folded in, each refusal recorded."""

    merges: tuple[KeyMergeLike, ...]
    rejected: tuple[tuple[KeyMergeLike, str], ...]

    def __call__(self, passport: Passport, now: str, draft: LogDraft) -> MergeReport:
        """Apply them to ``passport``; the log is not touched."""
        return apply_key_merges(passport, self.merges, rejected=self.rejected, now=now)


async def run(claimed: ClaimedJob) -> Outcome:
    """Ask the model for key merges (no transaction open), then apply them under the row lock."""
    uows, tenant_id, job = claimed.uows, claimed.tenant_id, claimed.job
    resources = claimed.resources
    client = resources.llm_client
    if client is None:
        return await running.fail(uows, tenant_id, job.id, NEEDS_LLM)
    async with uows() as uow:
        row = await uow.tenant(tenant_id).passport(job.user_key)
    if row is None:
        return Outcome(status="skipped")  # the user was deleted meanwhile
    passport = Passport.from_dict(row.doc)
    keys = key_samples(passport)
    rec = Reconciliation()
    if len(keys) >= 2:  # fewer: nothing to merge, and no call
        async with resources.slots or asyncio.Semaphore(1):
            if resources.budget is not None:
                wait = await resources.budget.reserve_call(tenant_id)
                if wait is not None:
                    return await running.defer(claimed, new_usage(), wait)
            try:
                rec = await reconcile(client, keys, pending_pairs(passport))
            except FatalProviderError as exc:
                reason = described(exc, f"compaction job {job.id}")
                return await running.fail(uows, tenant_id, job.id, reason)
            except SegmentOutputError as exc:
                spent = _usage(exc.calls, exc.input_tokens, exc.output_tokens)
                reason = described(exc, f"compaction job {job.id}")
                return await running.fail(uows, tenant_id, job.id, reason, spent)
            except ProviderError as exc:  # transient, retries used up: the job can be retried
                reason = described(exc, f"compaction job {job.id}")
                return await running.fail(uows, tenant_id, job.id, reason)
    usage = _usage(rec.calls, rec.input_tokens, rec.output_tokens)
    if resources.budget is not None:
        await resources.budget.charge_tokens(tenant_id, rec.input_tokens + rec.output_tokens)

    merges = [{"keep": m.keep, "drop": m.drop, "reason": m.reason} for m in rec.merges]
    rejected = [
        {"keep": m.keep, "drop": m.drop, "reason": m.reason, "refused": why}
        for m, why in rec.rejected
    ]
    result = {"keys": len(keys), "merges": merges, "rejected": rejected}
    return await running.finish(
        claimed,
        running.Edit(KeyMerges(tuple(rec.merges), tuple(rec.rejected))),
        running.Ending(KIND, usage, result=result),
    )
