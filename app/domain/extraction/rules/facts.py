"""Fact and preference families of the rule extractor: what people say about themselves.

Each family reads the sentences of a segment and adds keyed beliefs. A belief about the passport's
subject has a plain key (``location``); one about anyone else is namespaced by their lower-cased
first name (``caroline.location``). The subject is ``ExtractionInput.subject``; without one, a
speaker called "user" is the subject. Machine speakers (assistant, bot, system) state no facts.

| key | said as (I/we forms; see the rules below) | value |
|---|---|---|
| location | "I moved to X", "I live in X", "we relocated to X", "I'm based in X" | Kwekwe |
| location | settled: "first week in X done", "settling into X", "our new flat in X" | Austin |
| location | "we closed on a house in X", "the move to X went fine" | Austin |
| previous_location | "I moved here from X", X a town | Harare |
| hometown | "I'm from X", "I grew up in X", "my hometown is X", X a town | Bulawayo |
| home_country | the same with X a country; "I moved here from Sweden" | Sweden |
| birthplace | "I was born in X" | Mutare |
| occupation | "I work as a nurse", "I'm a teacher", "promoted to X", "As a nurse, I ..." | nurse |
| employer | "I work at X", "I'm a nurse at X", "I started a new job at X" | Zimplats |
| employer | "I started at X", "first week at X", "my new team at X", "joined X as a Y" | Kestrel |
| previous_employer | "I lost my job at X", "I got laid off from X" | DoorDash |
| workplace | "I work at a bakery" (no proper name) | a bakery |
| school | "I'm a student at X", "I'm studying law at X" | UZ |
| field_of_study | "I'm studying X", "majoring in X", "my X degree", "I'm in law school" | nursing |
| field_of_study | "I have a degree in X", "my degree is in X" | linguistics |
| degree | "I'm doing a masters in X", "I have a PhD in X", "I finished my masters" | masters in X |
| age | "I'm 32", "I'm 32 years old", "I just turned 30", "I'm a 32-year-old nurse" (an int) | 32 |
| birthday | "my birthday is 5 June", "it's my birthday today" | 5 June |
| birth_year | "I was born on 5 June 1990" (an int) | 1990 |
| spouse | "my husband John", "my wife is called Ann", "I'm married to Ann" | John |
| partner | "my girlfriend Sam", "I'm dating Alex" | Sam |
| relationship_status | "I'm married", "I'm single", "we broke up", "my wife ..." | married |
| mother, father, son, ... | "my daughter Mia", "my mom Jane", "my best friend Kim" | Mia |
| children, pets | "my kids Mia and Leo", "my dogs Max and Bella" | Mia and Leo |
| children_count | "I have two kids", "I'm a mom of three" (an int) | 2 |
| dog, cat, ... | "our dog Max", "a puppy named Max", "our beagle Max", "Max is our dog" | Max |
| dog, cat, ... | "a rescue dog, Bailey", "Oliver, my cat, ...", "Max (our dog)" | Bailey |
| dog, cat, ... | one turn: "Biscuit knocked my glass off… worst dog ever" | Biscuit |
| dog, cat, ... | one turn: "we got a puppy! His name is Rex" | Rex |
| dog, cat, ... | an answer: "what's your cat called?" - "Mochi!" | Mochi |
| turtle_count, ... | "I have three turtles" (an int) | 3 |
| car | "just got a new car, a blue Civic", "I bought a Honda Civic", "my car is a Golf" | Golf |
| plays_<x> | "I play the cello", "learning guitar", "piano lessons", "I play tennis" | true |
| plays_<x> | "what do you play?" - "a bit of saxophone" (plays_saxophone) | true |
| hobby_<x> | "I took up pottery", "I do yoga", "I go climbing", "a pottery class" | true |
| learning_<lang> | "I'm learning Spanish"; speaks_<lang>: "I speak fluent Portuguese" | true |
| allergic_to_<x> | "I'm allergic to cats", "allergic to nuts", "my shellfish allergy" | true |
| lactose_intolerant, ... | "I'm lactose intolerant" | true |
| diet | "I'm vegan", "I went vegetarian" | vegan |
| name | "my name is X", "I changed my name to X", "call me X", "I go by X" | Sam |
| likes_<topic> | "I love X", "I enjoy X", "I'm into X", "I'm a big fan of X" | camping |
| likes_<topic> | "I live for X", "nothing beats X", "nothing relaxes me like X" | yoga |
| likes_<topic> | "X is my jam" | jazz |
| likes_<topic> | "I can't get enough of X", "I've read nothing but X this year" | jazz |
| dislikes_<topic> | "I hate X", "I don't like X", "I never liked X", "not a X person" | camping |
| favorite_<thing> | "my favourite colour is blue", "Y is my favorite band" | blue |
| favorite_<thing> | "autumn is the best season", "my go-to drink is a flat white" | autumn |

Negative facts are beliefs of their own, under keys that carry the negation, so the
polarity-aware dedupe (``dedupe.NEGATIONS``: not, never, cannot ...) never merges them with a
positive key (``does_not_eat_pork`` stays apart from ``eats_pork``); the value is ``true``, so
the key says it all ("- does not eat pork"):

| key | said as | verbs |
|---|---|---|
| does_not_<verb>_<x> | "I don't eat pork", "we don't own a toaster", "I no longer eat X" | habits |
| does_not_<verb>_<x> | "I can't eat gluten", "we got rid of our TV" (does_not_own_tv) | habits |
| does_not_<verb> | "I don't drink", "I don't smoke", "I don't drive" | habits |
| never_<verb>_<x> | "I never learned to ski" (never_learned_to_ski), "never been to Japan" | done |
| cannot_<skill> | "I can't swim", "I can't ride a bike" | skills |
| quit_<habit> | "I quit smoking", "I gave up caffeine" | habits |

The habits are eat, drink, own, smoke, drive, watch, wear, use, speak, play, celebrate and
cook; skills and quit habits are short lists below. The third column names the verb family.

A negative fact stays when a positive one follows ("I don't have a car", later "I got a car"):
they are different keys, and which is current is for the reader of both, with their dates.

Plans are no facts: "we're moving to Austin next month" and "starting at Kestrel Labs in two
weeks" are open loops (``loops``), with the resolved date; the location or employer is
recorded once the move has happened ("first week in Austin done", "I started at Kestrel Labs").
A fact is never stamped with a future date: the newest ``ts`` wins a merge, so a planned move
dated next month would outrank everything said before it, including a cancelled plan.

Chat often drops its subject: "moved to Austin last month!", "allergic to cats, sadly" and
"never been to Iceland" at the start of a line are the speaker's own. Home facts settled into
("first week in X", "life in X") are skipped on a line about a trip or a holiday.

A fact or preference is written only when it is a claim about a named person: a value cut from
the chat must be a short phrase naming a thing (``claim_value``: at most six words, no pronoun,
filler, verb of its own, chat contraction, trailing adverb, vocative or emoji, not cut off on a
preposition), a preference's object must end its clause ("I like iced drinks more" qualifies it),
and a line that opens with a gerund followed by a verb of its own ("Learning Spanish is a great
choice") is about the activity, not the speaker. What the rules cannot state cleanly stays in the
turn log, where the context still finds it.

Preferences go to ``prefs``, everything else to ``facts``. A key the passport already knows is
reused when it names the same thing (``favourite_colour`` for ``favorite_color``, ``city`` for
``location``): dedupe tier 0.

Not extracted, on purpose: questions ("Do you like camping?"), negated events and states ("I
didn't move", "I'm not from here": only the negative facts above are kept), hypotheticals and
wishes ("If I moved to Paris", "I would love to see Rome", "I wish I lived by the sea": a wish is
neither a preference nor a fact), and reported speech about someone else ("My sister said she
moved to Rome"). A named relative's own facts are
kept under their name ("My sister Anna moved to Rome" -> ``anna.location``). A value is copied
from the text, trimmed of punctuation; a lower-case country name is capitalised.
"""

