"""Reading: the per-user index, ranking, and the budgeted context and search built from it."""

from app.domain.context.index import EvidenceIndex, MemoryIndex
from app.domain.context.records import TurnRecord, record_of, records_of
from app.domain.context.render import Context, build_context
from app.domain.context.search import Hit, search

__all__ = [
    "Context",
    "EvidenceIndex",
    "Hit",
    "MemoryIndex",
    "TurnRecord",
    "build_context",
    "record_of",
    "records_of",
    "search",
]
