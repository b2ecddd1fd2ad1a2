"""Who a sentence is about, the keys beliefs about them get, and how claims are added."""

from __future__ import annotations

import re
from collections.abc import Hashable

from app.domain.dates import iso_utc
from app.domain.extraction.extractor import Extraction, value_key
from app.domain.extraction.rules.view import GENERIC_SPEAKERS, MACHINE_SPEAKERS, Sentence, View
from app.domain.passport import Belief, Entity, EntityType

# --- people and keys ------------------------------------------------------------------------


def is_subject(view: View, speaker: str) -> bool:
    """Whether ``speaker`` (a display name) is the person the passport is about."""
    name = speaker.strip().lower()
    if view.subject is None:
        return name == "user"
    subject = view.subject.strip().lower()
    return name == subject or name == subject.split(" ")[0]


def is_person(view: View, speaker: str) -> bool:
    """A speaker who can say things about themselves: the subject or anyone not a machine."""
    return is_subject(view, speaker) or speaker.strip().lower() not in MACHINE_SPEAKERS


def display_name(speaker: str) -> str:
    """How a speaker is named in a third-person sentence: "Caroline", "the user"."""
    lowered = speaker.strip().lower()
    return f"the {lowered}" if lowered in GENERIC_SPEAKERS else speaker


def _namespace(name: str) -> str:
    first = re.findall(r"[^\W_]+(?:['-][^\W_]+)*", name.lower())
    return re.sub(r"[^\w-]", "", first[0]) if first else ""


def belief_key(view: View, person: str, local: str) -> str:
    """``local`` for the subject, ``firstname.local`` for anyone else; known keys reused."""
    key = local if is_subject(view, person) else f"{_namespace(person)}.{local}"
    return view.known_keys.reuse(key)


def sentence_ts(sentence: Sentence) -> str | None:
    """When a sentence was said, ``YYYY-MM-DDTHH:MM:SSZ``."""
    return iso_utc(sentence.ts)


def turn_id_of(view: View, turn: int) -> str | None:
    """The client's id of the segment's ``turn``-th turn, if it has one."""
    turns = view.segment.turns
    return turns[turn].id if 0 <= turn < len(turns) else None


def provenance(view: View, sentence: Sentence) -> dict[str, list[str]]:
    """``{"turn_ids": [id]}`` of the turn a sentence is from, or nothing when it has no id."""
    turn_id = turn_id_of(view, sentence.turn)
    return {"turn_ids": [turn_id]} if turn_id else {}


def add_belief(out: Extraction, section: str, belief: Belief) -> None:
    """Append a belief; the same key and value said twice is kept once, at the higher confidence."""
    beliefs: list[Belief] = getattr(out, section)
    said = out.index.table(section, beliefs, _belief_keys)
    existing = said.get((belief.key, value_key(belief.value)))
    if existing is not None:
        if (belief.confidence or 0) > (existing.confidence or 0):
            existing.confidence = belief.confidence
        return
    beliefs.append(belief)
    out.index.appended(section, beliefs, belief, _belief_keys(belief))


def holds_key(out: Extraction, section: str, key: str) -> bool:
    """Whether the extraction has a belief of ``key`` in ``section`` already."""
    beliefs: list[Belief] = getattr(out, section)
    return key in out.index.table(section, beliefs, _belief_keys)


def _belief_keys(belief: Belief) -> tuple[Hashable, ...]:
    return ((belief.key, value_key(belief.value)), belief.key)


def add_entity(out: Extraction, name: str, kind: EntityType, alias: str | None = None) -> None:
    """Add an entity, or give a known one a type better than "other" and one more alias."""
    if len(name) > 512:
        return  # longer than the passport allows an entity name; the observation keeps it
    if kind in ("place", "organization"):
        # "the Red Cross" and "Red Cross" are one entity; entity_family drops "The" too.
        name = re.sub(r"^[Tt]he\s+(?=\S)", "", name)
    names = out.index.table("entities", out.entities, _entity_names)
    entity = names.get(name.lower())
    if entity is not None:
        known = set(_entity_names(entity))
        if entity.type == "other" and kind != "other":
            entity.type = kind
        if alias and alias.lower() not in known:
            entity.aliases.append(alias)
            names.setdefault(alias.lower(), entity)
        return
    added = Entity(name=name, type=kind, aliases=[alias] if alias else [])
    out.entities.append(added)
    out.index.appended("entities", out.entities, added, _entity_names(added))


def _entity_names(entity: Entity) -> list[str]:
    return [entity.name.lower(), *(a.lower() for a in entity.aliases)]
