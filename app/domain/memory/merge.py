"""Merge one extraction into a passport: keyed beliefs, entities, loops, observations, episodes.

The merge mutates the passport in place and is deterministic: existing items keep their order, new
items are appended, and the only clock is the ``now`` passed in. A source whose hash is already in
the passport changes nothing, so an at-least-once job can run again safely.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol, TypeVar

from app.domain.dates import parse_instant
from app.domain.extraction.extractor import Extraction
from app.domain.ids import canonical_bytes
from app.domain.memory.dedupe import KeyDecision, KnownKeys, resolve_key
from app.domain.memory.history import without_sources
from app.domain.memory.instructions import merge_instruction
from app.domain.memory.values import merge_value
from app.domain.passport import (
    Belief,
    Contradiction,
    Entity,
    Episode,
    Instruction,
    Observation,
    OpenLoop,
    Passport,
    Source,
    Value,
)

# meta.dedupe.decisions keeps only the newest this many entries: it is an audit trail for people
# and the tier-3 pass, not a source of truth, and the passport is read on every context request.
DEDUPE_DECISIONS_CAP = 1000
# A head holds at most this many facts, as many preferences and as many entities: what is
# believed now is small, and every write reads and writes the head. Past it a new key (or name)
# is not added and is counted (``facts_over_cap`` ...); beliefs already held still update, and
# the turn that said it stays in the log for the ranking to find (docs/security.md).
HEAD_BELIEFS_CAP = 2000
_Item = TypeVar("_Item", OpenLoop, Observation, Contradiction)
_Key = TypeVar("_Key", bound=Hashable)

COUNT_NAMES = (
    "facts_added",
    "facts_updated",
    "prefs_added",
    "prefs_updated",
    "facts_over_cap",
    "prefs_over_cap",
    "entities_over_cap",
    "contradictions_added",
    "keys_merged",
    "keys_refused",
    "keys_review",
    "entities_added",
    "entities_updated",
    "open_loops_added",
    "instructions_merged",
    "values_merged",
    "observations_added",
    "episodes_added",
    "episodes_updated",
    "sources_added",
)
_BELIEF_FIELDS = ("key", "value", "ts", "confidence", "source")
_CONTRADICTION_FIELDS = ("key", "old", "new", "ts_old", "ts_new", "source_old", "source_new")
_ACTION_COUNT = {"merge": "keys_merged", "refuse": "keys_refused", "review": "keys_review"}


@dataclass
class MergeReport:
    """What one merge did to a passport."""

    changed: bool = False
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(COUNT_NAMES, 0))
    decisions: list[dict[str, Any]] = field(default_factory=list)

    def summary(self) -> dict[str, int]:
        """The non-zero counts."""
        return {name: n for name, n in self.counts.items() if n}

    def bump(self, name: str, n: int = 1) -> None:
        """Add ``n`` to one count."""
        self.counts[name] = self.counts.get(name, 0) + n


def merge_beliefs(
    passport: Passport,
    facts: list[Belief],
    prefs: list[Belief],
    source: Source,
    *,
    now: str,
) -> MergeReport:
    """Merge client-supplied facts and preferences, with the same rules as an extraction."""
    return merge_extraction(
        passport, Extraction(facts=list(facts), prefs=list(prefs)), source, now=now
    )


def merge_extraction(
    passport: Passport, extraction: Extraction, source: Source, *, now: str
) -> MergeReport:
    """Merge one extraction into ``passport`` in place; a source already merged changes nothing."""
    report = MergeReport()
    if _already_merged(passport, source):
        return report
    lookup = _lookup(passport)
    lookup.check_keys(passport)
    for section, incoming in (("facts", extraction.facts), ("prefs", extraction.prefs)):
        for belief in incoming:
            _merge_belief(passport, section, belief, source, now, report)
    for entity in extraction.entities:
        _merge_entity(passport, entity, report)
    for loop in extraction.open_loops:
        _add_noted(passport, loop, source, report)
    for instruction in extraction.instructions:
        given = Instruction.model_validate(_with_provenance(instruction.to_dict(), source))
        if merge_instruction(passport, given):
            report.bump("instructions_merged")
    for value in extraction.values:
        stated = Value.model_validate(_with_provenance(value.to_dict(), source))
        if merge_value(passport, stated):
            report.bump("values_merged")
    for observation in extraction.observations:
        _add_noted(passport, observation, source, report)
    if extraction.episode is not None:
        _upsert_episode(passport, extraction.episode, source, report)
    passport.sources.append(_source_item(source))
    if source.hash:
        lookup.source_hashes.add(source.hash)
    else:
        lookup.source_ids.add(source.id)
    lookup.shape = _shape(passport)
    report.bump("sources_added")
    report.changed = True
    passport.updated_at = now
    return report


class _Lookup:
    """Sets and maps over a passport's sections, so each merged item costs O(1), not O(n).

    Built once per loaded passport and kept up to date by the merge's own appends. If anything
    else changed a section list (another object, another length), it is rebuilt.
    """

    def __init__(self, passport: Passport) -> None:
        self.source_hashes = {s.hash for s in passport.sources if s.hash}
        self.source_ids = {s.id for s in passport.sources if not s.hash}
        self.loops = {_norm(o.item) for o in passport.open_loops}
        self.observations = {_observation_key(o) for o in passport.observations}
        self.contradictions = {_contradiction_key(c.to_dict()) for c in passport.contradictions}
        self.episodes = {e.id: i for i, e in enumerate(passport.episodes)}
        self.entities: dict[str, int] = {}
        for index, entity in enumerate(passport.entities):
            self.index_entity(entity, index)
        self.shape = _shape(passport)
        self.keys: dict[str, _SectionKeys] = {}

    def section_keys(self, section: str, beliefs: list[Belief]) -> _SectionKeys:
        """The keys of a belief section, indexed (built on first use)."""
        found = self.keys.get(section)
        if found is None:
            found = self.keys[section] = _SectionKeys(beliefs)
        return found

    def check_keys(self, passport: Passport) -> None:
        """Forget the key indexes of sections something else changed since they were built."""
        for section, keys in list(self.keys.items()):
            if not keys.matches(getattr(passport, section)):
                del self.keys[section]

    def append_new(
        self,
        passport: Passport,
        items: list[_Item],
        seen: set[_Key],
        key: _Key,
        build: Callable[[dict[str, Any]], _Item],
        data: dict[str, Any],
    ) -> bool:
        """Append ``build(data)`` to a section unless ``key`` was seen; True when it was new."""
        if key in seen:
            return False
        items.append(build(data))
        seen.add(key)
        self.shape = _shape(passport)
        return True

    def index_entity(self, entity: Entity, index: int) -> None:
        """Make an entity findable by its name and aliases (the first one keeps a name)."""
        for name in (entity.name, *entity.aliases):
            self.entities.setdefault(_norm(name), index)


class _SectionKeys:
    """A belief section's keys: where each is in the list, and the index that resolves keys."""

    def __init__(self, beliefs: list[Belief]) -> None:
        self.beliefs = beliefs
        self.order = [b.key for b in beliefs]
        self.known = KnownKeys(self.order)
        self.at: dict[str, int] = {}
        for index, key in enumerate(self.order):
            self.at.setdefault(key, index)

    def matches(self, beliefs: list[Belief]) -> bool:
        """Whether the section is still the list these keys were read from, as long.

        Only the merge appends to it and replaces a belief by one of the same key; whatever
        reshapes a section otherwise builds a new list or drops the lookup (``forget_lookup``),
        so the check costs the same however many beliefs the section holds.
        """
        return beliefs is self.beliefs and len(beliefs) == len(self.order)

    def added(self, key: str) -> None:
        """A belief of this key was appended to the section."""
        self.at.setdefault(key, len(self.order))
        self.order.append(key)
        self.known.add(key)


