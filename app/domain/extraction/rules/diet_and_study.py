"""Allergies, intolerances and diets; degrees, schools and fields of study."""

from __future__ import annotations

import re
from collections.abc import Iterator

from app.domain.extraction.rules.lexicon import (
    ADV,
    BARE,
    END,
    ME,
    NOT_NAMES,
    ORG,
    STOP,
    SUBJ,
    clean_value,
    org_name,
)
from app.domain.extraction.rules.prefs import topic_key
from app.domain.extraction.rules.ruleset import Hit, Triggered, compiled, gate
from app.domain.extraction.rules.view import Sentence, View
from app.domain.words import I_AM

# --- allergies, diet and education ---

_NOT_ALLERGENS_TEXT = """
    the this that my it food seasonal weird little stupid i we you sadly lol haha though too also
    unfortunately apparently honestly tbh now"""
_NOT_ALLERGENS = frozenset(_NOT_ALLERGENS_TEXT.split())


def _allergy_hits(view: View, sentence: Sentence, m: re.Match[str]) -> Iterator[Hit]:
    for part in re.split(r"\s*,\s*|\s+(?:and|&|or)\s+", m.group("obj")):
        topic = topic_key(part)
        if topic and topic.split("_")[0] not in _NOT_ALLERGENS:
            yield Hit(sentence.speaker, f"allergic_to_{topic}", True, 0.85)


_DIET_TEXT = "vegan vegetarian pescatarian pescetarian veggie plant keto free kosher halal teetotal"


def _diet_hits(view: View, sentence: Sentence, m: re.Match[str]) -> Iterator[Hit]:
    diet = " ".join(m.group("diet").lower().split()).replace(" ", "-")
    yield Hit(sentence.speaker, "diet", diet, 0.8)


def _intolerance_hits(view: View, sentence: Sentence, m: re.Match[str]) -> Iterator[Hit]:
    yield Hit(sentence.speaker, f"{m.group('what').lower()}_intolerant", True, 0.8)


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


def _degree_hits(view: View, sentence: Sentence, m: re.Match[str]) -> Iterator[Hit]:
    field = clean_value(m.group("field") or "")
    if not field or field.split()[0].lower() in _NOT_FIELDS | NOT_NAMES:
        return
    degree = m.groupdict().get("degree")
    if degree:
        yield Hit(sentence.speaker, "degree", f"{degree} in {field}", 0.8)
    yield Hit(sentence.speaker, "field_of_study", field, 0.75)
    org = org_name(m.groupdict().get("org") or "")
    if org is not None:
        yield Hit(sentence.speaker, "school", org, 0.75, "organization")


def _degree_only_hits(view: View, sentence: Sentence, m: re.Match[str]) -> Iterator[Hit]:
    yield Hit(sentence.speaker, "degree", m.group("degree"), 0.75)


_SCHOOL_FIELDS = {
    "med": "medicine",
    "medical": "medicine",
    "vet": "veterinary medicine",
    "veterinary": "veterinary medicine",
    "dental": "dentistry",
}


def _school_field_hits(view: View, sentence: Sentence, m: re.Match[str]) -> Iterator[Hit]:
    field = m.group("field").lower()
    yield Hit(sentence.speaker, "field_of_study", _SCHOOL_FIELDS.get(field, field), 0.75)


def _graduated_hits(view: View, sentence: Sentence, m: re.Match[str]) -> Iterator[Hit]:
    org = org_name(m.group("org"))
    if org is not None:
        yield Hit(sentence.speaker, "school", org, 0.75, "organization")


