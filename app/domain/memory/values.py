"""Values with history in the head: the newest value of each thing wins, earlier ones kept.

See ``app.domain.memory.history`` for how a key's items replace each other and are forgotten.
A head holds at most ``MAX_VALUES`` things; past that, the one stated longest ago leaves the head
(its turns stay in the log, where the ranking still finds them).
"""

from __future__ import annotations

from app.domain.memory.history import merge_keyed
from app.domain.passport import Passport, Value

MAX_VALUES = 500


def merge_value(passport: Passport, incoming: Value) -> bool:
    """Put ``incoming`` in the head; True when the head changed."""
    changed = merge_keyed(passport.values, incoming, _same)
    if len(passport.values) > MAX_VALUES:
        oldest = min(range(len(passport.values)), key=lambda n: passport.values[n].ts or "")
        del passport.values[oldest]
    return changed


def _same(current: Value, incoming: Value) -> bool:
    return current.value.casefold() == incoming.value.casefold()
