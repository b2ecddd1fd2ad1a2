"""Dedupe tier 3: one LLM pass over a passport's whole key list, proposing key merges.

The model only proposes; every proposal is checked here. A merge naming a key that was not in
the input (an invented or respelt key), joining two people's keys, or joining keys of opposite
polarity (``budget_min``/``budget_max``, see ``app.domain.memory.dedupe.polarity_conflict``)
is rejected, as is one that would chain with another (a key dropped twice, or dropped and kept).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from app.domain.keys import key_tokens, normalize_key, split_namespace
from app.domain.memory.dedupe import polarity_conflict
from app.llm.errors import InvalidOutputError
from app.llm.prompt import reconcile_prompt
from app.llm.schema import strict_json_schema
from app.llm.structured import StructuredClient, StructuredRequest, ask_structured

SCHEMA_NAME = "key_merges"
MAX_KEYS = 500  # one call; a passport with more keys sends its first MAX_KEYS (caller's order)
MAX_SAMPLES = 3
SAMPLE_MAX_CHARS = 80
REASON_MAX_CHARS = 200


@dataclass(frozen=True, slots=True)
class KeySample:
    """A key of the passport and a few of its values, so the model can tell what it means."""

    key: str
    values: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class KeyMerge:
    """Fold ``drop`` into ``keep``."""

    keep: str
    drop: str
    reason: str


@dataclass(slots=True)
class Reconciliation:
    """Accepted merges, rejected proposals with why, and what the call cost."""

    merges: list[KeyMerge] = field(default_factory=list)
    rejected: list[tuple[KeyMerge, str]] = field(default_factory=list)
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0


class _MergeOut(BaseModel):
    """One proposed merge: keep one key, drop the other, and why."""

    model_config = ConfigDict(extra="ignore")

    keep: str = Field(description="The key to keep, exactly as listed.")
    drop: str = Field(description="The key folded into it, exactly as listed.")
    reason: str = Field("", description="Why the two keys mean the same thing.")


class MergesOut(BaseModel):
    """Key merges proposed for one person's memory."""

    model_config = ConfigDict(extra="ignore")

    merges: list[_MergeOut] = Field(default_factory=list)


async def reconcile_keys(
    client: StructuredClient, keys: list[KeySample], pending: list[tuple[str, str]]
) -> list[KeyMerge]:
    """The merges a model proposes for these keys, invented keys and polarity pairs refused."""
    return (await reconcile(client, keys, pending)).merges


async def reconcile(
    client: StructuredClient, keys: Sequence[KeySample], pending: Sequence[tuple[str, str]]
) -> Reconciliation:
    """Like ``reconcile_keys``, with the rejected proposals and the usage as well."""
    listed = _listed(keys)
    if len(listed) < 2:
        return Reconciliation()  # nothing to merge: no call
    names = set(listed)
    review = [(a, b) for a, b in pending if a in names and b in names and a != b]
    prompt = reconcile_prompt(list(listed.items()), review)
    request = StructuredRequest(
        prompt.system, prompt.user, SCHEMA_NAME, strict_json_schema(MergesOut)
    )
    result = await ask_structured(client, request, lambda data: _proposals(data, len(listed)))
    out = check_merges(result.value, names)
    out.calls = result.calls
    out.input_tokens = result.input_tokens
    out.output_tokens = result.output_tokens
    return out


def _listed(keys: Sequence[KeySample]) -> dict[str, tuple[str, ...]]:
    listed: dict[str, tuple[str, ...]] = {}
    for sample in keys:
        if sample.key and sample.key not in listed and len(listed) < MAX_KEYS:
            values = tuple(_clip(v, SAMPLE_MAX_CHARS) for v in sample.values[:MAX_SAMPLES])
            listed[sample.key] = values
    return listed


def _clip(text: str, limit: int) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _proposals(data: object, key_count: int) -> list[KeyMerge]:
    if not isinstance(data, Mapping) or not isinstance(data.get("merges"), list):
        raise InvalidOutputError('the reply must be an object with a "merges" array')
    out: list[KeyMerge] = []
    for raw in data["merges"][:key_count]:  # more merges than keys cannot all be sound
        try:
            item = _MergeOut.model_validate(raw)
        except ValidationError:
            continue
        reason = _clip(item.reason, REASON_MAX_CHARS)
        out.append(KeyMerge(item.keep.strip(), item.drop.strip(), reason))
    return out


def check_merges(proposals: Sequence[KeyMerge], keys: set[str]) -> Reconciliation:
    """Accept the proposals that are safe, in order; say why each of the others is not."""
    out = Reconciliation()
    dropped: set[str] = set()
    kept: set[str] = set()
    for merge in proposals:
        why = _refusal(merge, keys, dropped, kept)
        if why:
            out.rejected.append((merge, why))
            continue
        dropped.add(merge.drop)
        kept.add(merge.keep)
        out.merges.append(merge)
    return out


def _refusal(merge: KeyMerge, keys: set[str], dropped: set[str], kept: set[str]) -> str:
    invented = [k for k in (merge.keep, merge.drop) if k not in keys]
    if invented:
        return f"not an existing key: {', '.join(repr(k) for k in invented)}"
    if merge.keep == merge.drop:
        return "a key cannot merge with itself"
    space_keep, local_keep = split_namespace(normalize_key(merge.keep))
    space_drop, local_drop = split_namespace(normalize_key(merge.drop))
    if space_keep != space_drop:
        return "the keys belong to different people"
    reasons, _ = polarity_conflict(key_tokens(local_keep), key_tokens(local_drop))
    if reasons:
        return "polarity: " + "; ".join(reasons)
    if merge.drop in dropped or merge.drop in kept:
        return f"{merge.drop!r} is already part of another merge"
    if merge.keep in dropped:
        return f"{merge.keep!r} is already merged into another key"
    return ""
