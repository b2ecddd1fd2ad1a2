"""The vocabulary the fact rules share: names, places, countries, occupations, organisations,
relations, pets and numbers, as word lists and regex atoms."""

from __future__ import annotations

import re

from app.domain.dates import MONTHS, NUMBER_WORDS
from app.domain.extraction.rules.view import View
from app.domain.words import I_ALONE, WE_ALONE

# --- shared vocabulary ----------------------------------------------------------------------

IC = r"(?<![\w'])(?i:i)"  # "I" before a contraction: "I've"
ADV = (
    r"(?:\s+(?i:just|finally|recently|actually|also|now|currently|still|really|officially|"
    r"already|even|totally|happily|basically|literally|originally|kind\s+of|kinda|sort\s+of|"
    r"only|newly|proudly|mostly|definitely|absolutely|genuinely|truly|so|pretty\s+much))*"
)
# Where a value ends: punctuation, or a word that starts the next part of the sentence.
STOP = (
    r"(?=\s*[,.;:!?)\"—–]|\s+-\s|\s*$|\s+(?i:and|but|because|since|so|when|while|where|who|"
    r"which|with|for|at|in|on|from|to|by|after|before|until|as|like|or|now|too|though|"
    r"although|last|next|this|that|these|those|yesterday|today|tonight|tomorrow|ago|lol|haha|"
    r"right|already|again|anymore|either|about|around|during|over|of|if|than|then|because)\b)"
)
NAME_WORD = r"[A-Z][a-zà-ÿ'’-]+"
NAME = rf"(?P<name>{NAME_WORD}(?:\s+{NAME_WORD})?)"
_NOT_NAME_TEXT = """
    i and but or so the a an my our your his her their its this that these those he she they
    we you it is was are were will would can could should has have had do did does not no yes
    oh ok okay hey hi hello thanks thank well also just too very really so then there here now
    mom mum dad mother father grandma grandpa god lol haha omg wow yeah yep sure please sorry
    everyone everybody someone somebody anyone nobody today tomorrow yesterday tonight
    monday tuesday wednesday thursday friday saturday sunday"""
NOT_NAMES = frozenset(_NOT_NAME_TEXT.split()) | frozenset(m.lower() for m in MONTHS)
_TRAILING_SYMBOLS = re.compile(r"[^\w\s.,;:!?()\"'’“”\[\]-]+[\s\W]*$")


def clean_value(value: str) -> str:
    # Emoji and other symbols after a value are the mood it was said in: "Rottweilers ❤️".
    value = " ".join(_TRAILING_SYMBOLS.sub("", value).split())
    return value.strip(" \t\"'“”‘’,.;:!?()[]-–—").removesuffix("'s").strip()


def name_ok(name: str) -> bool:
    words = name.split()
    return bool(words) and all(w.lower().strip("'’") not in NOT_NAMES for w in words)


def trim_name(name: str) -> str:
    """Drop trailing words that are no name: a capital may start the next part ("John And")."""
    words = name.replace("’", "'").removesuffix("'s").split()
    while words and words[-1].lower() in NOT_NAMES:
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
PLACE_WORD = r"[A-Z][\w'’.&-]*"
PLACE = (
    rf"(?P<place>(?:[Tt]he\s+)?{PLACE_WORD}(?:\s+(?:(?:of|de|da|del|do|du|la|le|upon|on|am)\s+)?"
    rf"{PLACE_WORD})*(?:,\s*{PLACE_WORD}(?:\s+{PLACE_WORD})*)?|{_LOWER_COUNTRY})"
)
NOT_PLACES = NOT_NAMES | frozenset({"home", "work", "school", "church", "college", "uni"})


def place_name(view: View, raw: str) -> str | None:
    """A place name from a match, or None when it is not one ("Mom's", "Monday")."""
    value = clean_value(raw)
    parts = [p.strip() for p in value.split(",")]
    # "I moved to Paris, Mel!" - the vocative is not part of the place.
    people = {p.lower() for p in view.participants}
    while len(parts) > 1 and (parts[-1].lower() in people or parts[-1].lower() in NOT_NAMES):
        parts.pop()
    value = ", ".join(parts)
    # "since moving to Toronto I walk": a capital "I" after the place starts the next clause.
    value = re.sub(r"(?:\s+(?:I|I'm|I've|I'd|I'll))+$", "", value)
    words = value.replace("’", "'").split()
    if words and words[0].lower() == "the":
        words = words[1:]
    if not words or words[0].lower().removesuffix("'s") in NOT_PLACES or "'s" in words[0]:
        return None
    if len(words) > 8:
        return None  # a title-case line, not a place
    if value.islower():
        value = value.title() if value in COUNTRIES else value
    return value


