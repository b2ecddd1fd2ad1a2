"""Whether a sentence asserts what a rule matched, and whether a value is a clean claim.

A question, a hypothetical, reported speech or a negation before a match undoes it; a value cut
from the chat must be a short phrase naming a thing (``claim_value``).
"""

from __future__ import annotations

import re

from app.domain.extraction.rules.lexicon import clean_value
from app.domain.extraction.rules.view import View
from app.domain.words import STRETCHED

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


def gerund_subject(text: str, match: re.Match[str]) -> bool:
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
NOT_IN_VALUE = frozenset(_NOT_IN_VALUE_TEXT.split())
# A value that ends on one of these was cut mid-phrase: "fantasy series like", "north of".
_NOT_LAST_TEXT = "a an the of to for with in on at by from like and or but as about into"
NOT_LAST = frozenset(_NOT_LAST_TEXT.split())
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


def claim_value(view: View, value: str) -> str | None:
    """``value`` as a short phrase naming a thing, a trailing vocative dropped; None if not one."""
    value = clean_value(value)
    names = {w.lower() for p in view.participants for w in _VALUE_WORD.findall(p)}
    words = _VALUE_WORD.findall(value)
    while len(words) > 1 and words[-1].lower() in names:  # "marine biology Kevin!"
        value = value[: value.lower().rfind(words[-1].lower())].rstrip(" ,")
        words = words[:-1]
    lowered = [w.lower().replace("’", "'") for w in words]
    if not lowered or len(lowered) > _MAX_VALUE_WORDS or lowered[-1] in NOT_LAST:
        return None
    if STRETCHED.search(value):  # "toooo", "himmm": chat emphasis, not a name
        return None
    if lowered == [lowered[0]] and lowered[0] in _NO_OBJECT:
        return None  # "I love using as much garlic as I can": the object was not kept
    if len(lowered) > 1 and _ADVERB.fullmatch(lowered[-1]):
        return None  # "playing occasionally": how, not what
    # A capitalised word is a name ("May", "Will"), whatever its lower case means.
    common = [w if words[i].islower() or words[i] == "I" else "" for i, w in enumerate(lowered)]
    if any(w in NOT_IN_VALUE or (w.endswith("'s") and w != lowered[-1]) for w in common[1:]):
        return None
    if common[0] in NOT_IN_VALUE or (lowered[0] in NOT_LAST and lowered[0] not in _ARTICLES):
        return None
    return value


def ends_clause_at(text: str, end: int) -> bool:
    """Whether nothing that qualifies what ends at ``end`` follows it ("X more", "X I think")."""
    rest = re.split(r"[,.;:!?()\"“”—–~]| - ", text[end:], maxsplit=1)[0]
    following = [w.lower() for w in _VALUE_WORD.findall(rest)]
    if following[:2] in (["too", "much"], ["too", "many"]):
        return False
    return not following or following[0] in _MAY_FOLLOW