DIET_AND_STUDY_RULES: tuple[Triggered, ...] = compiled(
    [
        # allergies and diet
        (
            gate("allergic"),
            rf"(?:{I_AM}{ADV}\s+|{BARE}|{SUBJ}{ADV}\s+(?i:been|become|got)\s+)"
            r"(?:(?i:super|very|really|so|severely|deathly|mildly|a\s+bit|slightly|badly|"
            r"seriously|quite|also|horribly)\s+)*(?i:allergic)\s+(?i:to)\s+"
            r"(?P<obj>[A-Za-z][\w'-]*(?:\s+[A-Za-z][\w'-]*)?(?:(?:\s*,\s*|\s+(?i:and|&|or)\s+)"
            rf"[A-Za-z][\w'-]*(?:\s+[A-Za-z][\w'-]*)?)*){END}",
            _allergy_hits,
        ),
        (
            gate("allergy allergies"),
            rf"(?:{SUBJ}{ADV}\s+(?i:have|got)|(?<![\w'])(?i:my))\s+(?:(?i:a|an)\s+)?"
            r"(?:(?i:severe|bad|mild|serious|nasty|massive|deadly|new)\s+)?"
            r"(?P<obj>[a-z]+(?:\s+[a-z]+)?)\s+(?i:allergy|allergies)\b",
            _allergy_hits,
        ),
        (
            gate(_DIET_TEXT),
            rf"(?:{I_AM}{ADV}\s+|{SUBJ}{ADV}\s+(?i:been|went|gone|turned)\s+|{BARE}(?i:went)\s+)"
            r"(?:(?i:a|an|strictly|fully|mostly|full)\s+)*(?P<diet>(?i:vegetarian|vegan|"
            r"pescatarian|pescetarian|veggie|plant[\s-]based|keto|gluten[\s-]free|"
            r"dairy[\s-]free|kosher|halal|teetotal))(?![\w-])",
            _diet_hits,
        ),
        (
            gate("intolerant"),
            rf"{I_AM}{ADV}\s+(?P<what>(?i:lactose|gluten|dairy))\s+(?i:intolerant)",
            _intolerance_hits,
        ),
        # education
        (
            _DEGREE_GATE,
            rf"(?:(?:{I_AM}{ADV}\s+|{BARE})(?i:doing|studying\s+for|working\s+on|"
            r"working\s+towards|pursuing|taking|finishing|starting|halfway\s+through|in\s+the\s+"
            rf"middle\s+of)|{SUBJ}{ADV}\s+(?i:have|got|earned|finished|completed|started|began|"
            r"hold|did|enrolled\s+in|signed\s+up\s+for)|(?<![\w'])(?i:my))\s+"
            r"(?:(?i:a|an|my|the)\s+)?(?:(?i:part-time|online|full-time|new)\s+)?"
            rf"{_DEGREE}(?:\s+(?i:degree))?\s+(?i:in|of)\s+{_FIELD}{STOP}"
            rf"(?:\s+(?i:at|from)\s+{ORG})?",
            _degree_hits,
        ),
        (
            gate("degree"),
            rf"(?:{I_AM}{ADV}\s+(?i:doing|finishing|starting)|{SUBJ}{ADV}\s+(?i:have|got|"
            r"earned|finished|completed|started)|(?<![\w'])(?i:my))\s+(?:(?i:a|an|my)\s+)?"
            rf"(?P<field>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)\s+(?i:degree)(?P<degree>)"
            rf"(?:\s+(?i:at|from)\s+{ORG})?",
            _degree_hits,
        ),
        (
            gate("degree"),
            rf"(?:{SUBJ}{ADV}\s+(?:(?i:got)\s+)?(?i:have|got|earned|did|hold|finished|completed)|"
            r"(?<![\w'])(?i:my))\s+(?:(?i:a|an|my|the)\s+)?(?:(?i:university|college|uni|"
            r"undergrad|undergraduate)\s+)?(?i:degree)(?P<degree>)\s+(?:(?i:is|was)\s+)?(?i:in)\s+"
            rf"{_FIELD}{STOP}(?:\s+(?i:at|from)\s+{ORG})?",
            _degree_hits,
        ),
        (
            _DEGREE_GATE,
            rf"(?:{I_AM}{ADV}\s+(?i:doing|finishing|starting)|{SUBJ}{ADV}\s+(?i:have|got|earned|"
            rf"finished|completed|started|began))\s+(?i:a|an|my)\s+{_DEGREE}(?:\s+(?i:degree))?"
            r"(?=\s*[,.;:!?)…]|\s*$|\s+(?i:and|but|so|last|this|yesterday|today|lol|haha|"
            r"at\s+last|finally)\b)",
            _degree_only_hits,
        ),
        (
            gate("school"),
            rf"(?:{I_AM}{ADV}\s+(?i:in|at|back\s+in|starting|going\s+to)\s+|"
            rf"{BARE}(?i:started|finished)\s+)(?P<field>(?i:law|med|medical|nursing|dental|vet|"
            r"veterinary|art|culinary|film|business|design|music|drama|beauty|cooking))\s+"
            r"(?i:school)\b",
            _school_field_hits,
        ),
        (
            gate("graduated"),
            rf"{ME}(?i:graduated)\s+(?i:from)\s+{ORG}",
            _graduated_hits,
        ),
    ]
)
