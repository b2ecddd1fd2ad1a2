"""The beliefs a context shows: a small core always, the rest by relevance to the question.

Beliefs (facts, preferences, values with history, open loops, and the entities a question names)
come from the head.
Each is rendered as a sentence an agent reads as one ("Melanie likes hiking": see
``app.domain.context.belief_sentences``; the passport's subject is ``meta.subject``), scored by the
question words it shares (each weighted by how rare the word is in the user's log), and chosen
within a share of the budget, so beliefs never crowd out the evidence. What is left out is
counted. Pure: no I/O, no clock.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace
from typing import Any, Literal

from app.domain.context.belief_sentences import (
    belief_text,
    entity_text,
    loop_text,
    subject_of,
    value_text,
)
from app.domain.passport import Belief, Contradiction, Passport, Value
from app.domain.text import tokenize

Section = Literal["facts", "prefs", "values", "open_loops", "entities"]
# Facts shown whatever the question: the newest ones, who the user is.
CORE_FACTS = 3
# A value is shown when the question holds at least this share of the words of what it is
# about: "my quiz score" for "what was my quiz score?", not for any question that says "score";
# or of those words and its unit's together, one of what it is about among them: "$350 monthly"
# of "my photography budget" for "how much do I allocate monthly for photography?".
VALUE_COVER = 0.6
_UNIT_WORD = re.compile(r"[^\W\d_]+")


@dataclass(frozen=True, slots=True)
class BeliefLine:
    """One belief as a context shows it."""

    section: Section
    key: str | None
    value: Any
    text: str  # the sentence
    ts: str | None
    source: str | None
    turn_ids: tuple[str, ...]
    tokens: frozenset[str]
    order: int  # newest first within its section: 0 is the newest
    about: frozenset[str] = frozenset()  # a value's: the words of what it is about

    def to_dict(self) -> dict[str, Any]:
        """JSON form: key and value as stored, the sentence beside them, and provenance."""
        out: dict[str, Any] = {"section": self.section}
        if self.key is not None:
            out["key"] = self.key
            out["value"] = self.value
        out.update(
            {
                "text": self.text,
                "ts": self.ts,
                "source": self.source,
                "turn_ids": list(self.turn_ids),
            }
        )
        return out


def _turn_ids(item: Any) -> tuple[str, ...]:
    ids = getattr(item, "turn_ids", None)
    if ids is None and getattr(item, "model_extra", None):
        ids = item.model_extra.get("turn_ids")
    return tuple(str(i) for i in ids) if isinstance(ids, list) else ()


def _newest_first(items: Sequence[Any]) -> list[Any]:
    return sorted(items, key=lambda i: getattr(i, "ts", None) or "", reverse=True)


class BeliefIndex:
    """A head's beliefs as sentences with their words, made once per version of the head."""

    def __init__(self, lines: Iterable[BeliefLine]) -> None:
        self.lines = list(lines)

    def words(self) -> dict[str, frozenset[str]]:
        """Each line's words by its text: what a newer head's lines of the same text reuse."""
        return {line.text: line.tokens for line in self.lines}

    @classmethod
    def of(cls, head: Passport, known: Mapping[str, frozenset[str]] | None = None) -> BeliefIndex:
        """Every fact, preference, value, open loop and entity of a head, as lines.

        ``known`` holds the words of lines made before (``words()`` of the previous head's
        index): a write changes a few beliefs, so the rest are not tokenised again.
        """
        known = known or {}
        changes: dict[str, list[Contradiction]] = {}
        for c in head.contradictions:
            changes.setdefault(c.key, []).append(c)
        subject = subject_of(head.meta)
        lines: list[BeliefLine] = []
        for section in ("facts", "prefs"):
            beliefs: list[Belief] = getattr(head, section)
            for order, b in enumerate(_newest_first(beliefs)):
                text = belief_text(section, b, changes.get(b.key, ()), subject=subject)
                lines.append(_line(section, text, b, order, known))
        for order, v in enumerate(_newest_first(head.values)):
            # A value matches a question by what it is about and its unit's words, not by its
            # numbers and dates.
            text = value_text(v, subject=subject)
            about = v.about or v.key
            unit = " ".join(_UNIT_WORD.findall(v.value))
            line = _line("values", text, v, order, known, matched=f"{about} {unit}")
            lines.append(replace(line, about=frozenset(tokenize(about))))
        for order, loop in enumerate(_newest_first(head.open_loops)):
            lines.append(_line("open_loops", loop_text(loop), loop, order, known))
        for order, e in enumerate(head.entities):
            if e.type == "other" and not e.aliases:
                continue  # "Google Ads (other)" says only that a name was said: the log has it
            text = entity_text(e)
            words = known.get(text)
            if words is None:
                words = frozenset(tokenize(" ".join([e.name, *e.aliases])))
            lines.append(BeliefLine("entities", None, None, text, None, None, (), words, order))
        return cls(lines)

    def approx_bytes(self) -> int:
        """A rough size of the lines held."""
        return sum(300 + 2 * len(line.text) + 60 * len(line.tokens) for line in self.lines)

    def choose(
        self, tokens: Sequence[str], room: int, weight: Mapping[str, float] | None = None
    ) -> tuple[list[BeliefLine], int]:
        """The values the question names, the core facts, then the lines the question's words
        match best, within ``room``.

        A line costs its text and a newline. Entities are shown only when the question names
        them. A value comes first when the question names what it is about ("my baseline
        weight"): it is the answer, and a small budget's few lines should hold it before who the
        user is. Returns the chosen lines (in that order, then by score) and how many were left
        out.
        """
        wanted = set(tokens)
        weight = weight or {}
        scored: list[tuple[int, float, int, BeliefLine]] = []
        for n, line in enumerate(self.lines):
            shared = wanted & line.tokens
            score = sum(weight.get(t, 1.0) for t in shared)
            tier = 0
            if line.section == "facts" and line.order < CORE_FACTS:
                tier = 1  # the core comes next, newest first
            elif line.section == "values":
                if not _names_value(shared, line):
                    continue
                tier = 2
            if score > 0 or tier:
                # The core keeps its own order (newest first), whatever the words it shares.
                scored.append((tier, 0.0 if tier == 1 else score, -n, line))
        scored.sort(key=lambda s: s[:3], reverse=True)
        chosen: list[BeliefLine] = []
        left = room
        for _, _, _, line in scored:
            cost = len(line.text) + 3  # "- " and a newline
            if cost <= left:
                chosen.append(line)
                left -= cost
        relevant = sum(1 for line in self.lines if line.section != "entities")
        shown = sum(1 for line in chosen if line.section != "entities")
        return chosen, relevant - shown


def _names_value(shared: AbstractSet[str], line: BeliefLine) -> bool:
    """Whether the question's words ``shared`` with a value's line name what it is about."""
    about = shared & line.about
    if not about:
        return False
    return len(about) >= VALUE_COVER * len(line.about) or len(shared) >= VALUE_COVER * len(
        line.tokens
    )


def _line(
    section: Section,
    text: str,
    item: Any,
    order: int,
    known: Mapping[str, frozenset[str]],
    *,
    matched: str | None = None,
) -> BeliefLine:
    """A belief's or a value's line (with its key and value), or an open loop's (neither).

    Its words are those of ``matched`` when given, else of its text.
    """
    words = known.get(text)
    keyed = isinstance(item, Belief | Value)
    return BeliefLine(
        section=section,
        key=item.key if keyed else None,
        value=item.value if keyed else None,
        text=text,
        ts=getattr(item, "ts", None),
        source=getattr(item, "source", None),
        turn_ids=_turn_ids(item),
        tokens=words if words is not None else frozenset(tokenize(matched or text)),
        order=order,
    )
