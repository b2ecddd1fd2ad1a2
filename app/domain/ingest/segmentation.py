"""Segmentation of normalised turns into extraction-sized pieces, and the cost plan of an ingest."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from app.domain.ids import content_hash, timed_id, untimed_id
from app.domain.ingest.noise import prune_noise
from app.domain.ingest.payload import IngestLimits, IngestPayload, InputError, normalize
from app.domain.ingest.turns import Segment, Turn

DEFAULT_MAX_TOKENS = 1500
DEFAULT_MAX_GAP = timedelta(hours=3)
# Tokens each extraction call spends besides the segment itself: instructions, the output
# schema and the known keys (dedupe tier 0). An estimate, so plans stay comparable over time.
PROMPT_OVERHEAD_TOKENS = 400
# English averages about four characters per token with common BPE tokenizers; estimating from
# characters avoids downloading a tokenizer and is close enough for budgets and cost plans.
CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """Estimated tokens of a text: characters / 4, rounded up (0 only for empty text)."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def turn_tokens(turn: Turn) -> int:
    """Estimated tokens of a turn as an extractor sees it: 'speaker: text'."""
    return estimate_tokens(f"{turn.speaker}: {turn.text}")


def _group(turn: Turn) -> str:
    # Chat turns and text blocks read alike; rows are a different kind of evidence.
    return "row" if turn.kind == "row" else "talk"


def _content(turns: Sequence[Turn]) -> list[list[Any]]:
    """The canonical content of a segment, the input of its id and hash."""
    return [
        [t.speaker, t.text, t.ts.isoformat() if t.ts else None, t.id, t.session, t.kind]
        for t in turns
    ]


def make_segment(turns: Sequence[Turn]) -> Segment:
    """A segment of the given turns with its content-derived id, hash, tokens and time span."""
    if not turns:
        raise ValueError("a segment needs at least one turn")
    content = _content(turns)
    stamps = [t.ts for t in turns if t.ts is not None]
    return Segment(
        # Led by when it was said: a user's sources are then indexed in time order (see row_hash).
        id=timed_id("seg", content, min(stamps) if stamps else None),
        turns=tuple(turns),
        tokens=sum(turn_tokens(t) for t in turns),
        session=turns[0].session,
        start_ts=min(stamps) if stamps else None,
        end_ts=max(stamps) if stamps else None,
        hash=content_hash(content),
        turn_ids=tuple(t.id for t in turns if t.id is not None),
    )


def untimed_ids(segments: Sequence[Segment]) -> set[str]:
    """The untimed ids that ``refiled`` may move these segments to."""
    return {untimed_id(s.id) for s in segments} - {s.id for s in segments}


def refiled(segments: Sequence[Segment], filed: Collection[str]) -> list[Segment]:
    """Each segment under the untimed id its turns were filed under, where they were.

    Turns stored before segment ids led with a time name their segment by its untimed id. What is
    extracted from that content again (a reprocess, a retried segment) keeps that id, so the
    turns and what came of them still name one source (forgetting a turn relies on it).
    """
    out = []
    for segment in segments:
        before = untimed_id(segment.id)
        moved = before != segment.id and before in filed
        out.append(dataclasses.replace(segment, id=before) if moved else segment)
    return out


def segment_turns(
    turns: Sequence[Turn],
    *,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    max_gap: timedelta = DEFAULT_MAX_GAP,
) -> list[Segment]:
    """Greedy token-bounded segments that also close on a session, time-gap or kind change."""
    if max_tokens < 1:
        raise ValueError("max_tokens must be at least 1")
    segments: list[Segment] = []
    current: list[Turn] = []
    tokens = 0
    last_ts: datetime | None = None  # the latest stamp seen in the current segment

    def close() -> None:
        nonlocal current, tokens, last_ts
        if current:
            segments.append(make_segment(current))
        current, tokens, last_ts = [], 0, None

    for turn in turns:
        cost = turn_tokens(turn)
        if current:
            previous = current[-1]
            # abs(): a jump back in time (a backfill of another day) is as much a break as forward.
            gap = turn.ts is not None and last_ts is not None and abs(turn.ts - last_ts) > max_gap
            if (
                turn.session != previous.session
                or _group(turn) != _group(previous)
                or gap
                or tokens + cost > max_tokens
            ):
                close()
        current.append(turn)
        tokens += cost
        if turn.ts is not None:
            last_ts = turn.ts
        if cost > max_tokens:  # oversized: alone, never split or dropped
            close()
    close()
    return segments


@dataclass(frozen=True)
class Plan:
    """What ingesting a payload will cost, computed without calling any extractor."""

    interactions: int
    segments: int
    extraction_calls: int
    estimated_input_tokens: int
    mean_segment_tokens: float
    max_segment_tokens: int
    extractor: str = "rules"  # which extractor would run (the caller says; the rules are free)
    model_calls: int = 0  # paid model calls at most: one per segment with an LLM extractor

    def to_dict(self) -> dict[str, Any]:
        """The plan as a JSON-ready dict."""
        return dataclasses.asdict(self)


def plan_segments(segments: Sequence[Segment]) -> Plan:
    """The plan of already-built segments: one extraction call per segment."""
    total = sum(s.tokens for s in segments)
    calls = len(segments)
    return Plan(
        interactions=sum(len(s.turns) for s in segments),
        segments=len(segments),
        extraction_calls=calls,
        estimated_input_tokens=total + PROMPT_OVERHEAD_TOKENS * calls,
        mean_segment_tokens=round(total / calls, 1) if calls else 0.0,
        max_segment_tokens=max((s.tokens for s in segments), default=0),
    )


def prepare(
    payload: IngestPayload,
    *,
    limits: IngestLimits = IngestLimits(),
    max_tokens: int = DEFAULT_MAX_TOKENS,
    max_gap: timedelta = DEFAULT_MAX_GAP,
) -> list[Segment]:
    """Normalise, prune noise and segment a payload: the one path /plan and the worker share."""
    turns = normalize(payload, limits)
    if not turns:
        raise InputError("every turn is blank (or holds no text part): nothing to ingest")
    pruned = []
    for turn in turns:
        text = prune_noise(turn.text)
        if text.strip():
            pruned.append(dataclasses.replace(turn, text=text))
    if not pruned:
        raise InputError("nothing is left once noise (encoded data, dumps) is pruned")
    return segment_turns(pruned, max_tokens=max_tokens, max_gap=max_gap)
