"""The Extractor protocol: segment in, passport items out."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from app.domain.passport import Belief, Entity, Episode, Observation, OpenLoop
from app.domain.turns import Segment


@dataclass(frozen=True, slots=True)
class ExtractionInput:
    """What an extractor sees: one segment, who the passport is about, and the keys it knows."""

    segment: Segment
    subject: str | None = None
    known_keys: tuple[str, ...] = ()  # dedupe tier 0: reuse these keys where they fit
    reference_ts: datetime | None = None  # used when the segment's turns carry no time


@dataclass(slots=True)
class Extraction:
    """What one extraction call produced for one segment."""

    facts: list[Belief] = field(default_factory=list)
    prefs: list[Belief] = field(default_factory=list)
    entities: list[Entity] = field(default_factory=list)
    open_loops: list[OpenLoop] = field(default_factory=list)
    observations: list[Observation] = field(default_factory=list)
    episode: Episode | None = None
    calls: int = 0  # model calls made (0 for the rule extractor)
    input_tokens: int = 0
    output_tokens: int = 0


class Extractor(Protocol):
    """Turns one segment into passport items. Implementations must be deterministic or cached."""

    name: str

    async def extract(self, request: ExtractionInput) -> Extraction:
        """Extract facts, preferences, entities, open loops, observations and an episode."""
        ...
