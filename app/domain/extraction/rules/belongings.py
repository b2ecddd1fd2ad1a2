"""Cars, and pets named in passing ("Biscuit, my beagle", "we got a puppy! His name is Rex")."""

from __future__ import annotations

import re
from collections.abc import Iterator

from app.domain.extraction.rules.guards import is_question
from app.domain.extraction.rules.lexicon import (
    ADV,
    ME,
    NAME_WORD,
    NOT_NAMES,
    PET_WORDS,
    PETS,
    REL_MODIFIERS,
    clean_value,
    name_ok,
)
from app.domain.extraction.rules.ruleset import Hit, Triggered, compiled, gate
from app.domain.extraction.rules.settled import own_clause
from app.domain.extraction.rules.view import Sentence, View
from app.domain.words import I_AM

# --- cars ---

_MAKE_TEXT = """
    toyota honda ford chevy chevrolet nissan hyundai kia mazda subaru volkswagen vw bmw audi
    mercedes mercedes-benz tesla volvo jeep gmc lexus acura infiniti porsche fiat peugeot renault
    skoda citroen opel vauxhall suzuki mitsubishi buick cadillac chrysler polestar rivian saab
    ferrari lamborghini maserati bentley dacia"""
# Models whose names are no everyday words ("Focus", "Golf" and "Soul" need their make).
_MODEL_TEXT = """
    civic accord cr-v corolla camry prius rav4 yaris jetta passat tiguan fiesta mustang outback
    forester impreza crosstrek altima sentra niro sportage elantra tucson ioniq miata cx-5
    wrangler tacoma tundra highlander odyssey qashqai juke clio micra corsa astra octavia hilux
    silverado camaro corvette malibu kona sorento telluride f-150"""
_MAKE = "|".join(sorted(_MAKE_TEXT.split(), key=len, reverse=True))
_MODEL = "|".join(re.escape(m) for m in sorted(_MODEL_TEXT.split(), key=len, reverse=True))
_COLOUR = (
    r"(?i:red|blue|green|black|white|silver|grey|gray|yellow|orange|purple|brown|beige|gold|"
    r"navy|maroon|teal|pink|dark\s+blue|light\s+blue|dark\s+green|bright\s+red)"
)
_MODEL_WORD = r"(?:[A-Z0-9][\w-]*)"
_CAR = (
    rf"(?P<car>(?:{_COLOUR}\s+)?(?:(?:19|20)\d\d\s+)?(?:(?i:{_MAKE})(?:\s+(?:(?i:{_MODEL})|"
    rf"{_MODEL_WORD}))?|(?i:{_MODEL})(?:\s+(?i:hybrid|estate|wagon|gt|gti|sport))?))(?![\w-])"
)
# After "a new car, ..." any capitalised name will do: "a blue Civic", "a 2015 Golf".
_CAR_AFTER_NOUN = (
    rf"(?P<car>(?:{_COLOUR}\s+)?(?:(?:19|20)\d\d\s+)?(?:{_MODEL_WORD}(?:\s+{_MODEL_WORD})?|"
    rf"(?i:{_MAKE})(?:\s+[\w-]+)?|(?i:{_MODEL})))(?![\w-])"
)
_CAR_NOUN_TEXT = "car ride truck suv van motorbike motorcycle hatchback sedan wheels jeep"
_CAR_NOUN = rf"(?i:{_CAR_NOUN_TEXT.replace(' ', '|')})"
_CAR_NEW = r"(?:(?i:new|used|second-hand|secondhand|brand[\s-]new|first|old|little|shiny)\s+)*"


def _car_hits(view: View, sentence: Sentence, m: re.Match[str]) -> Iterator[Hit]:
    car = clean_value(m.group("car"))
    if car and car.split()[0].lower() not in NOT_NAMES and len(car) <= 40:
        yield Hit(sentence.speaker, "car", car, 0.8 if own_clause(m) else 0.65)


# --- pets named in passing ---

_NAME_ONLY = r"(?P<name>[A-Z][a-z'’-]+)"
# Openers a capital word is no name in: "Anyway, my dog ...".
_DISCOURSE_TEXT = """
    anyway anyways honestly seriously basically actually sadly luckily unfortunately
    fortunately apparently plus btw update guess ugh welp meanwhile also still then sometimes
    lately recently"""
