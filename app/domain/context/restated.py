"""A passage that restates what a shown passage said, where the question's words are, is not
shown again.

People say the same thing again in later messages with new words around it ("we rented the old
cabin by the lake for a whole week" opens one message and closes the next), and an assistant
repeats its own schedules and lists. A turn said again word for word is shown once already; these
repeats are not whole turns. A passage whose every word the question asks lies in a run of
``RESTATED_RUN`` words (or more) that a shown passage holds tells the question nothing the context
does not: it is left out and the room goes to the next match.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from app.domain.text import tokenize

# Words in a row two passages must share for one to restate the other: more than a common
# phrase ("I've been trying to get"), fewer than a clause that states a thing.
RESTATED_RUN = 6
# A word with what is part of it: "3-day", "$75,000" (as "75,000"), "don't", "v2.1".
_WORD = re.compile(r"[^\W_][\w'’.,/%$-]*")


def _words(text: str) -> list[str]:
    """The words of ``text`` in order, lower case, without a trailing stop or comma."""
    return [w.rstrip(".,").lower() for w in _WORD.findall(text)]


class ShownRuns:
    """The runs of ``RESTATED_RUN`` words that the passages shown so far hold."""

    def __init__(self, asked: Iterable[str]) -> None:
        self.asked = frozenset(asked)  # the question's search tokens
        self.runs: set[tuple[str, ...]] = set()

    def restates(self, text: str) -> bool:
        """Whether every word of ``text`` that the question asks is inside a shown run."""
        if not self.runs:
            return False
        words = _words(text)
        covered = bytearray(len(words))
        for start in range(len(words) - RESTATED_RUN + 1):
            if tuple(words[start : start + RESTATED_RUN]) in self.runs:
                covered[start : start + RESTATED_RUN] = b"\x01" * RESTATED_RUN
        if not any(covered):
            return False  # most passages: nothing shown again, no word need be looked up
        asked = False
        for word, shown in zip(words, covered, strict=True):
            if not self.asked.isdisjoint(tokenize(word)):
                if not shown:
                    return False
                asked = True
        return asked

    def add(self, text: str) -> None:
        """Remember the runs of a passage now shown."""
        words = _words(text)
        for start in range(len(words) - RESTATED_RUN + 1):
            self.runs.add(tuple(words[start : start + RESTATED_RUN]))
