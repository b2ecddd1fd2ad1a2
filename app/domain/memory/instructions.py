"""Standing instructions in the head: the newest of each key wins, the ones it replaced kept.

See ``app.domain.memory.history`` for how a key's items replace each other and are forgotten.
"""

from __future__ import annotations

from app.domain.memory.history import merge_keyed
from app.domain.passport import Instruction, Passport


def merge_instruction(passport: Passport, incoming: Instruction) -> bool:
    """Put ``incoming`` in the head; True when the head changed."""
    return merge_keyed(passport.instructions, incoming, _same)


def _same(current: Instruction, incoming: Instruction) -> bool:
    return _norm(current.text) == _norm(incoming.text)  # said again: the first statement stands


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold().rstrip(".!")