def _shape(passport: Passport) -> tuple[tuple[int, int], ...]:
    sections = (
        passport.sources,
        passport.open_loops,
        passport.observations,
        passport.contradictions,
        passport.episodes,
        passport.entities,
    )
    return tuple((id(items), len(items)) for items in sections)


def forget_lookup(passport: Passport) -> None:
    """Drop the merge's lookup tables: something reshaped the sections in place."""
    passport.scratch().pop("merge_lookup", None)


def _lookup(passport: Passport) -> _Lookup:
    """The merge's lookup tables for this passport, kept with it while its sections keep shape."""
    scratch = passport.scratch()
    found: _Lookup | None = scratch.get("merge_lookup")
    if found is None or found.shape != _shape(passport):
        found = scratch["merge_lookup"] = _Lookup(passport)
    return found


def _observation_key(o: Observation) -> tuple[str, str]:
    return (_norm(o.text), _norm(o.when or ""))


def _contradiction_key(fields: dict[str, Any]) -> bytes:
    return canonical_bytes({k: fields.get(k) for k in _CONTRADICTION_FIELDS})


def _already_merged(passport: Passport, source: Source) -> bool:
    """Same content hash already recorded; a source without a hash falls back to its id."""
    lookup = _lookup(passport)
    if source.hash:
        return source.hash in lookup.source_hashes
    return source.id in lookup.source_ids


