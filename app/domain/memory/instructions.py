"""Standing instructions in the head: the newest of each key wins, the ones it replaced kept.

An instruction replaces the one of the same ``key`` when it is at least as new; an older one
that arrives later (a backfill) goes into the history instead. The history is the replaced
instructions, newest first, each with its own provenance, so forgetting a turn removes exactly
what it said: a forgotten current instruction gives way to the newest one left in its history.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from app.domain.passport import Instruction, Passport

# Replaced instructions kept per key: enough to show what changed, bounded however often.
MAX_HISTORY = 10


def merge_instruction(passport: Passport, incoming: Instruction) -> bool:
    """Put ``incoming`` in the head; True when the head changed."""
    for index, current in enumerate(passport.instructions):
        if current.key != incoming.key:
            continue
        if _norm(current.text) == _norm(incoming.text):
            return False  # said again: the first statement stands
        if (incoming.ts or "") >= (current.ts or ""):
            history = [_entry(current.to_dict()), *current.history]
            incoming.history = history[:MAX_HISTORY]
            passport.instructions[index] = incoming
        else:
            # Newest first; an undated one sorts last.
            history = sorted([*current.history, _entry(incoming.to_dict())], key=_ts, reverse=True)
            current.history = history[:MAX_HISTORY]
        return True
    passport.instructions.append(incoming)
    return True


def without(items: list[Any], gone: Callable[[Mapping[str, Any]], bool]) -> list[Any]:
    """Instructions (as stored dicts) without what ``gone`` says goes, history included.

    An instruction that goes is replaced by the newest of its history that stays.
    """
    out: list[Any] = []
    for item in items:
        if not isinstance(item, dict):
            out.append(item)
            continue
        history = [h for h in item.get("history") or [] if isinstance(h, dict) and not gone(h)]
        if not gone(item):
            out.append({**item, "history": history} if "history" in item else item)
        elif history:
            out.append({"key": item.get("key"), **history[0], "history": history[1:]})
    return out


def without_sources(passport: Passport, source_ids: set[str]) -> None:
    """The passport's instructions without those these sources gave (a reprocess redoes them)."""
    items = [i.to_dict() for i in passport.instructions]
    kept = without(items, lambda item: item.get("source") in source_ids)
    passport.instructions = [Instruction.model_validate(i) for i in kept]


def _entry(item: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in item.items() if k not in ("key", "history")}


def _ts(entry: Mapping[str, Any]) -> str:
    ts = entry.get("ts")
    return ts if isinstance(ts, str) else ""


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold().rstrip(".!")
