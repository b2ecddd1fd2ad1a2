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
| occupation | "I work as a nurse", "I'm a teacher", "I got promoted to X" | nurse |
| employer | "I work at X", "I'm a nurse at X", "I started a new job at X" | Zimplats |
| employer | "I started at X", "first week at X", "my new team at X", "joined X as a Y" | Kestrel |
| previous_employer | "I lost my job at X", "I got laid off from X" | DoorDash |
| workplace | "I work at a bakery" (no proper name) | a bakery |
| school | "I'm a student at X", "I'm studying law at X" | UZ |
| field_of_study | "I'm studying X", "majoring in X", "my X degree", "I'm in law school" | nursing |
| field_of_study | "I have a degree in X", "my degree is in X" | linguistics |
| degree | "I'm doing a masters in X", "I have a PhD in X", "I finished my masters" | masters in X |
| age | "I'm 32", "I'm 32 years old", "I just turned 30" (an int) | 32 |
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
weeks" are open loops (``rules_events``), with the resolved date; the location or employer is
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
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Literal, TypeVar

from app.domain.dates import MONTHS, NUMBER_WORDS, iso_utc, resolve_relative
from app.domain.dedupe import key_tokens, normalize_key, split_namespace
from app.domain.extract import Extraction
from app.domain.passport import Belief, Entity, EntityType

if TYPE_CHECKING:
    from app.domain.rules import _Sentence, _View

# The generic speakers of rules.py that are machines: they never state facts about themselves.
MACHINE_SPEAKERS = frozenset({"assistant", "system", "bot", "ai", "tool"})

# --- people and keys ------------------------------------------------------------------------


def is_subject(view: _View, speaker: str) -> bool:
    """Whether ``speaker`` (a display name) is the person the passport is about."""
    name = speaker.strip().lower()
    if view.subject is None:
        return name == "user"
    subject = view.subject.strip().lower()
    return name == subject or name == subject.split(" ")[0]


def is_person(view: _View, speaker: str) -> bool:
    """A speaker who can say things about themselves: the subject or anyone not a machine."""
    return is_subject(view, speaker) or speaker.strip().lower() not in MACHINE_SPEAKERS


def display_name(speaker: str) -> str:
    """How a speaker is named in a third-person sentence: "Caroline", "the user"."""
    lowered = speaker.strip().lower()
    return f"the {lowered}" if lowered in MACHINE_SPEAKERS | {"user", "human"} else speaker


def _namespace(name: str) -> str:
    first = re.findall(r"[^\W_]+(?:['-][^\W_]+)*", name.lower())
    return re.sub(r"[^\w-]", "", first[0]) if first else ""


def reuse_key(key: str, known: tuple[str, ...]) -> str:
    """A known key naming the same thing as ``key`` (tier 0), else ``key`` itself."""
    norm = normalize_key(key)
    namespace, local = split_namespace(norm)
    tokens = sorted(key_tokens(local))
    synonyms = _SYNONYMS.get(local, ())
    for candidate in known:
        other_ns, other_local = split_namespace(normalize_key(candidate))
        if other_ns != namespace:
            continue
        if sorted(key_tokens(other_local)) == tokens or other_local in synonyms:
            return candidate
    return key


# Keys a client may already use for the same belief; reused instead of adding a twin.
_SYNONYMS: dict[str, tuple[str, ...]] = {
    "location": ("city", "current_city", "current_location", "home_city", "lives_in", "residence"),
    "occupation": ("job", "job_title", "profession"),
    "employer": ("company", "works_at", "employer_name"),
    "hometown": ("home_town", "town_of_origin"),
    "home_country": ("country_of_origin", "nationality"),
    "name": ("preferred_name",),
    "spouse": ("husband", "wife"),
}


def belief_key(view: _View, person: str, local: str) -> str:
    """``local`` for the subject, ``firstname.local`` for anyone else; known keys reused."""
    key = local if is_subject(view, person) else f"{_namespace(person)}.{local}"
    return reuse_key(key, view.known_keys)


def sentence_ts(sentence: _Sentence) -> str | None:
    """When a sentence was said, ``YYYY-MM-DDTHH:MM:SSZ``."""
    return iso_utc(sentence.ts)


def turn_id_of(view: _View, turn: int) -> str | None:
    """The client's id of the segment's ``turn``-th turn, if it has one."""
    turns = view.segment.turns
    return turns[turn].id if 0 <= turn < len(turns) else None


def provenance(view: _View, sentence: _Sentence) -> dict[str, list[str]]:
    """``{"turn_ids": [id]}`` of the turn a sentence is from, or nothing when it has no id."""
    turn_id = turn_id_of(view, sentence.turn)
    return {"turn_ids": [turn_id]} if turn_id else {}


def add_belief(out: Extraction, section: str, belief: Belief) -> None:
    """Append a belief; the same key and value said twice is kept once, at the higher confidence."""
    beliefs: list[Belief] = getattr(out, section)
    for existing in beliefs:
        if existing.key == belief.key and _same(existing.value, belief.value):
            if (belief.confidence or 0) > (existing.confidence or 0):
                existing.confidence = belief.confidence
            return
    beliefs.append(belief)


def _same(a: object, b: object) -> bool:
    if isinstance(a, str) and isinstance(b, str):
        return a.casefold() == b.casefold()
    return a == b


def add_entity(out: Extraction, name: str, kind: EntityType, alias: str | None = None) -> None:
    """Add an entity, or give a known one a type better than "other" and one more alias."""
    if len(name) > 512:
        return  # longer than the passport allows an entity name; the observation keeps it
    if kind in ("place", "organization"):
        # "the Red Cross" and "Red Cross" are one entity; entity_family drops "The" too.
        name = re.sub(r"^[Tt]he\s+(?=\S)", "", name)
    lowered = name.lower()
    for entity in out.entities:
        names = {entity.name.lower(), *(a.lower() for a in entity.aliases)}
        if lowered in names:
            if entity.type == "other" and kind != "other":
                entity.type = kind
            if alias and alias.lower() not in names:
                entity.aliases.append(alias)
            return
    out.entities.append(Entity(name=name, type=kind, aliases=[alias] if alias else []))


# --- guards ---------------------------------------------------------------------------------

_QUESTION_START = re.compile(
    r"^(?:do|does|did|have|has|had|are|is|was|were|can|could|would|will|should|shall|may|"
    r"how|what|where|when|why|who|whom|which|whose|ever|any)\b(?!')",
    re.IGNORECASE,
)
_HYPOTHETICAL = re.compile(
    r"\b(?:if|unless|would|wish|whether|imagine|suppose|supposing|pretend|maybe|might|could|"
    r"should|hope|hopefully|someday|dream|dreaming|fantasi[sz]e)\b|'d\b",
    re.IGNORECASE,
)
_NEGATION = re.compile(
    r"\b(?:not|never|no\s+longer|nobody|nothing|isnt|dont|doesnt|didnt|cant|wont|arent|wasnt|"
    r"werent)\b|n't\b",
    re.IGNORECASE,
)
_REPORTED = re.compile(
    r"\b(?P<who>[\w']+)\s+(?:said|says|told|tells|thinks|thought|mentioned|claims|claimed|"
    r"believes|heard|asked|wrote|texted)\b",
    re.IGNORECASE,
)
_CLAUSE_BREAK = re.compile(r"[,;:(—–]|\s-\s|\b(?:but|and|so|because|although|though)\b", re.I)


def is_question(text: str) -> bool:
    """A question: ends with "?" or opens like one ("Do you ...", "Have you ...")."""
    stripped = text.strip()
    return stripped.endswith("?") or _QUESTION_START.match(stripped) is not None


def statement(text: str) -> str | None:
    """The stated part of a sentence, without a trailing "..., wanna come?"; None for a question."""
    if not is_question(text):
        return text
    comma = text.rfind(",")
    head, tail = text[:comma], text[comma + 1 :]
    if comma < 0 or len(tail.split()) > 6 or "?" in head or is_question(head):
        return None
    return head


def clause_start(text: str, position: int) -> int:
    """Where the clause holding ``position`` begins."""
    starts = [m.end() for m in _CLAUSE_BREAK.finditer(text, 0, position)]
    return starts[-1] if starts else 0


def is_asserted(text: str, start: int) -> bool:
    """No hypothetical, reported speech or negation before ``start`` that would undo it."""
    before = text[:start]
    if _HYPOTHETICAL.search(before):
        return False
    for match in _REPORTED.finditer(before):
        if match.group("who").lower() not in ("i", "we"):
            return False
    return _NEGATION.search(text[clause_start(text, start) : start]) is None


# --- shared vocabulary ----------------------------------------------------------------------

_I = r"(?<![\w'])(?i:i)(?![\w'])"
_IC = r"(?<![\w'])(?i:i)"  # "I" before a contraction: "I've"
_IM = r"(?<![\w'])(?i:i'm|i\s+am|im)(?![\w'])"
_WE = r"(?<![\w'])(?i:we)(?![\w'])"
_ADV = (
    r"(?:\s+(?i:just|finally|recently|actually|also|now|currently|still|really|officially|"
    r"already|even|totally|happily|basically|literally|originally|kind\s+of|kinda|sort\s+of|"
    r"only|newly|proudly|mostly|definitely|absolutely|genuinely|truly|so|pretty\s+much))*"
)
# Where a value ends: punctuation, or a word that starts the next part of the sentence.
_STOP = (
    r"(?=\s*[,.;:!?)\"—–]|\s+-\s|\s*$|\s+(?i:and|but|because|since|so|when|while|where|who|"
    r"which|with|for|at|in|on|from|to|by|after|before|until|as|like|or|now|too|though|"
    r"although|last|next|this|that|these|those|yesterday|today|tonight|tomorrow|ago|lol|haha|"
    r"right|already|again|anymore|either|about|around|during|over|of|if|than|then|because)\b)"
)
_NAME_WORD = r"[A-Z][a-zà-ÿ'’-]+"
_NAME = rf"(?P<name>{_NAME_WORD}(?:\s+{_NAME_WORD})?)"
_NOT_NAME_TEXT = """
    i and but or so the a an my our your his her their its this that these those he she they
    we you it is was are were will would can could should has have had do did does not no yes
    oh ok okay hey hi hello thanks thank well also just too very really so then there here now
    mom mum dad mother father grandma grandpa god lol haha omg wow yeah yep sure please sorry
    everyone everybody someone somebody anyone nobody today tomorrow yesterday tonight
    monday tuesday wednesday thursday friday saturday sunday"""
_NOT_NAMES = frozenset(_NOT_NAME_TEXT.split()) | frozenset(m.lower() for m in MONTHS)
_TRAILING_SYMBOLS = re.compile(r"[^\w\s.,;:!?()\"'’“”\[\]-]+[\s\W]*$")


def _clean_value(value: str) -> str:
    # Emoji and other symbols after a value are the mood it was said in: "Rottweilers ❤️".
    value = " ".join(_TRAILING_SYMBOLS.sub("", value).split())
    return value.strip(" \t\"'“”‘’,.;:!?()[]-–—").removesuffix("'s").strip()


def _name_ok(name: str) -> bool:
    words = name.split()
    return bool(words) and all(w.lower().strip("'’") not in _NOT_NAMES for w in words)


def _trim_name(name: str) -> str:
    """Drop trailing words that are no name: a capital may start the next part ("John And")."""
    words = name.replace("’", "'").removesuffix("'s").split()
    while words and words[-1].lower() in _NOT_NAMES:
        words.pop()
    return " ".join(words)


_COUNTRY_TEXT = """
Afghanistan, Albania, Algeria, Andorra, Angola, Argentina, Armenia, Australia, Austria,
Azerbaijan, Bahamas, Bahrain, Bangladesh, Barbados, Belarus, Belgium, Belize, Benin, Bhutan,
Bolivia, Bosnia, Botswana, Brazil, Brunei, Bulgaria, Burkina Faso, Burundi, Cambodia, Cameroon,
Canada, Chad, Chile, China, Colombia, Congo, Costa Rica, Croatia, Cuba, Cyprus, Czechia,
Czech Republic, Denmark, Djibouti, Dominican Republic, Ecuador, Egypt, El Salvador, England,
Eritrea, Estonia, Eswatini, Ethiopia, Fiji, Finland, France, Gabon, Gambia, Georgia, Germany,
Ghana, Greece, Guatemala, Guinea, Guyana, Haiti, Holland, Honduras, Hungary, Iceland, India,
Indonesia, Iran, Iraq, Ireland, Israel, Italy, Jamaica, Japan, Jordan, Kazakhstan, Kenya, Korea,
South Korea, North Korea, Kosovo, Kuwait, Kyrgyzstan, Laos, Latvia, Lebanon, Lesotho, Liberia,
Libya, Liechtenstein, Lithuania, Luxembourg, Madagascar, Malawi, Malaysia, Maldives, Mali,
Malta, Mauritania, Mauritius, Mexico, Moldova, Monaco, Mongolia, Montenegro, Morocco,
Mozambique, Myanmar, Namibia, Nepal, the Netherlands, Netherlands, New Zealand, Nicaragua,
Niger, Nigeria, North Macedonia, Northern Ireland, Norway, Oman, Pakistan, Palestine, Panama,
Papua New Guinea, Paraguay, Peru, the Philippines, Philippines, Poland, Portugal, Qatar,
Romania, Russia, Rwanda, Samoa, Saudi Arabia, Scotland, Senegal, Serbia, Sierra Leone,
Singapore, Slovakia, Slovenia, Somalia, South Africa, South Sudan, Spain, Sri Lanka, Sudan,
Suriname, Sweden, Switzerland, Syria, Taiwan, Tajikistan, Tanzania, Thailand, Togo, Tonga,
Trinidad, Tunisia, Turkey, Turkmenistan, Uganda, Ukraine, the United Arab Emirates, UAE,
the United Kingdom, United Kingdom, the UK, UK, the United States, United States, the US, US,
the USA, USA, America, Uruguay, Uzbekistan, Venezuela, Vietnam, Wales, Yemen, Zambia, Zimbabwe
"""
COUNTRIES = frozenset(c.strip().lower() for c in _COUNTRY_TEXT.split(",") if c.strip())
# Lower-case chat ("i moved to sweden") still names a country; other lower-case words do not.
_LOWER_COUNTRY = "|".join(
    re.escape(c) for c in sorted(COUNTRIES, key=len, reverse=True) if " " not in c and len(c) > 3
)
_PLACE_WORD = r"[A-Z][\w'’.&-]*"
_PLACE = (
    rf"(?P<place>(?:[Tt]he\s+)?{_PLACE_WORD}(?:\s+(?:(?:of|de|da|del|do|du|la|le|upon|on|am)\s+)?"
    rf"{_PLACE_WORD})*(?:,\s*{_PLACE_WORD}(?:\s+{_PLACE_WORD})*)?|{_LOWER_COUNTRY})"
)
_NOT_PLACES = _NOT_NAMES | frozenset({"home", "work", "school", "church", "college", "uni"})


