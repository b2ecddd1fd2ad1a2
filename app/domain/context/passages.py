"""Where a long turn is cut to be indexed and shown by passage; how a passage shows its dates."""

from __future__ import annotations

import re
from collections.abc import Sequence

from app.domain.dates import SaidDate, day_label
from app.domain.prose import fenced_blocks

# A turn longer than PASSAGE_MAX is cut into passages of about PASSAGE_TARGET characters: long
# enough for a sentence with its context, short enough that one answer of thousands of
# characters cannot fill a small budget by itself.
PASSAGE_TARGET = 500
PASSAGE_MAX = 600
# An assistant's (system's, tool's) message is cut finer: its answers run to thousands of
# characters of which a question needs a few lines, and a small budget holds more of them.
MACHINE_PASSAGE_TARGET = 250
MACHINE_PASSAGE_MAX = 350
# A person's message to an assistant (role ``user``) is cut finer than one to another person: it
# is a prompt that packs a request, pasted text and several facts together, of which a question
# needs one. A message between people is one turn of talk, and reads best whole.
PROMPT_PASSAGE_TARGET = 300
PROMPT_PASSAGE_MAX = 400


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


_LINE_RE = re.compile(r"\n")


def passages(
    text: str, target: int = PASSAGE_TARGET, most: int = PASSAGE_MAX
) -> list[tuple[int, int]]:
    """Character spans of ``text`` to index and show apart: one span unless it is long.

    A text longer than ``most`` is cut into prose and fenced code blocks; prose at paragraphs,
    then sentences, code between its lines, then anything at spaces; the pieces are packed back
    together up to ``target`` characters, never code with prose.
    """
    stripped = text.strip()
    if len(stripped) <= most:
        return [(0, len(text))]
    units: list[tuple[int, int, bool]] = []
    for b_start, b_end, code in fenced_blocks(text):
        pieces = [(b_start, b_end)] if code else _pieces(text, b_start, b_end, _PARAGRAPH_RE)
        for p_start, p_end in pieces:
            if p_end - p_start <= most:
                units.append((p_start, p_end, code))
                continue
            cut_at = _LINE_RE if code else _SENTENCE_RE
            for s_start, s_end in _pieces(text, p_start, p_end, cut_at):
                units += [(a, b, code) for a, b in _words(text, s_start, s_end, target, most)]
    # Pack neighbouring units up to the target, so short sentences (or lines) travel together.
    # A heading opens a passage and takes what follows it whatever its length: alone, or at the
    # end of the passage before, it says nothing and would be shown as a line of its own.
    out: list[tuple[int, int]] = []
    kinds: list[bool] = []
    open_heading = False
    for start, end, code in units:
        if not text[start:end].strip():
            continue
        heading = not code and _is_heading(text, start, end)
        if (
            out
            and kinds[-1] == code
            and (open_heading or (not heading and end - out[-1][0] <= target))
        ):
            out[-1] = (out[-1][0], end)
            open_heading = heading and open_heading
        else:
            out.append((start, end))
            kinds.append(code)
            open_heading = heading
    return out or [(0, len(text))]


_HEADING_CHARS = 120


def _is_heading(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is one line of a markdown heading ("### Steps")."""
    piece = text[start:end].strip()
    return piece.startswith("#") and len(piece) <= _HEADING_CHARS and "\n" not in piece


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
