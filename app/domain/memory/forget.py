"""Forgetting: which items were derived from forgotten turns, and documents scrubbed of them.

A forgotten turn takes with it everything derived from it: an item whose provenance names the
turn (``turn_ids``), or, when an item names no turns, one that came from the turn's source
(segment) and so may repeat its words. That is deliberately wide: an item that cannot show it
came from elsewhere goes. Entities are names, not claims: one goes when no turn left in the log
mentions it (the caller checks the log). Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from app.domain.ingest.noise import prune_noise
from app.domain.ingest.payload import DEFAULT_TEXT_SPEAKER, clean_text, render_row
from app.domain.memory.history import without

# Head sections whose items carry provenance (``turn_ids`` or ``source``).
# (A head written before the log existed may still hold observations and episodes.)
_DERIVED_SECTIONS = ("facts", "prefs", "open_loops", "contradictions", "observations", "episodes")
WITHHELD = "(withheld: a forgotten turn was in this job)"


@dataclass(frozen=True)
class Forgetting:
    """The turns being forgotten: their client ids, their sources, what they said."""

    turn_ids: frozenset[str]
    sources: frozenset[str]
    said: frozenset[tuple[str, str]]  # (speaker, text) as the log holds them
    entities: frozenset[str] = frozenset()  # entity names (case-folded) that go too

    def derived(self, item: Mapping[str, Any]) -> bool:
        """Whether ``item`` was derived from a forgotten turn (or may have been)."""
        ids = item.get("turn_ids")
        if isinstance(ids, list) and ids:
            return any(str(i) in self.turn_ids for i in ids)
        sources = {item.get(k) for k in ("source", "source_old", "source_new")}
        return any(isinstance(s, str) and s in self.sources for s in sources)

    def scrub_head(self, head: Mapping[str, Any]) -> dict[str, Any]:
        """The head without what was derived from the forgotten turns."""
        out = dict(head)
        for section in _DERIVED_SECTIONS:
            items = out.get(section)
            if isinstance(items, list):
                out[section] = [i for i in items if not (isinstance(i, dict) and self.derived(i))]
        for section in ("instructions", "values"):
            items = out.get(section)
            if isinstance(items, list):
                out[section] = without(items, self.derived)
        entities = out.get("entities")
        if isinstance(entities, list) and self.entities:
            out["entities"] = [e for e in entities if not self._named(e)]
        if "meta" in out:  # a head without meta gets none (None is no passport's meta)
            out["meta"] = self._scrub_meta(out["meta"], out)
        return out

    def _named(self, entity: Any) -> bool:
        if not isinstance(entity, dict):
            return False
        names = [entity.get("name"), *(entity.get("aliases") or [])]
        return any(isinstance(n, str) and n.casefold() in self.entities for n in names)

    def _scrub_meta(self, meta: Any, head: Mapping[str, Any]) -> Any:
        """Dedupe decisions of a forgotten source go; review pairs of keys that went, too."""
        if not isinstance(meta, dict) or not isinstance(meta.get("dedupe"), dict):
            return meta
        dedupe = dict(meta["dedupe"])
        decisions = dedupe.get("decisions")
        if isinstance(decisions, list):
            dedupe["decisions"] = [
                d
                for d in decisions
                if not (isinstance(d, dict) and d.get("source") in self.sources)
            ]
        pending = dedupe.get("pending_review")
        if isinstance(pending, list):
            keys = {
                b.get("key")
                for section in ("facts", "prefs")
                for b in head.get(section) or []
                if isinstance(b, dict)
            }
            dedupe["pending_review"] = [
                p
                for p in pending
                if not isinstance(p, dict) or (p.get("a") in keys and p.get("b") in keys)
            ]
        return {**meta, "dedupe": dedupe}

    def row_after(self, kind: str, item: Mapping[str, Any]) -> dict[str, Any] | None:
        """What a non-turn row becomes: None when it goes, else its item (scrubbed if need be).

        A source row keeps its other turns; it goes when none is left.
        """
        if kind == "source":
            ids = item.get("turn_ids")
            kept = [i for i in ids if str(i) not in self.turn_ids] if isinstance(ids, list) else []
            if not kept:
                return None
            return {**item, "turn_ids": kept}
        return None if self.derived(item) else dict(item)


def entity_candidates(head: Mapping[str, Any], texts: Iterable[str]) -> list[str]:
    """Names (and aliases) of the head's entities that the forgotten texts mention."""
    folded = [t.casefold() for t in texts]
    out: list[str] = []
    for entity in head.get("entities") or []:
        if not isinstance(entity, dict):
            continue
        for name in [entity.get("name"), *(entity.get("aliases") or [])]:
            if isinstance(name, str) and name.strip() and any(name.casefold() in t for t in folded):
                out.append(name)
    return out


def _unit_said(where: str, unit: Any) -> tuple[str, str] | None:
    """(speaker, text) of one payload unit as the log would hold it."""
    if not isinstance(unit, dict):
        return None
    if where == "text":
        return (DEFAULT_TEXT_SPEAKER, prune_noise(clean_text(str(unit.get("text") or ""))))
    if "table" in unit:
        table = clean_text(str(unit.get("table") or ""))
        row = unit.get("row")
        text = render_row(table, row) if isinstance(row, dict) and row else ""
        return (table, prune_noise(clean_text(text)))
    speaker = unit.get("speaker")
    who = clean_text(str(speaker)) if speaker else DEFAULT_TEXT_SPEAKER
    return (who, prune_noise(clean_text(str(unit.get("text") or ""))))


_UNIT_SECTIONS = ("turns", "rows", "items")


def payload_without_units(
    payload: Mapping[str, Any], wheres: Collection[str]
) -> tuple[dict[str, Any] | None, int]:
    """A stored ingest payload without the units at ``wheres`` ("text", "turns[3]", ...).

    Returns the payload (None when nothing is left to ingest) and how many units went.
    """
    return _without(payload, lambda where, unit: where in wheres)


def payload_without(
    payload: Mapping[str, Any], said: Collection[tuple[str, str]]
) -> tuple[dict[str, Any] | None, int]:
    """A stored ingest payload without the units that said something forgotten, by their words:
    for a payload that cannot be read as the worker reads it (``payload_without_units`` is the
    way for the others).

    Returns the payload (None when nothing is left to ingest) and how many units went.
    """
    texts = {text for _, text in said}

    def goes(where: str, unit: Any) -> bool:
        found = _unit_said(where.split("[", 1)[0], unit)
        # A text block is filed under its author or the subject: the words decide.
        return found is not None and (
            found in said or (found[0] == DEFAULT_TEXT_SPEAKER and found[1] in texts)
        )

    return _without(payload, goes)


def _without(
    payload: Mapping[str, Any], goes: Callable[[str, Any], bool]
) -> tuple[dict[str, Any] | None, int]:
    """The payload without the units ``goes`` picks (by where they are and what they hold)."""
    out = dict(payload)
    removed = 0
    if isinstance(out.get("text"), str) and goes("text", {"text": out["text"]}):
        del out["text"]
        removed += 1
    for name in _UNIT_SECTIONS:
        units = out.get(name)
        if not isinstance(units, list):
            continue
        kept = [unit for n, unit in enumerate(units) if not goes(f"{name}[{n}]", unit)]
        removed += len(units) - len(kept)
        out[name] = kept
    left = bool(out.get("text")) or any(out.get(n) for n in _UNIT_SECTIONS)
    return (out if left else None), removed
