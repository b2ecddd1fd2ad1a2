"""Where a long turn is cut to be indexed and shown by passage; how a passage shows its dates."""

from __future__ import annotations

import re
from collections.abc import Sequence

from app.domain.dates import SaidDate, day_label

# A turn longer than PASSAGE_MAX is cut into passages of about PASSAGE_TARGET characters: long
# enough for a sentence with its context, short enough that one answer of thousands of
# characters cannot fill a small budget by itself.
PASSAGE_TARGET = 500
PASSAGE_MAX = 600
# An assistant's (system's, tool's) message is cut finer: its answers run to thousands of
# characters of which a question needs a few lines, and a small budget holds more of them.
MACHINE_PASSAGE_TARGET = 250
MACHINE_PASSAGE_MAX = 350


_PARAGRAPH_RE = re.compile(r"\n[ \t]*\n")
_SENTENCE_RE = re.compile(r"(?<=[.!?…])\s+|\n")


def _pieces(text: str, start: int, end: int, pattern: re.Pattern[str]) -> list[tuple[int, int]]:
    """``text[start:end]`` cut at ``pattern``'s matches, as spans without the separators."""
    spans: list[tuple[int, int]] = []
    cursor = start
    for m in pattern.finditer(text, start, end):
        if m.start() > cursor:
            spans.append((cursor, m.start()))
        cursor = m.end()
    if cursor < end:
        spans.append((cursor, end))
    return spans


def _words(text: str, start: int, end: int, target: int, most: int) -> list[tuple[int, int]]:
    """A span longer than ``most`` cut at the last space before each ``target``."""
    spans: list[tuple[int, int]] = []
    while end - start > most:
        cut = text.rfind(" ", start + target // 2, start + target)
        cut = cut if cut > start else start + target
        spans.append((start, cut))
        start = cut
    spans.append((start, end))
    return spans


def passages(
    text: str, target: int = PASSAGE_TARGET, most: int = PASSAGE_MAX
) -> list[tuple[int, int]]:
    """Character spans of ``text`` to index and show apart: one span unless it is long.

    A text longer than ``most`` is cut at paragraphs, then sentences, then spaces, and the
    pieces packed back together up to ``target`` characters.
    """
    stripped = text.strip()
    if len(stripped) <= most:
        return [(0, len(text))]
    units: list[tuple[int, int]] = []
    for p_start, p_end in _pieces(text, 0, len(text), _PARAGRAPH_RE):
        if p_end - p_start <= most:
            units.append((p_start, p_end))
            continue
        for s_start, s_end in _pieces(text, p_start, p_end, _SENTENCE_RE):
            units += _words(text, s_start, s_end, target, most)
    # Pack neighbouring units up to the target, so short sentences travel together.
    out: list[tuple[int, int]] = []
    for start, end in units:
        if not text[start:end].strip():
            continue
        if out and end - out[-1][0] <= target:
            out[-1] = (out[-1][0], end)
        else:
            out.append((start, end))
    return out or [(0, len(text))]


def annotated(text: str, dates: Sequence[SaidDate]) -> str:
    """``text`` with each resolved date written after what was said: "yesterday (6 May 2023)"."""
    if not dates:
        return text
    parts: list[str] = []
    cursor = 0
    for said in dates:
        at = text.find(said.said, cursor)
        if at < 0 or not said.said:
            continue  # said in a part of the turn that is not shown
        end = at + len(said.said)
        parts.append(f"{text[cursor:end]} ({day_label(said.day)})")
        cursor = end
    parts.append(text[cursor:])
    return "".join(parts)