# --- keyed beliefs ----------------------------------------------------------------------------


def _merge_belief(
    passport: Passport,
    section: str,
    incoming: Belief,
    source: Source,
    now: str,
    report: MergeReport,
) -> None:
    beliefs: list[Belief] = getattr(passport, section)
    keys = _lookup(passport).section_keys(section, beliefs)
    full = len(beliefs) >= HEAD_BELIEFS_CAP
    # A full section takes no new key, so only a key it holds matters: no fuzzy search.
    decision = resolve_key(incoming.key, keys.known, fuzzy=not full)
    index = keys.at.get(decision.resolved)
    if index is None and full:
        report.bump(f"{section}_over_cap")
        return
    _record_decision(passport, section, decision, source, now, report)
    data = _belief_data(incoming, decision.resolved, source)
    if index is None:
        beliefs.append(Belief.model_validate(data))
        keys.added(decision.resolved)
        report.bump(f"{section}_added")
        return
    existing = beliefs[index]
    if _same_value(existing.value, data["value"]):
        # Confirmation: keep the stored spelling, take the newer time and the higher confidence.
        touched = False
        if _compare_ts(data["ts"], existing.ts) > 0:
            existing.ts = data["ts"]
            existing.source = data["source"]
            touched = True
        confidence = data.get("confidence")
        if confidence is not None and (
            existing.confidence is None or confidence > existing.confidence
        ):
            existing.confidence = confidence
            touched = True
        if touched:
            report.bump(f"{section}_updated")
        return
    wins = _compare_ts(data["ts"], existing.ts) >= 0  # newer or tied: the incoming value wins
    # An older value does not win, but that it was said is still worth knowing.
    old, new = (_said(existing), data) if wins else (data, _said(existing))
    _add_contradiction(passport, report, existing.key, old, new)
    if wins:
        # Unknown keys of the old belief survive; every known field comes from the new one.
        replaced = {k: v for k, v in existing.to_dict().items() if k not in _BELIEF_FIELDS}
        replaced.update(data)
        beliefs[index] = Belief.model_validate(replaced)
        report.bump(f"{section}_updated")


def _belief_data(incoming: Belief, key: str, source: Source) -> dict[str, Any]:
    """The incoming belief under its resolved key; ts and source default to the source's."""
    data = incoming.to_dict()
    data["key"] = key
    data.setdefault("value", None)
    if data.get("ts") is None:
        data["ts"] = source.ts  # event time of the segment it came from
    if data.get("source") is None:
        data["source"] = source.id
    return data


def _same_value(a: Any, b: Any) -> bool:
    """Strings compare case- and whitespace-insensitively, everything else by equality."""
    if isinstance(a, str) and isinstance(b, str):
        return _norm(a) == _norm(b)
    return bool(a == b)


def _parse_ts(ts: str) -> datetime | None:
    # A naive time is taken as UTC, so it can be compared with aware ones.
    return parse_instant(ts)


def _compare_ts(a: str | None, b: str | None) -> int:
    """-1, 0 or 1; None is the oldest; ISO-8601 by instant, anything else as text."""
    if a == b:
        return 0
    if a is None:
        return -1
    if b is None:
        return 1
    pa, pb = _parse_ts(a), _parse_ts(b)
    if pa is not None and pb is not None:
        return (pa > pb) - (pa < pb)
    return (a > b) - (a < b)


