"""A passage that says two of the question's words together, as the question does, is lifted.

BM25 scores words one by one: "When is the *garden party* this year?" ranks a message that says
"garden" and "party" in two sentences above the one that says "the garden party moved to
Sunday". Two words side by side in a question name one thing ("garden party", "error message",
"night shift"); a passage that says them side by side
speaks of that thing. Each such pair a candidate holds lifts it by ``PHRASE_LIFT`` of its score:
enough to order near-ties, never enough to raise a weak match above a clearly better one.
"""

from __future__ import annotations

import re

from app.domain.context.index import EvidenceIndex, Scores
from app.domain.context.ranking import lifted
from app.domain.words import STOPWORDS

PHRASE_LIFT = 0.1
# Below this length a word is too common a piece of a phrase ("do it", "go on"); above the other
# it is no word.
_SHORTEST = 3
_LONGEST = 40
# A word with what is part of it: "anita's", "grab-and-go"; "3.10" is "3" and "10".
_WORD = re.compile(r"[^\W_][\w'-]*")


def question_phrases(q: str) -> frozenset[str]:
    """The pairs of words side by side in ``q`` (only spaces between them), lower case, neither
    a function word nor what "how" asks ("how many days", "how long").
    """
    text = q.lower().replace("’", "'")
    words = list(_WORD.finditer(text))
    phrases: set[str] = set()
    for before, a, b in zip([None, *words], words, words[1:], strict=False):
        if before is not None and before.group() == "how":
            continue
        if text[a.end() : b.start()].isspace() and _content(a.group()) and _content(b.group()):
            phrases.add(f"{a.group()} {b.group()}")
    return frozenset(phrases)


def _content(word: str) -> bool:
    return _SHORTEST <= len(word) <= _LONGEST and word not in STOPWORDS


def phrases_first(
    index: EvidenceIndex, order: list[int], scores: Scores, phrases: frozenset[str]
) -> list[int]:
    """``order`` again after lifting the passages that say the question's ``phrases`` (in
    place in ``scores``)."""

    def share(doc: int) -> float:
        text = index.passage_text(doc).lower()
        return PHRASE_LIFT * sum(1 for phrase in phrases if _says(text, phrase))

    return lifted(order, scores, share)


def _says(text: str, phrase: str) -> bool:
    """Whether ``phrase`` is in ``text`` as whole words ("math class", not "aftermath classes")."""
    at = text.find(phrase)
    while at >= 0:
        end = at + len(phrase)
        if (at == 0 or not text[at - 1].isalnum()) and (
            end == len(text) or not text[end].isalnum()
        ):
            return True
        at = text.find(phrase, at + 1)
    return False
