"""No block of six or more lines inside ``app/`` repeats another, even with other names.

The checker is self-contained: each non-blank, non-comment line of a module is reduced to its
shape (identifiers, strings and numbers become placeholders, keywords and punctuation stay), and
a run of six consecutive shapes that stands in two places is a repeat. Thin lines are imports,
decorators, function signatures, lone brackets, docstrings and other bare strings, and shapes so
common in the tree that they say nothing of their own (``return N``, ``N: N``, a rule table's
rows). A run with fewer than two lines that are not thin is boilerplate, and so is a run found in
more than eight places, or a table whose rows all look alike.
"""

from __future__ import annotations

import io
import keyword
import tokenize
from collections import Counter, defaultdict
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "app"
MIN_LINES = 6
MOST_PLACES = 8  # a run found in more places than this is a common idiom, not a copy
COMMON = 12  # a line shape that stands this many times in the tree is thin
SUBSTANCE = 2  # lines of a run that must not be thin
_SKIPPED = {
    tokenize.COMMENT,
    tokenize.NL,
    tokenize.INDENT,
    tokenize.DEDENT,
    tokenize.ENCODING,
    tokenize.ENDMARKER,
}
# Python 3.12 splits f-strings into several tokens; before it, an f-string is one STRING token.
_FSTRING_START = getattr(tokenize, "FSTRING_START", None)
_FSTRING_END = getattr(tokenize, "FSTRING_END", None)


@dataclass(frozen=True)
class Line:
    """One significant source line: its number and its shape."""

    number: int
    shape: str
    thin: bool


@dataclass(frozen=True)
class Repeat:
    """The lines ``first`` (file, first and last line) stand again, same shape, at ``second``."""

    first: tuple[str, int, int]
    second: tuple[str, int, int]

    def __str__(self) -> str:
        (a, a1, a2), (b, b1, b2) = self.first, self.second
        return f"{a}:{a1}-{a2} ~ {b}:{b1}-{b2}"


def _placeholder(token: tokenize.TokenInfo) -> str:
    if token.type == tokenize.NAME:
        return token.string if keyword.iskeyword(token.string) else "N"
    if token.type == tokenize.NUMBER:
        return "0"
    if token.type == tokenize.STRING:
        return "S"
    return token.string


def shapes(source: str) -> list[Line]:
    """The significant lines of a module, each reduced to its shape."""
    words: dict[int, list[str]] = defaultdict(list)
    thin_rows: set[int] = set()
    statement_start, thin_statement, after_async, fstring_depth = True, False, False, 0
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if fstring_depth:
            fstring_depth += (token.type == _FSTRING_START) - (token.type == _FSTRING_END)
            continue
        if token.type == tokenize.NEWLINE:
            statement_start, thin_statement = True, False
            continue
        if token.type in _SKIPPED:
            continue
        if statement_start:
            # An import, a decorator or a function's signature is thin on every line it spans:
            # the parameters routes and services take repeat by nature, and hold no logic.
            thin_statement = token.string in ("import", "from", "@", "def")
            after_async = token.string == "async"
            statement_start = False
        elif after_async:
            thin_statement, after_async = token.string == "def", False
        row = token.start[0]
        if token.type == _FSTRING_START:
            fstring_depth = 1
            words[row].append("S")
        else:
            words[row].append(_placeholder(token))
        if thin_statement:
            thin_rows.add(row)
    return [
        Line(row, " ".join(parts), row in thin_rows or not {"N", "0"} & set(parts))
        for row, parts in sorted(words.items())
    ]


def find_repeats(files: dict[str, str], min_lines: int = MIN_LINES) -> list[Repeat]:
    """Every pair of places where ``min_lines`` or more consecutive line shapes stand again."""
    lines = {name: shapes(source) for name, source in files.items()}
    counts = Counter(line.shape for found in lines.values() for line in found)
    thin = {shape for shape, count in counts.items() if count >= COMMON}
    places: dict[tuple[str, ...], list[tuple[str, int]]] = defaultdict(list)
    for name, found in lines.items():
        for start in range(len(found) - min_lines + 1):
            window = found[start : start + min_lines]
            if sum(not (line.thin or line.shape in thin) for line in window) < SUBSTANCE:
                continue
            if len({line.shape for line in window}) == 1:
                continue
            places[tuple(line.shape for line in window)].append((name, start))
    # Matching windows that follow one another are one longer run: keep the run, not each window.
    starts: dict[tuple[str, str, int], list[int]] = defaultdict(list)
    for spots in places.values():
        if len(spots) > MOST_PLACES:
            continue
        for (a, i), (b, j) in combinations(spots, 2):
            if a == b and abs(i - j) < min_lines:
                continue  # the same lines, overlapping themselves
            starts[(a, b, j - i)].append(i)
    repeats = []
    for (a, b, shift), indexes in sorted(starts.items()):
        indexes.sort()
        run_start = previous = indexes[0]
        for i in [*indexes[1:], None]:
            if i is not None and i == previous + 1:
                previous = i
                continue
            end = previous + min_lines - 1
            first = (a, lines[a][run_start].number, lines[a][end].number)
            second = (b, lines[b][run_start + shift].number, lines[b][end + shift].number)
            repeats.append(Repeat(first, second))
            if i is not None:
                run_start = previous = i
    return repeats


def test_the_checker_sees_a_renamed_copy_and_nothing_thinner() -> None:
    original = """
def total(items, tax):
    subtotal = 0
    for item in items:
        subtotal += item.price * item.count
    if tax:
        subtotal *= 1.2
    return round(subtotal, 2)
"""
    renamed = """
import os
from typing import (
    Any,
)

def price_of(lines, vat):
    amount = 10
    for line in lines:
        amount += line.cost * line.quantity  # a comment changes nothing
    if vat:

        amount *= 1.5
    return round(amount, 4)
"""
    [repeat] = find_repeats({"a.py": original, "b.py": renamed})
    assert str(repeat) == "a.py:2-8 ~ b.py:7-14"
    five_lines = "\n".join(original.splitlines()[:-2])
    assert find_repeats({"a.py": five_lines, "b.py": renamed}) == []
    thin = '@decorator\ndef f():\n    """Doc."""\n    return (\n        "text"\n    )\n'
    assert find_repeats({"a.py": thin + thin.replace("f", "g")}) == []
    assert find_repeats({"table.py": "WORDS = {\n" + '    "one": 1,\n' * 20 + "}\n"}) == []
    signature = "async def {}(\n    key: Key,\n    tenant: Tenant,\n    limit: Size = 50,\n"
    signature += "    cursor: Cursor = None,\n) -> Page:\n    return {}(key)\n"
    pair = signature.format("jobs", "a") + signature.format("versions", "b")
    assert find_repeats({"routes.py": pair}) == []


def test_no_block_of_six_lines_repeats_inside_app() -> None:
    files = {str(p.relative_to(APP)): p.read_text() for p in sorted(APP.rglob("*.py"))}
    repeats = find_repeats(files)
    assert not repeats, "repeated blocks (share the code):\n" + "\n".join(map(str, repeats))