def _said(belief: Belief) -> dict[str, Any]:
    return {"value": belief.value, "ts": belief.ts, "source": belief.source}


def _add_contradiction(
    passport: Passport, report: MergeReport, key: str, old: dict[str, Any], new: dict[str, Any]
) -> None:
    """Record that ``key`` went from ``old`` to ``new`` (value, ts, source), unless already so."""
    fields = {
        "key": key,
        "old": old["value"],
        "new": new["value"],
        "ts_old": old["ts"],
        "ts_new": new["ts"],
        "source_old": old["source"],
        "source_new": new["source"],
    }
    lookup = _lookup(passport)
    wanted = _contradiction_key(fields)
    build = Contradiction.model_validate
    if lookup.append_new(
        passport, passport.contradictions, lookup.contradictions, wanted, build, fields
    ):
        report.bump("contradictions_added")


def _record_decision(
    passport: Passport,
    section: str,
    decision: KeyDecision,
    source: Source,
    now: str,
    report: MergeReport,
) -> None:
    """Log every tier-2 verdict (merge, refuse, review) in meta.dedupe; queue reviews once."""
    if decision.action not in _ACTION_COUNT:
        return
    entry = {**decision.to_dict(), "section": section, "source": source.id, "ts": now}
    report.decisions.append(dict(entry))  # a copy: the caller may reshape it
    report.bump(_ACTION_COUNT[decision.action])
    dedupe = _meta_dict(passport.meta, "dedupe")
    decisions = _meta_list(dedupe, "decisions")
    decisions.append(entry)
    del decisions[:-DEDUPE_DECISIONS_CAP]
    if decision.action != "review":
        return
    pending = _meta_list(dedupe, "pending_review")
    pair = {decision.incoming, decision.existing}
    for item in pending:
        if (
            isinstance(item, dict)
            and item.get("section", section) == section
            and {item.get("a"), item.get("b")} == pair
        ):
            return
    pending.append(
        {
            "a": decision.incoming,
            "b": decision.existing,
            "score": decision.score,
            "section": section,
            "ts": now,
        }
    )


def _meta_dict(parent: dict[str, Any], name: str) -> dict[str, Any]:
    value = parent.get(name)
    if not isinstance(value, dict):
        # Something else under our name (a foreign writer) is kept, not dropped.
        value = {} if value is None else {"legacy": value}
        parent[name] = value
    return value


def _meta_list(parent: dict[str, Any], name: str) -> list[Any]:
    value = parent.get(name)
    if not isinstance(value, list):
        value = [] if value is None else [value]
        parent[name] = value
    return value


def remove_sources(passport: Passport, source_ids: set[str]) -> int:
    """Remove what came from these sources (beliefs, loops, observations, episodes, the sources).

    Contradictions and entities stay: they are history and names, not claims of one source.
    Returns how many items went.
    """
    before = _item_count(passport)
    passport.facts = [b for b in passport.facts if b.source not in source_ids]
    passport.prefs = [b for b in passport.prefs if b.source not in source_ids]
    passport.open_loops = [o for o in passport.open_loops if o.source not in source_ids]
    passport.instructions = without_sources(
        passport.instructions, source_ids, Instruction.model_validate
    )
    passport.values = without_sources(passport.values, source_ids, Value.model_validate)
    passport.observations = [o for o in passport.observations if o.source not in source_ids]
    passport.episodes = [
        e for e in passport.episodes if e.source not in source_ids and e.id not in source_ids
    ]
    passport.sources = [s for s in passport.sources if s.id not in source_ids]
    return before - _item_count(passport)


def _item_count(passport: Passport) -> int:
    sections = (
        "facts",
        "prefs",
        "open_loops",
        "instructions",
        "values",
        "observations",
        "episodes",
        "sources",
    )
    return sum(len(getattr(passport, name)) for name in sections)


# --- tier 3: key merges proposed over the whole key list -------------------------------------

TIER3_SOURCE = "compact"


class KeyMergeLike(Protocol):
    """A proposal to fold the key ``drop`` into the key ``keep``, and why."""

    @property
    def keep(self) -> str: ...

    @property
    def drop(self) -> str: ...

    @property
    def reason(self) -> str: ...