def _place(view: _View, raw: str) -> str | None:
    """A place name from a match, or None when it is not one ("Mom's", "Monday")."""
    value = _clean_value(raw)
    parts = [p.strip() for p in value.split(",")]
    # "I moved to Paris, Mel!" - the vocative is not part of the place.
    people = {p.lower() for p in view.participants}
    while len(parts) > 1 and (parts[-1].lower() in people or parts[-1].lower() in _NOT_NAMES):
        parts.pop()
    value = ", ".join(parts)
    # "since moving to Toronto I walk": a capital "I" after the place starts the next clause.
    value = re.sub(r"(?:\s+(?:I|I'm|I've|I'd|I'll))+$", "", value)
    words = value.replace("’", "'").split()
    if words and words[0].lower() == "the":
        words = words[1:]
    if not words or words[0].lower().removesuffix("'s") in _NOT_PLACES or "'s" in words[0]:
        return None
    if len(words) > 8:
        return None  # a title-case line, not a place
    if value.islower():
        value = value.title() if value in COUNTRIES else value
    return value


def _is_country(place: str) -> bool:
    return place.lower() in COUNTRIES or place.lower().removeprefix("the ") in COUNTRIES


# --- a small lexicon of occupations ---------------------------------------------------------

_JOB_TEXT = """
accountant actor actress administrator analyst architect artist assistant astronaut athlete
attorney author baker banker barber barista bartender biologist blogger bookkeeper builder
butcher carpenter cashier caregiver ceo cfo chef chemist cleaner clerk coach consultant
contractor cook coordinator counselor counsellor cto dancer dentist designer detective developer
dietitian director doctor driver economist editor electrician engineer entrepreneur farmer
firefighter fisherman florist founder freelancer gardener geologist hairdresser historian
illustrator influencer instructor intern janitor jeweler journalist judge labourer laborer
lawyer lecturer librarian lifeguard linguist machinist manager mechanic medic midwife miner
model musician nanny navigator nurse nutritionist officer optician painter paralegal paramedic
pharmacist photographer physician physicist physiotherapist pilot plumber poet policeman
politician producer professor programmer psychiatrist psychologist realtor receptionist
recruiter reporter researcher scientist secretary singer soldier songwriter specialist
streamer student supervisor surgeon tailor teacher technician therapist trainer translator
tutor veterinarian vet volunteer waiter waitress welder writer youtuber
"""
JOBS = frozenset(_JOB_TEXT.split())
_JOB_SUFFIXES = (
    "ologist",
    "ician",
    "ographer",
    "engineer",
    "developer",
    "manager",
    "analyst",
    "writer",  # screenwriter, copywriter
    "designer",
    "maker",  # filmmaker, dressmaker
    "smith",  # locksmith, blacksmith
)


def _is_job(phrase: str) -> bool:
    head = phrase.lower().split()[-1] if phrase.split() else ""
    return head in JOBS or head.endswith(_JOB_SUFFIXES)


_JOB = r"(?P<job>[A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*){0,3}?)"
_ORG_WORD = r"[A-Z0-9][\w'’&.-]*"
_ORG = rf"(?P<org>(?:[Tt]he\s+)?[A-Z][\w'’&.-]*(?:\s+(?:(?:of|and|&|for|de)\s+)?{_ORG_WORD})*)"
_WORKPLACE = r"(?P<wp>(?i:a|an|the)\s+[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}?)"


def _org(raw: str) -> str | None:
    value = _trim_name(_clean_value(raw)) if raw else ""
    first = value.removeprefix("the ").removeprefix("The ").split(" ")[0].lower() if value else ""
    if not value or first in _NOT_NAMES | {"home"} or len(value.split()) > 8:
        return None
    return value


# --- the fact rules -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Hit:
    """What one rule found in one sentence, before keys and timestamps are attached."""

    person: str  # display name of whom the belief is about
    local: str  # the key without namespace; "" when only an entity was found
    value: object
    confidence: float
    entity: EntityType | None = None  # the value names an entity of this type


Rule = Callable[["_View", "_Sentence", re.Match[str]], Iterator[_Hit]]
# (trigger, pattern, rule): the pattern runs only on a sentence whose lower case has the trigger,
# which skips most of the patterns for most sentences.
# A trigger is a regex, or (for long word lists) a set of words one of which must be said.
Trigger = re.Pattern[str] | frozenset[str]
_Triggered = tuple[Trigger, re.Pattern[str], Rule]
_Arg = TypeVar("_Arg")


def _binder(
    hits: Callable[[_View, _Sentence, re.Match[str], _Arg], Iterator[_Hit]],
) -> Callable[[_Arg], Rule]:
    """``hits`` with its last argument left to the table: ``loc("from")`` is a rule."""
    return lambda arg: lambda v, s, m: hits(v, s, m, arg)


@dataclass(frozen=True, slots=True)
class _RuleSet:
    """Rules in order, with their distinct triggers tested once per sentence."""

    rules: tuple[_Triggered, ...]
    triggers: tuple[Trigger, ...]
    index: tuple[int, ...]  # rule i runs when triggers[index[i]] fires

    @classmethod
    def of(cls, rules: tuple[_Triggered, ...]) -> _RuleSet:
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


def _compiled(table: list[tuple[str | frozenset[str], str, Rule]]) -> tuple[_Triggered, ...]:
    return tuple(
        (t if isinstance(t, frozenset) else re.compile(t), re.compile(p), rule)
        for t, p, rule in table
    )


def gate(*lexicons: str) -> frozenset[str]:
    """Every word of some word lists: a rule on them runs only when one was said."""
    return frozenset(w for text in lexicons for w in _GATE_TOKEN.findall(text.lower()))


LocationKind = Literal["location", "home", "from", "origin", "born"]


def _location_hits(
    view: _View, sentence: _Sentence, m: re.Match[str], kind: LocationKind = "location"
) -> Iterator[_Hit]:
    place = _place(view, m.group("place"))
    if place is None:
        return
    who = sentence.speaker
    if kind == "location":
        yield _Hit(who, "location", place, 0.75 if m.groupdict().get("we") else 0.85, "place")
    elif kind == "home":
        yield _Hit(who, "location", place, 0.6, "place")
    elif kind == "from":
        country = _is_country(place)
        local = "home_country" if country else "previous_location"
        yield _Hit(who, local, place, 0.6 if country else 0.7, "place")
    elif kind == "origin":
        yield _Hit(who, "home_country" if _is_country(place) else "hometown", place, 0.8, "place")
    elif kind == "born":
        yield _Hit(who, "birthplace", place, 0.8, "place")
        if "raised" in m.group(0).lower() and not _is_country(place):
            yield _Hit(who, "hometown", place, 0.75, "place")


def _moved_hits(view: _View, sentence: _Sentence, m: re.Match[str]) -> Iterator[_Hit]:
    origin = m.group("origin")
    if origin:
        place = _place(view, origin)
        if place is not None:
            country = _is_country(place)
            local = "home_country" if country else "previous_location"
            yield _Hit(sentence.speaker, local, place, 0.6 if country else 0.7, "place")
    yield from _location_hits(view, sentence, m)


def _job_hits(
    view: _View, sentence: _Sentence, m: re.Match[str], strong: bool = False
) -> Iterator[_Hit]:
    groups = m.groupdict()
    job = re.sub(r"^(?:an?|the)\s+", "", _clean_value(groups.get("job") or ""), flags=re.I)
    is_job = bool(job) and len(job) <= 60 and (strong or _is_job(job))
    who = sentence.speaker
    if is_job:
        yield _Hit(who, "occupation", job, 0.8 if strong else 0.75)
    org = _org(groups.get("org") or "")
    if org is not None and (is_job or (strong and not job)):
        if job.lower().split()[-1:] == ["student"]:
            yield _Hit(who, "school", org, 0.75, "organization")
        else:
            yield _Hit(who, "employer", org, 0.85, "organization")
    workplace = _clean_value(groups.get("wp") or "")
    if workplace and org is None and strong:
        yield _Hit(who, "workplace", workplace.lower(), 0.7)


def _study_hits(view: _View, sentence: _Sentence, m: re.Match[str]) -> Iterator[_Hit]:
    field = _clean_value(m.group("field") or "")
    if field and field.split()[0].lower() not in {"for", "to", "hard", "a", "the", "my", "so"}:
        yield _Hit(sentence.speaker, "field_of_study", field, 0.7)
    org = _org(m.groupdict().get("org") or "")
    if org is not None:
        yield _Hit(sentence.speaker, "school", org, 0.75, "organization")


_TENS = "twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety"
_UNITS = "one|two|three|four|five|six|seven|eight|nine"
_NUMBER = (
    rf"(?:\d{{1,3}}|(?i:(?:{_TENS})(?:[\s-](?:{_UNITS}))?|{_UNITS}|ten|eleven|twelve|thirteen|"
    r"fourteen|fifteen|sixteen|seventeen|eighteen|nineteen))"
)


def parse_number(raw: str) -> int | None:
    """32, "thirty-two", "two": the number, or None."""
    text = raw.strip().lower()
    if text.isdigit():
        return int(text)
    total = 0
    for part in re.split(r"[\s-]+", text):
        if part not in NUMBER_WORDS:
            return None
        total += NUMBER_WORDS[part]
    return total or None


def _age_hits(view: _View, sentence: _Sentence, m: re.Match[str]) -> Iterator[_Hit]:
    age = parse_number(m.group("age"))
    said_old = bool(m.group("old"))
    # Without "years old", a small number is more likely a count ("I'm 2 minutes away").
    if age is not None and (13 if not said_old else 1) <= age <= 120:
        yield _Hit(sentence.speaker, "age", age, 0.85 if said_old else 0.75)


def _birthday_hits(view: _View, sentence: _Sentence, m: re.Match[str]) -> Iterator[_Hit]:
    if sentence.ts is None:
        # Without a time only a full date can be read; relative ones need an anchor.
        found = [r for r in resolve_relative(sentence.text, _EPOCH) if not r.relative]
    else:
        found = resolve_relative(sentence.text, sentence.ts)
    for resolved in found:
        day = resolved.date
        if resolved.granularity == "day":
            yield _Hit(sentence.speaker, "birthday", f"{day.day} {MONTHS[day.month - 1]}", 0.85)
            if not resolved.relative and "born" in m.group(0).lower():
                yield _Hit(sentence.speaker, "birth_year", day.year, 0.85)
            return
        if resolved.granularity == "month" and "born" not in m.group(0).lower():
            yield _Hit(sentence.speaker, "birthday", MONTHS[day.month - 1], 0.7)
            return


_RELATIONS = {
    "husband": "spouse",
    "wife": "spouse",
    "hubby": "spouse",
    "spouse": "spouse",
    "boyfriend": "partner",
    "girlfriend": "partner",
    "partner": "partner",
    "fiance": "partner",
    "fiancé": "partner",
    "fiancee": "partner",
    "fiancée": "partner",
    "daughter": "daughter",
    "son": "son",
    "mom": "mother",
    "mum": "mother",
    "mother": "mother",
    "mama": "mother",
    "dad": "father",
    "father": "father",
    "papa": "father",
    "sister": "sister",
    "brother": "brother",
    "grandma": "grandmother",
    "grandmother": "grandmother",
    "granny": "grandmother",
    "grandpa": "grandfather",
    "grandfather": "grandfather",
    "aunt": "aunt",
    "uncle": "uncle",
    "niece": "niece",
    "nephew": "nephew",
    "best friend": "best_friend",
    "bestie": "best_friend",
    "roommate": "roommate",
    "boss": "boss",
    # Many people have several of these: the name becomes an entity, not a keyed fact.
    "friend": "",
    "cousin": "",
    "coworker": "",
    "co-worker": "",
    "colleague": "",
    "neighbor": "",
    "neighbour": "",
    "mentor": "",
}
_PETS = {
    "dog": "dog",
    "puppy": "dog",
    "pup": "dog",
    "doggo": "dog",
    "cat": "cat",
    "kitten": "cat",
    "kitty": "cat",
    "rabbit": "rabbit",
    "bunny": "rabbit",
    "hamster": "hamster",
    "parrot": "parrot",
    "horse": "horse",
    "pony": "horse",
    "turtle": "turtle",
    "tortoise": "tortoise",
    "bird": "bird",
    "fish": "fish",
    "snake": "snake",
    "lizard": "lizard",
    "gecko": "gecko",
    "ferret": "ferret",
    "guinea pig": "guinea_pig",
    "pooch": "dog",
}
# Breeds name the kind of pet: "our beagle Biscuit" is a dog called Biscuit.
_BREED_TEXT = """
    golden retriever, retriever, labrador, beagle, poodle, husky, corgi, pug, bulldog, terrier,
    dachshund, collie, border collie, spaniel, chihuahua, greyhound, schnauzer, whippet,
    labradoodle, goldendoodle, cockapoo, german shepherd, rottweiler, dalmatian, shih tzu"""
_PETS.update({b.strip(): "dog" for b in _BREED_TEXT.split(",")})
_PETS.update({b: "cat" for b in ("tabby", "siamese", "maine coon", "ragdoll")})
_REL_WORDS = "|".join(re.escape(w) for w in sorted((*_RELATIONS, *_PETS), key=len, reverse=True))
_PET_WORDS = "|".join(re.escape(w) for w in sorted(_PETS, key=len, reverse=True))
_GROUPS = {
    "kids": "children",
    "children": "children",
    "sons": "children",
    "daughters": "children",
    "dogs": "pets",
    "cats": "pets",
    "pets": "pets",
    "turtles": "pets",
    "rabbits": "pets",
    "bunnies": "pets",
    "birds": "pets",
    "fish": "pets",
    "snakes": "pets",
    "hamsters": "pets",
    "guinea pigs": "pets",
    "puppies": "pets",
    "kittens": "pets",
}
# Words between "my" and the relation that keep it current; "ex-", "late" and "future" do not.
_REL_MODIFIERS = (
    r"(?:(?i:new|little|baby|big|older|younger|eldest|oldest|youngest|lovely|amazing|sweet|"
    r"wonderful|two|three|four|first|second|furry|rescue|adopted|beloved|dear|awesome)[\s-]+)*"
)
_REL_NAMING = r"(?:'s\s+name\s+is|\s+is\s+(?:called|named)|,?\s+(?:named|called))?"


