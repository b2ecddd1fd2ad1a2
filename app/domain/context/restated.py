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
from functools import lru_cache

from app.domain.text import word_tokens

# Words in a row two passages must share for one to restate the other: more than a common
# phrase ("I've been trying to get"), fewer than a clause that states a thing.
RESTATED_RUN = 6
# A word with what is part of it: "3-day", "$75,000" (as "75,000"), "don't", "v2.1".
_WORD = re.compile(r"[^\W_][\w'’.,/%$-]*")


@lru_cache(maxsize=1)  # a passage asked about is then shown: its words are cut once
def _words(text: str) -> tuple[str, ...]:
    """The words of ``text`` in order, lower case, without a trailing stop or comma."""
    return tuple([w.rstrip(".,").lower() for w in _WORD.findall(text)])


class ShownRuns:
    """The runs of ``RESTATED_RUN`` words that the passages shown so far hold, by speaker."""

    def __init__(self, asked: Iterable[str]) -> None:
        self.asked = frozenset(asked)  # the question's search tokens
        self.runs: set[tuple[int | str, ...]] = set()  # (speaker, *words)
        # (speaker, passage) found to restate: a chat says the same short things again and again.
        self._known: set[tuple[int, str]] = set()

    def restates(self, text: str, speaker: int = -1) -> bool:
        """Whether each word of ``text`` that matters is inside a run ``speaker`` was shown
        saying."""
        if (speaker, text) in self._known:
            return True
        words = _words(text) if self.runs else ()  # nothing shown yet: nothing restated
        if not words:
            return False
        run, last = min(RESTATED_RUN, len(words)), len(words) - min(RESTATED_RUN, len(words))
        runs = self.runs
        if not any((speaker, *words[s : s + run]) in runs for s in range(last + 1)):
            return False  # most passages: no shown run in them, no word need be looked up
        asked = self.asked
        places = [at for at, word in enumerate(words) if not asked.isdisjoint(word_tokens(word))]
        covered_to = -1  # the words before this place are known to be in a shown run
        # Word by word, the first not in a shown run ends the search: most passages say
        # something new, and only the few runs around that word are looked up.
        for at in places or range(len(words)):
            if at < covered_to:
                continue
            starts = range(min(at, last), max(at - run + 1, 0) - 1, -1)  # the furthest reach first
            start = next((s for s in starts if (speaker, *words[s : s + run]) in runs), None)
            if start is None:
                return False
            covered_to = start + run
        self._known.add((speaker, text))  # runs are only ever added: it stays a repeat
        return True

    def add(self, text: str, speaker: int = -1) -> None:
        """Remember the runs of a passage now shown (a short one is a run of its own)."""
        words = _words(text)
        if len(words) < RESTATED_RUN:
            self.runs.add((speaker, *words))
        for start in range(len(words) - RESTATED_RUN + 1):
            self.runs.add((speaker, *words[start : start + RESTATED_RUN]))
