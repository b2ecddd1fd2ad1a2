"""Beliefs as sentences an agent reads as claims: "Melanie likes hiking in the mountains".

A belief's key says what it is about (the rule extractor's keys: ``location``, ``likes_hiking``,
``caroline.does_not_eat_pork``, ``favorite_color``, ...) and its value what is believed. The key's
namespace names the person (``caroline.location`` is Caroline's); a key without one is about the
passport's subject, named by ``subject`` or else "the user". Keys of any other shape (an LLM
extractor's or a client's: ``tone``, ``favorite_food``, ``budget_max``) still read as a sentence:
"The user's tone is direct". The passport itself keeps its keys and values as they are.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from app.domain.dates import MONTHS, stamp_day
from app.domain.keys import normalize_key
from app.domain.passport import Belief, Contradiction, Entity, OpenLoop, Value

Section = Literal["facts", "prefs"]
UNKNOWN_PERSON = "the user"

# Keys that name several (their sentence says "are" whatever the value).
_PLURALS = frozenset({"children", "pets", "kids"})
_LANGUAGE_KEYS = ("learning_", "speaks_")
_ISO_MONTH = re.compile(r"^(\d{4})-(\d{2})")


def subject_of(meta: Mapping[str, Any]) -> str | None:
    """The passport's subject as its ``meta`` names it, None when it names none."""
    subject = meta.get("subject")
    return subject if isinstance(subject, str) and subject.strip() else None


def belief_text(
    section: Section,
    belief: Belief,
    changes: Sequence[Contradiction] = (),
    *,
    subject: str | None = None,
) -> str:
    """One belief as a sentence; ``changes`` (its key's contradictions, oldest first) date it."""
    namespace, _, local = normalize_key(belief.key).rpartition(".")
    person = _person(namespace, subject)
    value = belief.value
    text = _prefs_text(person, local, value) if section == "prefs" else None
    if text is None:
        text = _facts_text(person, local, value, section)
    return _capitalised(text + _since(value, changes))


def loop_text(loop: OpenLoop) -> str:
    """An open loop as the sentence it already is, capitalised, one line."""
    return _capitalised(" ".join(loop.item.split()))


# Earlier values a value's line shows: the ones it replaced most recently.
VALUE_HISTORY_SHOWN = 2


def value_text(value: Value, *, subject: str | None = None) -> str:
    """``The user's quiz score: 75% (since 12 April 2024; before: 60%, 28 March 2024)``."""
    owner = _possessive(_person("", subject))
    about = re.sub(r"\bmy\b", owner, " ".join(value.about.split()) or value.key, flags=re.I)
    notes = []
    if day := _day(value.ts):
        notes.append(f"since {day}")
    earlier = []
    for entry in value.history[:VALUE_HISTORY_SHOWN]:
        said = entry.get("value")
        if not isinstance(said, str) or not said.strip():
            continue
        day = _day(entry.get("ts"))
        earlier.append(f"{_value(said)}, {day}" if day else _value(said))
    if earlier:
        notes.append("before: " + "; ".join(earlier))
    tail = f" ({'; '.join(notes)})" if notes else ""
    return _capitalised(f"{owner} {about}: {_value(value.value)}{tail}")


def _day(ts: Any) -> str:
    """``12 April 2024`` (UTC) from a stored time; empty when there is none."""
    return (stamp_day(ts) or "") if isinstance(ts, str) else ""


def entity_text(entity: Entity) -> str:
    """``Caroline (person; also called Caro)``: the name, its type and its other names."""
    also = f"; also called {_listed(entity.aliases)}" if entity.aliases else ""
    return f"{entity.name} ({entity.type}{also})"


# --- people and values ----------------------------------------------------------------------------


def _person(namespace: str, subject: str | None) -> str:
    if namespace:
        # The rules namespace a belief by the person's lower-cased first name.
        return namespace.replace("_", " ").title()
    return subject.strip() if subject and subject.strip() else UNKNOWN_PERSON


def _possessive(person: str) -> str:
    return f"{person}'" if person.endswith("s") else f"{person}'s"


def _words(local: str) -> str:
    return " ".join(local.replace("_", " ").split())


def _listed(items: Sequence[object]) -> str:
    texts = [_value(i) for i in items]
    if len(texts) <= 1:
        return "".join(texts)
    return ", ".join(texts[:-1]) + " and " + texts[-1]


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list | tuple):
        return _listed(value)
    if isinstance(value, dict):
        return "; ".join(f"{_words(str(k))}: {_value(v)}" for k, v in value.items())
    return " ".join(str(value).split())


def _article(phrase: str) -> str:
    if re.match(r"(?:a|an|the|my|his|her|their)\s", phrase, re.IGNORECASE):
        return phrase
    return f"{'an' if phrase[:1].lower() in 'aeiou' else 'a'} {phrase}"


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def _since(value: Any, changes: Sequence[Contradiction]) -> str:
    """ " (since May 2023; before: Boston)" when the last change is what made ``value`` current."""
    if not changes:
        return ""
    last = changes[-1]
    if _value(last.new).casefold() != _value(value).casefold():
        return ""
    notes = []
    month = _ISO_MONTH.match(last.ts_new or "")
    if month is not None and 1 <= int(month.group(2)) <= 12:
        notes.append(f"since {MONTHS[int(month.group(2)) - 1]} {month.group(1)}")
    if last.old is not None and _value(last.old):
        notes.append(f"before: {_value(last.old)}")
    return f" ({'; '.join(notes)})" if notes else ""