def _relation_hits(view: _View, sentence: _Sentence, m: re.Match[str]) -> Iterator[_Hit]:
    rel = " ".join(m.group("rel").lower().split())
    name = _trim_name(m.group("name"))
    if not name or not _name_ok(name):
        return
    if rel in _PETS:
        yield _Hit(sentence.speaker, _PETS[rel], name, 0.85, "other")
    elif _RELATIONS[rel]:
        yield _Hit(sentence.speaker, _RELATIONS[rel], name, 0.85, "person")
    else:
        yield _Hit(sentence.speaker, "", name, 0.0, "person")


def _pet_named_hits(view: _View, sentence: _Sentence, m: re.Match[str]) -> Iterator[_Hit]:
    name = _trim_name(m.group("name"))
    if name and _name_ok(name):
        yield _Hit(sentence.speaker, _PETS[m.group("rel").lower()], name, 0.8, "other")


def _group_hits(view: _View, sentence: _Sentence, m: re.Match[str]) -> Iterator[_Hit]:
    names = [_trim_name(n) for n in re.split(r"\s*,\s*|\s+(?:and|&)\s+", m.group("names"))]
    names = [n for n in names if n and _name_ok(n)]
    if len(names) < 2:
        return
    local = _GROUPS[" ".join(m.group("group").lower().split())]
    yield _Hit(sentence.speaker, local, ", ".join(names[:-1]) + " and " + names[-1], 0.8)
    for name in names:
        yield _Hit(sentence.speaker, "", name, 0.0, "person" if local == "children" else "other")


def _count_hits(view: _View, sentence: _Sentence, m: re.Match[str]) -> Iterator[_Hit]:
    raw = m.group("n").lower()
    count = 1 if raw in ("a", "an") else parse_number(raw)
    pets = (m.groupdict().get("pets") or "").lower()
    # "I have three turtles" counts pets of a kind: turtle_count.
    local = f"{_PETS[_singular(pets)]}_count" if pets else "children_count"
    if count is not None and 0 < count < 30:
        yield _Hit(sentence.speaker, local, count, 0.8)


_PET_PLURALS = (
    "dogs cats turtles rabbits bunnies birds fish snakes hamsters guinea pigs puppies kittens "
    "lizards ferrets parrots horses geckos tortoises"
)
_PET_PLURAL = _PET_PLURALS.replace(" ", "|").replace("guinea|pigs", r"guinea\s+pigs")


def _singular(plural: str) -> str:
    plural = " ".join(plural.split())
    if plural.endswith(("puppies", "bunnies", "kitties")):
        return plural[:-3] + "y"
    return plural if plural.endswith("fish") else plural.removesuffix("s")


_FIRST_SUBJECT = re.compile(r"\b(i|we|he|she|they|you|it)\b", re.IGNORECASE)


def _elided_count_hits(view: _View, sentence: _Sentence, m: re.Match[str]) -> Iterator[_Hit]:
    # "We've been married for 5 years and have three kids": the subject is the sentence's.
    subject = _FIRST_SUBJECT.search(sentence.text, 0, m.start())
    if subject is not None and subject.group(1).lower() in ("i", "we"):
        yield from _count_hits(view, sentence, m)


_STATUSES = {
    "married": "married",
    "single": "single",
    "engaged": "engaged",
    "divorced": "divorced",
    "widowed": "widowed",
    "a widow": "widowed",
    "a widower": "widowed",
    "separated": "separated",
    "in a relationship": "in a relationship",
    "dating": "in a relationship",
    "together": "in a relationship",
}


def _status_hits(view: _View, sentence: _Sentence, m: re.Match[str]) -> Iterator[_Hit]:
    status = _STATUSES[" ".join(m.group("status").lower().split())]
    yield _Hit(sentence.speaker, "relationship_status", status, 0.8)
    partner = _trim_name(m.group("partner") or "")
    if partner and _name_ok(partner):
        local = "spouse" if status == "married" else "partner"
        yield _Hit(sentence.speaker, local, partner, 0.75, "person")


_BREAKUP_WORDS = re.compile(
    r"\b(?:broke\s+up|split|divorc|separat|ex\b|ex-|late|passed|died)", re.I
)


def _mention_hits(view: _View, sentence: _Sentence, m: re.Match[str]) -> Iterator[_Hit]:
    if _BREAKUP_WORDS.search(sentence.text):
        return
    rel = m.group("rel").lower()
    if rel in ("husband", "wife", "hubby"):
        yield _Hit(sentence.speaker, "relationship_status", "married", 0.6)
    elif rel.startswith("fianc"):
        yield _Hit(sentence.speaker, "relationship_status", "engaged", 0.6)
    else:
        yield _Hit(sentence.speaker, "relationship_status", "in a relationship", 0.6)


def _breakup_hits(view: _View, sentence: _Sentence, m: re.Match[str]) -> Iterator[_Hit]:
    status = "divorced" if "divorc" in m.group(0).lower() else "single"
    yield _Hit(sentence.speaker, "relationship_status", status, 0.75)


def _name_hits(view: _View, sentence: _Sentence, m: re.Match[str]) -> Iterator[_Hit]:
    name = _trim_name(m.group("name"))
    if name and _name_ok(name):
        yield _Hit(sentence.speaker, "name", name, 0.9 if "name" in m.group(0).lower() else 0.8)


def _third_person_hits(
    view: _View, sentence: _Sentence, m: re.Match[str], what: str
) -> Iterator[_Hit]:
    who = _trim_name(m.group("who"))
    if not who or not _name_ok(who):
        return
    rel = " ".join((m.group("rel") or "").lower().split()[1:])
    known = {p.lower() for p in view.participants} | {(view.subject or "").lower()}
    if not rel and who.lower() not in known:
        return  # "Paris moved to ..." - only people named as such are reported on
    if rel:
        local = _RELATIONS.get(rel, "")
        yield _Hit(sentence.speaker, local, who, 0.85 if local else 0.0, "person")
    found = _location_hits(view, sentence, m) if what == "place" else _job_hits(view, sentence, m)
    for hit in found:
        yield _Hit(who, hit.local, hit.value, round(hit.confidence - 0.1, 2), hit.entity)


_SELF = rf"(?:{_I}|(?P<we>{_WE}))"
_MOVED = r"(?i:moved|relocated)(?:\s+(?i:back|here|there|over|out|away|all\s+the\s+way))*"
_THIRD = (
    rf"(?:(?P<rel>(?i:my|our)\s+{_REL_MODIFIERS}(?i:{_REL_WORDS})),?\s+)?"
    rf"(?P<who>{_NAME_WORD}(?:\s+{_NAME_WORD})?)"
)
_JOB_TAIL = rf"{_STOP}(?:\s+(?i:at|for|with)\s+{_ORG})?"
_NEW_JOB = (
    r"(?:(?i:a|an|my|the)\s+)?(?:(?i:new|first|dream|part-time|full-time|summer|great|"
    r"temporary|permanent|teaching|nursing)\s+)*(?i:job|position|role|gig|internship)"
)
_KIDS = r"(?i:kids|children|kid|child)"


def _rules() -> tuple[_Triggered, ...]:
    loc, job, third = _binder(_location_hits), _binder(_job_hits), _binder(_third_person_hits)
    table: list[tuple[str | frozenset[str], str, Rule]] = [
        # where they live, and lived before
        (
            r"moved|relocated",
            rf"{_SELF}{_ADV}\s+{_MOVED}(?:\s+(?i:from)\s+(?P<origin>{_PLACE_WORD}"
            rf"(?:\s+{_PLACE_WORD})*))?\s+(?i:to)\s+{_PLACE}",
            _moved_hits,
        ),
        (r"moved|relocated", rf"{_SELF}{_ADV}\s+{_MOVED}\s+(?i:from)\s+{_PLACE}", loc("from")),
        (
            r"live|reside",
            rf"{_SELF}{_ADV}\s+(?i:live|reside)\s+(?i:in)\s+{_PLACE}",
            loc("location"),
        ),
        (
            r"living|based|settled|residing",
            rf"{_IM}{_ADV}\s+(?i:living|based|settled|residing)\s+(?i:in)\s+{_PLACE}",
            loc("location"),
        ),
        (
            r"living|lived",
            rf"{_IC}(?i:'ve|\s+have){_ADV}\s+(?i:been\s+living|lived)\s+(?i:in)\s+{_PLACE}"
            r"(?=\s+(?i:for|since)\b)",
            loc("location"),
        ),
        (
            r"home",
            rf"{_SELF}{_ADV}\s+(?i:got|came|went|headed|flew|drove)\s+(?i:back\s+)?(?i:home)\s+"
            rf"(?i:to)\s+{_PLACE}",
            loc("home"),
        ),
        (
            r"home|house|apartment|flat",
            rf"(?<![\w'])(?i:my|our)\s+(?i:new\s+)?(?i:home|house|apartment|flat)\s+"
            rf"(?i:is\s+in)\s+{_PLACE}",
            loc("location"),
        ),
        # where they come from
        (r"from", rf"{_IM}{_ADV}\s+(?i:from)\s+{_PLACE}", loc("origin")),
        (r"from", rf"{_I}{_ADV}\s+(?i:come|hail)\s+(?i:from)\s+{_PLACE}", loc("origin")),
        (r"grew", rf"{_I}{_ADV}\s+(?i:grew\s+up)\s+(?i:in)\s+{_PLACE}", loc("origin")),
        (r"home", rf"(?<![\w'])(?i:my\s+home\s*town\s+is)\s+{_PLACE}", loc("origin")),
        (r"home", rf"(?<![\w'])(?i:my\s+home\s+country\s+is)\s+{_PLACE}", loc("origin")),
        (
            r"born",
            rf"{_I}\s+(?i:was)\s+(?i:born)(?:\s+(?i:and\s+raised))?\s+(?i:in)\s+{_PLACE}",
            loc("born"),
        ),
        # work and study
        (
            r"work",
            rf"(?:{_I}{_ADV}\s+(?i:work)|{_IM}{_ADV}\s+(?i:working))\s+(?i:as)\s+"
            rf"(?:(?i:an?|the)\s+)?{_JOB}{_JOB_TAIL}",
            job(True),
        ),
        (
            r"work|employed",
            rf"(?:{_I}{_ADV}\s+(?i:work)|{_IM}{_ADV}\s+(?i:working|employed))\s+"
            rf"(?i:at|for)\s+(?:{_ORG}|{_WORKPLACE}{_STOP})",
            job(True),
        ),
        (r"\bi'?m\b|\bi am\b", rf"{_IM}{_ADV}\s+(?i:an?)\s+{_JOB}{_JOB_TAIL}", job(False)),
        (
            r"job|position|role|gig|internship",
            rf"{_SELF}{_ADV}\s+(?i:started|began|got|landed|accepted|took|found|have|'ve\s+got)\s+"
            rf"{_NEW_JOB}(?:\s+(?i:as)\s+(?:(?i:an?)\s+)?{_JOB}{_STOP})?"
            rf"(?:\s+(?i:at|with|for)\s+{_ORG})?",
            job(True),
        ),
        (
            r"work",
            rf"{_SELF}{_ADV}\s+(?i:started|began)\s+(?i:working|work)\s+(?i:at|for)\s+{_ORG}",
            job(True),
        ),
        # "I moved to Kwekwe for a job at Zimplats": the reason names the employer.
        (
            r"job|position|role|gig|internship",
            rf"{_SELF}\s[^.!?]*?\s(?i:for)\s+{_NEW_JOB}(?:\s+(?i:as)\s+(?:(?i:an?)\s+)?{_JOB}"
            rf"{_STOP})?\s+(?i:at|with)\s+{_ORG}",
            job(True),
        ),
        (
            r"hired",
            rf"{_I}{_ADV}\s+(?i:got|was|have\s+been|'ve\s+been)\s+(?i:hired)"
            rf"(?:\s+(?i:as)\s+(?:(?i:an?)\s+)?{_JOB}{_STOP})?(?:\s+(?i:at|by)\s+{_ORG})?",
            job(True),
        ),
        (
            r"promoted",
            rf"{_I}{_ADV}\s+(?:(?i:got|was|have\s+been|'ve\s+been)\s+)?(?i:promoted)\s+"
            rf"(?i:to)\s+(?:(?i:an?|the)\s+)?{_JOB}{_JOB_TAIL}",
            job(True),
        ),
        (
            r"stud|major|degree",
            rf"(?:{_IM}{_ADV}\s+(?i:studying|majoring\s+in|doing\s+a\s+degree\s+in)|"
            rf"{_I}{_ADV}\s+(?i:study|major\s+in))\s+"
            rf"(?P<field>[a-zA-Z][\w-]*(?:\s+[a-zA-Z][\w-]*){{0,3}}?){_STOP}"
            rf"(?:\s+(?i:at)\s+{_ORG})?",
            _study_hits,
        ),
        # age and birthday
        (
            r"\bi'?m\b|\bi am\b",
            rf"{_IM}\s+(?P<age>{_NUMBER})(?P<old>\s+(?i:years?\s+old|yrs?\s+old|y/?o))?"
            r"(?=\s*[,.!;)]|\s*$|\s+(?i:and|now|today|this\s+year|but|so|already|myself)\b)",
            _age_hits,
        ),
        (
            r"turned",
            rf"{_I}{_ADV}\s+(?i:turned)\s+(?P<age>{_NUMBER})(?P<old>\s+(?i:years?\s+old))?"
            r"(?![\w%-]|\s+(?i:percent|minutes?|hours?|degrees?|dollars?|pages?|times|miles|km|"
            r"pounds|people|things|bucks)\b)",
            _age_hits,
        ),
        (
            r"birthday|bday|b-day",
            r"(?<![\w'])(?i:my\s+(?:birthday|bday|b-day))(?!\s+(?i:party|present|gift|cake))\b",
            _birthday_hits,
        ),
        (r"born", rf"{_I}\s+(?i:was)\s+(?i:born)\s+(?i:on)\s", _birthday_hits),
        # family, partners, pets
        (
            r"\b(?:my|our)\b",
            rf"(?<![\w'])(?i:my|our)\s+{_REL_MODIFIERS}(?P<rel>(?i:{_REL_WORDS}))(?![\w-])"
            rf"{_REL_NAMING}\s*,?\s+{_NAME}",
            _relation_hits,
        ),
        (
            r"named|called",
            rf"(?<![\w'])(?i:a|an|our|my)\s+{_REL_MODIFIERS}(?P<rel>(?i:{_PET_WORDS}))\s+"
            rf"(?i:named|called)\s+{_NAME}",
            _pet_named_hits,
        ),
        (
            r"kids|children|sons|daughters|dogs|cats|pets|turtles|rabbits|bunnies|birds|fish|snakes|"
            r"hamsters|pigs|puppies|kittens",
            rf"(?<![\w'])(?i:my|our)\s+{_REL_MODIFIERS}"
            r"(?P<group>(?i:kids|children|sons|daughters|dogs|cats|pets|turtles|rabbits|bunnies|"
            r"birds|fish|snakes|hamsters|guinea\s+pigs|puppies|kittens)),?\s+"
            rf"(?P<names>{_NAME_WORD}(?:\s*,\s*{_NAME_WORD})*,?\s+(?:and|&)\s+{_NAME_WORD})",
            _group_hits,
        ),
        (
            r"kid|child",
            rf"{_SELF}{_ADV}\s+(?i:have|got)\s+(?P<n>\d{{1,2}}|(?i:a|an)|{_NUMBER})\s+"
            rf"{_KIDS}\b",
            _count_hits,
        ),
        (
            r"kid|child",
            rf"(?:^|,|\s(?i:and))\s+(?i:have|got)\s+(?P<n>\d{{1,2}}|(?i:a|an)|{_NUMBER})\s+"
            rf"{_KIDS}\b",
            _elided_count_hits,
        ),
        (
            gate(_PET_PLURALS),
            rf"{_SUBJ}{_ADV}\s+(?i:have|got|own)\s+(?P<n>\d{{1,2}}|{_NUMBER})\s+"
            rf"(?P<pets>(?i:{_PET_PLURAL}))\b",
            _count_hits,
        ),
        (
            r"\bof\b",
            rf"{_IM}\s+(?i:a)\s+(?i:mom|mother|mum|dad|father|parent)\s+(?i:of)\s+"
            rf"(?P<n>{_NUMBER})(?!\w)",
            _count_hits,
        ),
        (
            r"married|single|engaged|divorced|widow|separated|relationship",
            rf"{_IM}{_ADV}\s+(?P<status>(?i:married|single|engaged|divorced|widowed|separated|"
            r"a\s+widow(?:er)?|in\s+a\s+relationship))(?![\w-])"
            rf"(?:\s+(?i:to)\s+(?P<partner>{_NAME_WORD}))?",
            _status_hits,
        ),
        (
            r"married|engaged|divorced",
            rf"{_SELF}{_ADV}\s+(?i:got)\s+(?P<status>(?i:married|engaged|divorced))(?![\w-])"
            rf"(?:\s+(?i:to)\s+(?P<partner>{_NAME_WORD}))?",
            _status_hits,
        ),
        (
            r"dating",
            rf"{_IM}{_ADV}\s+(?P<status>(?i:dating))\s+(?P<partner>{_NAME_WORD})",
            _status_hits,
        ),
        (
            r"married|engaged|together",
            r"(?<![\w'])(?:(?i:i|we)(?i:'ve|\s+have)\s+been|(?i:we)(?i:'re|\s+are))"
            rf"{_ADV}\s+"
            rf"(?P<status>(?i:married|engaged|together))(?![\w-])(?P<partner>)",
            _status_hits,
        ),
        (
            r"husband|wife|hubby|boyfriend|girlfriend|fianc",
            rf"(?<![\w'-])(?i:my)\s+{_REL_MODIFIERS}"
            r"(?P<rel>(?i:husband|wife|hubby|boyfriend|girlfriend|fianc[eé]e?))(?![\w-])",
            _mention_hits,
        ),
        (
            r"broke|split|separated|divorced|called it off",
            rf"(?:{_SELF}|(?i:my)\s+(?i:boyfriend|girlfriend|partner|fianc[eé]e?|husband|wife)"
            rf"\s+(?i:and)\s+{_I}){_ADV}\s+(?i:broke\s+up|split\s+up|separated|got\s+divorced|"
            r"divorced|called\s+it\s+off)(?![\w-])",
            _breakup_hits,
        ),
        # names
        (
            r"name|call me|go by|known as|called",
            r"(?<![\w'])(?i:my\s+name\s+is|my\s+name's|i(?:\s+have|'ve)?\s+"
            r"(?:legally\s+|officially\s+|finally\s+|just\s+)?changed\s+my\s+name\s+to|"
            r"call\s+me|i\s+go\s+by|i'm\s+now\s+(?:called|known\s+as)|"
            rf"i\s+am\s+now\s+(?:called|known\s+as))\s+{_NAME}",
            _name_hits,
        ),
        # named people other than the speaker
        (
            r"moved|relocated",
            rf"{_THIRD}{_ADV}\s+(?i:moved|relocated)(?:\s+(?i:back|here|there|over))?\s+(?i:to)\s+"
            rf"{_PLACE}",
            third("place"),
        ),
        (
            r"lives|resides",
            rf"{_THIRD}{_ADV}\s+(?i:lives|resides)\s+(?i:in)\s+{_PLACE}",
            third("place"),
        ),
        (
            r"moved|relocated",
            rf"{_THIRD},?\s+(?i:said|says|told\s+me|mentioned)\s+(?:(?i:that)\s+)?"
            rf"(?i:she|he|they)(?:\s+(?i:has|had|just|finally|recently))*\s+(?i:moved|relocated)"
            rf"\s+(?i:to)\s+{_PLACE}",
            third("place"),
        ),
        (
            r"works",
            rf"{_THIRD}{_ADV}\s+(?i:works)\s+(?i:as)\s+(?:(?i:an?)\s+)?{_JOB}{_JOB_TAIL}",
            third("job"),
        ),
        (r"works", rf"{_THIRD}{_ADV}\s+(?i:works)\s+(?i:at|for)\s+{_ORG}", third("job")),
        (r"\bis an?\b", rf"{_THIRD}{_ADV}\s+(?i:is)\s+(?i:an?)\s+{_JOB}{_JOB_TAIL}", third("job")),
    ]
    return _compiled(table)


