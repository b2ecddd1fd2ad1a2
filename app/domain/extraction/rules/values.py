"""Exact values, kept character for character: UUIDs, URLs, e-mail addresses, file paths,
connection strings, IP addresses, version numbers, order and ticket ids ("ORD-12345", "#4521",
"JIRA-77"). ``value_family`` makes each an entity named by the value ("tool" for addresses and
paths, "other" for ids and versions); the turn that said it stays in the turn log. Machine
speakers contribute them too; database rows give none (they are structured already).
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

from app.domain.extraction.extractor import Extraction
from app.domain.extraction.rules.guards import statement
from app.domain.extraction.rules.people import add_entity, is_person
from app.domain.extraction.rules.view import Sentence, View
from app.domain.passport import EntityType

# --- exact values ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Value:
    start: int
    end: int
    text: str
    kind: EntityType


_TRAILING = ".,;:!?'\"”’"
# (kind, trigger, pattern): the pattern runs only when the text has the trigger.
_VALUE_PATTERNS: tuple[tuple[str, re.Pattern[str], re.Pattern[str]], ...] = tuple(
    (kind, re.compile(trigger, re.IGNORECASE), re.compile(pattern))
    for kind, trigger, pattern in (
        ("uri", r"://", r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s'\"<>\[\]{}]+"),
        ("email", r"@", r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{2,}\b"),
        (
            "uuid",
            r"-",
            r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b",
        ),
        (
            "path",
            r"/|\\",
            r"(?<![\w/:.])(?:~|\.{1,2})?(?:/[\w.@+-]+){2,}/?|\b[A-Za-z]:\\(?:[\w .-]+\\)*[\w.-]+",
        ),
        ("ip", r"\d\.\d", r"(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?(?!\w|\.\d)"),
        (
            "ip",
            r"::",
            r"(?<![\w:])(?:[0-9a-fA-F]{1,4}:){1,7}:(?:[0-9a-fA-F]{1,4}(?::[0-9a-fA-F]{1,4})*)?(?![\w:])",
        ),
        ("ip", r":", r"(?<![\w:])(?:[0-9a-fA-F]{1,4}:){7}[0-9a-fA-F]{1,4}(?![\w:])"),
        ("id", r"-", r"(?<![\w-])[A-Z][A-Z0-9]{1,9}-\d{1,10}(?![\w-])"),
        (
            "id",
            r"\d",
            r"(?i:\b(?:order|ticket|case|confirmation|booking|reference|ref|invoice|tracking|"
            r"account|membership|member|policy|reservation|customer|serial|licen[cs]e)"
            r"(?:\s+(?:number|no\.?|num|#|id|code))?(?:\s+is)?\s*[:#]?\s*)"
            r"(?P<v>(?=[A-Za-z0-9-]*\d)[A-Z0-9][A-Za-z0-9-]{3,})\b",
        ),
        ("id", r"#", r"(?<![\w&#])#\d{2,10}\b"),
        (
            "version",
            r"\d\.\d|v\d|version",
            r"(?<![\w.])v?\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?(?!\w|\.\d)|(?<![\w.])v\d+(?:\.\d+)?"
            r"(?!\w|\.\d)|(?i:\bversion\s+)(?P<v>\d+(?:\.\d+)*)\b",
        ),
    )
)
# Every value has a digit, a slash, an "@" or a "::"; most sentences have none.
_MAY_HOLD_VALUE = re.compile(r"[\d/@\\]|::")
# Ids that are names of things, not identifiers someone needs back verbatim.
_NOT_IDS = frozenset({"COVID-19", "SARS-2", "MP3", "MP4", "A4"})


def find_values(text: str) -> list[_Value]:
    """Exact values in ``text``, in order, never overlapping (the first pattern wins a tie)."""
    if not _MAY_HOLD_VALUE.search(text):
        return []
    found: list[tuple[int, int, int, _Value]] = []
    for order, (kind, trigger, pattern) in enumerate(_VALUE_PATTERNS):
        if not trigger.search(text):
            continue
        for match in pattern.finditer(text):
            group = "v" if match.groupdict().get("v") else 0
            start, end = match.span(group)
            value = match.group(group)
            if kind in ("uri", "path"):
                value = _trim_trailing(value)
                end = start + len(value)
            entity = _value_kind(kind, value)
            if entity is None:
                continue
            found.append((start, -(end - start), order, _Value(start, end, value, entity)))
    found.sort(key=lambda item: item[:3])
    # In order of start, the values kept are apart, so only the last one kept can overlap.
    chosen: list[_Value] = []
    for _, _, _, value in found:
        if not chosen or value.start >= chosen[-1].end:
            chosen.append(value)
    return chosen


def _trim_trailing(value: str) -> str:
    """Trailing punctuation off, and a ")" that closes nothing in the value."""
    opened, closed = value.count("("), value.count(")")
    end = len(value)
    while end and value[end - 1] in _TRAILING + ")":
        if value[end - 1] == ")":
            if opened >= closed:
                break
            closed -= 1
        end -= 1
    return value[:end]


def _value_kind(kind: str, value: str) -> EntityType | None:
    if kind == "ip":
        try:
            ipaddress.ip_address(value.rsplit(":", 1)[0] if value.count(":") == 1 else value)
        except ValueError:
            return None
        return "tool"
    if kind == "version":
        parts = value.lstrip("v").split(".")
        # 8.5.2023 is a date, not a version.
        if len(parts) == 3 and len(parts[2]) == 4 and parts[0].isdigit() and int(parts[0]) <= 31:
            return None
        return "other"
    if kind == "id":
        return None if value in _NOT_IDS else "other"
    if kind == "uri":
        return "tool" if len(value.split("://", 1)[1]) > 1 else None
    return "tool" if kind == "path" else "other"


def value_family(view: View, out: Extraction) -> None:
    """Exact values as entities named by the value (their observations come in order below)."""
    if view.segment.kind == "row":
        return
    for sentence in view.sentences:
        for value in find_values(sentence.text):
            add_entity(out, value.text, value.kind)


def said_part(view: View, sentence: Sentence) -> str | None:
    """What a person states in a sentence (no question, no small talk), or None."""
    if sentence.small_talk or not is_person(view, sentence.speaker):
        return None
    return statement(sentence.text)
