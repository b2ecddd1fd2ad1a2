"""A first-person sentence in the third person: "I need to call my mom" -> "Caroline needs to
call Caroline's mom"; conservative, or nothing."""

from __future__ import annotations

import re

from app.domain.extraction.rules.people import display_name
from app.domain.extraction.rules.view import View
from app.domain.words import NOT_PAST_ED, PAST_TENSE_VERBS

# --- pronouns -------------------------------------------------------------------------------


def word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


_MODALS = word_set(
    "can could will would shall should may might must can't couldn't won't wouldn't shouldn't "
    "mustn't didn't did had hadn't was wasn't 'd 'll cannot"
)
# Present and past are spelt alike; read as past, they need no "-s".
_SAME_PAST = word_set("put cut hit let set quit read shut spread hurt cost bet beat cast split")
_PARTICIPLES = word_set(
    "been gone done seen made got gotten taken given written eaten driven flown swum sung begun "
    "known grown thrown worn woken ridden drawn drunk fought led become come run won lost met left "
    "bought sold found felt thought kept slept heard paid sat stood fallen broken chosen forgotten "
    "spent sent brought caught taught built held had said told"
)
_ADVERBS = word_set(
    "just also still always often usually sometimes even only actually finally recently already "
    "really totally definitely probably honestly literally kinda ever truly absolutely seriously "
    "especially mostly rarely hardly barely certainly simply generally personally occasionally "
    "now then too both all once officially"
)
# Adverbs that may stand between a subject and its verb in the third person: "Jon never uses".
# Kept apart from _ADVERBS, which the event test skips over: "I never went" is no event.
_BEFORE_VERB = _ADVERBS | word_set("never rarely seldom")
_THIRD_IRREGULAR = {
    "am": "is",
    "are": "is",
    "were": "was",
    "have": "has",
    "do": "does",
    "don't": "doesn't",
    "haven't": "hasn't",
    "aren't": "isn't",
    "go": "goes",
}
_TOKEN = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?|[^A-Za-z\s]+|\s+")


def possessive(name: str) -> str:
    """``Caroline's``."""
    return f"{name}'s"


def third_person_verb(word: str) -> str:
    lower = word.lower()
    if lower in _THIRD_IRREGULAR:
        return _THIRD_IRREGULAR[lower]
    if (
        not lower.isalpha()
        or lower in _MODALS
        or lower in PAST_TENSE_VERBS
        or lower in _SAME_PAST
        or (lower.endswith("ed") and lower not in NOT_PAST_ED)
        or len(lower) < 2
    ):
        return word
    if lower.endswith(("s", "sh", "ch", "x", "z", "o")):
        return word + "es"
    if lower.endswith("y") and lower[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


_CONTRACTIONS = {
    "i'm": ("I", "is"),
    "i've": ("I", "has"),
    "i'll": ("I", "will"),
    "we're": ("we", "is"),
    "we've": ("we", "has"),
    "we'll": ("we", "will"),
    "you're": ("you", "is"),
    "you've": ("you", "has"),
    "you'll": ("you", "will"),
}
_OBJECTS = {"me": "I", "us": "we", "you": "you"}
_POSSESSIVES = {"my": "I", "mine": "I", "our": "we", "ours": "we", "your": "you", "yours": "you"}
_REFLEXIVES = {"myself": "I", "ourselves": "we", "yourself": "you", "yourselves": "you"}
_SECOND_PERSON = re.compile(
    r"\b(?:you|your|yours|yourself|yourselves|you're|you've|you'll|you'd)\b", re.I
)
_FILLERS = (
    (re.compile(r"^\s*(?:you\s+know|i\s+mean)\s*,\s*", re.I), ""),
    (re.compile(r",\s*you\s+know\s*,", re.I), ","),
)
# "..., you know." at the end: looked for in the last characters only, as it is anchored there.
_TRAILING_FILLER = re.compile(r",?\s*you\s+know(?=\s*[.!?…]*\s*$)", re.I)
_TRAILING_FILLER_CHARS = 40


def third_person(text: str, name: str, other: str | None, *, capitalize: bool = True) -> str | None:
    """``text`` said by ``name``, in the third person; None if "you" has no one to stand for."""
    for pattern, replacement in _FILLERS:
        text = pattern.sub(replacement, text)
    head, tail = text[:-_TRAILING_FILLER_CHARS], text[-_TRAILING_FILLER_CHARS:]
    text = head + _TRAILING_FILLER.sub("", tail)
    if other is None and _SECOND_PERSON.search(text):
        return None
    people = {"I": name, "we": name, "you": other or ""}
    tokens = _TOKEN.findall(text)
    out: list[str] = []
    conjugate = False  # the next verb follows a rewritten "I" or "we"
    in_clause = False  # a rewritten subject governs this clause: "... and have three kids"
    for index, token in enumerate(tokens):
        lower = token.lower()
        if token.isspace() or not token[:1].isalpha():
            in_clause = in_clause and not re.search(r"[.;:!?,]", token)
            out.append(token)
            continue
        if conjugate:
            if lower in _BEFORE_VERB or lower.endswith("ly"):
                out.append(token)
                continue
            conjugate = False
            out.append(third_person_verb(token))
            continue
        if in_clause and lower == "and" and _next_word(tokens, index) in _THIRD_IRREGULAR:
            out.append(token)
            conjugate = True
            continue
        if lower in _CONTRACTIONS:
            who, verb = _CONTRACTIONS[lower]
            out.append(f"{people[who]} {verb}")
            in_clause = who != "you"
        elif lower in ("i'd", "we'd", "you'd"):
            who = {"i'd": "I", "we'd": "we", "you'd": "you"}[lower]
            following = _next_word(tokens, index)
            out.append(f"{people[who]} {'had' if following in _PARTICIPLES else 'would'}")
        elif token in ("I", "i") or lower == "we":
            out.append(people["I"])
            conjugate = in_clause = True
        elif lower == "you" and _next_word(tokens, index) in _THIRD_IRREGULAR:
            out.append(people["you"])
            conjugate = True
        elif lower in _OBJECTS and not (lower == "us" and token == "US"):
            out.append(people[_OBJECTS[lower]])
        elif lower in _POSSESSIVES:
            out.append(possessive(people[_POSSESSIVES[lower]]))
        elif lower in _REFLEXIVES:
            out.append("themselves")
        else:
            out.append(token)
    rewritten = "".join(out).strip()
    if not rewritten:
        return None
    return rewritten[:1].upper() + rewritten[1:] if capitalize else rewritten


def _next_word(tokens: list[str], index: int) -> str:
    for token in tokens[index + 1 :]:
        if token[:1].isalpha():
            return token.lower()
    return ""


def other_speaker(view: View, speaker: str) -> str | None:
    """Whom "you" means: the one other person in a two-person conversation, else None."""
    others = [p for p in view.participants if p != speaker]
    return display_name(others[0]) if len(view.participants) == 2 and len(others) == 1 else None


def finish(text: str, limit: int) -> str:
    """A sentence: a capital, one full stop, at most ``limit`` characters."""
    text = re.sub(r"[\s.!?…~]+$", "", " ".join(text.split()))
    text = re.sub(r"\s+([,.;:!?])", r"\1", text)
    if len(text) + 1 > limit:
        cut = text[: limit - 1].rsplit(" ", 1)[0].rstrip(" ,;:-")
        return cut + "…"
    return (text[:1].upper() + text[1:] + ".") if text else text