# --- casual, settled and negative facts -------------------------------------------------------

# "I", "we", "I've", "we have": the speaker as subject, the perfect included ("I'd" is a wish).
_SUBJ = r"(?:(?<![\w'])(?i:i)|(?P<we>(?<![\w'])(?i:we)))(?:(?i:'ve|\s+have))?(?![\w'])"
# Chat drops the subject at the start of a line: "moved to Austin last month!".
_BARE = r"^(?:(?i:just|finally|recently|officially|so|and|also|now|basically|actually|still)\s+)*"
_ME = rf"(?:{_SUBJ}{_ADV}\s+|{_BARE})"
# Where the object of a casual fact ends: punctuation, or a word that opens another part.
_END = (
    r"(?=\s*[,.;:!?)\"—–…]|\s+-\s|\s*$|\s+(?i:and|but|because|cause|since|so|when|while|"
    r"which|with|for|at|in|on|from|by|after|before|until|as|like|or|now|though|although|last|"
    r"this|yesterday|today|tonight|ago|lol|haha|either|anymore|again|really|tbh|honestly|"
    r"actually|ever|sadly|yet|myself|properly|well|these\s+days|anyway|whatsoever|"
    r"growing\s+up)\b)"
)
_OBJ = r"(?P<obj>[A-Za-z][\w'&-]*(?:\s+[A-Za-z][\w'&-]*){0,3}?)"
# Words that make a line a holiday, not a home: "our first week in Rome was magic".
_TRIP = re.compile(
    r"\b(?:trip|vacation|holiday|hols|visit|visiting|honeymoon|hotel|hostel|airbnb|tour|"
    r"sightseeing|conference|getaway|cruise|backpacking|festival|layover)\b",
    re.IGNORECASE,
)
_SCHOOL_WORDS = re.compile(r"\b(?:school|university|college|academy|uni|institute)\b", re.I)
_OWN_START = re.compile(r"^(?:i|we|i'm|we're|i've|we've|finally|just|so|still|now|also)\b")


def _own_clause(m: re.Match[str]) -> bool:
    """Whether the clause before ``m`` is the speaker's: empty, or opened by I or we."""
    before = m.string[clause_start(m.string, m.start()) : m.start()].strip().lower()
    return not before or _OWN_START.match(before) is not None


def _settled_hits(view: _View, sentence: _Sentence, m: re.Match[str]) -> Iterator[_Hit]:
    # "First week in Austin done": a home, unless the line is about a holiday.
    owned = m.group(0)[:3].lower() in ("my ", "our")
    if (owned or _own_clause(m)) and not _TRIP.search(m.string):
        place = _place(view, m.group("place"))
        if place is not None and not _is_country(place):
            yield _Hit(sentence.speaker, "location", place, 0.65, "place")


def _home_hits(view: _View, sentence: _Sentence, m: re.Match[str]) -> Iterator[_Hit]:
    # "We closed on a house in Denver", "the move to Austin went fine": where they live now.
    place = _place(view, m.group("place"))
    if place is not None and _own_clause(m):
        yield _Hit(sentence.speaker, "location", place, 0.7, "place")


# Words that make an arrival a move, not a visit: "we made it to Toronto! the movers come Friday".
_MOVE_WORDS = re.compile(
    r"\b(?:move|moved|moving|movers|unpack\w*|boxes|for\s+good|officially|new\s+(?:place|flat|"
    r"apartment|house|home|city))\b",
    re.IGNORECASE,
)


def _turn_text(view: _View, sentence: _Sentence) -> str:
    """The whole turn a sentence is in: the words around it tell a move from a visit."""
    return " ".join(s.text for s in view.sentences if s.turn == sentence.turn)


def _arrived_hits(view: _View, sentence: _Sentence, m: re.Match[str]) -> Iterator[_Hit]:
    turn = _turn_text(view, sentence)
    if _MOVE_WORDS.search(turn) and not _TRIP.search(turn):
        yield from _home_hits(view, sentence, m)


def _former_employer_hits(view: _View, sentence: _Sentence, m: re.Match[str]) -> Iterator[_Hit]:
    org = _org(m.group("org"))
    if org is not None:
        yield _Hit(sentence.speaker, "previous_employer", org, 0.75, "organization")


# "I joined Kestrel Labs": a name that ends like a company is a workplace, unlike "a book club".
_COMPANY_WORD = (
    r"(?:Labs?|Inc\.?|Ltd\.?|LLC|Group|Corp\.?|Corporation|Technologies|Tech|Solutions|Health|"
    r"Bank|Capital|Partners|Studios?|Agency|Consulting|Systems|Software|Media|Hospital|Clinic)"
)


# "Started at Nando's then went dancing" is no job: a start needs work in the turn, or a company.
_WORK_WORDS = re.compile(
    r"\b(?:job|work|working|role|position|team|boss|manager|office|onboarding|colleagues|"
    r"coworkers|co-workers|hired|offer|shift|salary|first\s+(?:day|week))\b",
    re.IGNORECASE,
)


def _started_hits(view: _View, sentence: _Sentence, m: re.Match[str]) -> Iterator[_Hit]:
    if _WORK_WORDS.search(_turn_text(view, sentence)) or re.search(
        rf"\b{_COMPANY_WORD}$", m.group("org")
    ):
        yield from _workplace_hits(view, sentence, m)


def _workplace_hits(view: _View, sentence: _Sentence, m: re.Match[str]) -> Iterator[_Hit]:
    # "My first week at Kestrel Labs", "I started at Kestrel Labs": an employer, or a school.
    org = _org(m.group("org"))
    if org is None or org.lower().removeprefix("the ").split()[0] in _NOT_PLACES:
        return
    local = "school" if _SCHOOL_WORDS.search(org) else "employer"
    yield _Hit(sentence.speaker, local, org, 0.7, "organization")


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


def _car_hits(view: _View, sentence: _Sentence, m: re.Match[str]) -> Iterator[_Hit]:
    car = _clean_value(m.group("car"))
    if car and car.split()[0].lower() not in _NOT_NAMES and len(car) <= 40:
        yield _Hit(sentence.speaker, "car", car, 0.8 if _own_clause(m) else 0.65)


# --- pets named in passing ---

_NAME_ONLY = r"(?P<name>[A-Z][a-z'’-]+)"
# Openers a capital word is no name in: "Anyway, my dog ...".
_DISCOURSE_TEXT = """
    anyway anyways honestly seriously basically actually sadly luckily unfortunately
    fortunately apparently plus btw update guess ugh welp meanwhile also still then sometimes
    lately recently"""
_DISCOURSE = frozenset(_DISCOURSE_TEXT.split())


def _pet_name_hits(view: _View, sentence: _Sentence, m: re.Match[str]) -> Iterator[_Hit]:
    name = m.group("name")
    people = {p.lower().split()[0] for p in view.participants}
    lowered = name.lower()
    if _name_ok(name) and lowered not in _DISCOURSE and lowered not in people:
        yield _Hit(sentence.speaker, _PETS[m.group("rel").lower()], name, 0.75, "other")


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


def _pet_candidates(view: _View, turn: list[_Sentence]) -> Iterator[tuple[str, str]]:
    """(pet kind, name) for pets named in passing in one turn."""
    kinds = [
        m.group("pet")
        for s in turn
        if (m := _PET_MENTION.search(s.text) or _PET_EPITHET.match(s.text))
        or (m := _PET_EPITHET_TAIL.search(s.text))
    ]
    if not kinds:
        return
    kind = _PETS[kinds[0].lower()]
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


def _pet_answer(view: _View, question: _Sentence, answer: _Sentence) -> Iterator[tuple[str, str]]:
    """A pet named in answer to "what's your dog called?"."""
    asked = _PET_QUESTION.search(question.text)
    if asked is None or not is_question(question.text) or not _NAME_QUESTION.search(question.text):
        return
    named = _NAME_ANSWER.match(answer.text)
    if named is not None:
        yield _PETS[asked.group("pet").lower()], named.group("name")


# --- hobbies, instruments, sports and languages ---

