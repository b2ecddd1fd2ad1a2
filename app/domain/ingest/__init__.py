"""Ingest: what a client sends, normalised into turns, pruned of noise and cut into segments."""

from app.domain.ingest.payload import IngestLimits, IngestPayload, InputError
from app.domain.ingest.segmentation import Plan, plan_segments, prepare
from app.domain.ingest.turns import Segment, Turn, segment_time

__all__ = [
    "IngestLimits",
    "IngestPayload",
    "InputError",
    "Plan",
    "Segment",
    "Turn",
    "plan_segments",
    "prepare",
    "segment_time",
]
