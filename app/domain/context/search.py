"""The log's best passages for a query, one per record, with their provenance (GET /search)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from app.domain.context.index import MemoryIndex
from app.domain.context.ranking.candidates import allowed_records
from app.domain.context.ranking.question import Question, with_vector
from app.domain.context.ranking.scorer import rank
from app.domain.context.records import TurnRecord
from app.domain.dates import EVER, DateWindow


@dataclass(frozen=True, slots=True)
class Hit:
    """One passage of the log that matches a query, with its provenance."""

    record: TurnRecord
    text: str
    score: float
    rank: int

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        r = self.record
        return {
            "kind": r.kind,
            "id": r.id,
            "text": self.text,
            "speaker": r.speaker,
            "ts": r.ts,
            "score": round(self.score, 6),
            "turn_ids": list(r.turn_ids),
        }


def search(
    index: MemoryIndex,
    q: str,
    limit: int,
    window: DateWindow = EVER,
    vector: npt.NDArray[np.float32] | None = None,
) -> list[Hit]:
    """The ``limit`` best-matching passages of the log for ``q``, best first, one per record
    (``vector``: the question's embedding, when an embedding model is on)."""
    ev = index.evidence
    question = with_vector(Question.of(q), vector)
    if question is None or not question.tokens:
        return []
    found = rank(ev, question, allowed_records(ev, window), limit * 48)
    scores = found.scores
    hits: list[Hit] = []
    seen: set[int] = set()
    for doc in found.order:
        if (turn := ev.turn_of(doc)) in seen:
            continue
        seen.add(turn)
        start, end = ev.span(doc)
        record = ev.record(turn)
        hits.append(Hit(record, record.text[start:end].strip(), float(scores[doc]), len(hits) + 1))
        if len(hits) == limit:
            break
    return hits