_INSTRUMENT_TEXT = """
    piano keyboard keyboards guitar bass violin viola cello saxophone sax drums drum ukulele uke
    flute clarinet trumpet trombone tuba harp banjo mandolin accordion harmonica oboe bassoon
    organ synth synthesizer bagpipes fiddle xylophone marimba sitar tabla djembe bongos
    harmonium piccolo"""
_INSTRUMENT = "|".join(sorted(_INSTRUMENT_TEXT.split(), key=len, reverse=True))
_INSTRUMENT_NAMES = {"sax": "saxophone", "uke": "ukulele", "drum": "drums", "keyboards": "keyboard"}
# Instruments no other word is spelt like, safe to read in a bare answer ("a bit of sax").
_CLEAR_INSTRUMENTS = re.compile(
    r"\b(?P<inst>piano|guitar|violin|viola|cello|saxophone|sax|drums|ukulele|uke|flute|"
    r"clarinet|trumpet|trombone|tuba|harp|banjo|mandolin|accordion|harmonica|oboe|bassoon|"
    r"bagpipes|fiddle|xylophone|sitar)\b",
    re.IGNORECASE,
)
_PLAY_QUESTION = re.compile(r"\b(?:play|instruments?)\b", re.IGNORECASE)
_SPORT_TEXT = """
    tennis, golf, football, soccer, basketball, baseball, volleyball, rugby, cricket, hockey,
    ice hockey, badminton, squash, pickleball, padel, chess, poker, bridge, darts, pool, snooker,
    ultimate frisbee, frisbee, softball, table tennis, ping pong, lacrosse, netball, handball,
    water polo, mahjong, video games, board games, d&d, dungeons and dragons, scrabble"""
_SPORT = "|".join(
    re.escape(w.strip()).replace(r"\ ", r"\s+")
    for w in sorted(_SPORT_TEXT.split(","), key=len, reverse=True)
)
_HOBBY_TEXT = """
    pottery, ceramics, painting, knitting, crochet, crocheting, yoga, pilates, running, jogging,
    rock climbing, climbing, bouldering, hiking, cycling, mountain biking, biking, swimming,
    surfing, photography, gardening, baking, woodworking, birdwatching, bird watching, fishing,
    ice skating, skating, skateboarding, skiing, snowboarding, dancing, salsa, ballet, boxing,
    kickboxing, karate, judo, taekwondo, jiu jitsu, jiu-jitsu, fencing, archery, calligraphy,
    journaling, sewing, embroidery, quilting, meditation, kayaking, canoeing, rowing, sailing,
    scuba diving, drawing, sketching, astronomy, scrapbooking, origami, crossfit, weightlifting,
    powerlifting, trail running, martial arts, choir, improv, singing, poetry, blogging, cooking,
    tai chi, spinning, zumba, barre, rollerblading, horse riding, horseback riding, triathlons,
    marathons, writing"""
_HOBBY = "|".join(
    re.escape(w.strip()).replace(r"\ ", r"\s+")
    for w in sorted(_HOBBY_TEXT.split(","), key=len, reverse=True)
)
_LANGUAGE_TEXT = """
    spanish french german italian portuguese japanese mandarin chinese cantonese korean arabic
    russian hindi urdu dutch swedish norwegian danish finnish greek turkish polish hebrew swahili
    shona ndebele zulu xhosa afrikaans vietnamese thai tagalog irish welsh asl latin"""
_LANGUAGE = "|".join(_LANGUAGE_TEXT.split())
_LESSONS = r"(?i:lessons|classes|class|course|workshop)"


def _slug(phrase: str) -> str:
    return "_".join(re.sub(r"[^\w]", "", w) for w in phrase.lower().replace("&", "and").split())


def _plays_hits(view: _View, sentence: _Sentence, m: re.Match[str]) -> Iterator[_Hit]:
    found = m.group("inst") or m.group("game")
    thing = " ".join(found.lower().split())
    thing = _INSTRUMENT_NAMES.get(thing, thing)
    learning = "learn" in m.group(0).lower()
    yield _Hit(sentence.speaker, f"plays_{_slug(thing)}", True, 0.7 if learning else 0.8)


def _hobby_hits(view: _View, sentence: _Sentence, m: re.Match[str]) -> Iterator[_Hit]:
    found = m.groupdict().get("hobby") or _HOBBY_VERBS[m.group("verb").lower()]
    hobby = _slug(" ".join(found.split()).replace("-", " "))
    yield _Hit(sentence.speaker, f"hobby_{hobby}", True, 0.75)


# "I paint", "I run every morning": a verb said as a habit, with nothing after it but when.
_HOBBY_VERBS = {
    "paint": "painting",
    "draw": "drawing",
    "knit": "knitting",
    "bake": "baking",
    "sing": "singing",
    "dance": "dancing",
    "run": "running",
    "swim": "swimming",
    "hike": "hiking",
    "surf": "surfing",
    "climb": "climbing",
    "skate": "skating",
    "ski": "skiing",
    "cycle": "cycling",
    "sew": "sewing",
    "crochet": "crochet",
    "garden": "gardening",
    "meditate": "meditation",
    "boulder": "bouldering",
    "jog": "jogging",
    "cook": "cooking",
}
_HABIT_END = (
    r"(?=\s*[,.;:!?)…]|\s*$|\s+(?i:every|a\s+lot|most|on\s+weekends|on\s+the\s+weekends|"
    r"on\s+\w+days|in\s+my\s+(?:free|spare)\s+time|for\s+fun|regularly|daily|whenever|"
    r"sometimes|when\s+i\s+can|twice|three\s+times|once\s+a|in\s+a\s+choir|competitively|"
    r"too|as\s+well|and|now|again|these\s+days|lol|haha)\b)"
)


def _language_hits(view: _View, sentence: _Sentence, m: re.Match[str]) -> Iterator[_Hit]:
    language = m.group("lang").lower()
    verb = "speaks" if re.search(r"speak|fluent", m.group(0), re.I) else "learning"
    yield _Hit(sentence.speaker, f"{verb}_{language}", True, 0.75)


# --- allergies, diet and education ---

_NOT_ALLERGENS_TEXT = """
    the this that my it food seasonal weird little stupid i we you sadly lol haha though too also
    unfortunately apparently honestly tbh now"""
_NOT_ALLERGENS = frozenset(_NOT_ALLERGENS_TEXT.split())


def _allergy_hits(view: _View, sentence: _Sentence, m: re.Match[str]) -> Iterator[_Hit]:
    for part in re.split(r"\s*,\s*|\s+(?:and|&|or)\s+", m.group("obj")):
        topic = topic_key(part)
        if topic and topic.split("_")[0] not in _NOT_ALLERGENS:
            yield _Hit(sentence.speaker, f"allergic_to_{topic}", True, 0.85)


_DIET_TEXT = "vegan vegetarian pescatarian pescetarian veggie plant keto free kosher halal teetotal"


def _diet_hits(view: _View, sentence: _Sentence, m: re.Match[str]) -> Iterator[_Hit]:
    diet = " ".join(m.group("diet").lower().split()).replace(" ", "-")
    yield _Hit(sentence.speaker, "diet", diet, 0.8)


def _intolerance_hits(view: _View, sentence: _Sentence, m: re.Match[str]) -> Iterator[_Hit]:
    yield _Hit(sentence.speaker, f"{m.group('what').lower()}_intolerant", True, 0.8)


_DEGREE = (
    r"(?P<degree>(?i:master'?s|masters|master|ph\.?d\.?|doctorate|bachelor'?s|bachelors|"
    r"associate'?s|diploma|postgrad|pgce)|MA|MSc|MS|MBA|MFA|MPH|MEd|BA|BSc|BS|BEd|JD|MD)"
)
_FIELD = r"(?P<field>[A-Za-z][\w-]*(?:\s+(?:and\s+)?[A-Za-z][\w-]*){0,3}?)"
_NOT_FIELDS_TEXT = """
    new first second whole four-year online college university uni undergrad grad the a my
    part-time full-time undergraduate graduate bachelor bachelors masters degree too"""
_NOT_FIELDS = frozenset(_NOT_FIELDS_TEXT.split())


_DEGREE_GATE = gate(
    "master masters phd ph doctorate bachelor bachelors associate diploma postgrad pgce ma msc "
    "ms mba mfa mph med ba bsc bs bed jd md"
)


def _degree_hits(view: _View, sentence: _Sentence, m: re.Match[str]) -> Iterator[_Hit]:
    field = _clean_value(m.group("field") or "")
    if not field or field.split()[0].lower() in _NOT_FIELDS | _NOT_NAMES:
        return
    degree = m.groupdict().get("degree")
    if degree:
        yield _Hit(sentence.speaker, "degree", f"{degree} in {field}", 0.8)
    yield _Hit(sentence.speaker, "field_of_study", field, 0.75)
    org = _org(m.groupdict().get("org") or "")
    if org is not None:
        yield _Hit(sentence.speaker, "school", org, 0.75, "organization")


def _degree_only_hits(view: _View, sentence: _Sentence, m: re.Match[str]) -> Iterator[_Hit]:
    yield _Hit(sentence.speaker, "degree", m.group("degree"), 0.75)


_SCHOOL_FIELDS = {
    "med": "medicine",
    "medical": "medicine",
    "vet": "veterinary medicine",
    "veterinary": "veterinary medicine",
    "dental": "dentistry",
}


def _school_field_hits(view: _View, sentence: _Sentence, m: re.Match[str]) -> Iterator[_Hit]:
    field = m.group("field").lower()
    yield _Hit(sentence.speaker, "field_of_study", _SCHOOL_FIELDS.get(field, field), 0.75)


def _graduated_hits(view: _View, sentence: _Sentence, m: re.Match[str]) -> Iterator[_Hit]:
    org = _org(m.group("org"))
    if org is not None:
        yield _Hit(sentence.speaker, "school", org, 0.75, "organization")


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
    if not words or lowered[0] in _NEG_JUNK or lowered[0] in _NOT_LAST:
        return None
    # "never finished the game", "don't eat their classics": the thing is the chat's, not named.
    deictic = any(a == "the" and b[:1].islower() for a, b in zip(lowered, words[1:], strict=False))
    if deictic or any(w in _NOT_IN_VALUE for w in lowered):
        return None
    return topic_key(raw)


# "I don't have work today": a state of the day, not of the person.
_FOR_NOW = re.compile(
    r"^[^,.;:!?]*?\b(?:today|tonight|tomorrow|right\s+now|at\s+the\s+moment|this\s+week|yet)\b",
    re.IGNORECASE,
)


def _dont_hits(view: _View, sentence: _Sentence, m: re.Match[str]) -> Iterator[_Hit]:
    verb = m.group("verb").lower()
    confidence = 0.7 if m.groupdict().get("we") else 0.8
    if _FOR_NOW.match(m.string[m.end() :]) or _FOR_NOW.match(m.group("obj") or ""):
        return
    if not _ends_clause_at(m.string, m.end()):
        return
    if m.group("obj"):
        topic = _negative_topic(m.group("obj"))
        if topic is not None:
            yield _Hit(sentence.speaker, f"does_not_{verb}_{topic}", True, confidence)
    elif verb in _BARE_HABITS:
        yield _Hit(sentence.speaker, f"does_not_{verb}", True, confidence)


def _never_hits(view: _View, sentence: _Sentence, m: re.Match[str]) -> Iterator[_Hit]:
    if not _ends_clause_at(m.string, m.end()):
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
        yield _Hit(sentence.speaker, f"never_{_slug(verb)}_{'to_' * to}{topic}", True, 0.8)


def _rid_hits(view: _View, sentence: _Sentence, m: re.Match[str]) -> Iterator[_Hit]:
    topic = _negative_topic(m.group("obj"))
    if topic is not None:
        yield _Hit(sentence.speaker, f"does_not_own_{topic}", True, 0.7)


def _cannot_hits(view: _View, sentence: _Sentence, m: re.Match[str]) -> Iterator[_Hit]:
    yield _Hit(sentence.speaker, f"cannot_{topic_key(m.group('skill'))}", True, 0.75)


def _quit_hits(view: _View, sentence: _Sentence, m: re.Match[str]) -> Iterator[_Hit]:
    yield _Hit(sentence.speaker, f"quit_{_slug(m.group('habit'))}", True, 0.8)


