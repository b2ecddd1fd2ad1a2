"""Negative facts under keys that carry the negation: habits not kept, things never done,
skills lacking, habits quit ("does_not_eat_pork", "never_been_to_japan", "quit_smoking")."""

from __future__ import annotations

import re
from collections.abc import Iterator

from app.domain.extraction.rules.guards import NOT_IN_VALUE, NOT_LAST, ends_clause_at
from app.domain.extraction.rules.lexicon import ADV, END, ME, OBJ, SUBJ
from app.domain.extraction.rules.pastimes import slug
from app.domain.extraction.rules.prefs import topic_key
from app.domain.extraction.rules.ruleset import Hit, Triggered, compiled, gate
from app.domain.extraction.rules.view import Sentence, View

# --- negative facts ---

# Objects that say nothing about a person: "I don't have time", "I don't do that".
_NEG_JUNK_TEXT = """
    personal specific particular other same good favorite anyone experience experiences
    time idea clue chance choice energy patience money plans words anything much it that this
    them him her you your one enough any those these sense problem issue issues reason way luck
    room space option mood heart nothing everything something all stuff another more"""
_NEG_JUNK = frozenset(_NEG_JUNK_TEXT.split())
_BARE_HABITS = frozenset({"drink", "smoke", "drive", "vape", "gamble", "cook"})
_NEVER_VERBS = {"learnt": "learned", "saw": "seen", "went": "been", "ate": "eaten"}
_NEVER_VERBS |= {"rode": "ridden", "flew": "flown", "drove": "driven", "did": "done"}


def _negative_topic(raw: str) -> str | None:
    words = raw.split()
    lowered = [w.lower() for w in words]
    if not words or lowered[0] in _NEG_JUNK or lowered[0] in NOT_LAST:
        return None
    # "never finished the game", "don't eat their classics": the thing is the chat's, not named.
    deictic = any(a == "the" and b[:1].islower() for a, b in zip(lowered, words[1:], strict=False))
    if deictic or any(w in NOT_IN_VALUE for w in lowered):
        return None
    return topic_key(raw)


# "I don't have work today": a state of the day, not of the person.
_FOR_NOW = re.compile(
    r"^[^,.;:!?]*?\b(?:today|tonight|tomorrow|right\s+now|at\s+the\s+moment|this\s+week|yet)\b",
    re.IGNORECASE,
)


def _dont_hits(view: View, sentence: Sentence, m: re.Match[str]) -> Iterator[Hit]:
    verb = m.group("verb").lower()
    confidence = 0.7 if m.groupdict().get("we") else 0.8
    if _FOR_NOW.match(m.string[m.end() :]) or _FOR_NOW.match(m.group("obj") or ""):
        return
    if not ends_clause_at(m.string, m.end()):
        return
    if m.group("obj"):
        topic = _negative_topic(m.group("obj"))
        if topic is not None:
            yield Hit(sentence.speaker, f"does_not_{verb}_{topic}", True, confidence)
    elif verb in _BARE_HABITS:
        yield Hit(sentence.speaker, f"does_not_{verb}", True, confidence)


def _never_hits(view: View, sentence: Sentence, m: re.Match[str]) -> Iterator[Hit]:
    if not ends_clause_at(m.string, m.end()):
        return  # "never baked bread that way before"
    verb = " ".join(m.group("verb").lower().split())
    verb = _NEVER_VERBS.get(verb, verb)
    obj = re.sub(r"^how\s+(?=to\s)", "", " ".join(m.group("obj").lower().split()))
    to = obj.startswith("to ")
    # "never been happier" is a mood: "been" needs a place ("to Japan") or an activity.
    if verb == "been" and not (to or obj.split()[0].endswith("ing")):
        return
    topic = _negative_topic(obj.removeprefix("to "))
    if topic is not None:
        yield Hit(sentence.speaker, f"never_{slug(verb)}_{'to_' * to}{topic}", True, 0.8)


def _rid_hits(view: View, sentence: Sentence, m: re.Match[str]) -> Iterator[Hit]:
    topic = _negative_topic(m.group("obj"))
    if topic is not None:
        yield Hit(sentence.speaker, f"does_not_own_{topic}", True, 0.7)


