"""Offline episodes: what one segment of conversation was about, when, and who took part.

No model writes a summary here. An episode is made of what the segment holds: its first and last
time, its participants, its salient words (the content words said most often in it, by the
people in it), and, as its summary, one sentence in the person's own words: the most central
sentence of the most central turn of the person whose memory this is (the ``user`` of a
user–assistant chat; in a chat between people, anyone), where central means made of the words
the segment repeats. An assistant's, system's or tool's words are never the summary, and code
and logs are never read (the view holds a person's prose only).

The episode names every turn of the segment (``turn_ids``): forgetting any of them forgets it.
"""

from __future__ import annotations

from collections.abc import Iterable

from app.domain.dates import iso_utc
from app.domain.extraction.extractor import Extraction
from app.domain.extraction.rules.view import Sentence, View
from app.domain.passport import Episode

MAX_KEYWORDS = 8  # as many as an LLM extractor may give an episode
MAX_SUMMARY_CHARS = 240


def episode_family(view: View, out: Extraction) -> None:
    """One episode for the segment, when a person in it said something that is not small talk."""
    said = [s for s in _people_sentences(view) if not s.small_talk]
    if not said:
        return
    keywords = _salient(view)
    weight = {w: view.word_counts[w] for w in keywords} | {
        w: c for w, c in view.word_counts.items() if c > 1
    }
    summary = _summary(said, weight)
    segment = view.segment
    times = [t.ts for t in segment.turns if t.ts is not None]
    start = segment.start_ts or (min(times) if times else view.when)
    end = segment.end_ts or (max(times) if times else None)
    fields: dict[str, object] = {
        "id": segment.id,
        "ts": iso_utc(start),
        "end": iso_utc(end) if end != start else None,
        "session": segment.session,
        "summary": summary,
        "participants": list(view.participants),
        "keywords": keywords,
        "source": segment.id,
        "turn_ids": [t.id for t in segment.turns if t.id is not None] or None,
        "quoted": True,
    }
    # ``end``, ``session``, ``turn_ids`` and ``quoted`` (its summary quotes its turns) are
    # Tessera's additions to the format's episode.
    out.episode = Episode.model_validate({k: v for k, v in fields.items() if v is not None})


def _people_sentences(view: View) -> list[Sentence]:
    """The user's sentences where the chat has a user; else every person's."""
    # The view holds no assistant's, system's or tool's words: what is left is people's.
    return list(view.user_sentences()) or view.sentences


def _salient(view: View) -> list[str]:
    """The segment's most repeated content words, most first, ties in the order first said."""
    ranked = sorted(view.word_counts.items(), key=lambda item: -item[1])
    return [word for word, _ in ranked[:MAX_KEYWORDS]]


def _score(words: Iterable[str], weight: dict[str, int]) -> int:
    return sum(weight.get(w, 0) for w in set(words))


def _summary(said: list[Sentence], weight: dict[str, int]) -> str:
    """The most central sentence of the most central turn, clipped at a word."""
    by_turn: dict[int, list[Sentence]] = {}
    for sentence in said:
        by_turn.setdefault(sentence.turn, []).append(sentence)
    # max() keeps the first of equals: the earliest turn, then its earliest sentence.
    turn = max(by_turn.values(), key=lambda ss: _score((w for s in ss for w in s.words), weight))
    best = max(turn, key=lambda s: _score(s.words, weight))
    return _clipped(best.text, MAX_SUMMARY_CHARS)


def _clipped(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", limit // 2, limit)
    return text[: cut if cut > 0 else limit - 1].rstrip(" ,;:-") + "…"