def _casual_rules() -> tuple[_Triggered, ...]:
    loc, job = _binder(_location_hits), _binder(_job_hits)
    table: list[tuple[str | frozenset[str], str, Rule]] = [
        # homes, including the ones settled into ("first week in Austin done")
        (
            gate("moved relocated"),
            rf"{_ME}{_MOVED}(?:\s+(?i:from)\s+(?P<origin>{_PLACE_WORD}(?:\s+{_PLACE_WORD})*))?"
            rf"\s+(?i:to)\s+{_PLACE}",
            _moved_hits,
        ),
        (gate("living based"), rf"{_BARE}(?i:living|based)\s+(?i:in)\s+{_PLACE}", loc("location")),
        (
            gate("first second third 1st 2nd"),
            r"(?:^|(?<![\w'])(?i:my|our)\s+)(?i:first|second|third|1st|2nd)\s+"
            rf"(?i:weeks?|months?)\s+(?i:in)\s+{_PLACE}",
            _settled_hits,
        ),
        (
            gate("settling settled"),
            rf"(?i:settling|settled)\s+(?i:in(?:to)?)\s+(?:(?i:life\s+in)\s+)?{_PLACE}",
            _settled_hits,
        ),
        (
            gate("life"),
            rf"(?:^|(?<![\w'])(?i:loving|enjoying)\s+)(?i:life)\s+(?i:in)\s+{_PLACE}",
            _settled_hits,
        ),
        (
            gate("new"),
            r"(?<![\w'])(?i:my|our)\s+new\s+(?i:place|flat|apartment|house|home|condo|"
            rf"neighbou?rhood)\s+(?i:in)\s+{_PLACE}",
            _settled_hits,
        ),
        (
            gate("house home place flat apartment condo"),
            rf"{_ME}(?i:bought|closed\s+on|found|signed\s+(?:a|the)\s+lease\s+on|moved\s+into)\s+"
            r"(?i:a|an|our|my|the)\s+(?:(?i:new|first|little|own|dream)\s+)*"
            rf"(?i:house|home|place|flat|apartment|condo)\s+(?i:in)\s+{_PLACE}",
            _home_hits,
        ),
        (
            gate("since after moving relocating move"),
            r"(?<![\w'])(?i:since|after)\s+(?:(?i:moving|relocating|the\s+move|our\s+move|"
            rf"my\s+move)\s+)(?i:to)\s+{_PLACE}",
            _home_hits,
        ),
        (
            gate("unpacking unpacked unpack"),
            r"(?<![\w'])(?i:unpack(?:ing|ed)?)\s+(?:(?i:the\s+)?(?i:last\s+)?(?i:boxes)\s+)?"
            rf"(?i:in)\s+{_PLACE}",
            _home_hits,
        ),
        (
            gate("made arrived landed"),
            rf"{_ME}(?i:made\s+it|arrived|landed)\s+(?i:to|in)\s+{_PLACE}",
            _arrived_hits,
        ),
        (
            gate("move"),
            rf"(?<![\w'])(?i:the|our|my)\s+(?i:move)\s+(?i:to)\s+{_PLACE}\s+"
            r"(?i:went|was|is\s+(?:finally\s+)?(?:done|complete|over))\b",
            _home_hits,
        ),
        # work: started, first weeks, new teams, and lines without their "I"
        (
            gate("started began"),
            rf"{_ME}(?i:started|began)\s+(?i:at|with)\s+{_ORG}",
            _started_hits,
        ),
        (
            gate("first second third 1st 2nd"),
            r"(?:^|(?<![\w'])(?i:my|our)\s+)(?i:first|second|third|1st|2nd)\s+"
            rf"(?i:days?|weeks?|months?)\s+(?i:at)\s+{_ORG}",
            _workplace_hits,
        ),
        (
            gate("new"),
            r"(?<![\w'])(?i:my|our)\s+new\s+(?i:job|role|position|gig|team|boss|manager|office|"
            rf"colleagues|coworkers|co-workers)\s+(?i:at|with)\s+{_ORG}",
            _workplace_hits,
        ),
        (
            gate("job position role gig internship"),
            rf"{_BARE}(?i:started|began|got|landed|accepted|took|found)\s+{_NEW_JOB}"
            rf"(?:\s+(?i:as)\s+(?:(?i:an?)\s+)?{_JOB}{_STOP})?(?:\s+(?i:at|with|for)\s+{_ORG})?",
            job(True),
        ),
        (gate("working"), rf"{_BARE}(?i:working)\s+(?i:at|for)\s+{_ORG}", job(True)),
        (
            gate("joined"),
            rf"{_ME}(?i:joined)\s+{_ORG}\s+(?i:as)\s+(?:(?i:an?|the)\s+)?{_JOB}{_STOP}",
            job(True),
        ),
        (
            gate("joined"),
            rf"{_ME}(?i:joined)\s+(?P<org>(?:[Tt]he\s+)?(?:{_ORG_WORD}\s+){{0,3}}{_COMPANY_WORD})",
            _workplace_hits,
        ),
        (
            gate("offer"),
            rf"{_ME}(?i:accepted|took|signed)\s+(?i:the|an|their|a)\s+(?:(?i:job)\s+)?(?i:offer)\s+"
            rf"(?i:from|at|with)\s+{_ORG}",
            _workplace_hits,
        ),
        (
            gate("boss manager coworkers colleagues co-workers team"),
            r"(?<![\w'])(?i:my|our)\s+(?i:boss|manager|coworkers|colleagues|co-workers|team)\s+"
            rf"(?i:at)\s+{_ORG}",
            _workplace_hits,
        ),
        (
            gate("lost quit left laid let fired"),
            rf"{_ME}(?:(?i:lost|quit|left)\s+(?i:my)\s+(?i:job|position|role)\s+(?i:at|with)|"
            r"(?i:got|was|been)\s+(?i:laid\s+off|let\s+go|fired)\s+(?i:from|by))\s+"
            rf"{_ORG}",
            _former_employer_hits,
        ),
        # cars
        (
            gate(_MAKE_TEXT, _MODEL_TEXT),
            rf"(?:{_ME}|{_IM}{_ADV}\s+)(?i:got|bought|picked\s+up|leased|drive|driving|"
            rf"upgraded\s+to|traded\s+up\s+for)\s+(?:(?i:a|an|my|our|the|this)\s+)?{_CAR_NEW}"
            rf"{_CAR}",
            _car_hits,
        ),
        (
            gate(_CAR_NOUN_TEXT),
            rf"{_ME}(?i:got|bought|picked\s+up|leased)\s+(?:(?i:a|an|my|our)\s+)?{_CAR_NEW}"
            rf"{_CAR_NOUN}\s*(?:[,:—–-]+|!+)\s*(?:(?i:a|an|the|it's\s+a|its\s+a)\s+)?"
            rf"{_CAR_AFTER_NOUN}",
            _car_hits,
        ),
        (
            gate("traded trade"),
            rf"{_ME}(?i:traded)\s+(?:(?i:in)\s+)?(?:(?i:my|our|the)\s+)?(?:[\w-]+\s+){{1,3}}?"
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
            gate(*_PETS),
            rf"(?<![\w'])(?i:a|an)\s+{_REL_MODIFIERS}(?P<rel>(?i:{_PET_WORDS})),\s+{_NAME_ONLY}"
            r"(?=\s*[,.!?)…]|\s*$|\s+(?i:and|who|from|lol|haha)\b)",
            _pet_name_hits,
        ),
        (
            gate(*_PETS),
            rf"(?:^|(?<=[\s(]))(?P<name>{_NAME_WORD})(?:\s*,\s*|\s+(?i:is|'s)\s+|\s+)"
            rf"(?i:my|our)\s+{_REL_MODIFIERS}(?P<rel>(?i:{_PET_WORDS}))(?=\s*[,.!?)…]|\s*$)",
            _pet_name_hits,
        ),
        # instruments, sports, hobbies and languages
        (
            gate(_INSTRUMENT_TEXT),
            rf"(?:{_ME}|{_IM}{_ADV}\s+)(?i:play|plays|playing|been\s+playing|learning|learn|"
            r"been\s+learning|(?:started|began|begun)\s+(?:learning|playing|to\s+learn)|"
            r"learned|learnt|took\s+up|taken\s+up|picked\s+up|practi[cs]e|practi[cs]ing)\s+"
            r"(?:(?i:to\s+play|how\s+to\s+play)\s+)?(?:(?i:the|a\s+bit\s+of|some|a\s+little|"
            r"a\s+lot\s+of|my|our|bass|lead|rhythm|electric|acoustic|classical|jazz)\s+)*"
            rf"(?P<inst>(?i:{_INSTRUMENT}))(?![\w-])(?P<game>)",
            _plays_hits,
        ),
        (
            gate("lessons classes class course teacher"),
            rf"(?:(?<![\w'])(?i:my|our)|{_ME}(?i:take|taking|started|booked|signed\s+up\s+for|"
            rf"have)|{_IM}{_ADV}\s+(?i:taking|doing))\s+(?:(?i:some|a|an)\s+)?"
            rf"(?P<inst>(?i:{_INSTRUMENT}))\s+(?i:lessons|classes|class|course|teacher)(?P<game>)",
            _plays_hits,
        ),
        (
            gate("play playing"),
            rf"(?:{_ME}|{_IM}{_ADV}\s+)(?i:play|playing|been\s+playing)\s+"
            r"(?:(?i:a\s+lot\s+of|some|a\s+bit\s+of|competitive|casual|pickup|weekly)\s+)?"
            rf"(?P<game>(?i:{_SPORT}))(?![\w-])(?P<inst>)",
            _plays_hits,
        ),
        (
            gate(_HOBBY_TEXT),
            rf"(?:{_ME}|{_IM}{_ADV}\s+)(?i:took\s+up|taken\s+up|picked\s+up|started|"
            r"got\s+into|gotten\s+into|getting\s+into|been\s+getting\s+into|do|doing|been\s+doing|"
            r"go|been\s+going|practi[cs]e|practi[cs]ing)\s+"
            r"(?:(?i:a\s+lot\s+of|some|a\s+bit\s+of|more|lots\s+of|a\s+little)\s+)?"
            rf"(?P<hobby>(?i:{_HOBBY}))(?![\w-])(?!\s+(?i:shoes|gear|trip|tomorrow|tonight))",
            _hobby_hits,
        ),
        (
            frozenset(_HOBBY_VERBS),
            rf"{_SELF}{_ADV}\s+(?P<verb>(?i:{'|'.join(_HOBBY_VERBS)})){_HABIT_END}(?P<hobby>)",
            _hobby_hits,
        ),
        (
            gate("lessons classes class course workshop"),
            # "I took a pilates class" is one class; taking or joining them is a hobby.
            rf"(?:{_ME}(?i:take|taking|started|joined|booked|signed\s+up\s+for|enrolled\s+in)"
            rf"|{_IM}{_ADV}\s+(?i:taking|doing))\s+(?:(?i:a|an|some|the)\s+)?"
            rf"(?P<hobby>(?i:{_HOBBY}))\s+{_LESSONS}",
            _hobby_hits,
        ),
        (
            gate(_LANGUAGE_TEXT),
            rf"(?:(?:{_ME}|{_IM}{_ADV}\s+)(?i:learning|learn|started\s+learning|"
            rf"been\s+learning|speak|taking)\s+(?:(?i:some|a\s+bit\s+of|a\s+little|fluent|"
            rf"basic|conversational)\s+)?|{_IM}{_ADV}\s+(?i:fluent\s+in)\s+)"
            rf"(?P<lang>(?i:{_LANGUAGE}))(?![\w-])",
            _language_hits,
        ),
        # allergies and diet
        (
            gate("allergic"),
            rf"(?:{_IM}{_ADV}\s+|{_BARE}|{_SUBJ}{_ADV}\s+(?i:been|become|got)\s+)"
            r"(?:(?i:super|very|really|so|severely|deathly|mildly|a\s+bit|slightly|badly|"
            r"seriously|quite|also|horribly)\s+)*(?i:allergic)\s+(?i:to)\s+"
            r"(?P<obj>[A-Za-z][\w'-]*(?:\s+[A-Za-z][\w'-]*)?(?:(?:\s*,\s*|\s+(?i:and|&|or)\s+)"
            rf"[A-Za-z][\w'-]*(?:\s+[A-Za-z][\w'-]*)?)*){_END}",
            _allergy_hits,
        ),
        (
            gate("allergy allergies"),
            rf"(?:{_SUBJ}{_ADV}\s+(?i:have|got)|(?<![\w'])(?i:my))\s+(?:(?i:a|an)\s+)?"
            r"(?:(?i:severe|bad|mild|serious|nasty|massive|deadly|new)\s+)?"
            r"(?P<obj>[a-z]+(?:\s+[a-z]+)?)\s+(?i:allergy|allergies)\b",
            _allergy_hits,
        ),
        (
            gate(_DIET_TEXT),
            rf"(?:{_IM}{_ADV}\s+|{_SUBJ}{_ADV}\s+(?i:been|went|gone|turned)\s+|{_BARE}(?i:went)\s+)"
            r"(?:(?i:a|an|strictly|fully|mostly|full)\s+)*(?P<diet>(?i:vegetarian|vegan|"
            r"pescatarian|pescetarian|veggie|plant[\s-]based|keto|gluten[\s-]free|"
            r"dairy[\s-]free|kosher|halal|teetotal))(?![\w-])",
            _diet_hits,
        ),
        (
            gate("intolerant"),
            rf"{_IM}{_ADV}\s+(?P<what>(?i:lactose|gluten|dairy))\s+(?i:intolerant)",
            _intolerance_hits,
        ),
        # education
        (
            _DEGREE_GATE,
            rf"(?:(?:{_IM}{_ADV}\s+|{_BARE})(?i:doing|studying\s+for|working\s+on|"
            r"working\s+towards|pursuing|taking|finishing|starting|halfway\s+through|in\s+the\s+"
            rf"middle\s+of)|{_SUBJ}{_ADV}\s+(?i:have|got|earned|finished|completed|started|began|"
            r"hold|did|enrolled\s+in|signed\s+up\s+for)|(?<![\w'])(?i:my))\s+"
            r"(?:(?i:a|an|my|the)\s+)?(?:(?i:part-time|online|full-time|new)\s+)?"
            rf"{_DEGREE}(?:\s+(?i:degree))?\s+(?i:in|of)\s+{_FIELD}{_STOP}"
            rf"(?:\s+(?i:at|from)\s+{_ORG})?",
            _degree_hits,
        ),
        (
            gate("degree"),
            rf"(?:{_IM}{_ADV}\s+(?i:doing|finishing|starting)|{_SUBJ}{_ADV}\s+(?i:have|got|"
            r"earned|finished|completed|started)|(?<![\w'])(?i:my))\s+(?:(?i:a|an|my)\s+)?"
            rf"(?P<field>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)\s+(?i:degree)(?P<degree>)"
            rf"(?:\s+(?i:at|from)\s+{_ORG})?",
            _degree_hits,
        ),
        (
            gate("degree"),
            rf"(?:{_SUBJ}{_ADV}\s+(?:(?i:got)\s+)?(?i:have|got|earned|did|hold|finished|completed)|"
            r"(?<![\w'])(?i:my))\s+(?:(?i:a|an|my|the)\s+)?(?:(?i:university|college|uni|"
            r"undergrad|undergraduate)\s+)?(?i:degree)(?P<degree>)\s+(?:(?i:is|was)\s+)?(?i:in)\s+"
            rf"{_FIELD}{_STOP}(?:\s+(?i:at|from)\s+{_ORG})?",
            _degree_hits,
        ),
        (
            _DEGREE_GATE,
            rf"(?:{_IM}{_ADV}\s+(?i:doing|finishing|starting)|{_SUBJ}{_ADV}\s+(?i:have|got|earned|"
            rf"finished|completed|started|began))\s+(?i:a|an|my)\s+{_DEGREE}(?:\s+(?i:degree))?"
            r"(?=\s*[,.;:!?)…]|\s*$|\s+(?i:and|but|so|last|this|yesterday|today|lol|haha|"
            r"at\s+last|finally)\b)",
            _degree_only_hits,
        ),
        (
            gate("school"),
            rf"(?:{_IM}{_ADV}\s+(?i:in|at|back\s+in|starting|going\s+to)\s+|"
            rf"{_BARE}(?i:started|finished)\s+)(?P<field>(?i:law|med|medical|nursing|dental|vet|"
            r"veterinary|art|culinary|film|business|design|music|drama|beauty|cooking))\s+"
            r"(?i:school)\b",
            _school_field_hits,
        ),
        (
            gate("graduated"),
            rf"{_ME}(?i:graduated)\s+(?i:from)\s+{_ORG}",
            _graduated_hits,
        ),
        # negative facts: habits, things never done, skills lacking, habits quit
        (
            r"(?:n't|dont|do not|no longer|never)\s+(?:\w+\s+)?(?:eat|drink|own|smoke|drive|"
            r"watch|wear|use|speak|play|celebrate|cook|vape|gamble)\b",
            # An explicit subject: a line opening with "Don't smoke" gives advice. "Have" is left
            # out: "I don't have work today", "... any of the three", "... to worry" are no facts.
            rf"{_SUBJ}{_ADV}\s+(?i:don't|dont|do\s+not|no\s+longer|never)\s+"
            r"(?:(?i:really|even|usually|actually|ever|generally)\s+)?"
            r"(?P<verb>(?i:eat|drink|own|smoke|drive|watch|wear|use|speak|play|celebrate|"
            rf"cook|vape|gamble))(?:\s+(?:(?i:a|an|any|the|much|many)\s+)?{_OBJ})?{_END}",
            _dont_hits,
        ),
        (
            gate("can cannot"),
            rf"{_ME}(?i:can't|cannot|can\s+not)\s+(?:(?i:really|even|actually)\s+)?"
            rf"(?P<verb>(?i:eat|drink))\s+(?:(?i:a|an|any|the|much)\s+)?{_OBJ}{_END}",
            _dont_hits,
        ),
        (
            gate("rid"),
            rf"{_ME}(?i:got\s+rid\s+of)\s+(?i:our|my|the)\s+{_OBJ}{_END}",
            _rid_hits,
        ),
        (
            gate("never"),
            rf"{_ME}(?i:never)\s+(?:(?i:actually|really|even|once|properly)\s+)?"
            # "Had" is left out: "never had a cat before (and now I have one)", "never had to".
            r"(?P<verb>(?i:learned|learnt|been|tried|seen|saw|visited|owned|read|watched|"
            r"played|met|ridden|rode|driven|drove|eaten|ate|finished|went|flown|flew|climbed|"
            r"skied|travell?ed|got\s+around\s+to|gotten\s+around\s+to|done|did|won|lived|"
            r"studied))\s+"
            r"(?P<obj>(?:(?i:how\s+)?(?i:to)\s+)?[A-Za-z][\w'&-]*(?:\s+[A-Za-z][\w'&-]*){0,3}?)"
            rf"{_END}",
            _never_hits,
        ),
        (
            gate("can cannot"),
            rf"{_ME}(?i:can't|cannot|can\s+not)\s+(?:(?i:really|even|actually)\s+)?"
            r"(?P<skill>(?i:swim|drive|cook|ski|skate|dance|sing|whistle|ride\s+a\s+bike|"
            r"ride\s+a\s+bicycle|read\s+music|knit|sew|spell))"
            r"(?=\s*[,.;:!?)…]|\s*$|\s+(?i:at\s+all|to\s+save\s+my\s+life|lol|haha|either|"
            r"very\s+well|well|properly|yet|and|but|so|because|which|tbh)\b)",
            _cannot_hits,
        ),
        (
            gate("quit gave given stopped kicked"),
            rf"{_ME}(?i:quit|gave\s+up|given\s+up|stopped|kicked)\s+"
            r"(?P<habit>(?i:smoking|drinking|vaping|caffeine|coffee|sugar|alcohol|booze|meat|"
            r"dairy|social\s+media|facebook|instagram|twitter|tiktok|cigarettes|gluten|carbs|"
            r"soda|gambling|(?:eating|drinking)\s+[a-z]+))(?![\w-])",
            _quit_hits,
        ),
    ]
    return _compiled(table)