DISCOURSE = frozenset(_DISCOURSE_TEXT.split())


def _pet_name_hits(view: View, sentence: Sentence, m: re.Match[str]) -> Iterator[Hit]:
    name = m.group("name")
    people = {p.lower().split()[0] for p in view.participants}
    lowered = name.lower()
    if name_ok(name) and lowered not in DISCOURSE and lowered not in people:
        yield Hit(sentence.speaker, PETS[m.group("rel").lower()], name, 0.75, "other")


_PET_NOUN_TEXT = "dog cat puppy pup kitten doggo pooch kitty"
_PET_NOUN = rf"(?P<pet>{_PET_NOUN_TEXT.replace(' ', '|')})"
# "worst dog ever", "bad cat!": a short line that names its subject a pet.
_PET_EPITHET = re.compile(
    r"^(?:(?:what\s+a|such\s+a|this|that|my|our|the|silly|stupid|crazy)\s+)*"
    r"(?:worst|best|silliest|naughtiest|cutest|sweetest|dumbest|craziest|laziest|goodest|bad|good|"
    rf"silly|naughty|crazy|lazy|cheeky|little|dumb|greedy|poor|sweet|old)\s+{_PET_NOUN}\b",
    re.IGNORECASE,
)
# "Luna keeps stealing my socks, silly cat": the epithet closes the line itself.
_PET_EPITHET_TAIL = re.compile(
    r",\s*(?:(?:what\s+a|such\s+a|this|that|silly|stupid|crazy)\s+)*(?:worst|best|silliest|"
    r"naughtiest|cutest|sweetest|dumbest|craziest|laziest|goodest|bad|good|silly|naughty|crazy|"
    rf"lazy|cheeky|little|dumb|greedy|poor|sweet|old)\s+{_PET_NOUN}(?:\s+ever)?\W*$",
    re.IGNORECASE,
)
_PET_MENTION = re.compile(
    rf"\b(?:a|an|new|our|my|the|this|rescue)\s+(?:(?:new|little|rescue|baby)\s+)?{_PET_NOUN}\b",
    re.IGNORECASE,
)
_LATER_NAME = re.compile(
    r"(?<![\w'])(?:(?i:his|her|its)\s+(?i:name(?:'s|\s+is))|(?i:we|i)\s+(?i:named|called|call)"
    rf"\s+(?i:him|her|it))\s+{_NAME_ONLY}"
)
# "Biscuit knocked my glass off": a name opening a line, before something it did.
_NAME_SUBJECT = re.compile(
    r"^(?P<name>[A-Z][a-z'’-]+)\s+(?:(?:just|literally|always|still|keeps|won't|will\s+not)\s+)?"
    r"(?P<verb>[a-z]+(?:ed|s)|ate|ran|got|stole|broke|threw|bit|tore|dug|found|is|was|has|won't)\b"
)
_PET_QUESTION = re.compile(rf"\b{_PET_NOUN}\b", re.IGNORECASE)
_NAME_QUESTION = re.compile(r"\b(?:name|named|called|call)\b", re.IGNORECASE)
_NAME_ANSWER = re.compile(
    r"^(?:(?:his|her|its)\s+name(?:'s|\s+is)\s+|(?:it's|he's|she's)\s+(?:called\s+)?)?"
    r"(?P<name>[A-Z][a-z'’-]+)(?=\s*[!.,~]|\s*$|\s+(?:lol|haha))",
    re.IGNORECASE,
)


