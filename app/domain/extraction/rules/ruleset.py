"""Rule tables and how they fire: a trigger, a pattern and a rule per row; what a hit becomes."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TypeVar

from app.domain.extraction.extractor import Extraction
from app.domain.extraction.rules.guards import (
    claim_value,
    ends_clause_at,
    gerund_subject,
    is_asserted,
)
from app.domain.extraction.rules.people import (
    add_belief,
    add_entity,
    belief_key,
    holds_key,
    is_person,
    provenance,
    sentence_ts,
)
from app.domain.extraction.rules.view import GENERIC_SPEAKERS, Sentence, View
from app.domain.passport import Belief, EntityType

# --- the fact rules -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hit:
    """What one rule found in one sentence, before keys and timestamps are attached."""

    person: str  # display name of whom the belief is about
    local: str  # the key without namespace; "" when only an entity was found
    value: object
    confidence: float
    entity: EntityType | None = None  # the value names an entity of this type


Rule = Callable[["View", "Sentence", re.Match[str]], Iterator[Hit]]
# (trigger, pattern, rule): the pattern runs only on a sentence whose lower case has the trigger,
# which skips most of the patterns for most sentences.
# A trigger is a regex, or (for long word lists) a set of words one of which must be said.
Trigger = re.Pattern[str] | frozenset[str]
Triggered = tuple[Trigger, re.Pattern[str], Rule]
_Arg = TypeVar("_Arg")


def binder(
    hits: Callable[[View, Sentence, re.Match[str], _Arg], Iterator[Hit]],
) -> Callable[[_Arg], Rule]:
    """``hits`` with its last argument left to the table: ``loc("from")`` is a rule."""
    return lambda arg: lambda v, s, m: hits(v, s, m, arg)


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Rules in order, with their distinct triggers tested once per sentence."""

    rules: tuple[Triggered, ...]
    triggers: tuple[Trigger, ...]
    index: tuple[int, ...]  # rule i runs when triggers[index[i]] fires

    @classmethod
    def of(cls, rules: tuple[Triggered, ...]) -> RuleSet:
        """Group the rules' triggers; rules keep their order."""
        triggers = tuple(dict.fromkeys(t for t, _, _ in rules))
        return cls(rules, triggers, tuple(triggers.index(t) for t, _, _ in rules))

    def fired(self, lowered: str) -> Iterator[tuple[re.Pattern[str], Rule]]:
        """The patterns whose triggers the lower-cased sentence holds, in rule order."""
        tokens = frozenset(_GATE_TOKEN.findall(lowered))
        # A word list is a set lookup: far cheaper than a regex of a hundred alternatives.
        on = [
            not t.isdisjoint(tokens) if isinstance(t, frozenset) else t.search(lowered) is not None
            for t in self.triggers
        ]
        for (_, pattern, rule), index in zip(self.rules, self.index, strict=True):
            if on[index]:
                yield pattern, rule


_GATE_TOKEN = re.compile(r"[a-z0-9]+")


def compiled(table: list[tuple[str | frozenset[str], str, Rule]]) -> tuple[Triggered, ...]:
    return tuple(
        (t if isinstance(t, frozenset) else re.compile(t), re.compile(p), rule)
        for t, p, rule in table
    )


def gate(*lexicons: str) -> frozenset[str]:
    """Every word of some word lists: a rule on them runs only when one was said."""
    return frozenset(w for text in lexicons for w in _GATE_TOKEN.findall(text.lower()))


def usable(view: View, sentence: Sentence) -> bool:
    return not sentence.small_talk and is_person(view, sentence.speaker)


def fire(
    rules: RuleSet, view: View, out: Extraction, sentence: Sentence, text: str, section: str
) -> None:
    """Emit what each rule the text fires finds at its asserted (not negated) matches."""
    for pattern, rule in rules.fired(text.lower()):
        for match in pattern.finditer(text):
            if is_asserted(text, match.start()) and not gerund_subject(text, match):
                for hit in rule(view, sentence, match):
                    emit(view, out, sentence, hit, section, (text, match.end()))


def emit(
    view: View,
    out: Extraction,
    sentence: Sentence,
    hit: Hit,
    section: str,
    said: tuple[str, int] | None = None,
) -> None:
    """Add what a rule found; ``said`` is the text and where its match ended, if it had one."""
    if isinstance(hit.value, str) and hit.value.lower() in sentence.text.lower():
        # Only what was cut from the chat is judged; a template value ("married") is a claim.
        value = claim_value(view, hit.value)
        # A preference's object must end its clause: "I like iced drinks more" qualifies it.
        cut = section == "prefs" and said is not None and not ends_clause_at(*said)
        if value is None or cut:
            return
        hit = Hit(hit.person, hit.local, value, hit.confidence, hit.entity)
    if hit.entity is not None and isinstance(hit.value, str):
        add_entity(out, hit.value, hit.entity)
    if not hit.local:
        return
    key = belief_key(view, hit.person, hit.local)
    twin = _hobby_twin(key) if section == "prefs" else ""
    if twin and (twin in view.known_keys or holds_key(out, "facts", twin)):
        return  # "likes pottery" beside "hobby: pottery" says the same thing twice
    if hit.local == "name":
        _name_alias(view, out, hit)
    belief = Belief.model_validate(
        {
            "key": key,
            "value": hit.value,
            "ts": sentence_ts(sentence),
            "confidence": hit.confidence,
            "source": view.segment.id,
            **provenance(view, sentence),
        }
    )
    add_belief(out, section, belief)


def _hobby_twin(key: str) -> str:
    """``hobby_x`` for ``likes_x`` (namespace kept); "" for any other key."""
    head, dot, local = key.rpartition(".")
    return f"{head}{dot}hobby_{local[6:]}" if local.startswith("likes_") else ""


def _name_alias(view: View, out: Extraction, hit: Hit) -> None:
    """A person who says "call me Sam" is also known as Sam."""
    value = str(hit.value)
    speaker = hit.person
    if speaker.lower() in GENERIC_SPEAKERS:
        add_entity(out, value, "person")
    elif value.lower() != speaker.lower():
        add_entity(out, speaker, "person", alias=value)