_FACT_RULES = _RuleSet.of(_rules() + _casual_rules())
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _usable(view: _View, sentence: _Sentence) -> bool:
    return not sentence.small_talk and is_person(view, sentence.speaker)


def _fire(
    rules: _RuleSet, view: _View, out: Extraction, sentence: _Sentence, text: str, section: str
) -> None:
    """Emit what each rule the text fires finds at its asserted (not negated) matches."""
    for pattern, rule in rules.fired(text.lower()):
        for match in pattern.finditer(text):
            if is_asserted(text, match.start()) and not _gerund_subject(text, match):
                for hit in rule(view, sentence, match):
                    _emit(view, out, sentence, hit, section, (text, match.end()))


# A line that opens with a gerund and goes on with a verb of its own ("Learning Spanish is a
# great choice", "Doing yoga outside can be peaceful") has the activity as its subject: it is no
# dropped "I" ("working at Acme now"), and is often about "you".
_GERUND_START = re.compile(r"^(?:[a-z]+ly\s+|just\s+|also\s+|so\s+|and\s+)*[a-z]+ing\b", re.I)
_FIRST_PERSON = re.compile(r"(?<![\w'])(?:i|i'm|im|i've|i'd|we|we're|we've|my|our)(?![\w'])", re.I)
_ITS_OWN_VERB = re.compile(
    r"^[^,.;:!?]*?\b(?:is|was|are|were|can|could|must|might|may|will|would|should|sounds|seems|"
    r"looks|has|had|makes|takes|helps|gives)\b",
    re.IGNORECASE,
)


def _gerund_subject(text: str, match: re.Match[str]) -> bool:
    start = _GERUND_START.match(match.group(0))
    if start is None or _FIRST_PERSON.search(match.group(0)) is not None:
        return False
    return _ITS_OWN_VERB.match(text[match.start() + start.end() :]) is not None


# --- what a claim's value may be ----------------------------------------------------------------

# A value is a short phrase naming a thing: a pronoun, filler or a verb of its own makes it a piece
# of a clause ("melatonin it puts me to sleep", "cartoons and stuff", "called Red Horizon"), which
# an agent would read as a fact about nothing.
_NOT_IN_VALUE_TEXT = """
    i me my mine myself you your yours yourself he him his she her hers it its itself we us our
    ours they them their theirs this that these those here there something anything everything
    nothing someone anyone everyone somebody anybody one ones stuff things thing lot lots kinda
    sorta really especially also too more most much very so just even maybe probably actually
    basically literally honestly definitely always etc lol haha lmao omg tbh is are was were be
    been being am do does did have has had can could will would should shall may might must
    called named think guess idk yes yeah no nope ok okay better than such like lately recently
    today tonight tomorrow yesterday now any some every all each both other another various
    different general variety kinds kind sort type types though tho theyre youre thats whats
    dont cant wont isnt im ive"""
_NOT_IN_VALUE = frozenset(_NOT_IN_VALUE_TEXT.split())
# A value that ends on one of these was cut mid-phrase: "fantasy series like", "north of".
_NOT_LAST_TEXT = "a an the of to for with in on at by from like and or but as about into"
_NOT_LAST = frozenset(_NOT_LAST_TEXT.split())
_ARTICLES = frozenset({"a", "an", "the"})
# What may follow a preference's object in its clause: the clause ends, or a time, place or
# reason is added. Anything else ("hot soups more", "bright colors I guess") qualifies it.
_MAY_FOLLOW_TEXT = """
    and but so because cause cuz since when whenever while though although if or as too now
    lately recently these nowadays anymore either anyway lol haha lmao xd today tonight tomorrow
    yesterday right in on at with for from by during every all over around whenever back here
    there which who where especially a most before ever again this last every after until"""
_MAY_FOLLOW = frozenset(_MAY_FOLLOW_TEXT.split())
_VALUE_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_MAX_VALUE_WORDS = 6
_NO_OBJECT_TEXT = """
    using making doing having getting going trying taking giving putting seeing finding keeping
    buying"""
_NO_OBJECT = frozenset(_NO_OBJECT_TEXT.split())
_ADVERB = re.compile(r"[a-z]{3,}ly")
_STRETCHED = re.compile(r"([^\W\d])\1\1", re.IGNORECASE)


def claim_value(view: _View, value: str) -> str | None:
    """``value`` as a short phrase naming a thing, a trailing vocative dropped; None if not one."""
    value = _clean_value(value)
    names = {w.lower() for p in view.participants for w in _VALUE_WORD.findall(p)}
    words = _VALUE_WORD.findall(value)
    while len(words) > 1 and words[-1].lower() in names:  # "marine biology Kevin!"
        value = value[: value.lower().rfind(words[-1].lower())].rstrip(" ,")
        words = words[:-1]
    lowered = [w.lower().replace("’", "'") for w in words]
    if not lowered or len(lowered) > _MAX_VALUE_WORDS or lowered[-1] in _NOT_LAST:
        return None
    if _STRETCHED.search(value):  # "toooo", "himmm": chat emphasis, not a name
        return None
    if lowered == [lowered[0]] and lowered[0] in _NO_OBJECT:
        return None  # "I love using as much garlic as I can": the object was not kept
    if len(lowered) > 1 and _ADVERB.fullmatch(lowered[-1]):
        return None  # "playing occasionally": how, not what
    # A capitalised word is a name ("May", "Will"), whatever its lower case means.
    common = [w if words[i].islower() or words[i] == "I" else "" for i, w in enumerate(lowered)]
    if any(w in _NOT_IN_VALUE or (w.endswith("'s") and w != lowered[-1]) for w in common[1:]):
        return None
    if common[0] in _NOT_IN_VALUE or (lowered[0] in _NOT_LAST and lowered[0] not in _ARTICLES):
        return None
    return value


def _ends_clause_at(text: str, end: int) -> bool:
    """Whether nothing that qualifies what ends at ``end`` follows it ("X more", "X I think")."""
    rest = re.split(r"[,.;:!?()\"“”—–~]| - ", text[end:], maxsplit=1)[0]
    following = [w.lower() for w in _VALUE_WORD.findall(rest)]
    if following[:2] in (["too", "much"], ["too", "many"]):
        return False
    return not following or following[0] in _MAY_FOLLOW


def _emit(
    view: _View,
    out: Extraction,
    sentence: _Sentence,
    hit: _Hit,
    section: str,
    said: tuple[str, int] | None = None,
) -> None:
    """Add what a rule found; ``said`` is the text and where its match ended, if it had one."""
    if isinstance(hit.value, str) and hit.value.lower() in sentence.text.lower():
        # Only what was cut from the chat is judged; a template value ("married") is a claim.
        value = claim_value(view, hit.value)
        # A preference's object must end its clause: "I like iced drinks more" qualifies it.
        cut = section == "prefs" and said is not None and not _ends_clause_at(*said)
        if value is None or cut:
            return
        hit = _Hit(hit.person, hit.local, value, hit.confidence, hit.entity)
    if hit.entity is not None and isinstance(hit.value, str):
        add_entity(out, hit.value, hit.entity)
    if not hit.local:
        return
    key = belief_key(view, hit.person, hit.local)
    if section == "prefs" and _hobby_twin(key) in {*view.known_keys, *(b.key for b in out.facts)}:
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


def _name_alias(view: _View, out: Extraction, hit: _Hit) -> None:
    """A person who says "call me Sam" is also known as Sam."""
    value = str(hit.value)
    speaker = hit.person
    if speaker.lower() in MACHINE_SPEAKERS | {"user", "human"}:
        add_entity(out, value, "person")
    elif value.lower() != speaker.lower():
        add_entity(out, speaker, "person", alias=value)


# Where someone works, studies or volunteers names an organization, even in the past tense.
_ORGANIZATION = re.compile(
    r"(?<![\w'])(?i:work(?:s|ed|ing)?|volunteer(?:s|ed|ing)?|intern(?:s|ed|ing)?|"
    r"stud(?:y|ies|ied|ying)|teach(?:es|ing)?|taught|employed|hired|job|internship|position)"
    rf"\s+(?i:at|for|with|by)\s+{_ORG}"
)


def fact_family(view: _View, out: Extraction) -> None:
    """Facts people state about themselves and their people: home, work, age, family, name."""
    if view.segment.kind == "row":
        return
    for sentence in view.sentences:
        text = statement(sentence.text) if _usable(view, sentence) else None
        if text is None:
            continue
        _fire(_FACT_RULES, view, out, sentence, text, "facts")
        for match in _ORGANIZATION.finditer(text):
            org = _org(match.group("org"))
            if org is not None:
                add_entity(out, org, "organization")
    _turn_facts(view, out)


def _turn_facts(view: _View, out: Extraction) -> None:
    """Facts that need a whole turn, or the question it answers: pets and instruments."""
    turns: dict[int, list[_Sentence]] = {}
    for sentence in view.sentences:
        turns.setdefault(sentence.turn, []).append(sentence)
    asked: _Sentence | None = None  # the last sentence of the turn before
    for turn in turns.values():
        first = turn[0]
        words = {w for s in turn for w in s.words}
        if _usable(view, first) and not words & _NEGATION_WORDS:
            found = list(_pet_candidates(view, turn)) if words & _PET_NOUNS else []
            if asked is not None and asked.speaker != first.speaker:
                found += _pet_answer(view, asked, first)
                for hit in _instrument_answer(asked, first):
                    _emit(view, out, first, hit, "facts")
            people = {p.lower().split()[0] for p in view.participants}
            for kind, name in found:
                if _name_ok(name) and name.lower() not in people | _DISCOURSE:
                    _emit(view, out, first, _Hit(first.speaker, kind, name, 0.7, "other"), "facts")
        asked = turn[-1]


# A turn with any of these is left alone: "nope, never learned", "not my dog".
_NEGATION_WORDS = frozenset(
    {"not", "never", "no", "nope", "don't", "doesn't", "didn't", "isn't", "wasn't", "can't"}
)
_PET_NOUNS = frozenset(_PET_NOUN_TEXT.split())


def _instrument_answer(question: _Sentence, answer: _Sentence) -> Iterator[_Hit]:
    """An instrument named in answer to "what do you play?" ("a bit of saxophone")."""
    if not is_question(question.text) or not _PLAY_QUESTION.search(question.text):
        return
    if is_question(answer.text) or len(answer.words) > 12:
        return
    for match in _CLEAR_INSTRUMENTS.finditer(answer.text):
        thing = match.group("inst").lower()
        yield _Hit(answer.speaker, f"plays_{_INSTRUMENT_NAMES.get(thing, thing)}", True, 0.7)


# --- preferences ----------------------------------------------------------------------------