def pet_candidates(view: View, turn: list[Sentence]) -> Iterator[tuple[str, str]]:
    """(pet kind, name) for pets named in passing in one turn."""
    kinds = [
        m.group("pet")
        for s in turn
        if (m := _PET_MENTION.search(s.text) or _PET_EPITHET.match(s.text))
        or (m := _PET_EPITHET_TAIL.search(s.text))
    ]
    if not kinds:
        return
    kind = PETS[kinds[0].lower()]
    for sentence in turn:
        later = _LATER_NAME.search(sentence.text)
        if later is not None:
            yield kind, later.group("name")
            return
    for sentence in turn:
        tail = _PET_EPITHET_TAIL.search(sentence.text)
        if tail is None or _PET_MENTION.search(sentence.text, 0, tail.start()):
            continue
        subject = _NAME_SUBJECT.match(sentence.text)
        if subject is not None:
            yield kind, subject.group("name")
            return
    # A short epithet line and exactly one other line opened by a name doing something.
    if not any(_PET_EPITHET.match(s.text) and len(s.words) <= 6 for s in turn):
        return
    # "Jake walked the dog": a name doing something to the pet is no pet.
    names = {
        m.group("name")
        for s in turn
        if not _PET_EPITHET.match(s.text)
        and (m := _NAME_SUBJECT.match(s.text)) is not None
        and not _PET_MENTION.search(s.text, m.end())
    }
    if len(names) == 1:
        yield kind, names.pop()


def pet_answer(view: View, question: Sentence, answer: Sentence) -> Iterator[tuple[str, str]]:
    """A pet named in answer to "what's your dog called?"."""
    asked = _PET_QUESTION.search(question.text)
    if asked is None or not is_question(question.text) or not _NAME_QUESTION.search(question.text):
        return
    named = _NAME_ANSWER.match(answer.text)
    if named is not None:
        yield PETS[asked.group("pet").lower()], named.group("name")


NEGATION_WORDS = frozenset(
    {"not", "never", "no", "nope", "don't", "doesn't", "didn't", "isn't", "wasn't", "can't"}
)
PET_NOUNS = frozenset(_PET_NOUN_TEXT.split())


BELONGING_RULES: tuple[Triggered, ...] = compiled(
    [
        # cars
        (
            gate(_MAKE_TEXT, _MODEL_TEXT),
            rf"(?:{ME}|{I_AM}{ADV}\s+)(?i:got|bought|picked\s+up|leased|drive|driving|"
            rf"upgraded\s+to|traded\s+up\s+for)\s+(?:(?i:a|an|my|our|the|this)\s+)?{_CAR_NEW}"
            rf"{_CAR}",
            _car_hits,
        ),
        (
            gate(_CAR_NOUN_TEXT),
            rf"{ME}(?i:got|bought|picked\s+up|leased)\s+(?:(?i:a|an|my|our)\s+)?{_CAR_NEW}"
            rf"{_CAR_NOUN}\s*(?:[,:—–-]+|!+)\s*(?:(?i:a|an|the|it's\s+a|its\s+a)\s+)?"
            rf"{_CAR_AFTER_NOUN}",
            _car_hits,
        ),
        (
            gate("traded trade"),
            rf"{ME}(?i:traded)\s+(?:(?i:in)\s+)?(?:(?i:my|our|the)\s+)?(?:[\w-]+\s+){{1,3}}?"
            rf"(?i:for|in\s+for)\s+(?:(?i:a|an)\s+)?{_CAR_NEW}{_CAR}",
            _car_hits,
        ),
        (
            gate(_MAKE_TEXT, _MODEL_TEXT),
            rf"(?<![\w'])(?i:my|our)\s+new\s+{_CAR}",
            _car_hits,
        ),
        (
            gate("car"),
            rf"(?<![\w'])(?i:my|our)\s+{_CAR_NEW}(?i:car)\s+(?i:is|'s)\s+(?:(?i:a|an)\s+)?"
            rf"{_CAR_AFTER_NOUN}",
            _car_hits,
        ),
        # pets named in apposition: "Biscuit, my beagle,", "Luna is our cat"
        (
            gate(*PETS),
            rf"(?<![\w'])(?i:a|an)\s+{REL_MODIFIERS}(?P<rel>(?i:{PET_WORDS})),\s+{_NAME_ONLY}"
            r"(?=\s*[,.!?)…]|\s*$|\s+(?i:and|who|from|lol|haha)\b)",
            _pet_name_hits,
        ),
        (
            gate(*PETS),
            rf"(?:^|(?<=[\s(]))(?P<name>{NAME_WORD})(?:\s*,\s*|\s+(?i:is|'s)\s+|\s+)"
            rf"(?i:my|our)\s+{REL_MODIFIERS}(?P<rel>(?i:{PET_WORDS}))(?=\s*[,.!?)…]|\s*$)",
            _pet_name_hits,
        ),
    ]
)