def apply_key_merges(
    passport: Passport,
    merges: Sequence[KeyMergeLike],
    *,
    rejected: Sequence[tuple[KeyMergeLike, str]] = (),
    now: str,
) -> MergeReport:
    """Fold each dropped key into the kept one, in facts and prefs; record every verdict (tier 3).

    The newest value wins and a differing loser goes to ``contradictions``; the dropped key is
    removed, and review pairs naming it leave ``meta.dedupe.pending_review``. Every merge and
    every rejected proposal is recorded in ``meta.dedupe.decisions`` with tier 3. The merges are
    assumed checked already (``app.llm.reconcile.check_merges`` refuses opposites).
    """
    report = MergeReport()
    for merge in merges:
        sections = [s for s in ("facts", "prefs") if _fold_key(passport, s, merge, report)]
        for section in sections:
            _record_tier3(passport, report, merge, now, ("merge", merge.reason, section))
        if sections:
            report.bump("keys_merged")
        else:
            why = f"neither {merge.keep!r} nor {merge.drop!r} is a key any more"
            _record_tier3(passport, report, merge, now, ("skip", why, None))
        _forget_review(passport, merge.drop)
    forget_lookup(passport)  # keys were renamed and removed in place
    for merge, why in rejected:
        _record_tier3(passport, report, merge, now, ("refuse", why, None))
        report.bump("keys_refused")
    if report.decisions:
        report.changed = True
        passport.updated_at = now
    return report


def _fold_key(passport: Passport, section: str, merge: KeyMergeLike, report: MergeReport) -> bool:
    """Fold ``merge.drop`` into ``merge.keep`` within one section; False if drop is not there."""
    beliefs: list[Belief] = getattr(passport, section)
    drop_at = next((i for i, b in enumerate(beliefs) if b.key == merge.drop), None)
    if drop_at is None:
        return False
    dropped = beliefs[drop_at]
    keep_at = next((i for i, b in enumerate(beliefs) if b.key == merge.keep), None)
    if keep_at is None:
        # Only the dropped key holds a belief here: it is renamed where it stands.
        beliefs[drop_at] = Belief.model_validate({**dropped.to_dict(), "key": merge.keep})
        report.bump(f"{section}_updated")
        return True
    kept = beliefs[keep_at]
    newer = _compare_ts(dropped.ts, kept.ts) > 0
    winner, loser = (dropped, kept) if newer else (kept, dropped)
    if not _same_value(winner.value, loser.value):
        _add_contradiction(passport, report, merge.keep, _said(loser), _said(winner))
    data = {k: v for k, v in kept.to_dict().items() if k not in _BELIEF_FIELDS}
    data.update(winner.to_dict())
    data["key"] = merge.keep
    confidences = [b.confidence for b in (kept, dropped) if b.confidence is not None]
    if confidences and _same_value(winner.value, loser.value):
        data["confidence"] = max(confidences)  # two sources said the same thing
    beliefs[keep_at] = Belief.model_validate(data)
    del beliefs[drop_at]
    report.bump(f"{section}_updated")
    return True


def _record_tier3(
    passport: Passport,
    report: MergeReport,
    merge: KeyMergeLike,
    now: str,
    verdict: tuple[str, str, str | None],
) -> None:
    """Record a tier-3 verdict: (action, reason, the section merged in, if one was)."""
    action, reason, section = verdict
    entry: dict[str, Any] = {
        "incoming": merge.drop,
        "resolved": merge.keep if action == "merge" else merge.drop,
        "existing": merge.keep,
        "tier": 3,
        "action": action,
        "reason": reason,
        "source": TIER3_SOURCE,
        "ts": now,
    }
    if section is not None:
        entry["section"] = section
    report.decisions.append(dict(entry))
    decisions = _meta_list(_meta_dict(passport.meta, "dedupe"), "decisions")
    decisions.append(entry)
    del decisions[:-DEDUPE_DECISIONS_CAP]


def _forget_review(passport: Passport, dropped: str) -> None:
    """Review pairs that name a key which no longer exists are settled."""
    dedupe = passport.meta.get("dedupe")
    if not isinstance(dedupe, dict) or not isinstance(dedupe.get("pending_review"), list):
        return
    dedupe["pending_review"] = [
        item
        for item in dedupe["pending_review"]
        if not (isinstance(item, dict) and dropped in (item.get("a"), item.get("b")))
    ]


