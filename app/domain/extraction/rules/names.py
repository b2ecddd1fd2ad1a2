"""Entities: named speakers as people, capitalised names as ``other``, aliases ("Hey Mel!")."""

from __future__ import annotations

import re
from itertools import pairwise

from app.domain.extraction.extractor import Extraction
from app.domain.extraction.rules.people import add_entity, is_person
from app.domain.extraction.rules.view import (
    CALENDAR_WORDS,
    GENERIC_SPEAKERS,
    WORD_RE,
    View,
)
from app.domain.passport import Entity, EntityType
from app.domain.words import CHAT_STOPWORDS

# --- the families ---------------------------------------------------------------------------

ENTITY_NAME_MAX_CHARS = 120
# Adjectives a name may start with ("New York", "Great Barrier Reef").
NAME_STARTERS = frozenset({"new", "old", "great", "good", "first", "little", "big"})


def entity_family(view: View, out: Extraction) -> None:
    """Named speakers as people, and capitalised multi-word names as ``other``; conservative."""
    seen = {e.name.lower() for e in out.entities}

    def add(name: str, kind: EntityType) -> None:
        # A run of capitals longer than any name (a shouted line) would fail the model's limit.
        if name.lower() not in seen and len(name) <= ENTITY_NAME_MAX_CHARS:
            seen.add(name.lower())
            out.entities.append(Entity(name=name, type=kind, aliases=[]))

    if view.segment.kind != "row":  # a row segment's participants are table names
        for who in view.participants:
            if _looks_like_person(who):
                add(who, "person")
    for sentence in view.sentences:
        if not sentence.small_talk:
            for phrase in _proper_phrases(sentence.text):
                add(phrase, "other")


# --- names ----------------------------------------------------------------------------------


def _looks_like_person(name: str) -> bool:
    # Handles like "bot_1" or "u_123" are not names; keep only word-like ones.
    return (
        name.lower() not in GENERIC_SPEAKERS
        and re.fullmatch(r"[^\W\d_]+(?:[ '.-]+[^\W\d_]+)*\.?", name) is not None
    )


def _proper_phrases(text: str) -> list[str]:
    """Runs of two or more capitalised words ("Hope Street", "New York City").

    Words must be separated by one space, so "Paris. London" is no phrase. A leading common word
    ("The", "Last"), interjection ("Happy") or adverb ("Usually") is dropped, a possessive ends the
    name ("Taylor Swift's dress") or starts it ("Seattle's Pike Place Market"), and "I" ends a run.
    Skipped: runs of only month, day or holiday names, shouted lines, headings ("Stay Hydrated:"),
    and runs cut by a number, before it ("1 Tbsp Honey") or after it ("John Wick Chapter 4").
    """
    phrases: list[str] = []
    run: list[str] = []
    run_start = 0
    prev_end = -1
    # Numbering, bullets and invisible marks before a run still leave it at the line's start.
    first = _LETTER.search(text)
    lead = first.start() if first else len(text)
    for match in WORD_RE.finditer(text):
        word = match.group(0)
        capital = word[0].isupper() and word != "I" and not word.startswith("I'")
        if run and not (capital and text[prev_end : match.start()] == " "):
            phrases.extend(_clean_phrase(run, text, (run_start, prev_end), run_start <= lead))
            run = []
        if capital:
            if not run:
                run_start = match.start()
            run.append(word)
        prev_end = match.end()
    if run:
        phrases.extend(_clean_phrase(run, text, (run_start, prev_end), run_start <= lead))
    return phrases


# Words that open a capitalised run without being part of a name.
_NOT_NAME_START_TEXT = """
    happy merry dear woohoo yay yo alright thats apparently usually specifically absolutely
    famous authentic modern mostly"""
_NOT_NAME_START = frozenset(_NOT_NAME_START_TEXT.split())
_HOLIDAY_TEXT = """
    new year years eve day christmas xmas easter halloween thanksgiving valentine valentines
    boxing good friday st patrick patricks hanukkah diwali eid ramadan"""
_HOLIDAY_WORDS = frozenset(_HOLIDAY_TEXT.split())
_NUMBER_NEAR = re.compile(r"\d")
_LETTER = re.compile(r"[^\W\d_]")
# What a run's neighbours are read in: the words right before and after it.
_NEAR_CHARS = 80
# "60 g Plain Yogurt", "2 Tbsp Honey": a quantity and its unit before the run.
_MEASURE_BEFORE = re.compile(r"\d\s*[A-Za-z]{0,4}\.?$")
# "Where the Crawdads Sing", "Temple of Olympian Zeus": the run ends a longer title.
_TITLE_BEFORE = re.compile(r"(?:^|\s)[A-Z][\w']*\s+(?:of|the|of\s+the)$")
_TITLE_GOES_ON = re.compile(r"\s+(?:of|the|of\s+the|over\s+the|on\s+the)\s+[A-Z]")
_LIKE_SUFFIXES = ("-like", "-esque", "-style", "-ish")
# Nouns of activities and qualities, and the organisations that end in one.
# Long enough not to be a name that happens to end so ("Lawrence", "Clement").
_CONCEPT_SUFFIXES = ("tion", "sion", "ment", "ance", "ence", "ness", "ism")
_CONCEPT_MIN_CHARS = 9
_ORG_NOUNS = frozenset(
    {"foundation", "association", "corporation", "institution", "federation", "commission"}
    | {"administration", "organization", "organisation", "agency", "university", "building"}
)
_QUOTES = frozenset("\"'“”‘’«»")


