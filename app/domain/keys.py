"""Belief keys: how a key is normalised, split into its person and local part, and tokenised.

Every stage that compares keys reads them this way: the extractor reusing a known key (dedupe
tier 0), the dedupe of a merge (tiers 1 and 2), the sentences a context renders beliefs as, and
the LLM adapters that check a model's proposals.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# British -> American; applied per token after plural folding, on both sides of a comparison.
SPELLING: dict[str, str] = {
    "favourite": "favorite",
    "colour": "color",
    "behaviour": "behavior",
    "flavour": "flavor",
    "honour": "honor",
    "humour": "humor",
    "labour": "labor",
    "neighbour": "neighbor",
    "neighbourhood": "neighborhood",
    "harbour": "harbor",
    "organisation": "organization",
    "organise": "organize",
    "organised": "organized",
    "centre": "center",
    "theatre": "theater",
    "metre": "meter",
    "kilometre": "kilometer",
    "litre": "liter",
    "fibre": "fiber",
    "licence": "license",
    "defence": "defense",
    "offence": "offense",
    "catalogue": "catalog",
    "dialogue": "dialog",
    "programme": "program",
    "travelling": "traveling",
    "traveller": "traveler",
    "travelled": "traveled",
    "cancelled": "canceled",
    "cancelling": "canceling",
    "modelling": "modeling",
    "jewellery": "jewelry",
    "grey": "gray",
    "tyre": "tire",
    "aluminium": "aluminum",
    "pyjama": "pajama",
    "mum": "mom",
    "realise": "realize",
    "recognise": "recognize",
    "analyse": "analyze",
    "customise": "customize",
    "personalise": "personalize",
    "prioritise": "prioritize",
    "summarise": "summarize",
    "authorise": "authorize",
    "authorised": "authorized",
    "optimise": "optimize",
    "enrolment": "enrollment",
    "judgement": "judgment",
    "ageing": "aging",
    "practise": "practice",
}
# Tokens dropped before comparing, so date_of_birth and birth_date have the same tokens.
KEY_FILLER = frozenset({"a", "an", "the", "of"})

_CAMEL_UPPER_RUN = re.compile(r"([A-Z]+)([A-Z][a-z])")
_CAMEL = re.compile(r"([a-z0-9])([A-Z])")
_APOSTROPHES = re.compile(r"['\u2019]")
_SEPARATORS = re.compile(r"[^\w.]+")
_UNDERSCORES = re.compile(r"_+")
_TOKEN = re.compile(r"\d+|[^\W\d_]+")


@lru_cache(maxsize=8192)  # resolve_key normalises every known key for every incoming one
def normalize_key(key: str) -> str:
    """Lowercase, NFKC, camelCase/space/hyphen -> "_", collapsed; keeps the namespace dot."""
    s = unicodedata.normalize("NFKC", key).strip()
    s = _CAMEL_UPPER_RUN.sub(r"\1_\2", s)  # HTTPServer -> HTTP_Server
    s = _CAMEL.sub(r"\1_\2", s)  # favoriteColor -> favorite_Color
    s = _APOSTROPHES.sub("", s.casefold())  # "don't" -> "dont", so negations stay one token
    s = _SEPARATORS.sub("_", s)
    parts = (_UNDERSCORES.sub("_", part).strip("_") for part in s.split("."))
    return ".".join(part for part in parts if part)


def split_namespace(normalized: str) -> tuple[str, str]:
    """("caroline", "location") for "caroline.location"; ("", key) for the subject's own key."""
    namespace, dot, local = normalized.partition(".")
    return (namespace, local) if dot else ("", normalized)


_MOST_DIGITS = 4000


def fold_token(token: str) -> str:
    """Plural to singular (roughly) and British to American spelling, for comparison only."""
    # line_01 and line_1 are the same number. Only decimal digits make one (a Brahmi numeral
    # is a digit that int() refuses), and only as many as int() reads from a string.
    if token.isdecimal() and len(token) <= _MOST_DIGITS:
        return str(int(token))
    if len(token) > 4 and token.endswith("ies"):
        token = token[:-3] + "y"
    elif len(token) >= 4 and token.endswith("s") and not token.endswith(("ss", "us", "is")):
        token = token[:-1]
    return SPELLING.get(token, token)


def key_tokens(local: str) -> list[str]:
    """Comparison tokens of a key's local part: words and numbers, folded, stopwords dropped."""
    return [t for t in (fold_token(raw) for raw in _TOKEN.findall(local)) if t not in KEY_FILLER]