# Where the object of "I love ..." ends: punctuation, or a word that opens another clause.
_OBJECT = (
    r"(?P<obj>[^,.;:!?()\"“”]{1,80}?)"
    r"(?=\s*[,.;:!?()\"“”]|\s+-\s|\s*$|\s+(?i:but|because|since|so|although|though|when|while|"
    r"whenever|if|too|lol|haha|which|cause|'cause|cuz|as\s+well|as\s+much|these\s+days|"
    r"nowadays|lately|recently|right\s+now|at\s+the\s+moment|anymore|a\s+lot|so\s+much|now|"
    r"(?:this|all|last)\s+(?:year|week|month|summer|winter|spring|fall|autumn|weekend|day)|"
    r"again|either|actually|anyway|honestly|tbh|"
    r"and\s+(?:i|we|it|that|they|he|she|you|my))\b)"
)
_LIKE_VERBS = {
    "love": 0.85,
    "adore": 0.85,
    "enjoy": 0.8,
    "like": 0.75,
    "prefer": 0.75,
    "dig": 0.7,
    "loved": 0.8,
    "liked": 0.8,
    "enjoyed": 0.8,
    "adored": 0.8,
}
# Objects that are about the conversation, not a taste: "I love that", "I love how you ...".
_NOT_TOPIC_TEXT = """
    it that this these those them him her you your yours how what when where why who which
    whatever everything anything something nothing all each one ones lots lot much so very
    being hearing seeing talking chatting reading knowing having getting"""
_NOT_TOPICS = frozenset(_NOT_TOPIC_TEXT.split())
_LEADING_TEXT = "a an the my our some any all of to really just so also too more most going doing"
_LEADING = frozenset([*_LEADING_TEXT.split(), "having", "taking", "spending", "getting"])
_TOPIC_END_TEXT = """
    with in at on for during from by about when because after before around over under and
    or but while than like near into onto through"""
_TOPIC_END = frozenset(_TOPIC_END_TEXT.split())
_TOPIC_SKIP = frozenset({"a", "an", "the", "my", "our", "some", "of", "to", "very", "really"})


def topic_key(phrase: str) -> str | None:
    """``camping`` for "going camping with the kids": up to three head words, or None."""
    words = [w.lower() for w in re.findall(r"[^\W_]+(?:['-][^\W_]+)*", phrase)]
    while words and words[0] in _LEADING:
        words = words[1:]
    head: list[str] = []
    for word in words:
        if word in _TOPIC_END and head:
            break
        if word in _TOPIC_SKIP:
            continue
        head.append(re.sub(r"[^\w]", "", word.replace("'", "")))
        if len(head) == 3:
            break
    topic = "_".join(w for w in head if w)
    return topic or None


def _pref_value(raw: str, *, pointed: bool = False) -> str | None:
    value = _clean_value(raw)
    # "I enjoyed our chat", "I like the following", "I love the vibes": the thing is the
    # conversation's, pointed at rather than named (a favourite may be "the lava cake").
    if not pointed and re.match(r"(?:our|the)\s+[a-z]", value):
        return None
    value = re.sub(r"^my\s+", "", value, flags=re.I)
    words = value.lower().split()
    if not words or words[0] in _NOT_TOPICS or {"you", "your", "yours"} & set(words):
        return None
    return value


def _pref_hits(view: _View, sentence: _Sentence, m: re.Match[str], polarity: str) -> Iterator[_Hit]:
    value = _pref_value(m.group("obj"))
    topic = topic_key(value) if value else None
    if value is None or topic is None:
        return
    verb = " ".join((m.groupdict().get("verb") or "").lower().split())
    confidence = _LIKE_VERBS.get(verb, 0.8 if polarity == "dislikes" else 0.75)
    if polarity == "dislikes" and verb in ("hate", "loathe", "detest", "can't stand"):
        confidence = 0.85
    if m.groupdict().get("we"):
        confidence -= 0.1
    yield _Hit(sentence.speaker, f"{polarity}_{topic}", value, round(confidence, 2))


def _favorite_hits(view: _View, sentence: _Sentence, m: re.Match[str]) -> Iterator[_Hit]:
    value = _pref_value(m.group("obj"), pointed=True)
    if value is None:
        return
    thing = topic_key(m.group("thing") or "")
    if thing is None:
        topic = topic_key(value)
        if topic is not None:
            yield _Hit(sentence.speaker, f"likes_{topic}", value, 0.85)
        return
    yield _Hit(sentence.speaker, f"favorite_{thing}", value, 0.9)


# "X is the best <thing>" names a favourite only for a kind of thing, not "the best part".
_NOT_KINDS_TEXT = """
    thing things part parts way time times day days idea news feeling bit one ones kind sort
    decision move call choice plan option answer advice"""
_NOT_KINDS = frozenset(_NOT_KINDS_TEXT.split())
_DEICTIC_TEXT = "it this that these those today tonight he she they which what"
_DEICTIC = frozenset(_DEICTIC_TEXT.split())


def _best_hits(view: _View, sentence: _Sentence, m: re.Match[str]) -> Iterator[_Hit]:
    thing = m.group("thing").lower()
    first = m.group("obj").split()[0].lower()
    if thing in _NOT_KINDS or first in _DEICTIC:
        return
    yield from _favorite_hits(view, sentence, m)


_NEG_VERB = (
    r"(?P<verb>(?i:hate|dislike|detest|loathe|can't\s+stand|cannot\s+stand|can\s+not\s+stand|"
    r"(?:don't|do\s+not)\s+(?:really\s+|much\s+|particularly\s+)?(?:like|enjoy|love|care\s+for)|"
    r"never\s+(?:really\s+)?(?:liked|enjoyed|cared\s+for)))"
)
_FAN = (
    r"(?i:into|obsessed\s+with|passionate\s+about|crazy\s+about|fond\s+of|keen\s+on|hooked\s+on|"
    r"(?:a\s+)?(?:(?:big|huge|massive|great|real)\s+)?fan\s+of)"
)
_FAVORITE = r"(?i:favou?rite|fave|fav)"


def _pref_rules() -> tuple[_Triggered, ...]:
    pref = _binder(_pref_hits)
    table: list[tuple[str | frozenset[str], str, Rule]] = [
        (
            r"love|adore|enjoy|like|prefer|dig",
            rf"{_SELF}{_ADV}\s+(?P<verb>(?i:love|adore|enjoy|like|prefer|dig))\s+(?!(?i:to\s+)?"
            rf"(?:it|that|this)\b){_OBJECT}",
            pref("likes"),
        ),
        (
            r"loved|liked|enjoyed|adored",
            rf"{_IC}(?i:'ve|\s+have){_ADV}\s+(?:(?i:always)\s+)?(?P<verb>(?i:loved|liked|enjoyed|"
            rf"adored))\s+{_OBJECT}",
            pref("likes"),
        ),
        (
            r"into|obsessed|passionate|crazy|fond|keen|hooked|fan",
            rf"{_IM}{_ADV}\s+(?P<verb>{_FAN})\s+{_OBJECT}",
            pref("likes"),
        ),
        (
            r"hate|dislike|detest|loathe|stand|like|enjoy|love|care",
            rf"{_SELF}{_ADV}\s+{_NEG_VERB}\s+{_OBJECT}",
            pref("dislikes"),
        ),
        (
            r"not|never",
            rf"{_IM}\s+(?i:not|never)\s+(?:(?i:really|very|that|too|much|of|a|an)\s+)*"
            rf"(?P<verb>{_FAN})\s+{_OBJECT}",
            pref("dislikes"),
        ),
        (
            r"never",
            r"(?<![\w'])(?i:i)(?:(?i:'ll|\s+will|'m|\s+am))?\s+(?i:never)\s+(?:(?i:going\s+to|gonna)\s+)?"
            r"(?:(?i:go|do|try|eat|watch|play|drink|visit|take)\s+)?"
            r"(?P<obj>[^,.;:!?()\"]{1,60}?)\s+(?i:again)\b",
            pref("dislikes"),
        ),
        (
            r"never",
            r"^(?P<obj>[^,.;:!?()\"]{2,60}?)\s*[,.!?…-]+\s*(?i:never\s+again)\b",
            pref("dislikes"),
        ),
        (
            r"person",
            rf"{_IM}{_ADV}\s+(?P<neg>(?i:not|never\s+been)\s+)?(?:(?i:really|much\s+of|more\s+of|"
            r"definitely|totally|such|a\s+big|big|huge)\s+)*(?i:a|an)\s+(?:(?i:big|huge|total|"
            r"real)\s+)?(?P<obj>[a-z]+(?:\s+[a-z]+)?)\s+(?i:person)\b",
            # "Not a morning person" is a dislike; "a chill person", "a mixed up person" describe
            # the person, not a taste, so only the negated form is kept.
            lambda v, s, m: _pref_hits(v, s, m, "dislikes") if m.group("neg") else iter(()),
        ),
        (
            r"live",
            rf"{_SELF}{_ADV}\s+(?P<verb>(?i:live))\s+(?i:for)\s+"
            rf"(?!(?i:it|that|this|now|free|a\s+living|the\s+moment|each\s+other)\b){_OBJECT}",
            pref("likes"),
        ),
        (
            r"enough",
            rf"{_SELF}\s+(?i:can't|cannot|can\s+not|can't\s+ever)\s+(?i:get)\s+(?i:enough)\s+"
            rf"(?i:of)\s+(?!(?i:it|that|this|them|you)\b){_OBJECT}",
            pref("likes"),
        ),
        (
            # "nothing beats a cold beer", "nothing clears my head like tennis"; "it was nothing
            # like Paris" compares, so only at the start of a sentence or after "there's".
            r"nothing",
            r"(?:^|(?<![\w'])(?i:there's|there\s+is)\s+)(?:(?i:honestly|really|just)\s+)?"
            # The verb right after "nothing" ("clears", "relaxes"): "nothing I tried worked like
            # the old one" compares.
            r"(?i:nothing)\s+(?:(?i:beats|compares\s+to|tops)|(?i:[a-z]+s)\s+"
            r"(?:(?!(?i:like)\b)[\w']+\s+){0,3}(?i:like)|(?<=(?i:there's nothing ))(?i:like)|"
            r"(?<=(?i:there is nothing ))(?i:like))\s+"
            rf"(?!(?i:it|that|this|you|me|i)\b){_OBJECT}",
            pref("likes"),
        ),
        (
            r"nothing but",
            rf"{_IC}(?:(?i:'ve|\s+have))?{_ADV}\s+(?:(?i:been)\s+)?(?i:read|reading|watched|"
            r"watching|listened\s+to|listening\s+to|played|playing)\s+(?i:nothing\s+but)\s+"
            rf"{_OBJECT}",
            pref("likes"),
        ),
        (
            r"jam",
            r"^(?:(?i:honestly|ok|okay|man|dude|lol|oh|tbh)\s+)?(?P<obj>[^,.;:!?()\"]{2,40}?)\s+"
            r"(?i:is|are)\s+(?i:my|totally\s+my|so\s+my)\s+(?i:jam)\b",
            pref("likes"),
        ),
        (
            r"best",
            r"^(?P<obj>[^,.;:!?()\"]{2,40}?)\s+(?i:is|are)\s+(?:(?i:by\s+far|hands\s+down|"
            r"honestly|easily|still)\s+)?(?i:the)\s+(?i:best)\s+(?P<thing>[a-z]+)\b"
            r"(?!\s+(?i:ever|i've|i\s+have|i|we|you|of|in|at|on|for|to|around|here|there)\b)",
            _best_hits,
        ),
        (
            r"go-to|go to|usual",
            r"(?<![\w'])(?i:my)\s+(?i:go-to|go\s+to|usual)(?:\s+(?P<thing>[a-zA-Z][\w-]*))?\s*"
            rf"(?:(?i:is|'s)\s+|:\s*){_OBJECT}",
            _favorite_hits,
        ),
        (
            r"fav",
            rf"(?<![\w'])(?i:my)\s+(?:(?i:all[- ]time|absolute|very|personal)\s+)?{_FAVORITE}"
            r"(?:\s+(?P<thing>[a-zA-Z][\w-]*(?:\s+[a-zA-Z][\w-]*){0,3}?))?\s+"
            rf"(?i:is|are|has\s+to\s+be|would\s+(?:have\s+to\s+)?be|'s)\s+{_OBJECT}",
            _favorite_hits,
        ),
        (
            r"fav",
            # At the start only: after a comma the subject is an aside ("Crystal Lake, east of
            # Denver is my favorite").
            r"^(?P<obj>[^,.;:!?()\"]{1,50}?)\s+(?i:is|are|'s)\s+(?i:my)\s+"
            rf"(?:(?i:all[- ]time|absolute|very)\s+)?{_FAVORITE}"
            r"(?:\s+(?P<thing>[a-zA-Z][\w-]*(?:\s+[a-zA-Z][\w-]*)?))?(?=\s*[,.;:!?]|\s*$)",
            _favorite_hits,
        ),
    ]
    return _compiled(table)


_PREF_RULES = _RuleSet.of(_pref_rules())
_NEVER_AGAIN = re.compile(r"^\W*never\s+again\b", re.IGNORECASE)
_SHORT_TOPIC = re.compile(r"^(?P<obj>[^,.;:!?()\"]{2,60}?)[\s?!.…]*$")


def pref_family(view: _View, out: Extraction) -> None:
    """Likes, dislikes and favourites, as separate keys per polarity (likes_x / dislikes_x)."""
    if view.segment.kind == "row":
        return
    previous: _Sentence | None = None
    for sentence in view.sentences:
        text = sentence.text
        if is_person(view, sentence.speaker) and _NEVER_AGAIN.match(text) and previous:
            # "Camping in the rain? Never again." - the topic is the sentence before.
            same_speaker = previous.speaker == sentence.speaker
            short = _SHORT_TOPIC.match(previous.text)
            if same_speaker and short and len(short.group("obj").split()) <= 6:
                for hit in _pref_hits(view, sentence, short, "dislikes"):
                    _emit(view, out, sentence, hit, "prefs")
        previous = sentence
        said = statement(text) if _usable(view, sentence) else None
        if said is None:
            continue
        text = said
        _fire(_PREF_RULES, view, out, sentence, text, "prefs")


# --- aliases --------------------------------------------------------------------------------

_VOCATIVE = re.compile(
    r"(?:^|\b(?:hey|hi|hello|thanks|thank\s+you|bye|oh|yo|dear|congrats|congratulations|"
    r"love\s+you|miss\s+you|sorry)[\s,]+|,\s*)(?P<name>[A-Z][a-z]+)(?=\s*[!,.?~:)]|\s*$)"
)


def alias_family(view: _View, out: Extraction) -> None:
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
