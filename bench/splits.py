"""The tuning and acceptance halves of the development sets (``../shared/data/splits.json``).

Each set is split by chat: fit, sweep and explore on ``tune``; report figures on ``accept``. The
benchmarks take ``--half tune|accept|all`` and keep the chats of that half.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

SPLITS = Path(__file__).resolve().parents[2] / "shared" / "data" / "splits.json"
HALVES = ("all", "tune", "accept")

T = TypeVar("T")


def names_in(dataset: str, half: str, splits: Path = SPLITS) -> set[str]:
    """The chat names of one half of a set, as its benchmark names them (no ``.json``)."""
    listed = json.loads(splits.read_text(encoding="utf-8"))[dataset][half]
    return {str(name).removesuffix(".json") for name in listed}


def of_half(
    chats: Sequence[T], name_of: Callable[[T], str], dataset: str, half: str, splits: Path = SPLITS
) -> list[T]:
    """The chats of ``half`` ("all": every one), in their order."""
    if half == "all":
        return list(chats)
    wanted = names_in(dataset, half, splits)
    return [chat for chat in chats if name_of(chat) in wanted]
