"""Facts people state in full sentences: where they live and come from, work, study, age,
birthday, family, relations, pets, names; the first table of ``fact_family``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Literal

from app.domain.dates import MONTHS
from app.domain.extraction.rules.lexicon import (
    ADV,
    GROUPS,
    IC,
    JOB,
    JOB_TAIL,
    KIDS,
    MOVED,
    NAME,
    NAME_WORD,
    NEW_JOB,
    NUMBER,
    ORG,
    PET_WORDS,
    PETS,
    PLACE,
    PLACE_WORD,
    REL_MODIFIERS,
    REL_NAMING,
    REL_WORDS,
    RELATIONS,
    SELF,
    STOP,
    SUBJ,
    THIRD,
    WORKPLACE,
    clean_value,
    is_country,
    is_occupation,
    name_ok,
    org_name,
    parse_number,
    place_name,
    trim_name,
)
from app.domain.extraction.rules.ruleset import Hit, Triggered, binder, compiled, gate
from app.domain.extraction.rules.view import Sentence, View
from app.domain.words import I_ALONE, I_AM

# Dates said in a birthday are read as written, against no day of their own.
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


LocationKind = Literal["location", "home", "from", "origin", "born"]


def location_hits(
    view: View, sentence: Sentence, m: re.Match[str], kind: LocationKind = "location"
) -> Iterator[Hit]:
    place = place_name(view, m.group("place"))
    if place is None:
        return
    who = sentence.speaker
    if kind == "location":
        yield Hit(who, "location", place, 0.75 if m.groupdict().get("we") else 0.85, "place")
    elif kind == "home":
        yield Hit(who, "location", place, 0.6, "place")
    elif kind == "from":
        country = is_country(place)
        local = "home_country" if country else "previous_location"
        yield Hit(who, local, place, 0.6 if country else 0.7, "place")
    elif kind == "origin":
        yield Hit(who, "home_country" if is_country(place) else "hometown", place, 0.8, "place")
    elif kind == "born":
        yield Hit(who, "birthplace", place, 0.8, "place")
        if "raised" in m.group(0).lower() and not is_country(place):
            yield Hit(who, "hometown", place, 0.75, "place")


def moved_hits(view: View, sentence: Sentence, m: re.Match[str]) -> Iterator[Hit]:
    origin = m.group("origin")
    if origin:
        place = place_name(view, origin)
        if place is not None:
            country = is_country(place)
            local = "home_country" if country else "previous_location"
            yield Hit(sentence.speaker, local, place, 0.6 if country else 0.7, "place")
    yield from location_hits(view, sentence, m)


def job_hits(
    view: View, sentence: Sentence, m: re.Match[str], strong: bool = False
) -> Iterator[Hit]:
    groups = m.groupdict()
    job = re.sub(r"^(?:an?|the)\s+", "", clean_value(groups.get("job") or ""), flags=re.I)
    is_job = bool(job) and len(job) <= 60 and (strong or is_occupation(job))
    who = sentence.speaker
    if is_job:
        yield Hit(who, "occupation", job, 0.8 if strong else 0.75)
    org = org_name(groups.get("org") or "")
    if org is not None and (is_job or (strong and not job)):
        if job.lower().split()[-1:] == ["student"]:
            yield Hit(who, "school", org, 0.75, "organization")
        else:
            yield Hit(who, "employer", org, 0.85, "organization")
    workplace = clean_value(groups.get("wp") or "")
    if workplace and org is None and strong:
        yield Hit(who, "workplace", workplace.lower(), 0.7)


def _job_and_age_hits(view: View, sentence: Sentence, m: re.Match[str]) -> Iterator[Hit]:
    """The occupation (by the lexicon) of "I'm a 66-year-old science writer" or "As an
    architect, I ...", and the age when it is said with it."""
    yield from job_hits(view, sentence, m)
    if m.group("age") is not None:
        yield from _age_hits(view, sentence, m)


def _study_hits(view: View, sentence: Sentence, m: re.Match[str]) -> Iterator[Hit]:
    field = clean_value(m.group("field") or "")
    if field and field.split()[0].lower() not in {"for", "to", "hard", "a", "the", "my", "so"}:
        yield Hit(sentence.speaker, "field_of_study", field, 0.7)
    org = org_name(m.groupdict().get("org") or "")
    if org is not None:
        yield Hit(sentence.speaker, "school", org, 0.75, "organization")


