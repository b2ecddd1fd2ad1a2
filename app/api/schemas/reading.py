"""Wire schemas of the reading routes (REST and the MCP tools share them)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from app.domain.context import Hit


class SearchHit(BaseModel):
    """One passage of the log that matches, with its provenance."""

    kind: str = Field(description="turn, observation or episode")
    id: str = Field(description="The log row it is in.")
    text: str = Field(description="The passage that matches (a long turn is cut in passages).")
    speaker: str
    ts: str | None = Field(description="When it was said (or happened), ISO 8601.")
    score: float
    turn_ids: list[str] = Field(description="The client's own message ids behind it.")


class SearchResult(BaseModel):
    """The best-matching passages, best first, one per turn."""

    version: int
    items: list[SearchHit]


def search_result(version: int, hits: list[Hit]) -> SearchResult:
    """The reply for a search: the version searched and its hits, best first."""
    return SearchResult(version=version, items=[SearchHit(**h.to_dict()) for h in hits])
