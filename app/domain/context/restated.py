"""A passage that says nothing new is not shown: the one rule against repeats.

People say the same thing again ("we rented the old cabin by the lake for a whole week" opens one
message and closes the next), send the same short message many times, and an assistant repeats
its own schedules and lists. A passage is left out when each word of it that matters lies in a run
of ``RESTATED_RUN`` words (the whole passage, when it is shorter) that the same speaker already
said in a shown passage. The words that matter are the question's words in it, or all its words
when it holds none of them: a turn said again word for word is a repeat either way, and the same
words from someone else are another memory.
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
    """The runs of ``RESTATED_RUN`` words that the passages shown so far hold, by speaker."""

    def __init__(self, asked: Iterable[str]) -> None:
        self.asked = frozenset(asked)  # the question's search tokens
        self.runs: set[tuple[int | str, ...]] = set()  # (speaker, *words)
        self._asks: dict[str, bool] = {}  # word -> whether the question asks it, as looked up

    def _asked(self, word: str) -> bool:
        found = self._asks.get(word)
        if found is None:
            found = self._asks[word] = not self.asked.isdisjoint(tokenize(word))
        return found

    def restates(self, text: str, speaker: int = -1) -> bool:
        """Whether each word of ``text`` that matters is inside a run ``speaker`` was shown
        saying."""
        words = _words(text)
        if not self.runs or not words:
            return False
        run = min(RESTATED_RUN, len(words))
        places = [at for at, word in enumerate(words) if self._asked(word)]
        places = places or list(range(len(words)))
        # Only the runs that could hold a word that matters are looked up.
        covered = bytearray(len(words))
        for start in range(max(places[0] - run + 1, 0), min(places[-1], len(words) - run) + 1):
            if (speaker, *words[start : start + run]) in self.runs:
                covered[start : start + run] = b"\x01" * run
        return all(covered[at] for at in places)

    def add(self, text: str, speaker: int = -1) -> None:
        """Remember the runs of a passage now shown (a short one is a run of its own)."""
        words = _words(text)
        if len(words) < RESTATED_RUN:
            self.runs.add((speaker, *words))
        for start in range(len(words) - RESTATED_RUN + 1):
            self.runs.add((speaker, *words[start : start + RESTATED_RUN]))
