"""The prose of a message: what a person wrote in sentences, without code, logs or markup.

Agents post messages that hold pasted code, logs, markdown headings and URLs beside sentences.
Those are kept verbatim in the log and searched, but no belief or date is read from them: an
identifier is not a person, a heading is not a claim, and ``setTimeout(..., 2000)`` says nothing
about anyone's plans. One pass over the lines, each read a constant number of times.
"""

from __future__ import annotations

import re

# Lines that open or close a fenced block (``` or ~~~, with a language name or not).
_FENCES = ("```", "~~~")
# A line whose first word is one of these and that ends in code punctuation is code.
_CODE_OPENERS = frozenset(
    [
        "import",
        "from",
        "const",
        "let",
        "var",
        "function",
        "def",
        "class",
        "return",
        "async",
        "await",
        "export",
        "require",
        "public",
        "private",
        "protected",
        "static",
        "void",
        "int",
        "if",
        "elif",
        "else",
        "for",
        "while",
        "switch",
        "case",
        "try",
        "catch",
        "except",
        "finally",
        "throw",
        "raise",
        "new",
        "module",
        "package",
        "using",
        "namespace",
        "struct",
        "enum",
        "interface",
        "type",
        "select",
        "insert",
        "update",
        "delete",
        "create",
        "alter",
        "drop",
        "with",
        "echo",
        "sudo",
        "npm",
        "pip",
        "yarn",
        "git",
        "docker",
        "cd",
        "curl",
        "kubectl",
    ]
)
# A line of code with a keyword first has fewer words than this.
_CODE_LINE_WORDS = 12
# Endings of a line of code (and of JSON, YAML keys and shell continuations).
_CODE_ENDINGS = (";", "{", "}", "(", ")", "[", "]", "=>", ",", "\\", "*/", "-->", "/>", ">", ":")
_CODE_MARKS = ("=>", "==", "!=", "&&", "||", "::", "();", "});", "= {", "= [", "->", "</", "/*")
# A URL, up to the next space: kept in the log, never read for names or dates.
_URL = re.compile(r"(?:https?://|www\.)\S+", re.IGNORECASE)
_HEADING = re.compile(r"#{1,6}\s")
_LOG_LINE = re.compile(
    r"(?:\[?\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}|\[?(?:ERROR|WARN|WARNING|INFO|DEBUG|TRACE|FATAL)\b"
    r"|Traceback \(most recent call last\)|at \S+ \(|File \"|\$ )"
)


# What is not a letter, a digit or a space; one regex pass, not a Python test per character.
_SYMBOL = re.compile(r"[^\w\s]|_")


def prose_of(text: str) -> str:
    """``text`` without its fenced and indented code, log lines, headings, URLs and inline code.

    What is left keeps its line breaks, so sentences stay where they were; a text that is all
    code gives "".
    """
    kept: list[str] = []
    for start, end, code in fenced_blocks(text):
        for line in () if code else text[start:end].split("\n"):
            stripped = line.strip()
            if stripped and not _is_code(line, stripped):
                kept.append(_inline_prose(stripped))
    return "\n".join(line for line in kept if line)


def fenced_blocks(text: str) -> list[tuple[int, int, bool]]:
    """``text`` as spans of prose and of fenced code (fence lines included), in order."""
    if not any(fence in text for fence in _FENCES):
        return [(0, len(text), False)]
    blocks: list[tuple[int, int, bool]] = []
    start = at = 0
    fenced = False
    while True:
        nl = text.find("\n", at)
        end = len(text) if nl < 0 else nl
        if text[at:end].lstrip().startswith(_FENCES):
            if fenced:
                blocks.append((start, end, True))  # the block, its closing fence included
                start = end
            else:
                if at > start:
                    blocks.append((start, at, False))  # the prose before the opening fence
                start = at
            fenced = not fenced
        if nl < 0:
            break
        at = nl + 1
    if start < len(text):
        blocks.append((start, len(text), fenced))  # an unclosed fence runs to the end
    return blocks


def _is_code(line: str, stripped: str) -> bool:
    """A line that is code, a log, a heading or a table row rather than a sentence."""
    if line.startswith(("    ", "\t")) or _HEADING.match(stripped) or _LOG_LINE.match(stripped):
        return True
    if stripped.startswith("|") and stripped.endswith("|"):
        return True  # a markdown table row
    if stripped[0] in "{[<" and stripped[-1] in "}]>,":
        return True  # JSON, a list literal, markup
    first = stripped.split(None, 1)[0].lower().rstrip(":(")
    ends = stripped.endswith(_CODE_ENDINGS)
    # A keyword first reads as code only on a line as short as code: "From now on, ..." and
    # "If you can, ..." open sentences too, and a paragraph is never one statement of code.
    if (
        first in _CODE_OPENERS
        and (ends or "(" in stripped or "=" in stripped)
        and stripped.count(" ") < _CODE_LINE_WORDS
    ):
        return True
    if ends and any(mark in stripped for mark in _CODE_MARKS):
        return True
    # Mostly symbols: JSON, minified code, hashes. (A line of figures is prose: "65% -> 78%".)
    if len(stripped) < 16:
        return False
    symbols = len(_SYMBOL.findall(stripped))
    return symbols > len(stripped) * 0.4


def _inline_prose(line: str) -> str:
    """A line without its `inline code` spans, URLs and markdown emphasis and bullets.

    Where a code span was, the line breaks: "use the `userId` as the key" must not read "use the
    as the key".
    """
    # Between backticks is code: every other piece of the line split at them.
    pieces = line.split("`")[::2] if "`" in line else [line]
    if pieces[0].startswith(("- ", "* ", "+ ")):
        pieces[0] = pieces[0][2:]
    kept = (" ".join(_plain(piece).split()) for piece in pieces)
    return "\n".join(piece for piece in kept if piece)


def _plain(text: str) -> str:
    """Text without URLs and markdown emphasis."""
    if "://" in text or "www." in text:
        text = _URL.sub(" ", text)
    return text.replace("**", "").replace("__", "")
