"""A user's index as a process holds it: the index, and the passport it is of."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from app.db.repository import PassportStamp
from app.domain.context import MemoryIndex


@dataclass
class HeldIndex:
    """A user's index as this process holds it: at which version, epoch and creation."""

    index: MemoryIndex
    version: int
    epoch: int
    created_at: datetime

    @property
    def stamp(self) -> PassportStamp:
        """The stamp of the passport this index is of."""
        return PassportStamp(self.version, self.created_at)
