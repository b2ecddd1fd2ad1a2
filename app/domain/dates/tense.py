"""The tense a date is said in, from the words around it: "I'll see her on Friday" is a future,
"I saw her on Friday" a past, "I love Fridays" neither. ``Tenses`` reads a text's markers once;
its ``around`` gives the tense of one expression's clause, else of the text before it, else of the
text after it.
"""

from __future__ import annotations

import bisect
import re
from typing import Literal

from app.domain.words import NOT_PAST_ED, PAST_TENSE_VERBS

Tense = Literal["past", "future"]

_WILL = (
    r"\b(?:will|shall|gonna|wanna|going\s+to|plan(?:s|ning)?\s+(?:to|on)|want(?:s)?\s+to|"
    r"hop(?:e|es|ing)\s+to|thinking\s+(?:about|of)|can't\s+wait|looking\s+forward|about\s+to|"
    r"intend|next|tomorrow|upcoming|soon|hopefully)\b|'ll\b"
)
# "I'm flying on May 3" is a future, "I'm trying to recall the day I met her" is not: a
# progressive is a future only when no past verb is nearer the date. A verb of feeling or trying
# in the progressive is a present state, never a plan: "I'm feeling overwhelmed after meeting
# Zara on August 12".
_PROGRESSIVE = (
    r"(?:\b(?:am|is|are)\s+|'(?:m|re|s)\s+)"
    r"(?!(?:feeling|wondering|struggling|trying|worrying|dealing|enjoying|loving|amazing|interesting|exciting|boring|relaxing|inspiring|fascinating|annoying|"
    r"surprising|stunning|refreshing|tiring|exhausting|touching|overwhelming|thing|nothing|"
    r"something|anything|everything|evening|morning|king|spring)\b)\w+ing\b"
)
_FUTURE_RE = re.compile(f"{_WILL}|{_PROGRESSIVE}", re.IGNORECASE)
_WILL_RE = re.compile(_WILL, re.IGNORECASE)
_PROGRESSIVE_RE = re.compile(_PROGRESSIVE, re.IGNORECASE)
# Past tenses, and the words that mark a past clause without one.
_PAST_WORDS = PAST_TENSE_VERBS | {"ago", "yesterday", "last", "been"}
# Words ending in -ed that are no past tense, and -ed adjectives that follow "am" or "is".
_NOT_PAST = NOT_PAST_ED | {
    "bed",
    "red",
    "indeed",
    "shed",
    "hundred",
    "sacred",
    "naked",
    "wicked",
    "weed",
    # What was planned or booked happens later: "we've planned trips from July 1-7".
    "planned",
    "scheduled",
    "booked",
    "arranged",
    "reserved",
    "registered",
}
# After a determiner an -ed word is an adjective too: "my scheduled check", "the booked flight";
# so is one after a word of degree or of feeling: "I'm kinda stressed about the recital on July
# 15", "feeling worried". "I've got" is a present: "I've got a recital on June 13" is no past.
_NO_PAST_PHRASE = re.compile(
    r"\b(?:am|is|are|'m|'re|'s|be|been|so|very|really|my|our|your|his|her|their|the|a|an|"
    r"kinda|sorta|pretty|quite|super|too|bit|little|totally|extremely|feel|feels|feeling|"
    r"getting)\s+\w+ed\b|(?:\b(?:have|has)|'ve|'s)\s+got\b"
)
_WORD = re.compile(r"[a-z']+")


def _is_past(word: str) -> bool:
    return word in _PAST_WORDS or (len(word) > 3 and word.endswith("ed") and word not in _NOT_PAST)


def detect_tense(text: str) -> Tense | None:
    """The tense of a clause from its markers: future first ("will", "next"), then past."""
    lowered = text.lower().replace("’", "'")
    if _FUTURE_RE.search(lowered):
        return "future"
    stripped = _NO_PAST_PHRASE.sub(" ", lowered)
    return "past" if any(_is_past(word) for word in _WORD.findall(stripped)) else None


# Text whose lower case is longer than itself is read around each expression, this far each side.
TENSE_CONTEXT = 1000
# A full stop ends a clause after a lower-case word ("St. Anthony's" and "Dr. Lee" go on); a
# comma between digits groups them ("a $1,000 bonus").
_CLAUSE_BREAK = re.compile(r"(?<!\d),|,(?!\d)|[;:!?]|(?<=[a-z]{3})\.\s|\b(?:and|but|so)\b")
Span = tuple[int, int]


