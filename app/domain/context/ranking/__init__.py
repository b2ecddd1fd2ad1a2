"""Ranking the log's passages for a question: how the score is made is told in ``scorer``."""

from app.domain.context.ranking.candidates import (
    MIN_LINE,
    allowed_records,
    sort_time,
)
from app.domain.context.ranking.features import FEATURES
from app.domain.context.ranking.question import Question
from app.domain.context.ranking.scorer import Ranked, rank

__all__ = [
    "FEATURES",
    "MIN_LINE",
    "Question",
    "Ranked",
    "allowed_records",
    "rank",
    "sort_time",
]