# --- preferences ----------------------------------------------------------------------------------


def _prefs_text(person: str, local: str, value: Any) -> str | None:
    said = _value(value)
    if local.startswith(("likes_", "loves_", "enjoys_")):
        return f"{person} likes {said if isinstance(value, str) else _words(local[6:])}"
    if local.startswith(("dislikes_", "hates_")):
        thing = said if isinstance(value, str) else _words(local.partition("_")[2])
        return f"{person} does not like {thing}"
    if local.startswith(("favorite_", "favourite_")):
        return f"{_possessive(person)} favorite {_words(local.partition('_')[2])} is {said}"
    if local.startswith("hobby_"):
        return f"{_possessive(person)} hobbies include {_words(local[6:])}"
    return None


# --- facts ----------------------------------------------------------------------------------------

# Keys whose sentence is fixed: "{p}" is the person, "{ps}" their possessive, "{v}" the value.
_FACTS: dict[str, str] = {
    "location": "{p} lives in {v}",
    "previous_location": "{p} used to live in {v}",
    "hometown": "{p} is from {v}",
    "home_country": "{p} is from {v}",
    "birthplace": "{p} was born in {v}",
    "employer": "{p} works at {v}",
    "previous_employer": "{p} used to work at {v}",
    "workplace": "{p} works at {v}",
    "school": "{p} studies at {v}",
    "field_of_study": "{p} studies {v}",
    "age": "{p} is {v} years old",
    "birth_year": "{p} was born in {v}",
    "relationship_status": "{p} is {v}",
    "diet": "{p} is {v}",
    "name": "{p} goes by the name {v}",
    "children_count": "{p} has {v} children",
    "car": "{ps} car is {av}",
}


def _facts_text(person: str, local: str, value: Any, section: Section) -> str:
    said = _value(value)
    fixed = _FACTS.get(local)
    if fixed is not None and value is not None:
        return fixed.format(p=person, ps=_possessive(person), v=said, av=_article(said))
    if local == "occupation" and isinstance(value, str):
        return f"{person} is {_article(said)}"
    shaped = _shaped_fact(person, local, value)
    if shaped is not None:
        return shaped
    return _fallback(person, local, value, section)


# Keys of a shape "<verb>_<object>" with a true value: the key is the sentence.
_VERB_KEYS: tuple[tuple[str, Callable[[str, str], str]], ...] = (
    ("does_not_", lambda p, rest: f"{p} does not {rest}"),
    ("never_", lambda p, rest: f"{p} has never {rest}"),
    ("cannot_", lambda p, rest: f"{p} cannot {rest}"),
    ("quit_", lambda p, rest: f"{p} quit {rest}"),
    ("plays_", lambda p, rest: f"{p} plays {rest}"),
    ("hobby_", lambda p, rest: f"{_possessive(p)} hobbies include {rest}"),
    ("allergic_to_", lambda p, rest: f"{p} is allergic to {rest}"),
    ("learning_", lambda p, rest: f"{p} is learning {rest.title()}"),
    ("speaks_", lambda p, rest: f"{p} speaks {rest.title()}"),
)


def _shaped_fact(person: str, local: str, value: Any) -> str | None:
    if local.endswith("_count") and value is not None:
        return f"{person} has {_value(value)} {_plural(_words(local[:-6]))}"
    for prefix, sentence in _VERB_KEYS:
        if local.startswith(prefix) and len(local) > len(prefix):
            text = sentence(person, _words(local[len(prefix) :]))
            if value is True:
                return text
            if value is False:
                return f"not so: {text}"
            if prefix not in _LANGUAGE_KEYS and isinstance(value, str | int | float):
                return f"{text} ({_value(value)})"
            return text
    return None


def _plural(noun: str) -> str:
    if noun.endswith(("s", "sh", "ch", "x")):
        return noun + "es"
    if noun.endswith("y") and noun[-2:-1] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + "s"


def _fallback(person: str, local: str, value: Any, section: Section) -> str:
    """Any other key: "The user's tone is direct", "Ana's sister is Lea", "The user: vegan"."""
    words = _words(local) or local
    if value is True:
        return f"{person}: {words}"
    if value is False:
        return f"{person}: not {words}"
    if value is None or _value(value) == "":
        return f"{person}: {words} (unknown)"
    several = isinstance(value, list | tuple) and len(value) > 1
    verb = "are" if several or local in _PLURALS else "is"
    if section == "prefs" and not words.startswith(("favorite", "preferred")):
        return f"{_possessive(person)} preferred {words} {verb} {_value(value)}"
    return f"{_possessive(person)} {words} {verb} {_value(value)}"
