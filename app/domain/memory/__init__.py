"""Writing: how an extraction, an import, an edit or a forget changes the head and the log."""

from app.domain.memory.log import LogChange, LogDraft, LogRow, StoredRow
from app.domain.memory.merge import MergeReport, merge_extraction

__all__ = ["LogChange", "LogDraft", "LogRow", "MergeReport", "StoredRow", "merge_extraction"]