def _age_hits(view: View, sentence: Sentence, m: re.Match[str]) -> Iterator[Hit]:
    age = parse_number(m.group("age"))
    said_old = bool(m.group("old"))
    # Without "years old", a small number is more likely a count ("I'm 2 minutes away").
    if age is not None and (13 if not said_old else 1) <= age <= 120:
        yield Hit(sentence.speaker, "age", age, 0.85 if said_old else 0.75)


def _birthday_hits(view: View, sentence: Sentence, m: re.Match[str]) -> Iterator[Hit]:
    if sentence.ts is None:
        # Without a time only a full date can be read; relative ones need an anchor.
        found = [r for r in view.dates_in(sentence.text, _EPOCH) if not r.relative]
    else:
        found = view.dates_in(sentence.text, sentence.ts)
    for resolved in found:
        day = resolved.date
        if resolved.granularity == "day":
            yield Hit(sentence.speaker, "birthday", f"{day.day} {MONTHS[day.month - 1]}", 0.85)
            if not resolved.relative and "born" in m.group(0).lower():
                yield Hit(sentence.speaker, "birth_year", day.year, 0.85)
            return
        if resolved.granularity == "month" and "born" not in m.group(0).lower():
            yield Hit(sentence.speaker, "birthday", MONTHS[day.month - 1], 0.7)
            return


def _relation_hits(view: View, sentence: Sentence, m: re.Match[str]) -> Iterator[Hit]:
    rel = " ".join(m.group("rel").lower().split())
    name = trim_name(m.group("name"))
    if not name or not name_ok(name):
        return
    if rel in PETS:
        yield Hit(sentence.speaker, PETS[rel], name, 0.85, "other")
    elif RELATIONS[rel]:
        yield Hit(sentence.speaker, RELATIONS[rel], name, 0.85, "person")
    else:
        yield Hit(sentence.speaker, "", name, 0.0, "person")


def _pet_named_hits(view: View, sentence: Sentence, m: re.Match[str]) -> Iterator[Hit]:
    name = trim_name(m.group("name"))
    if name and name_ok(name):
        yield Hit(sentence.speaker, PETS[m.group("rel").lower()], name, 0.8, "other")


def _group_hits(view: View, sentence: Sentence, m: re.Match[str]) -> Iterator[Hit]:
    names = [trim_name(n) for n in re.split(r"\s*,\s*|\s+(?:and|&)\s+", m.group("names"))]
    names = [n for n in names if n and name_ok(n)]
    if len(names) < 2:
        return
    local = GROUPS[" ".join(m.group("group").lower().split())]
    yield Hit(sentence.speaker, local, ", ".join(names[:-1]) + " and " + names[-1], 0.8)
    for name in names:
        yield Hit(sentence.speaker, "", name, 0.0, "person" if local == "children" else "other")


def _count_hits(view: View, sentence: Sentence, m: re.Match[str]) -> Iterator[Hit]:
    raw = m.group("n").lower()
    count = 1 if raw in ("a", "an") else parse_number(raw)
    pets = (m.groupdict().get("pets") or "").lower()
    # "I have three turtles" counts pets of a kind: turtle_count.
    local = f"{PETS[_singular(pets)]}_count" if pets else "children_count"
    if count is not None and 0 < count < 30:
        yield Hit(sentence.speaker, local, count, 0.8)


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


def _elided_count_hits(view: View, sentence: Sentence, m: re.Match[str]) -> Iterator[Hit]:
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


# "to show I'm engaged", "I'm engaged in the project": attention, not a relationship.
_ATTENTION_BEFORE = re.compile(
    r"\b(?:show|shows|showing|seem|look|feel|stay|keep)\b[^.]{0,12}$", re.I
)
_ATTENTION_AFTER = re.compile(r"\s+(?:in|with|by|and\s+(?:focused|attentive|present))\b", re.I)


