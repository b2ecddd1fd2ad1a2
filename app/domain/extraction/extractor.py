"""The Extractor protocol: segment in, passport items out."""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol, TypeVar

from app.domain.ingest.turns import Segment
from app.domain.passport import (
    Belief,
    Entity,
    Episode,
    Instruction,
    Observation,
    OpenLoop,
    Value,
)


@dataclass(frozen=True, slots=True)
class ExtractionInput:
    """What an extractor sees: one segment, who the passport is about, and the keys it knows."""

    segment: Segment
    subject: str | None = None
    known_keys: tuple[str, ...] = ()  # dedupe tier 0: reuse these keys where they fit
    reference_ts: datetime | None = None  # used when the segment's turns carry no time


_T = TypeVar("_T")


class ItemIndex:
    """Lookup tables over an extraction's lists, so a rule adding its thousandth belief costs
    what its first did. A table is rebuilt when its list was replaced or grew behind its back."""

    def __init__(self) -> None:
        self._tables: dict[str, tuple[list[Any], int, dict[Hashable, Any]]] = {}

    def __reduce__(self) -> tuple[type[ItemIndex], tuple[()]]:
        # Sent to or from a pool process empty: its tables are rebuilt where they are used.
        return (ItemIndex, ())

    def table(
        self, name: str, items: list[_T], keys_of: Callable[[_T], Iterable[Hashable]]
    ) -> dict[Hashable, _T]:
        """``name``'s table over ``items``: each key of an item to the first item with it."""
        entry = self._tables.get(name)
        if entry is not None and entry[0] is items and entry[1] == len(items):
            return entry[2]
        table: dict[Hashable, Any] = {}
        for item in items:
            for key in keys_of(item):
                table.setdefault(key, item)
        self._tables[name] = (items, len(items), table)
        return table

    def appended(self, name: str, items: list[_T], item: _T, keys: Iterable[Hashable]) -> None:
        """``item`` was appended to ``items``; it is found by ``keys`` from now on."""
        entry = self._tables.get(name)
        if entry is None or entry[0] is not items or entry[1] != len(items) - 1:
            return  # not built, or stale: the next use rebuilds it with the item
        for key in keys:
            entry[2].setdefault(key, item)
        self._tables[name] = (items, len(items), entry[2])


def value_key(value: Any) -> Hashable:
    """What two values share when they are the same belief value: text by its casefold."""
    if isinstance(value, str):
        return ("text", value.casefold())
    return ("json", json.dumps(value, sort_keys=True, default=str))


@dataclass(slots=True)
class Extraction:
    """What one extraction call produced for one segment."""

    facts: list[Belief] = field(default_factory=list)
    prefs: list[Belief] = field(default_factory=list)
    entities: list[Entity] = field(default_factory=list)
    open_loops: list[OpenLoop] = field(default_factory=list)
    instructions: list[Instruction] = field(default_factory=list)
    values: list[Value] = field(default_factory=list)
    observations: list[Observation] = field(default_factory=list)
    episode: Episode | None = None
    calls: int = 0  # model calls made (0 for the rule extractor)
    # Rules that raised: {"rule", "turn_id", "error"}; what they would have added is missing,
    # everything else is kept. Not an item: items_dict leaves it out.
    failures: list[dict[str, str]] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    # Working lookups of the rules that fill it; neither data nor compared.
    index: ItemIndex = field(default_factory=ItemIndex, repr=False, compare=False)

    def items_dict(self) -> dict[str, Any]:
        """The extracted items as JSON-ready data (no usage), for ``from_items_dict``."""
        items = {
            "facts": [b.to_dict() for b in self.facts],
            "prefs": [b.to_dict() for b in self.prefs],
            "entities": [e.to_dict() for e in self.entities],
            "open_loops": [o.to_dict() for o in self.open_loops],
            "observations": [o.to_dict() for o in self.observations],
            "episode": self.episode.to_dict() if self.episode is not None else None,
        }
        if self.instructions:  # absent when none: what was stored before them reads the same
            items["instructions"] = [i.to_dict() for i in self.instructions]
        if self.values:
            items["values"] = [v.to_dict() for v in self.values]
        return items

    @classmethod
    def from_items_dict(cls, data: dict[str, Any]) -> Extraction:
        """Rebuild an extraction from ``items_dict`` output; its usage is zero."""
        episode = data.get("episode")
        return cls(
            facts=[Belief.model_validate(b) for b in data.get("facts", [])],
            prefs=[Belief.model_validate(b) for b in data.get("prefs", [])],
            entities=[Entity.model_validate(e) for e in data.get("entities", [])],
            open_loops=[OpenLoop.model_validate(o) for o in data.get("open_loops", [])],
            instructions=[Instruction.model_validate(i) for i in data.get("instructions", [])],
            values=[Value.model_validate(v) for v in data.get("values", [])],
            observations=[Observation.model_validate(o) for o in data.get("observations", [])],
            episode=Episode.model_validate(episode) if episode is not None else None,
        )


class Extractor(Protocol):
    """Turns one segment into passport items. Implementations must be deterministic or cached."""

    name: str

    async def extract(self, request: ExtractionInput) -> Extraction:
        """Extract facts, preferences, entities, open loops, observations and an episode."""
        ...