def is_country(place: str) -> bool:
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


def is_occupation(phrase: str) -> bool:
    head = phrase.lower().split()[-1] if phrase.split() else ""
    return head in JOBS or head.endswith(_JOB_SUFFIXES)


JOB = r"(?P<job>[A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*){0,3}?)"
ORG_WORD = r"[A-Z0-9][\w'’&.-]*"
ORG = rf"(?P<org>(?:[Tt]he\s+)?[A-Z][\w'’&.-]*(?:\s+(?:(?:of|and|&|for|de)\s+)?{ORG_WORD})*)"
WORKPLACE = r"(?P<wp>(?i:a|an|the)\s+[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}?)"


def org_name(raw: str) -> str | None:
    value = trim_name(clean_value(raw)) if raw else ""
    first = value.removeprefix("the ").removeprefix("The ").split(" ")[0].lower() if value else ""
    if not value or first in NOT_NAMES | {"home"} or len(value.split()) > 8:
        return None
    return value


_TENS = "twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety"
_UNITS = "one|two|three|four|five|six|seven|eight|nine"
NUMBER = (
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


RELATIONS = {
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
PETS = {
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
PETS.update({b.strip(): "dog" for b in _BREED_TEXT.split(",")})
PETS.update({b: "cat" for b in ("tabby", "siamese", "maine coon", "ragdoll")})
REL_WORDS = "|".join(re.escape(w) for w in sorted((*RELATIONS, *PETS), key=len, reverse=True))
PET_WORDS = "|".join(re.escape(w) for w in sorted(PETS, key=len, reverse=True))
GROUPS = {
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
REL_MODIFIERS = (
    r"(?:(?i:new|little|baby|big|older|younger|eldest|oldest|youngest|lovely|amazing|sweet|"
    r"wonderful|two|three|four|first|second|furry|rescue|adopted|beloved|dear|awesome)[\s-]+)*"
)
REL_NAMING = r"(?:'s\s+name\s+is|\s+is\s+(?:called|named)|,?\s+(?:named|called))?"


SELF = rf"(?:{I_ALONE}|(?P<we>{WE_ALONE}))"
MOVED = r"(?i:moved|relocated)(?:\s+(?i:back|here|there|over|out|away|all\s+the\s+way))*"
THIRD = (
    rf"(?:(?P<rel>(?i:my|our)\s+{REL_MODIFIERS}(?i:{REL_WORDS})),?\s+)?"
    rf"(?P<who>{NAME_WORD}(?:\s+{NAME_WORD})?)"
)
JOB_TAIL = rf"{STOP}(?:\s+(?i:at|for|with)\s+{ORG})?"
NEW_JOB = (
    r"(?:(?i:a|an|my|the)\s+)?(?:(?i:new|first|dream|part-time|full-time|summer|great|"
    r"temporary|permanent|teaching|nursing)\s+)*(?i:job|position|role|gig|internship)"
)
KIDS = r"(?i:kids|children|kid|child)"


# --- subjects and objects said casually -----------------------------------------------------

# "I", "we", "I've", "we have": the speaker as subject, the perfect included ("I'd" is a wish).
SUBJ = r"(?:(?<![\w'])(?i:i)|(?P<we>(?<![\w'])(?i:we)))(?:(?i:'ve|\s+have))?(?![\w'])"
# Chat drops the subject at the start of a line: "moved to Austin last month!".
BARE = r"^(?:(?i:just|finally|recently|officially|so|and|also|now|basically|actually|still)\s+)*"
ME = rf"(?:{SUBJ}{ADV}\s+|{BARE})"
# Where the object of a casual fact ends: punctuation, or a word that opens another part.
END = (
    r"(?=\s*[,.;:!?)\"—–…]|\s+-\s|\s*$|\s+(?i:and|but|because|cause|since|so|when|while|"
    r"which|with|for|at|in|on|from|by|after|before|until|as|like|or|now|though|although|last|"
    r"this|yesterday|today|tonight|ago|lol|haha|either|anymore|again|really|tbh|honestly|"
    r"actually|ever|sadly|yet|myself|properly|well|these\s+days|anyway|whatsoever|"
    r"growing\s+up)\b)"
)
OBJ = r"(?P<obj>[A-Za-z][\w'&-]*(?:\s+[A-Za-z][\w'&-]*){0,3}?)"