def _identifier(word: str) -> bool:
    """A word that is an identifier: it holds a digit or an underscore, or is camelCased."""
    if any(ch.isdigit() or ch == "_" for ch in word):
        return True
    return any(a.islower() and b.isupper() for a, b in pairwise(word))


def _clean_phrase(words: list[str], text: str, span: tuple[int, int], at_start: bool) -> list[str]:
    start, end = span
    before = text[max(0, start - _NEAR_CHARS) : start].rstrip()
    after = text[end : end + _NEAR_CHARS]
    if _NUMBER_NEAR.match(after.lstrip(" .#")[:1]) or _MEASURE_BEFORE.search(before):
        return []  # a measure ("2 Tbsp Honey") or a name cut short ("Olaplex No. 3")
    if _TITLE_BEFORE.search(before):
        return []
    if at_start and (after.lstrip().startswith(":") or not text[end:].strip()):
        return []  # a heading or a list item: "Trim Regularly: ...", "Travel Insurance"
    if all(w.isupper() for w in words):
        return []  # shouting, or initials run together: "PAT DRY", "PB N J"
    if any(_identifier(w) for w in words):
        return []  # "Ticket JIRA-77", "UserProfile Component": identifiers, not names
    if _TITLE_GOES_ON.match(text, end) or any(w.lower().endswith(_LIKE_SUFFIXES) for w in words):
        return []  # part of a longer title ("Lost City of the Incas"), or "Death Star-like"
    for index, word in enumerate(words):
        if word.lower().endswith(("'s", "’s")):
            # The owner is another name when more follows: keep what is owned.
            last = index == len(words) - 1
            words = [*words[:-1], word[:-2]] if last else words[index + 1 :]
            break
    # A leading function word ("The", "Last", "My") is not part of the name, except the few
    # adjectives names often start with ("New York", "Great Barrier Reef").
    while words and (
        (words[0].lower() in CHAT_STOPWORDS and words[0].lower() not in NAME_STARTERS)
        or words[0].lower() in _NOT_NAME_START
        or words[0].lower().endswith(("ly", "ing"))
    ):
        words = words[1:]
    if at_start and words and words[0].lower() in CALENDAR_WORDS:
        words = words[1:]
    if len(words) < 2 or all(w.lower() in CALENDAR_WORDS for w in words):
        return []
    if all(w.lower() in _HOLIDAY_WORDS for w in words):
        return []
    if _concept(words, text, span):
        return []
    return [" ".join(words)]


def _concept(words: list[str], text: str, span: tuple[int, int]) -> bool:
    """A capitalised phrase that names an activity or a quality, not a thing: "Feature
    Implementation", "Career Advancement". A title in quotes stays a name ("Nonviolent
    Communication"), and so does an organisation ("Ford Foundation")."""
    last = words[-1].lower()
    if len(last) < _CONCEPT_MIN_CHARS or not last.endswith(_CONCEPT_SUFFIXES):
        return False
    if last in _ORG_NOUNS:
        return False
    if any(not w.isalpha() or not w[1:].islower() for w in words):
        return False  # "Blue Shield PPO", "eBay Motors": letters a name would have
    start, end = span
    quoted = text[start - 1 : start] in _QUOTES and text[end : end + 1] in _QUOTES
    return not quoted


# --- aliases --------------------------------------------------------------------------------

_VOCATIVE = re.compile(
    r"(?:^|\b(?:hey|hi|hello|thanks|thank\s+you|bye|oh|yo|dear|congrats|congratulations|"
    r"love\s+you|miss\s+you|sorry)[\s,]+|,\s*)(?P<name>[A-Z][a-z]+)(?=\s*[!,.?~:)]|\s*$)"
)


def alias_family(view: View, out: Extraction) -> None:
    """Short forms others call a speaker by ("Hey Mel!" -> Mel is an alias of Melanie)."""
    if view.segment.kind == "row":
        return
    people = [p for p in view.participants if is_person(view, p) and p.lower() != "user"]
    for sentence in view.sentences:
        for match in _VOCATIVE.finditer(sentence.text):
            short = match.group("name")
            owners = [
                p
                for p in people
                if p.lower().startswith(short.lower()) and p.lower() != short.lower()
            ]
            # Evident only when one other speaker's name starts with it and someone else said it.
            if len(short) >= 2 and len(owners) == 1 and owners[0] != sentence.speaker:
                add_entity(out, owners[0], "person", alias=short)