def _status_hits(view: View, sentence: Sentence, m: re.Match[str]) -> Iterator[Hit]:
    status = _STATUSES[" ".join(m.group("status").lower().split())]
    if status == "engaged" and not m.group("partner"):
        text = sentence.text
        if _ATTENTION_BEFORE.search(text[max(0, m.start() - 30) : m.start()]):
            return
        if _ATTENTION_AFTER.match(text, m.end("status")):
            return
    yield Hit(sentence.speaker, "relationship_status", status, 0.8)
    partner = trim_name(m.group("partner") or "")
    if partner and name_ok(partner):
        local = "spouse" if status == "married" else "partner"
        yield Hit(sentence.speaker, local, partner, 0.75, "person")


_BREAKUP_WORDS = re.compile(
    r"\b(?:broke\s+up|split|divorc|separat|ex\b|ex-|late|passed|died)", re.I
)


def _mention_hits(view: View, sentence: Sentence, m: re.Match[str]) -> Iterator[Hit]:
    if _BREAKUP_WORDS.search(sentence.text):
        return
    rel = m.group("rel").lower()
    if rel in ("husband", "wife", "hubby"):
        yield Hit(sentence.speaker, "relationship_status", "married", 0.6)
    elif rel.startswith("fianc"):
        yield Hit(sentence.speaker, "relationship_status", "engaged", 0.6)
    else:
        yield Hit(sentence.speaker, "relationship_status", "in a relationship", 0.6)


def _breakup_hits(view: View, sentence: Sentence, m: re.Match[str]) -> Iterator[Hit]:
    status = "divorced" if "divorc" in m.group(0).lower() else "single"
    yield Hit(sentence.speaker, "relationship_status", status, 0.75)


def _name_hits(view: View, sentence: Sentence, m: re.Match[str]) -> Iterator[Hit]:
    name = trim_name(m.group("name"))
    if name and name_ok(name):
        yield Hit(sentence.speaker, "name", name, 0.9 if "name" in m.group(0).lower() else 0.8)


def third_person_hits(view: View, sentence: Sentence, m: re.Match[str], what: str) -> Iterator[Hit]:
    who = trim_name(m.group("who"))
    if not who or not name_ok(who):
        return
    rel = " ".join((m.group("rel") or "").lower().split()[1:])
    known = {p.lower() for p in view.participants} | {(view.subject or "").lower()}
    if not rel and who.lower() not in known:
        return  # "Paris moved to ..." - only people named as such are reported on
    if rel:
        local = RELATIONS.get(rel, "")
        yield Hit(sentence.speaker, local, who, 0.85 if local else 0.0, "person")
    found = location_hits(view, sentence, m) if what == "place" else job_hits(view, sentence, m)
    for hit in found:
        yield Hit(who, hit.local, hit.value, round(hit.confidence - 0.1, 2), hit.entity)


_loc, _job, _third = binder(location_hits), binder(job_hits), binder(third_person_hits)
# "a 66-year-old science writer": an age said before the occupation.
_AGED = r"(?:(?P<age>\d{1,3})(?P<old>[- ](?i:years?)[- ](?i:old))\s+)?"

