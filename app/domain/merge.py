"""Merge one extraction into a passport: keyed beliefs, entities, loops, observations, episodes.

The merge mutates the passport in place and is deterministic: existing items keep their order, new
items are appended, and the only clock is the ``now`` passed in. A source whose hash is already in
the passport changes nothing, so an at-least-once job can run again safely.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from app.domain.dedupe import KeyDecision, resolve_key
from app.domain.extract import Extraction
from app.domain.ids import canonical_bytes
from app.domain.passport import (
    Belief,
    Contradiction,
    Entity,
    Episode,
    Observation,
    OpenLoop,
    Passport,
    Source,
)

# meta.dedupe.decisions keeps only the newest this many entries: it is an audit trail for people
# and the tier-3 pass, not a source of truth, and the passport is read on every context request.
DEDUPE_DECISIONS_CAP = 1000

COUNT_NAMES = (
    "facts_added",
    "facts_updated",
    "prefs_added",
    "prefs_updated",
    "contradictions_added",
    "keys_merged",
    "keys_refused",
    "keys_review",
    "entities_added",
    "entities_updated",
    "open_loops_added",
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
    for section, incoming in (("facts", extraction.facts), ("prefs", extraction.prefs)):
        for belief in incoming:
            _merge_belief(passport, section, belief, source, now, report)
    for entity in extraction.entities:
        _merge_entity(passport, entity, report)
    for loop in extraction.open_loops:
        _add_open_loop(passport, loop, source, report)
    for observation in extraction.observations:
        _add_observation(passport, observation, source, report)
    if extraction.episode is not None:
        _upsert_episode(passport, extraction.episode, source, report)
    passport.sources.append(_source_item(source))
    report.bump("sources_added")
    report.changed = True
    passport.updated_at = now
    return report


def _already_merged(passport: Passport, source: Source) -> bool:
    """Same content hash already recorded; a source without a hash falls back to its id."""
    if source.hash:
        return any(s.hash == source.hash for s in passport.sources)
    return any(s.id == source.id and not s.hash for s in passport.sources)


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
    decision = resolve_key(incoming.key, [b.key for b in beliefs])
    _record_decision(passport, section, decision, source, now, report)
    data = _belief_data(incoming, decision.resolved, source)
    index = next((i for i, b in enumerate(beliefs) if b.key == decision.resolved), None)
    if index is None:
        beliefs.append(Belief.model_validate(data))
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
    if _compare_ts(data["ts"], existing.ts) >= 0:  # newer or tied: the incoming value wins
        _add_contradiction(
            passport,
            report,
            key=existing.key,
            old=existing.value,
            new=data["value"],
            ts_old=existing.ts,
            ts_new=data["ts"],
            source_old=existing.source,
            source_new=data["source"],
        )
        # Unknown keys of the old belief survive; every known field comes from the new one.
        replaced = {k: v for k, v in existing.to_dict().items() if k not in _BELIEF_FIELDS}
        replaced.update(data)
        beliefs[index] = Belief.model_validate(replaced)
        report.bump(f"{section}_updated")
        return
    # An older value does not win, but that it was said is still worth knowing.
    _add_contradiction(
        passport,
        report,
        key=existing.key,
        old=data["value"],
        new=existing.value,
        ts_old=data["ts"],
        ts_new=existing.ts,
        source_old=data["source"],
        source_new=existing.source,
    )


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
    try:
        parsed = datetime.fromisoformat(ts.strip())
    except ValueError:
        return None
    # A naive time is taken as UTC, so it can be compared with aware ones.
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


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


def _add_contradiction(passport: Passport, report: MergeReport, **fields: Any) -> None:
    """Append a contradiction unless an identical one is already recorded."""
    wanted = canonical_bytes({k: fields.get(k) for k in _CONTRADICTION_FIELDS})
    for c in passport.contradictions:
        have = c.to_dict()
        if canonical_bytes({k: have.get(k) for k in _CONTRADICTION_FIELDS}) == wanted:
            return
    passport.contradictions.append(Contradiction.model_validate(fields))
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


# --- everything else --------------------------------------------------------------------------


def _norm(text: Any) -> str:
    """Case- and whitespace-insensitive form used to spot duplicates."""
    return " ".join(str(text).split()).casefold()


def _merge_entity(passport: Passport, incoming: Entity, report: MergeReport) -> None:
    names = {_norm(n) for n in (incoming.name, *incoming.aliases)}
    for existing in passport.entities:
        if names & {_norm(n) for n in (existing.name, *existing.aliases)}:
            break
    else:
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
        report.bump("entities_added")
        return
    touched = False
    aliases = _new_aliases(existing.name, existing.aliases, [incoming.name, *incoming.aliases])
    if aliases != existing.aliases:
        existing.aliases = aliases
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


def _add_open_loop(
    passport: Passport, incoming: OpenLoop, source: Source, report: MergeReport
) -> None:
    key = _norm(incoming.item)
    if any(_norm(loop.item) == key for loop in passport.open_loops):
        return
    data = _with_provenance({**incoming.to_dict(), "item": incoming.item}, source)
    passport.open_loops.append(OpenLoop.model_validate(data))
    report.bump("open_loops_added")


def _add_observation(
    passport: Passport, incoming: Observation, source: Source, report: MergeReport
) -> None:
    key = (_norm(incoming.text), _norm(incoming.when or ""))
    if any((_norm(o.text), _norm(o.when or "")) == key for o in passport.observations):
        return
    data = _with_provenance({**incoming.to_dict(), "text": incoming.text}, source)
    passport.observations.append(Observation.model_validate(data))
    report.bump("observations_added")


def _upsert_episode(
    passport: Passport, incoming: Episode, source: Source, report: MergeReport
) -> None:
    data = _with_provenance({**incoming.to_dict(), "id": incoming.id}, source)
    for index, existing in enumerate(passport.episodes):
        if existing.id != incoming.id:
            continue
        before = existing.to_dict()
        merged = {**before, **data}
        if merged != before:
            passport.episodes[index] = Episode.model_validate(merged)
            report.bump("episodes_updated")
        return
    passport.episodes.append(Episode.model_validate(data))
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