# --- everything else --------------------------------------------------------------------------


def _norm(text: Any) -> str:
    """Case- and whitespace-insensitive form used to spot duplicates."""
    return " ".join(str(text).split()).casefold()


def _merge_entity(passport: Passport, incoming: Entity, report: MergeReport) -> None:
    lookup = _lookup(passport)
    found = next(
        (
            lookup.entities[n]
            for n in (_norm(x) for x in (incoming.name, *incoming.aliases))
            if n in lookup.entities
        ),
        None,
    )
    if found is None and len(passport.entities) >= HEAD_BELIEFS_CAP:
        report.bump("entities_over_cap")
        return
    if found is None:
        passport.entities.append(
            Entity.model_validate(
                {
                    **incoming.to_dict(),
                    "name": incoming.name,
                    "type": incoming.type,
                    "aliases": _new_aliases(incoming.name, [], incoming.aliases),
                }
            )
        )
        lookup.index_entity(passport.entities[-1], len(passport.entities) - 1)
        lookup.shape = _shape(passport)
        report.bump("entities_added")
        return
    existing = passport.entities[found]
    touched = False
    aliases = _new_aliases(existing.name, existing.aliases, [incoming.name, *incoming.aliases])
    if aliases != existing.aliases:
        existing.aliases = aliases
        lookup.index_entity(existing, found)
        touched = True
    if existing.type == "other" and incoming.type != "other":
        existing.type = incoming.type
        touched = True
    if touched:
        report.bump("entities_updated")


def _new_aliases(name: str, aliases: list[str], candidates: list[str]) -> list[str]:
    """``aliases`` followed by the candidates it lacks, never repeating ``name`` or each other."""
    out = list(aliases)
    seen = {_norm(name), *(_norm(a) for a in aliases)}
    for candidate in candidates:
        alias = candidate.strip()
        if alias and _norm(alias) not in seen:
            out.append(alias)
            seen.add(_norm(alias))
    return out


def _with_provenance(data: dict[str, Any], source: Source) -> dict[str, Any]:
    """Fill a missing ts/source from the source the item came from."""
    if data.get("ts") is None:
        data["ts"] = source.ts
    if data.get("source") is None:
        data["source"] = source.id
    return data


def _add_noted(
    passport: Passport, incoming: OpenLoop | Observation, source: Source, report: MergeReport
) -> None:
    """Append an open loop or an observation unless the passport already holds the same one."""
    lookup = _lookup(passport)
    data = _with_provenance(incoming.to_dict(), source)
    if isinstance(incoming, OpenLoop):
        data["item"] = incoming.item
        key = _norm(incoming.item)
        if lookup.append_new(
            passport, passport.open_loops, lookup.loops, key, OpenLoop.model_validate, data
        ):
            report.bump("open_loops_added")
        return
    data["text"] = incoming.text
    build = Observation.model_validate
    seen = lookup.observations
    if lookup.append_new(
        passport, passport.observations, seen, _observation_key(incoming), build, data
    ):
        report.bump("observations_added")


def _upsert_episode(
    passport: Passport, incoming: Episode, source: Source, report: MergeReport
) -> None:
    data = _with_provenance({**incoming.to_dict(), "id": incoming.id}, source)
    lookup = _lookup(passport)
    index = lookup.episodes.get(incoming.id)
    if index is not None:
        before = passport.episodes[index].to_dict()
        merged = {**before, **data}
        if merged != before:
            passport.episodes[index] = Episode.model_validate(merged)
            report.bump("episodes_updated")
        return
    passport.episodes.append(Episode.model_validate(data))
    lookup.episodes[incoming.id] = len(passport.episodes) - 1
    lookup.shape = _shape(passport)
    report.bump("episodes_added")


def _source_item(source: Source) -> Source:
    """A copy of the source with its identifying fields written explicitly."""
    data = {
        **source.to_dict(),
        "id": source.id,
        "kind": source.kind,
        "ts": source.ts,
        "hash": source.hash,
    }
    if source.turn_ids:
        data["turn_ids"] = list(source.turn_ids)
    return Source.model_validate(data)
