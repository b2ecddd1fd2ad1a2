"""Checks that a JSON value can be stored in Postgres JSONB and serialised back."""

from __future__ import annotations

from typing import Any

MAX_DEPTH = 64
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def deeper_than(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether ``value`` nests objects and lists more than ``limit`` levels (read iteratively,
    so no depth a parser accepts can exhaust the stack)."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth >= limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def json_problem(value: Any, path: str = "$", depth: int = 0) -> str | None:
    """The first thing JSONB cannot hold (NUL, lone surrogate, deep nesting), or None."""
    if depth > MAX_DEPTH:
        return f"{path}: nested deeper than {MAX_DEPTH} levels"
    if isinstance(value, str):
        return _string_problem(value, path)
    if isinstance(value, dict):
        for key, item in value.items():
            problem = _string_problem(key, f"{path} (a key)") or json_problem(
                item, f"{path}.{key}", depth + 1
            )
            if problem:
                return problem
    elif isinstance(value, list):
        for index, item in enumerate(value):
            problem = json_problem(item, f"{path}[{index}]", depth + 1)
            if problem:
                return problem
    return None


def _string_problem(text: str, path: str) -> str | None:
    if "\x00" in text:
        return f"{path}: strings may not contain the NUL character (\\u0000)"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return f"{path}: strings may not contain unpaired UTF-16 surrogates"
    return None


def storable(value: Any) -> Any:
    """The value as JSONB holds it: NUL dropped, integers past 64 bits as floats, as JS reads."""
    if isinstance(value, str):
        return value.replace("\x00", "") if "\x00" in value else value
    if isinstance(value, dict):
        return {storable(k): storable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [storable(v) for v in value]
    if (
        isinstance(value, int)
        and not isinstance(value, bool)
        and not INT64_MIN <= value <= INT64_MAX
    ):
        try:
            return float(value)
        except OverflowError:  # past every float: only the digits can be kept
            return str(value)
    return value