def _distance(
    spans: list[Span], starts: list[int], low: int, start: int, end: int, high: int
) -> int | None:
    """How far the nearest of ``spans`` (sorted, apart) within [low, start) or [end, high) is
    from [start, end); None when none is."""
    best: int | None = None
    before = bisect.bisect_left(starts, start) - 1  # the last span starting before ``start``
    if before >= 0 and spans[before][0] >= low and spans[before][1] <= start:
        best = start - spans[before][1]
    after = bisect.bisect_left(starts, end)
    if after < len(spans) and spans[after][1] <= high:
        gap = spans[after][0] - end
        best = gap if best is None else min(best, gap)
    return best


class Tenses:
    """Where a text's tense markers and clause breaks are, found once for all its expressions.

    The tense of an expression is that of its clause without it, else of the text before it,
    else of the text after it: each is a lookup among the markers, not a read of the text.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        lowered = text.lower().replace("’", "'")
        # Lower case that changes a text's length would move every marker: read it around.
        self.exact = len(lowered) == len(text)
        if not self.exact:
            return
        self.will = [m.span() for m in _WILL_RE.finditer(lowered)]
        self.progressive = [m.span() for m in _PROGRESSIVE_RE.finditer(lowered)]
        not_past = [m.span() for m in _NO_PAST_PHRASE.finditer(lowered)]
        not_past_starts = [s for s, _ in not_past]
        self.past = [
            m.span()
            for m in _WORD.finditer(lowered)
            if _is_past(m.group()) and not self._inside(not_past, not_past_starts, m.start())
        ]
        self.breaks = [m.end() for m in _CLAUSE_BREAK.finditer(text)]
        self.will_starts = [s for s, _ in self.will]
        self.progressive_starts = [s for s, _ in self.progressive]
        self.past_starts = [s for s, _ in self.past]

    @staticmethod
    def _inside(spans: list[Span], starts: list[int], at: int) -> bool:
        i = bisect.bisect_right(starts, at) - 1
        return i >= 0 and spans[i][0] <= at < spans[i][1]

    def _tense(
        self, low: int, start: int, end: int, high: int, *, will_first: bool = True
    ) -> Tense | None:
        """Future for a "will" in [low, high) outside [start, end) (with ``will_first``); else
        the tense of the nearer of a future marker and a past verb, future on a tie.

        "I'm trying to recall the workshop I attended on May 20": the verb the date belongs to
        is the one beside it, not the progressive that opens the sentence. Read over the whole
        text, a "will" is one more marker: "the review on June 28, where I got a 4.2" is past
        though the message ends "to do better next time".
        """
        will = _distance(self.will, self.will_starts, low, start, end, high)
        if will is not None and will_first:
            return "future"
        future = _distance(self.progressive, self.progressive_starts, low, start, end, high)
        if will is not None:
            future = will if future is None else min(will, future)
        past = _distance(self.past, self.past_starts, low, start, end, high)
        if future is None and past is None:
            return None
        if past is None or (future is not None and future <= past):
            return "future"
        return "past"

    def around(self, start: int, end: int) -> Tense | None:
        """The tense of ``text[start:end]``'s clause without it, else of the text before it, else
        of the text after it."""
        if not self.exact:
            return _clause_tense_near(self.text, start, end)
        # Beyond the clause, the text before the date first: a clause's verb comes before its
        # objects and days ("I just bought a case and a charger on July 5, and I'm wondering if
        # they will fit" is past), and what follows is more often a new thought.
        return (
            self.of_clause(start, end)
            or self._tense(0, start, start, start, will_first=False)
            or self._tense(end, end, end, len(self.text), will_first=False)
        )

    def of_clause(self, start: int, end: int) -> Tense | None:
        """The tense of ``text[start:end]``'s own clause without it; None when it has no marker.

        Only for an ``exact`` text (one whose markers were found once).
        """
        at = bisect.bisect_right(self.breaks, start)
        left = self.breaks[at - 1] if at else 0
        after = bisect.bisect_left(self.breaks, end)
        right = self.breaks[after] if after < len(self.breaks) else len(self.text)
        return self._tense(left, start, end, right)


def _clause_tense_near(text: str, start: int, end: int) -> Tense | None:
    """``Tenses.around`` read from the text itself, ``TENSE_CONTEXT`` characters either side,
    each part by ``detect_tense`` (a future marker first, not the nearest)."""
    low, high = max(0, start - TENSE_CONTEXT), min(len(text), end + TENSE_CONTEXT)
    bounds = [m.end() for m in _CLAUSE_BREAK.finditer(text, low, high)]
    left = max((b for b in bounds if b <= start), default=low)
    right = min((b for b in bounds if b >= end), default=high)
    clause = text[left:start] + " " + text[end:right]
    return detect_tense(clause) or detect_tense(text[low:start]) or detect_tense(text[end:high])
