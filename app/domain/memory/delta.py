"""Compact structural deltas between JSON values, for passport version history.

A delta is a JSON object of one of these forms:

- ``{}``: no change.
- ``{"r": value}``: replace the whole value.
- ``{"d": {key: delta, ...}, "x": [key, ...]}``: a dict; ``d`` holds the changed or added keys
  (an added key is ``{"r": value}``), ``x`` the removed keys. Either part is left out when empty.
- ``{"l": [op, ...]}``: a list, rebuilt by running the ops in order:
  ``["k", start, end]`` keeps ``old[start:end]``, ``["n", item, ...]`` adds new items and
  ``["e", index, delta]`` adds ``old[index]`` changed by a nested delta. Old items no op names are
  dropped, so a removal costs nothing and an append costs one ``k`` op plus the new item.

List items are matched on their canonical JSON, so ``True`` and ``1`` or ``1`` and ``1.0`` are
different values, exactly as they are in the stored bytes.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter, defaultdict
from typing import Any

import orjson

from app.domain.ids import canonical_bytes
from app.domain.passport import SECTIONS

NO_CHANGE: dict[str, Any] = {}


class DeltaError(ValueError):
    """A delta that does not fit the value it is applied to."""


def diff(old: Any, new: Any) -> Any:
    """A JSON-serialisable forward delta such that ``apply(old, diff(old, new)) == new``."""
    # The copy keeps the delta independent of ``new``: callers may mutate it afterwards.
    return _copy(_diff(old, new))


def apply(old: Any, delta: Any) -> Any:
    """The value ``delta`` turns ``old`` into; ``old`` and ``delta`` are not mutated."""
    # One private copy of old up front lets _apply reuse its pieces without aliasing the input.
    return _apply(_copy(old), delta)


def summarize(old: dict[str, Any] | None, new: dict[str, Any] | None) -> dict[str, Any]:
    """Per list section ``{"added": n, "removed": n}``, plus ``"fields"`` for other changed keys.

    Items are counted by canonical identity, so an edited item counts as one removed and one
    added. Only sections with changes appear. ``fields`` lists, sorted, the top-level keys outside
    the list sections (``updated_at``, ``version``, ``meta``, unknown keys) whose value changed.
    """
    old = old or {}
    new = new or {}
    out: dict[str, Any] = {}
    fields: list[str] = []
    for section in SECTIONS:
        before, after = old.get(section, []), new.get(section, [])
        if not isinstance(before, list) or not isinstance(after, list):
            if not _same(before, after):
                fields.append(section)
            continue
        old_counts = Counter(canonical_bytes(item) for item in before)
        new_counts = Counter(canonical_bytes(item) for item in after)
        added = sum((new_counts - old_counts).values())
        removed = sum((old_counts - new_counts).values())
        if added or removed:
            out[section] = {"added": added, "removed": removed}
    for key in sorted((old.keys() | new.keys()) - set(SECTIONS)):
        if key not in old or key not in new or not _same(old[key], new[key]):
            fields.append(key)
    if fields:
        out["fields"] = sorted(fields)
    return out


def itemize(
    old: dict[str, Any] | None, new: dict[str, Any] | None, limit: int
) -> dict[str, dict[str, list[Any]]]:
    """Per list section, the items ``new`` added (``added``) and dropped (``removed``).

    Items are told apart as ``summarize`` counts them, by canonical identity, so an edited item
    is one removed and one added. Each list keeps its document order and at most ``limit``
    items; only sections with changes appear.
    """
    old = old or {}
    new = new or {}
    out: dict[str, dict[str, list[Any]]] = {}
    for section in SECTIONS:
        before, after = old.get(section, []), new.get(section, [])
        if not isinstance(before, list) or not isinstance(after, list):
            continue
        added, removed = _only_in(after, before, limit), _only_in(before, after, limit)
        if added or removed:
            out[section] = {"added": added, "removed": removed}
    return out


def _only_in(items: list[Any], other: list[Any], limit: int) -> list[Any]:
    """The items not matched by one of ``other`` (each match used once), at most ``limit``."""
    unmatched = Counter(canonical_bytes(item) for item in other)
    found: list[Any] = []
    for item in items:
        key = canonical_bytes(item)
        if unmatched[key]:
            unmatched[key] -= 1
        elif len(found) < limit:
            found.append(item)
    return found


def summarize_delta(old: dict[str, Any] | None, delta: Any) -> dict[str, Any]:
    """What ``summarize`` reports, read off a delta of ``old`` (no second pass over the items).

    An edited item counts as one removed and one added; a kept item as neither. Used on the
    merge path, where the delta is computed anyway and passports can hold 100,000+ items.
    """
    old = old or {}
    if not isinstance(delta, dict) or not delta:
        return {}
    if "r" in delta:
        new = delta["r"]
        return summarize(old, new if isinstance(new, dict) else {})
    changes: dict[str, Any] = delta.get("d", {})
    out: dict[str, Any] = {}
    fields: list[str] = []
    for key, sub in changes.items():
        before = old.get(key)
        if key in SECTIONS and isinstance(before, list) and isinstance(sub, dict) and "l" in sub:
            kept = sum(op[2] - op[1] for op in sub["l"] if op[0] == "k")
            edited = sum(1 for op in sub["l"] if op[0] == "e")
            added = sum(len(op) - 1 for op in sub["l"] if op[0] == "n") + edited
            removed = len(before) - kept
            if added or removed:
                out[key] = {"added": added, "removed": removed}
        elif (
            key in SECTIONS
            and isinstance(sub, dict)
            and "r" in sub
            and isinstance(sub["r"], list)
            and isinstance(before, list | None)
        ):
            out[key] = {"added": len(sub["r"]), "removed": len(before or [])}
        else:
            fields.append(key)
    fields.extend(delta.get("x", []))
    if fields:
        out["fields"] = sorted(fields)
    return out


def _copy(value: Any) -> Any:
    # A JSON round trip is a deep copy several times faster than copy.deepcopy for plain JSON.
    return orjson.loads(orjson.dumps(value))


def _same(a: Any, b: Any) -> bool:
    return canonical_bytes(a) == canonical_bytes(b)


def _diff(old: Any, new: Any) -> Any:
    if isinstance(old, dict) and isinstance(new, dict):
        return _diff_dict(old, new)
    if isinstance(old, list) and isinstance(new, list):
        return _diff_list(old, new)
    # type() first: in Python True == 1 and 1 == 1.0, but they are different JSON.
    if type(old) is type(new) and old == new:
        return NO_CHANGE
    return {"r": new}


def _diff_dict(old: dict[str, Any], new: dict[str, Any]) -> Any:
    changed: dict[str, Any] = {}
    for key, value in new.items():
        if key not in old:
            changed[key] = {"r": value}
            continue
        sub = _diff(old[key], value)
        if sub != NO_CHANGE:
            changed[key] = sub
    removed = [key for key in old if key not in new]
    out: dict[str, Any] = {}
    if changed:
        out["d"] = changed
    if removed:
        out["x"] = removed
    return out


def _diff_list(old: list[Any], new: list[Any]) -> Any:
    old_keys = [canonical_bytes(item) for item in old]
    new_keys = [canonical_bytes(item) for item in new]
    if old_keys == new_keys:
        return NO_CHANGE
    ops: list[list[Any]] = []
    old_pos = 0  # next old index not yet kept or passed over
    new_pos = 0
    for old_idx, new_idx in [*_anchors(old_keys, new_keys), (len(old), len(new))]:
        # The gap between anchors: old[old_pos:old_idx] went, new[new_pos:new_idx] came.
        _fill_gap(ops, old, new, range(old_pos, old_idx), range(new_pos, new_idx))
        if old_idx < len(old):
            _emit_keep(ops, old_idx)
        old_pos, new_pos = old_idx + 1, new_idx + 1
    return {"l": ops}


def _anchors(old_keys: list[bytes], new_keys: list[bytes]) -> list[tuple[int, int]]:
    """Pairs (old index, new index) of items kept unchanged, increasing in both."""
    n_old, n_new = len(old_keys), len(new_keys)
    # A common prefix and suffix cover appends, single edits and removals in linear time.
    head = 0
    while head < n_old and head < n_new and old_keys[head] == new_keys[head]:
        head += 1
    tail = 0
    while (
        tail < n_old - head
        and tail < n_new - head
        and old_keys[n_old - 1 - tail] == new_keys[n_new - 1 - tail]
    ):
        tail += 1
    middle = _lis_matches(old_keys[head : n_old - tail], new_keys[head : n_new - tail])
    return (
        [(i, i) for i in range(head)]
        + [(head + i, head + j) for i, j in middle]
        + [(n_old - tail + i, n_new - tail + i) for i in range(tail)]
    )


def _lis_matches(old_keys: list[bytes], new_keys: list[bytes]) -> list[tuple[int, int]]:
    """Match the k-th copy of an item in new to its k-th copy in old, then keep the longest
    increasing run of old positions (patience-style, O(n log n)), so moves stay cheap."""
    positions: dict[bytes, list[int]] = defaultdict(list)
    for i, key in enumerate(old_keys):
        positions[key].append(i)
    used: Counter[bytes] = Counter()
    pairs: list[tuple[int, int]] = []
    for j, key in enumerate(new_keys):
        slots = positions.get(key)
        if slots and used[key] < len(slots):
            pairs.append((slots[used[key]], j))
            used[key] += 1
    # Longest strictly increasing subsequence of old indices (new indices already increase).
    tails: list[int] = []  # smallest old index ending an increasing run of each length
    tail_at: list[int] = []  # index into pairs of that run's last element
    parent: list[int] = [-1] * len(pairs)
    for p, (i, _) in enumerate(pairs):
        length = bisect_left(tails, i)
        if length == len(tails):
            tails.append(i)
            tail_at.append(p)
        else:
            tails[length] = i
            tail_at[length] = p
        parent[p] = tail_at[length - 1] if length else -1
    chain: list[tuple[int, int]] = []
    p = tail_at[-1] if tail_at else -1
    while p != -1:
        chain.append(pairs[p])
        p = parent[p]
    chain.reverse()
    return chain


def _fill_gap(
    ops: list[list[Any]], old: list[Any], new: list[Any], gone: range, came: range
) -> None:
    """Emit the new items of a gap; pair them with the old items they replaced where an edit
    delta is smaller than the item itself (one field of one episode changed, say)."""
    for offset, j in enumerate(came):
        item = new[j]
        if offset < len(gone):
            i = gone[offset]
            before = old[i]
            if isinstance(before, dict | list) and type(before) is type(item):
                sub = _diff(before, item)
                if len(orjson.dumps(sub)) + 16 < len(orjson.dumps(item)):
                    ops.append(["e", i, sub])
                    continue
        if ops and ops[-1][0] == "n":
            ops[-1].append(item)
        else:
            ops.append(["n", item])


def _emit_keep(ops: list[list[Any]], index: int) -> None:
    if ops and ops[-1][0] == "k" and ops[-1][2] == index:
        ops[-1][2] = index + 1
    else:
        ops.append(["k", index, index + 1])


def _apply(old: Any, delta: Any) -> Any:
    if not isinstance(delta, dict):
        raise DeltaError(f"a delta must be an object, got {type(delta).__name__}")
    if not delta:
        return old
    if "r" in delta:
        return _copy(delta["r"])
    if "l" in delta:
        if not isinstance(old, list):
            raise DeltaError("a list delta applied to a non-list")
        return _apply_list(old, delta["l"])
    if delta.keys() <= {"d", "x"}:
        if not isinstance(old, dict):
            raise DeltaError("a dict delta applied to a non-dict")
        return _apply_dict(old, delta)
    raise DeltaError(f"unknown delta form with keys {sorted(delta)}")


def _apply_dict(old: dict[str, Any], delta: dict[str, Any]) -> dict[str, Any]:
    removed = set(delta.get("x", ()))
    out = {key: value for key, value in old.items() if key not in removed}
    for key, sub in delta.get("d", {}).items():
        if key in out:
            out[key] = _apply(out[key], sub)
        elif isinstance(sub, dict) and "r" in sub:
            out[key] = _copy(sub["r"])
        else:
            raise DeltaError(f"key {key!r} is changed by the delta but absent from the value")
    return out


def _apply_list(old: list[Any], ops: Any) -> list[Any]:
    if not isinstance(ops, list):
        raise DeltaError("list ops must be a list")
    out: list[Any] = []
    for op in ops:
        match op:
            case ["k", int(start), int(end)] if 0 <= start <= end <= len(old):
                out.extend(old[start:end])
            case ["n", *items]:
                out.extend(_copy(items))
            case ["e", int(index), sub] if 0 <= index < len(old):
                out.append(_apply(old[index], sub))
            case _:
                raise DeltaError(f"bad list op {str(op)[:80]}")
    return out