def _cannot_hits(view: View, sentence: Sentence, m: re.Match[str]) -> Iterator[Hit]:
    yield Hit(sentence.speaker, f"cannot_{topic_key(m.group('skill'))}", True, 0.75)


def _quit_hits(view: View, sentence: Sentence, m: re.Match[str]) -> Iterator[Hit]:
    yield Hit(sentence.speaker, f"quit_{slug(m.group('habit'))}", True, 0.8)


NEGATIVE_RULES: tuple[Triggered, ...] = compiled(
    [
        # negative facts: habits, things never done, skills lacking, habits quit
        (
            r"(?:n't|dont|do not|no longer|never)\s+(?:\w+\s+)?(?:eat|drink|own|smoke|drive|"
            r"watch|wear|use|speak|play|celebrate|cook|vape|gamble)\b",
            # An explicit subject: a line opening with "Don't smoke" gives advice. "Have" is left
            # out: "I don't have work today", "... any of the three", "... to worry" are no facts.
            rf"{SUBJ}{ADV}\s+(?i:don't|dont|do\s+not|no\s+longer|never)\s+"
            r"(?:(?i:really|even|usually|actually|ever|generally)\s+)?"
            r"(?P<verb>(?i:eat|drink|own|smoke|drive|watch|wear|use|speak|play|celebrate|"
            rf"cook|vape|gamble))(?:\s+(?:(?i:a|an|any|the|much|many)\s+)?{OBJ})?{END}",
            _dont_hits,
        ),
        (
            gate("can cannot"),
            rf"{ME}(?i:can't|cannot|can\s+not)\s+(?:(?i:really|even|actually)\s+)?"
            rf"(?P<verb>(?i:eat|drink))\s+(?:(?i:a|an|any|the|much)\s+)?{OBJ}{END}",
            _dont_hits,
        ),
        (
            gate("rid"),
            rf"{ME}(?i:got\s+rid\s+of)\s+(?i:our|my|the)\s+{OBJ}{END}",
            _rid_hits,
        ),
        (
            gate("never"),
            rf"{ME}(?i:never)\s+(?:(?i:actually|really|even|once|properly)\s+)?"
            # "Had" is left out: "never had a dog until this spring", "never had to".
            r"(?P<verb>(?i:learned|learnt|been|tried|seen|saw|visited|owned|read|watched|"
            r"played|met|ridden|rode|driven|drove|eaten|ate|finished|went|flown|flew|climbed|"
            r"skied|travell?ed|got\s+around\s+to|gotten\s+around\s+to|done|did|won|lived|"
            r"studied))\s+"
            r"(?P<obj>(?:(?i:how\s+)?(?i:to)\s+)?[A-Za-z][\w'&-]*(?:\s+[A-Za-z][\w'&-]*){0,3}?)"
            rf"{END}",
            _never_hits,
        ),
        (
            gate("can cannot"),
            rf"{ME}(?i:can't|cannot|can\s+not)\s+(?:(?i:really|even|actually)\s+)?"
            r"(?P<skill>(?i:swim|drive|cook|ski|skate|dance|sing|whistle|ride\s+a\s+bike|"
            r"ride\s+a\s+bicycle|read\s+music|knit|sew|spell))"
            r"(?=\s*[,.;:!?)…]|\s*$|\s+(?i:at\s+all|to\s+save\s+my\s+life|lol|haha|either|"
            r"very\s+well|well|properly|yet|and|but|so|because|which|tbh)\b)",
            _cannot_hits,
        ),
        (
            gate("quit gave given stopped kicked"),
            rf"{ME}(?i:quit|gave\s+up|given\s+up|stopped|kicked)\s+"
            r"(?P<habit>(?i:smoking|drinking|vaping|caffeine|coffee|sugar|alcohol|booze|meat|"
            r"dairy|social\s+media|facebook|instagram|twitter|tiktok|cigarettes|gluten|carbs|"
            r"soda|gambling|(?:eating|drinking)\s+[a-z]+))(?![\w-])",
            _quit_hits,
        ),
    ]
)