from __future__ import annotations

import re

from app.domain.extraction.extractor import Extraction
from app.domain.extraction.rules.belongings import (
    BELONGING_RULES,
    DISCOURSE,
    NEGATION_WORDS,
    PET_NOUNS,
    pet_answer,
    pet_candidates,
)
from app.domain.extraction.rules.diet_and_study import DIET_AND_STUDY_RULES
from app.domain.extraction.rules.guards import statement
from app.domain.extraction.rules.lexicon import ORG, name_ok, org_name
from app.domain.extraction.rules.life import LIFE_RULES
from app.domain.extraction.rules.negatives import NEGATIVE_RULES
from app.domain.extraction.rules.pastimes import PASTIME_RULES, instrument_answer
from app.domain.extraction.rules.people import add_entity
from app.domain.extraction.rules.ruleset import Hit, RuleSet, emit, fire, usable
from app.domain.extraction.rules.settled import SETTLED_RULES
from app.domain.extraction.rules.view import Sentence, View

# The tables in the order they are tried: full sentences, then what is said in passing.
FACT_RULES = RuleSet.of(
    LIFE_RULES
    + SETTLED_RULES
    + BELONGING_RULES
    + PASTIME_RULES
    + DIET_AND_STUDY_RULES
    + NEGATIVE_RULES
)


# Where someone works, studies or volunteers names an organization, even in the past tense.
_ORGANIZATION = re.compile(
    r"(?<![\w'])(?i:work(?:s|ed|ing)?|volunteer(?:s|ed|ing)?|intern(?:s|ed|ing)?|"
    r"stud(?:y|ies|ied|ying)|teach(?:es|ing)?|taught|employed|hired|job|internship|position)"
    rf"\s+(?i:at|for|with|by)\s+{ORG}"
)


def fact_family(view: View, out: Extraction) -> None:
    """Facts people state about themselves and their people: home, work, age, family, name."""
    if view.segment.kind == "row":
        return
    for sentence in view.sentences:
        text = statement(sentence.text) if usable(view, sentence) else None
        if text is None:
            continue
        fire(FACT_RULES, view, out, sentence, text, "facts")
        for match in _ORGANIZATION.finditer(text):
            org = org_name(match.group("org"))
            if org is not None:
                add_entity(out, org, "organization")
    _turn_facts(view, out)


def _turn_facts(view: View, out: Extraction) -> None:
    """Facts that need a whole turn, or the question it answers: pets and instruments."""
    turns: dict[int, list[Sentence]] = {}
    for sentence in view.sentences:
        turns.setdefault(sentence.turn, []).append(sentence)
    asked: Sentence | None = None  # the last sentence of the turn before
    for turn in turns.values():
        first = turn[0]
        words = {w for s in turn for w in s.words}
        if usable(view, first) and not words & NEGATION_WORDS:
            found = list(pet_candidates(view, turn)) if words & PET_NOUNS else []
            if asked is not None and asked.speaker != first.speaker:
                found += pet_answer(view, asked, first)
                for hit in instrument_answer(asked, first):
                    emit(view, out, first, hit, "facts")
            people = {p.lower().split()[0] for p in view.participants}
            for kind, name in found:
                if name_ok(name) and name.lower() not in people | DISCOURSE:
                    emit(view, out, first, Hit(first.speaker, kind, name, 0.7, "other"), "facts")
        asked = turn[-1]


# A turn with any of these is left alone: "nope, never learned", "not my dog".
