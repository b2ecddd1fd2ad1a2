"""Head items kept with their history: the newest of each key wins, the ones it replaced kept.

Standing instructions and values with history share this. An item replaces the one of the same
``key`` when it is at least as new; an older one that arrives later (a backfill) goes into the
history instead. The history is the replaced items, newest first, each with its own provenance,
so forgetting a turn removes exactly what it said: a forgotten current item gives way to the
newest one left in its history.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol, TypeVar

# Replaced items kept per key: enough to show what changed, bounded however often.
MAX_HISTORY = 10


class Historied(Protocol):
    """A head item with a key, a time and the items it replaced."""

    key: str
    ts: str | None
    history: list[dict[str, Any]]

    def to_dict(self) -> dict[str, Any]: ...


T = TypeVar("T", bound=Historied)


def merge_keyed(items: list[T], incoming: T, same: Callable[[T, T], bool]) -> bool:
    """Put ``incoming`` among ``items``; True when they changed.

    ``same`` says whether two items of one key say the same thing: then the first stands.
    """
    for index, current in enumerate(items):
        if current.key != incoming.key:
            continue
        if same(current, incoming):
            return False
        if (incoming.ts or "") >= (current.ts or ""):
            history = [entry(current.to_dict()), *current.history]
            incoming.history = history[:MAX_HISTORY]
            items[index] = incoming
        else:
            # Newest first; an undated one sorts last.
            history = sorted([*current.history, entry(incoming.to_dict())], key=_ts, reverse=True)
            current.history = history[:MAX_HISTORY]
        return True
    items.append(incoming)
    return True


def without(items: list[Any], gone: Callable[[Mapping[str, Any]], bool]) -> list[Any]:
    """Items (as stored dicts) without what ``gone`` says goes, history included.

    An item that goes is replaced by the newest of its history that stays.
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
            out.append({**_identity(item), **history[0], "history": history[1:]})
    return out


def without_sources(
    items: list[T], source_ids: set[str], load: Callable[[dict[str, Any]], T]
) -> list[T]:
    """``items`` without what these sources gave, history included (a reprocess redoes them)."""
    kept = without([i.to_dict() for i in items], lambda item: item.get("source") in source_ids)
    return [load(i) for i in kept]


def entry(item: dict[str, Any]) -> dict[str, Any]:
    """An item as its successor's history keeps it: without its key and its own history."""
    return {k: v for k, v in item.items() if k not in _IDENTITY and k != "history"}


# What an item of a key shares with every item of its history, and its history does not repeat.
_IDENTITY = ("key", "about")


def _identity(item: Mapping[str, Any]) -> dict[str, Any]:
    return {k: item[k] for k in _IDENTITY if k in item}


def _ts(entry: Mapping[str, Any]) -> str:
    ts = entry.get("ts")
    return ts if isinstance(ts, str) else ""