LIFE_RULES: tuple[Triggered, ...] = compiled(
    [
        # where they live, and lived before
        (
            r"moved|relocated",
            rf"{SELF}{ADV}\s+{MOVED}(?:\s+(?i:from)\s+(?P<origin>{PLACE_WORD}"
            rf"(?:\s+{PLACE_WORD})*))?\s+(?i:to)\s+{PLACE}",
            moved_hits,
        ),
        (r"moved|relocated", rf"{SELF}{ADV}\s+{MOVED}\s+(?i:from)\s+{PLACE}", _loc("from")),
        (
            r"live|reside",
            rf"{SELF}{ADV}\s+(?i:live|reside)\s+(?i:in)\s+{PLACE}",
            _loc("location"),
        ),
        (
            r"living|based|settled|residing",
            rf"{I_AM}{ADV}\s+(?i:living|based|settled|residing)\s+(?i:in)\s+{PLACE}",
            _loc("location"),
        ),
        (
            r"living|lived",
            rf"{IC}(?i:'ve|\s+have){ADV}\s+(?i:been\s+living|lived)\s+(?i:in)\s+{PLACE}"
            r"(?=\s+(?i:for|since)\b)",
            _loc("location"),
        ),
        (
            r"home",
            rf"{SELF}{ADV}\s+(?i:got|came|went|headed|flew|drove)\s+(?i:back\s+)?(?i:home)\s+"
            rf"(?i:to)\s+{PLACE}",
            _loc("home"),
        ),
        (
            r"home|house|apartment|flat",
            rf"(?<![\w'])(?i:my|our)\s+(?i:new\s+)?(?i:home|house|apartment|flat)\s+"
            rf"(?i:is\s+in)\s+{PLACE}",
            _loc("location"),
        ),
        # where they come from
        (r"from", rf"{I_AM}{ADV}\s+(?i:from)\s+{PLACE}", _loc("origin")),
        (r"from", rf"{I_ALONE}{ADV}\s+(?i:come|hail)\s+(?i:from)\s+{PLACE}", _loc("origin")),
        (r"grew", rf"{I_ALONE}{ADV}\s+(?i:grew\s+up)\s+(?i:in)\s+{PLACE}", _loc("origin")),
        (r"home", rf"(?<![\w'])(?i:my\s+home\s*town\s+is)\s+{PLACE}", _loc("origin")),
        (r"home", rf"(?<![\w'])(?i:my\s+home\s+country\s+is)\s+{PLACE}", _loc("origin")),
        (
            r"born",
            rf"{I_ALONE}\s+(?i:was)\s+(?i:born)(?:\s+(?i:and\s+raised))?\s+(?i:in)\s+{PLACE}",
            _loc("born"),
        ),
        # work and study
        (
            r"work",
            rf"(?:{I_ALONE}{ADV}\s+(?i:work)|{I_AM}{ADV}\s+(?i:working))\s+(?i:as)\s+"
            rf"(?:(?i:an?|the)\s+)?{JOB}{JOB_TAIL}",
            _job(True),
        ),
        (
            r"work|employed",
            rf"(?:{I_ALONE}{ADV}\s+(?i:work)|{I_AM}{ADV}\s+(?i:working|employed))\s+"
            rf"(?i:at|for)\s+(?:{ORG}|{WORKPLACE}{STOP})",
            _job(True),
        ),
        (
            r"\bi'?m\b|\bi am\b",
            rf"{I_AM}{ADV}\s+(?i:an?)\s+{_AGED}{JOB}{JOB_TAIL}",
            _job_and_age_hits,
        ),
        # "As a paramedic from Davistown, I'm excited ...": a sentence that opens with who the
        # speaker is.
        (
            r"\bas\b",
            rf"^\s{{0,3}}(?i:as)\s+(?i:an?)\s+{_AGED}{JOB}{STOP}"
            rf"[^.!?]{{0,80}}?,\s*(?:{I_ALONE}|{IC}')",
            _job_and_age_hits,
        ),
        (
            r"job|position|role|gig|internship",
            rf"{SELF}{ADV}\s+(?i:started|began|got|landed|accepted|took|found|have|'ve\s+got)\s+"
            rf"{NEW_JOB}(?:\s+(?i:as)\s+(?:(?i:an?)\s+)?{JOB}{STOP})?"
            rf"(?:\s+(?i:at|with|for)\s+{ORG})?",
            _job(True),
        ),
        (
            r"work",
            rf"{SELF}{ADV}\s+(?i:started|began)\s+(?i:working|work)\s+(?i:at|for)\s+{ORG}",
            _job(True),
        ),
        # "I moved to Kwekwe for a job at Zimplats": the reason names the employer.
        (
            r"job|position|role|gig|internship",
            rf"{SELF}\s[^.!?]{{0,200}}?\s(?i:for)\s+{NEW_JOB}(?:\s+(?i:as)\s+(?:(?i:an?)\s+)?{JOB}"
            rf"{STOP})?\s+(?i:at|with)\s+{ORG}",
            _job(True),
        ),
        (
            r"hired",
            rf"{I_ALONE}{ADV}\s+(?i:got|was|have\s+been|'ve\s+been)\s+(?i:hired)"
            rf"(?:\s+(?i:as)\s+(?:(?i:an?)\s+)?{JOB}{STOP})?(?:\s+(?i:at|by)\s+{ORG})?",
            _job(True),
        ),
        (
            r"promoted",
            rf"{I_ALONE}{ADV}\s+(?:(?i:got|was|have\s+been|'ve\s+been)\s+)?(?i:promoted)\s+"
            rf"(?i:to)\s+(?:(?i:an?|the)\s+)?{JOB}{JOB_TAIL}",
            _job(True),
        ),
        (
            r"stud|major|degree",
            rf"(?:{I_AM}{ADV}\s+(?i:studying|majoring\s+in|doing\s+a\s+degree\s+in)|"
            rf"{I_ALONE}{ADV}\s+(?i:study|major\s+in))\s+"
            rf"(?P<field>[a-zA-Z][\w-]*(?:\s+[a-zA-Z][\w-]*){{0,3}}?){STOP}"
            rf"(?:\s+(?i:at)\s+{ORG})?",
            _study_hits,
        ),
        # age and birthday
        (
            r"\bi'?m\b|\bi am\b",
            rf"{I_AM}\s+(?P<age>{NUMBER})(?P<old>\s+(?i:years?\s+old|yrs?\s+old|y/?o))?"
            r"(?=\s*[,.!;)]|\s*$|\s+(?i:and|now|today|this\s+year|but|so|already|myself)\b)",
            _age_hits,
        ),
        (
            r"turned",
            rf"{I_ALONE}{ADV}\s+(?i:turned)\s+(?P<age>{NUMBER})(?P<old>\s+(?i:years?\s+old))?"
            r"(?![\w%-]|\s+(?i:percent|minutes?|hours?|degrees?|dollars?|pages?|times|miles|km|"
            r"pounds|people|things|bucks)\b)",
            _age_hits,
        ),
        (
            r"birthday|bday|b-day",
            r"(?<![\w'])(?i:my\s+(?:birthday|bday|b-day))(?!\s+(?i:party|present|gift|cake))\b",
            _birthday_hits,
        ),
        (r"born", rf"{I_ALONE}\s+(?i:was)\s+(?i:born)\s+(?i:on)\s", _birthday_hits),
        # family, partners, pets
        (
            r"\b(?:my|our)\b",
            rf"(?<![\w'])(?i:my|our)\s+{REL_MODIFIERS}(?P<rel>(?i:{REL_WORDS}))(?![\w-])"
            rf"{REL_NAMING}\s*,?\s+{NAME}",
            _relation_hits,
        ),
        (
            r"named|called",
            rf"(?<![\w'])(?i:a|an|our|my)\s+{REL_MODIFIERS}(?P<rel>(?i:{PET_WORDS}))\s+"
            rf"(?i:named|called)\s+{NAME}",
            _pet_named_hits,
        ),
        (
            r"kids|children|sons|daughters|dogs|cats|pets|turtles|rabbits|bunnies|birds|fish|snakes|"
            r"hamsters|pigs|puppies|kittens",
            rf"(?<![\w'])(?i:my|our)\s+{REL_MODIFIERS}"
            r"(?P<group>(?i:kids|children|sons|daughters|dogs|cats|pets|turtles|rabbits|bunnies|"
            r"birds|fish|snakes|hamsters|guinea\s+pigs|puppies|kittens)),?\s+"
            rf"(?P<names>{NAME_WORD}(?:\s*,\s*{NAME_WORD})*,?\s+(?:and|&)\s+{NAME_WORD})",
            _group_hits,
        ),
        (
            r"kid|child",
            rf"{SELF}{ADV}\s+(?i:have|got)\s+(?P<n>\d{{1,2}}|(?i:a|an)|{NUMBER})\s+"
            rf"{KIDS}\b",
            _count_hits,
        ),
        (
            r"kid|child",
            rf"(?:^|,|\s(?i:and))\s+(?i:have|got)\s+(?P<n>\d{{1,2}}|(?i:a|an)|{NUMBER})\s+"
            rf"{KIDS}\b",
            _elided_count_hits,
        ),
        (
            gate(_PET_PLURALS),
            rf"{SUBJ}{ADV}\s+(?i:have|got|own)\s+(?P<n>\d{{1,2}}|{NUMBER})\s+"
            rf"(?P<pets>(?i:{_PET_PLURAL}))\b",
            _count_hits,
        ),
        (
            r"\bof\b",
            rf"{I_AM}\s+(?i:a)\s+(?i:mom|mother|mum|dad|father|parent)\s+(?i:of)\s+"
            rf"(?P<n>{NUMBER})(?!\w)",
            _count_hits,
        ),
        (
            r"married|single|engaged|divorced|widow|separated|relationship",
            rf"{I_AM}{ADV}\s+(?P<status>(?i:married|single|engaged|divorced|widowed|separated|"
            r"a\s+widow(?:er)?|in\s+a\s+relationship))(?![\w-])"
            rf"(?:\s+(?i:to)\s+(?P<partner>{NAME_WORD}))?",
            _status_hits,
        ),
        (
            r"married|engaged|divorced",
            rf"{SELF}{ADV}\s+(?i:got)\s+(?P<status>(?i:married|engaged|divorced))(?![\w-])"
            rf"(?:\s+(?i:to)\s+(?P<partner>{NAME_WORD}))?",
            _status_hits,
        ),
        (
            r"dating",
            rf"{I_AM}{ADV}\s+(?P<status>(?i:dating))\s+(?P<partner>{NAME_WORD})",
            _status_hits,
        ),
        (
            r"married|engaged|together",
            r"(?<![\w'])(?:(?i:i|we)(?i:'ve|\s+have)\s+been|(?i:we)(?i:'re|\s+are))"
            rf"{ADV}\s+"
            rf"(?P<status>(?i:married|engaged|together))(?![\w-])(?P<partner>)",
            _status_hits,
        ),
        (
            r"husband|wife|hubby|boyfriend|girlfriend|fianc",
            rf"(?<![\w'-])(?i:my)\s+{REL_MODIFIERS}"
            r"(?P<rel>(?i:husband|wife|hubby|boyfriend|girlfriend|fianc[eé]e?))(?![\w-])",
            _mention_hits,
        ),
        (
            r"broke|split|separated|divorced|called it off",
            rf"(?:{SELF}|(?i:my)\s+(?i:boyfriend|girlfriend|partner|fianc[eé]e?|husband|wife)"
            rf"\s+(?i:and)\s+{I_ALONE}){ADV}\s+(?i:broke\s+up|split\s+up|separated|got\s+divorced|"
            r"divorced|called\s+it\s+off)(?![\w-])",
            _breakup_hits,
        ),
        # names
        (
            r"name|call me|go by|known as|called",
            r"(?<![\w'])(?i:my\s+name\s+is|my\s+name's|i(?:\s+have|'ve)?\s+"
            r"(?:legally\s+|officially\s+|finally\s+|just\s+)?changed\s+my\s+name\s+to|"
            r"call\s+me|i\s+go\s+by|i'm\s+now\s+(?:called|known\s+as)|"
            rf"i\s+am\s+now\s+(?:called|known\s+as))\s+{NAME}",
            _name_hits,
        ),
        # named people other than the speaker
        (
            r"moved|relocated",
            rf"{THIRD}{ADV}\s+(?i:moved|relocated)(?:\s+(?i:back|here|there|over))?\s+(?i:to)\s+"
            rf"{PLACE}",
            _third("place"),
        ),
        (
            r"lives|resides",
            rf"{THIRD}{ADV}\s+(?i:lives|resides)\s+(?i:in)\s+{PLACE}",
            _third("place"),
        ),
        (
            r"moved|relocated",
            rf"{THIRD},?\s+(?i:said|says|told\s+me|mentioned)\s+(?:(?i:that)\s+)?"
            rf"(?i:she|he|they)(?:\s+(?i:has|had|just|finally|recently))*\s+(?i:moved|relocated)"
            rf"\s+(?i:to)\s+{PLACE}",
            _third("place"),
        ),
        (
            r"works",
            rf"{THIRD}{ADV}\s+(?i:works)\s+(?i:as)\s+(?:(?i:an?)\s+)?{JOB}{JOB_TAIL}",
            _third("job"),
        ),
        (r"works", rf"{THIRD}{ADV}\s+(?i:works)\s+(?i:at|for)\s+{ORG}", _third("job")),
        (r"\bis an?\b", rf"{THIRD}{ADV}\s+(?i:is)\s+(?i:an?)\s+{JOB}{JOB_TAIL}", _third("job")),
    ]
)
