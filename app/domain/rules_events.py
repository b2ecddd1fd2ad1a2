"""Event families of the rule extractor: exact values and open loops.

- exact values are kept character for character - UUIDs, URLs, e-mail addresses, file paths,
  connection strings, IP addresses, version numbers, order and ticket ids ("ORD-12345", "#4521",
  "JIRA-77"): ``value_family`` makes each an entity named by the value ("tool" for addresses and
  paths, "other" for ids and versions); the turn that said it stays in the turn log.
- ``open_loop_family``: plans, intentions and to-dos ("I need to", "I'm going to", "remind me
  to", "we should", "I plan to", "I'm thinking about ...ing") in the third person
  with the day they were said and any date they name: "Melanie plans to go camping (said 8 May
  2023; next month = June 2023)". A move or a start is a plan without a date ("we're moving to
  Austin!", "starting at Kestrel Labs in two weeks", subject left out), and so is anything booked
  or scheduled for a future day: "can't do drinks on Wednesday, I have my eye test" -> "Marcus
  has Marcus's eye test (said 13 March 2023; on Wednesday = 15 March 2023)", also when the day
  is in the sentence before, in the same turn; "my interview is on Thursday"; "I fly to Lisbon
  on Friday". A planned move or job is only a loop: the fact comes once it has happened (see
  ``rules_facts``).

  A loop is kept only when it names something to do, with its object, said plainly: no pronoun
  object ("I need to pick him up"), no second clause, choice or hedge ("give it a go as well
  sounds great", "find or build better routines"), no state ("be awake"), no condition ("when I
  really need to focus"), no wish taken back ("I wanna go swimming but ..."). Promises with "I'll",
  "let's", "can't wait to" and "looking forward to" are pleasantries in chat and give none.

Pronouns are rewritten conservatively: I/we -> the speaker's name (with the verb agreeing: "I
am" -> "Caroline is"), me/us -> the name, my/our/mine -> "Caroline's"; otherwise the sentence is
skipped. Plans are taken from people only; machine speakers (assistant, bot) contribute exact
values. Database rows give none of these: they are structured already.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from app.domain.dates import Resolved, anchor_day, format_day, resolve_relative
from app.domain.extract import Extraction
from app.domain.passport import EntityType, OpenLoop
from app.domain.rules_facts import (
    add_entity,
    clause_start,
    display_name,
    is_asserted,
    is_person,
    provenance,
    sentence_ts,
    statement,
)

if TYPE_CHECKING:
    from app.domain.rules import _Sentence, _View

LOOP_MAX_CHARS = 240

# --- pronouns -------------------------------------------------------------------------------


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_MODALS = _words(
    "can could will would shall should may might must can't couldn't won't wouldn't shouldn't "
    "mustn't didn't did had hadn't was wasn't 'd 'll cannot"
)
_PAST_TEXT = """
    was were did had went got came saw took made said told ran won lost met left bought sold
    found felt thought began gave wrote ate drove flew swam sang spent sent brought caught taught
    built held kept slept heard paid sat stood fell broke chose forgot became knew grew threw wore
    woke rode drew drank fought led meant used fed hung lit shot spoke stole stuck struck swore
    tore understood won sought bent bled dug froze hid bit shook slid spun sprang stung strode
    """
PAST_WORDS = frozenset(_PAST_TEXT.split())
# Present and past are spelt alike; read as past, they need no "-s".
_SAME_PAST = _words("put cut hit let set quit read shut spread hurt cost bet beat cast split")
_PARTICIPLES = _words(
    "been gone done seen made got gotten taken given written eaten driven flown swum sung begun "
    "known grown thrown worn woken ridden drawn drunk fought led become come run won lost met left "
    "bought sold found felt thought kept slept heard paid sat stood fallen broken chosen forgotten "
    "spent sent brought caught taught built held had said told"
)
_ADVERBS = _words(
    "just also still always often usually sometimes even only actually finally recently already "
    "really totally definitely probably honestly literally kinda ever truly absolutely seriously "
    "especially mostly rarely hardly barely certainly simply generally personally occasionally "
    "now then too both all once officially"
)
# Adverbs that may stand between a subject and its verb in the third person: "Jon never uses".
# Kept apart from _ADVERBS, which the event test skips over: "I never went" is no event.
_BEFORE_VERB = _ADVERBS | _words("never rarely seldom")
# Verbs ending in -ed that are present tense: "I need" -> "Jon needs".
_NOT_PAST_ED = _words("need feed bleed breed speed seed exceed proceed succeed embed shred")
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


def _third_person_verb(word: str) -> str:
    lower = word.lower()
    if lower in _THIRD_IRREGULAR:
        return _THIRD_IRREGULAR[lower]
    if (
        not lower.isalpha()
        or lower in _MODALS
        or lower in PAST_WORDS
        or lower in _SAME_PAST
        or (lower.endswith("ed") and lower not in _NOT_PAST_ED)
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
    (re.compile(r",?\s*you\s+know(?=\s*[.!?…]*\s*$)", re.I), ""),
)


def third_person(text: str, name: str, other: str | None, *, capitalize: bool = True) -> str | None:
    """``text`` said by ``name``, in the third person; None if "you" has no one to stand for."""
    for pattern, replacement in _FILLERS:
        text = pattern.sub(replacement, text)
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
            out.append(_third_person_verb(token))
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


def other_speaker(view: _View, speaker: str) -> str | None:
    """Whom "you" means: the one other person in a two-person conversation, else None."""
    others = [p for p in view.participants if p != speaker]
    return display_name(others[0]) if len(view.participants) == 2 and len(others) == 1 else None


def _finish(text: str, limit: int) -> str:
    """A sentence: a capital, one full stop, at most ``limit`` characters."""
    text = re.sub(r"[\s.!?…~]+$", "", " ".join(text.split()))
    text = re.sub(r"\s+([,.;:!?])", r"\1", text)
    if len(text) + 1 > limit:
        cut = text[: limit - 1].rsplit(" ", 1)[0].rstrip(" ,;:-")
        return cut + "…"
    return (text[:1].upper() + text[1:] + ".") if text else text


# --- exact values ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Value:
    start: int
    end: int
    text: str
    kind: EntityType


_TRAILING = ".,;:!?'\"”’"
# (kind, trigger, pattern): the pattern runs only when the text has the trigger.
_VALUE_PATTERNS: tuple[tuple[str, re.Pattern[str], re.Pattern[str]], ...] = tuple(
    (kind, re.compile(trigger, re.IGNORECASE), re.compile(pattern))
    for kind, trigger, pattern in (
        ("uri", r"://", r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s'\"<>\[\]{}]+"),
        ("email", r"@", r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{2,}\b"),
        (
            "uuid",
            r"-",
            r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b",
        ),
        (
            "path",
            r"/|\\",
            r"(?<![\w/:.])(?:~|\.{1,2})?(?:/[\w.@+-]+){2,}/?|\b[A-Za-z]:\\(?:[\w .-]+\\)*[\w.-]+",
        ),
        ("ip", r"\d\.\d", r"(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?(?!\w|\.\d)"),
        (
            "ip",
            r"::",
            r"(?<![\w:])(?:[0-9a-fA-F]{1,4}:){1,7}:(?:[0-9a-fA-F]{1,4}(?::[0-9a-fA-F]{1,4})*)?(?![\w:])",
        ),
        ("ip", r":", r"(?<![\w:])(?:[0-9a-fA-F]{1,4}:){7}[0-9a-fA-F]{1,4}(?![\w:])"),
        ("id", r"-", r"(?<![\w-])[A-Z][A-Z0-9]{1,9}-\d{1,10}(?![\w-])"),
        (
            "id",
            r"\d",
            r"(?i:\b(?:order|ticket|case|confirmation|booking|reference|ref|invoice|tracking|"
            r"account|membership|member|policy|reservation|customer|serial|licen[cs]e)"
            r"(?:\s+(?:number|no\.?|num|#|id|code))?(?:\s+is)?\s*[:#]?\s*)"
            r"(?P<v>(?=[A-Za-z0-9-]*\d)[A-Z0-9][A-Za-z0-9-]{3,})\b",
        ),
        ("id", r"#", r"(?<![\w&#])#\d{2,10}\b"),
        (
            "version",
            r"\d\.\d|v\d|version",
            r"(?<![\w.])v?\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?(?!\w|\.\d)|(?<![\w.])v\d+(?:\.\d+)?"
            r"(?!\w|\.\d)|(?i:\bversion\s+)(?P<v>\d+(?:\.\d+)*)\b",
        ),
    )
)
# Every value has a digit, a slash, an "@" or a "::"; most sentences have none.
_MAY_HOLD_VALUE = re.compile(r"[\d/@\\]|::")
# Ids that are names of things, not identifiers someone needs back verbatim.
_NOT_IDS = frozenset({"COVID-19", "SARS-2", "MP3", "MP4", "A4"})


def find_values(text: str) -> list[_Value]:
    """Exact values in ``text``, in order, never overlapping (the first pattern wins a tie)."""
    if not _MAY_HOLD_VALUE.search(text):
        return []
    return list(_find_values(text))


@lru_cache(maxsize=2048)  # two families look at the same sentences
def _find_values(text: str) -> tuple[_Value, ...]:
    found: list[tuple[int, int, int, _Value]] = []
    for order, (kind, trigger, pattern) in enumerate(_VALUE_PATTERNS):
        if not trigger.search(text):
            continue
        for match in pattern.finditer(text):
            group = "v" if match.groupdict().get("v") else 0
            start, end = match.span(group)
            value = match.group(group)
            if kind in ("uri", "path"):
                value = _trim_trailing(value)
                end = start + len(value)
            entity = _value_kind(kind, value)
            if entity is None:
                continue
            found.append((start, -(end - start), order, _Value(start, end, value, entity)))
    found.sort(key=lambda item: item[:3])
    chosen: list[_Value] = []
    for _, _, _, value in found:
        if not any(value.start < c.end and c.start < value.end for c in chosen):
            chosen.append(value)
    return tuple(sorted(chosen, key=lambda v: v.start))


def _trim_trailing(value: str) -> str:
    while value and value[-1] in _TRAILING + ")":
        if value[-1] == ")" and value.count("(") >= value.count(")"):
            break
        value = value[:-1]
    return value


def _value_kind(kind: str, value: str) -> EntityType | None:
    if kind == "ip":
        try:
            ipaddress.ip_address(value.rsplit(":", 1)[0] if value.count(":") == 1 else value)
        except ValueError:
            return None
        return "tool"
    if kind == "version":
        parts = value.lstrip("v").split(".")
        # 8.5.2023 is a date, not a version.
        if len(parts) == 3 and len(parts[2]) == 4 and parts[0].isdigit() and int(parts[0]) <= 31:
            return None
        return "other"
    if kind == "id":
        return None if value in _NOT_IDS else "other"
    if kind == "uri":
        return "tool" if len(value.split("://", 1)[1]) > 1 else None
    return "tool" if kind == "path" else "other"


def value_family(view: _View, out: Extraction) -> None:
    """Exact values as entities named by the value (their observations come in order below)."""
    if view.segment.kind == "row":
        return
    for sentence in view.sentences:
        for value in find_values(sentence.text):
            add_entity(out, value.text, value.kind)


def _said_part(view: _View, sentence: _Sentence) -> str | None:
    """What a person states in a sentence (no question, no small talk), or None."""
    if sentence.small_talk or not is_person(view, sentence.speaker):
        return None
    return statement(sentence.text)


# --- open loops -----------------------------------------------------------------------------

_I = r"(?<![\w'])(?i:i)(?![\w'])"
_IM = r"(?<![\w'])(?i:i'm|i\s+am|im)(?![\w'])"
_WE = r"(?<![\w'])(?i:we)(?![\w'])"
_WERE = r"(?<![\w'])(?i:we're|we\s+are)(?![\w'])"
_ADV = (
    r"(?:\s+(?i:really|definitely|totally|probably|also|still|just|finally|seriously|"
    r"actually|so|honestly|hopefully|now|soon|literally))*"
)
_GERUND = r"(?P<gerund>[a-z]+ing)\b"

# (pattern, phrase): the phrase is what follows the name; "{g}" takes the base verb of a gerund.
_LOOP_TABLE: tuple[tuple[str, str], ...] = (
    (rf"(?:{_I}|{_WE}){_ADV}\s+(?i:need|have|must)\s+(?i:to)\b", "needs to"),
    (rf"(?:{_I}|{_WE})(?i:'ve|\s+have)\s+(?i:got)\s+(?i:to)\b", "needs to"),
    (rf"(?:{_I}|{_WE}){_ADV}\s+(?i:gotta|must)\b", "needs to"),
    (rf"(?:{_IM}|{_WERE}){_ADV}\s+(?i:going\s+to|gonna)\b", "is going to"),
    (r"(?<![\w'])(?i:remind\s+me\s+to)\b", "asked to be reminded to"),
    (rf"(?:{_I}|{_WE}){_ADV}\s+(?i:should)\b", "should"),
    (rf"(?:{_I}|{_WE}){_ADV}\s+(?i:plan|intend)\s+(?i:to)\b", "plans to"),
    (rf"(?:{_IM}|{_WERE}){_ADV}\s+(?i:planning)\s+(?i:to)\b", "plans to"),
    (
        rf"(?:{_IM}|{_WERE}){_ADV}\s+(?i:planning\s+on|thinking\s+(?:about|of)|considering)\s+"
        rf"(?={_GERUND})",
        "plans to {g}",
    ),
    (rf"(?:{_I}|{_WE}){_ADV}\s+(?:(?i:want)\s+(?i:to)|(?i:wanna))\b", "wants to"),
    (rf"(?:{_I}|{_WE}){_ADV}\s+(?i:hope)\s+(?i:to)\b", "hopes to"),
    (rf"(?:{_IM}|{_WERE}){_ADV}\s+(?i:hoping)\s+(?i:to)\b", "hopes to"),
    (
        rf"(?:{_I}|{_WE})\s+(?i:promise)(?:\s+(?i:to|(?:that\s+)?i'll|(?:that\s+)?i\s+will))\b",
        "promised to",
    ),
    (rf"(?:{_IM}|{_WERE}){_ADV}\s+(?i:about)\s+(?i:to)\b", "is about to"),
    (r"(?<![\w'])(?i:my|our)\s+(?i:goal|plan)\s+(?i:is)\s+(?i:to)\b", "aims to"),
)
_LOOP_PATTERNS = tuple((re.compile(p), phrase) for p, phrase in _LOOP_TABLE)
_PROGRESSIVE = re.compile(rf"(?:{_IM}|{_WERE}){_ADV}\s+{_GERUND}")
# Gerunds that make a plan without a date: "we're moving to Austin!" (but "starting to feel").
_PLAN_ING = re.compile(
    rf"(?:{_IM}|{_WERE}){_ADV}\s+(?P<gerund>moving|relocating|starting|flying|heading|off(?=\s+to\b))\s+"
    r"(?!(?i:to\s+(?!the\b|a\b)[a-z]+ing\b|to\s+(?:feel|get|think|see|wonder|worry|realize|"
    r"like|love|hate|look|sound|wish|come\s+around)\b|on\b|it\b|out\b|over\b))"
)
# A line that opens with the plan, subject left out: "starting at Kestrel Labs in two weeks".
_BARE_PLAN = re.compile(
    r"^(?:(?i:so|and|just|also|finally|officially)\s+)*(?=(?i:moving|relocating|starting|flying|"
    r"heading|leaving|driving|travell?ing|visiting|off\s+to)\b)"
)
# Something booked for a future day: "I have my eye test", "I've got a dentist appointment".
_BOOKED = re.compile(
    rf"(?:{_I}|{_WE}){_ADV}\s+(?i:have(?:\s+got)?|got)\s+(?=(?i:a|an|my|our|the|this)\s)|"
    r"(?<![\w'])(?i:i've|we've)\s+(?i:got)\s+(?=(?i:a|an|my|our|the|this)\s)"
)
# "My interview is on Thursday": the thing, then "is" and the date.
_BOOKED_IS = re.compile(
    r"(?<![\w'])(?i:my|our)\s+(?P<thing>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}?)\s+"
    r"(?i:is|'s)\s+(?=\S)"
)
# Phrases filled in later: "has Jon's" + the thing booked, and the schedule's own verb.
_HAS_OWN = "has {own}"
_VERB = "{verb}"
# Present tense with a future date is a schedule: "I fly to Lisbon on Friday".
_SCHEDULE = re.compile(
    rf"(?:{_I}|{_WE}){_ADV}\s+(?=(?i:fly|leave|start|move|head|travel|drive|arrive|return|"
    r"begin|graduate|visit|meet|race|run|compete|perform|present|speak|sit|take|interview|"
    r"close|marry|open|launch|play|see|go|get\s+back|come\s+back)\b)"
)
_LOOP_END = re.compile(
    r"[.;!?…]|,\s*(?:but|so|because|and\s+then|and\s+i|and\s+we|though)\b|"
    r"\s+(?:but|because|since|cause|cuz|lol|haha|though)\b|\s+-\s",
    re.IGNORECASE,
)
# Complements that are speech acts or replies, not things to do.
_NOT_TASKS = re.compile(
    r"^(?:never|not|no\s+longer|be\s+(?:honest|frank|fine|ok|okay|right\s+back|back|careful|there\s+for)|say|admit|"
    r"tell\s+you|bet|guess|agree|go\s+now|get\s+going|let\s+you\s+know|keep\s+you\s+posted|"
    r"keep\s+(?:that|it|this)\s+in\s+mind|think\s+about\s+it|try|see|check\s+it\s+out|"
    r"do\s+(?:that|it|this|the\s+same)|miss\s+you|talk\s+(?:to\s+you|soon|later)|take\s+care|"
    r"remember\s+(?:that|this)|look\s+into\s+it|(?:stop|pass|sleep|go|leave|run)$)\b",
    re.IGNORECASE,
)
_GENERIC = _words("try check keep think look make get going sure thing stuff things")
# A task is a verb and its object, said plainly. "I'll remember that", "I'm gonna go grab
# something" or "I need to pick him up" name nothing an agent could follow up on; a second clause
# ("... so that I can call them") or a hedge makes it a thought, not a task.
_NOT_IN_TASK = _words(
    "it that this these those them they there her him she he you your yours one something "
    "anything someone somebody stuff things what how when whenever if so because cause cuz but "
    "though although then now maybe hopefully idk lol haha lmao i i'm im i've i'd me "
    "tho unless until while where which who why however themselves himself herself yourself "
    "can can't cannot don't dont doesn't didn't isn't is are was were will would won't could "
    "should they're it's that's there's we're you're he's she's just their theirs together "
    "myself ourselves kinda sorta someday sometime"
)
# Inside a task, these start another clause or offer a choice rather than name one thing.
_MID_CLAUSE = re.compile(r"\s(?:as\s+well|too|or)\s", re.IGNORECASE)
# A task is something done: "be awake", "be famous" are states, "do in the future" is nothing.
_NOT_TASK_VERBS = _words("be do")
_BUT_AFTER = re.compile(r"[^.;!?]*?(?:,\s*|\s+)but\b", re.IGNORECASE)
# "when I really need to focus": a condition, not a plan.
_CONDITION = re.compile(r"\b(?:when|whenever|if|unless|until|once)\b", re.IGNORECASE)
# Trailing words that only hedge the time: kept out of the task, not a reason to drop it.
_TAIL_HEDGES = re.compile(
    r"(?:\s+(?:too|as\s+well|soon|eventually|in\s+general|later|though|tho|sooner\s+rather\s+"
    r"than\s+later|right\s+now|for\s+sure|asap))+$",
    re.IGNORECASE,
)
_HEDGES = re.compile(
    r"^(?:(?:definitely|probably|really|just|actually|also|soon|finally|seriously|totally|"
    r"literally|honestly|still)\s+)+",
    re.IGNORECASE,
)
_TASK_WORD = re.compile(r"[a-z][\w'-]*", re.IGNORECASE)
_TASK_MAX_WORDS = 10


def _task(complement: str, *, noun: bool = False) -> str | None:
    """The task said, without hedging adverbs, if it is a plain verb and object; else None.

    ``noun``: the complement is the thing booked ("my eye test"), not a verb and its object.
    """
    task = _TAIL_HEDGES.sub("", _HEDGES.sub("", complement)).strip(" ,")
    if _MID_CLAUSE.search(task):
        return None  # "give it a go as well sounds great", "find or build better routines"
    words = [w.lower() for w in _TASK_WORD.findall(task)]
    if len(words) < 2 - noun or len(words) > _TASK_MAX_WORDS or words[-1] in _NOT_LAST_WORDS:
        return None
    no_verb = words[0] in (_PREPOSITIONS if noun else _NOT_LAST_WORDS | _NOT_TASK_VERBS)
    if no_verb or any(w in _NOT_IN_TASK for w in words):
        return None  # "going to in Miami": the verb's object is missing
    if _STRETCHED.search(task):
        return None
    return task


_STRETCHED = re.compile(r"([^\W\d])\1\1", re.IGNORECASE)


_PREPOSITIONS = _words("of to for with in on at by from like and or but as about into")
_NOT_LAST_WORDS = _words(
    "a an the of to for with in on at by from like and or but as about into my our some more any"
)
# Base forms of gerunds whose spelling rules are not regular enough to guess.
_BASE_VERBS = {
    "going": "go",
    "getting": "get",
    "taking": "take",
    "making": "make",
    "having": "have",
    "doing": "do",
    "moving": "move",
    "writing": "write",
    "hiking": "hike",
    "baking": "bake",
    "dancing": "dance",
    "driving": "drive",
    "giving": "give",
    "leaving": "leave",
    "living": "live",
    "retiring": "retire",
    "changing": "change",
    "creating": "create",
    "hosting": "host",
    "coming": "come",
    "riding": "ride",
    "using": "use",
    "sharing": "share",
    "saving": "save",
    "exploring": "explore",
    "volunteering": "volunteer",
    "traveling": "travel",
    "travelling": "travel",
    "running": "run",
    "shopping": "shop",
    "swimming": "swim",
    "starting": "start",
    "visiting": "visit",
    "adopting": "adopt",
    "buying": "buy",
    "trying": "try",
    "applying": "apply",
    "studying": "study",
    "learning": "learn",
    "joining": "join",
    "painting": "paint",
    "signing": "sign",
    "selling": "sell",
    "opening": "open",
    "booking": "book",
    "renting": "rent",
    "finding": "find",
    "switching": "switch",
    "quitting": "quit",
    "camping": "camp",
    "seeing": "see",
    "reading": "read",
    "watching": "watch",
    "playing": "play",
    "heading": "head",
    "spending": "spend",
    "building": "build",
    "launching": "launch",
    "teaching": "teach",
    "attending": "attend",
    "enrolling": "enroll",
    "throwing": "throw",
    "asking": "ask",
}


# Every plan phrase has one of these words; most sentences have none.
_LOOP_TRIGGER = re.compile(
    r"need|have|must|got|gotta|going|gonna|'ll|will|remind|should|plan|intend|thinking|"
    r"considering|want|wanna|hope|hoping|promise|wait|about to|looking|goal|let"
)


def _find_loop(text: str) -> tuple[re.Match[str], str] | None:
    """The earliest plan phrase: "I promise I'll ..." is a promise before it is a "will"."""
    if not _LOOP_TRIGGER.search(text.lower()):
        return None
    found = [(m, phrase) for pattern, phrase in _LOOP_PATTERNS if (m := pattern.search(text))]
    return min(found, key=lambda item: item[0].start(), default=None)


def open_loop_family(view: _View, out: Extraction) -> None:
    """Plans, intentions, promises and to-dos, in the third person with their dates."""
    if view.segment.kind == "row":
        return
    seen = {loop.item for loop in out.open_loops}
    previous: _Sentence | None = None
    for sentence in view.sentences:
        said = _said_part(view, sentence)
        before = previous if previous is not None and previous.turn == sentence.turn else None
        previous = sentence
        item = _loop_item(view, sentence, said, before) if said is not None else None
        if item is not None and item not in seen:
            seen.add(item)
            loop = {"item": item, "ts": sentence_ts(sentence), "source": view.segment.id}
            out.open_loops.append(OpenLoop.model_validate({**loop, **provenance(view, sentence)}))


def _loop_item(
    view: _View, sentence: _Sentence, text: str, before: _Sentence | None = None
) -> str | None:
    bare = _BARE_PLAN.match(text)
    if bare is not None:
        rest = text[bare.end() :]
        text = f"{text[: bare.end()]}I'm {rest[:1].lower()}{rest[1:]}"
    dates = resolve_relative(text, sentence.ts) if sentence.ts is not None else []
    today = anchor_day(sentence.ts) if sentence.ts is not None else None
    future = today is not None and any(r.date > today for r in dates)
    past = today is not None and any(r.date < today for r in dates)
    found = _find_loop(text) or _dated_plan(text, dates, future, past)
    if found is None and before is not None and today is not None and before.ts is not None:
        # "Can't do drinks on Wednesday. I have my eye test": the day is in the sentence before.
        earlier = [r for r in resolve_relative(before.text, before.ts) if r.date > today]
        found = _booked(text, []) if earlier and not dates else None
        dates = earlier if found is not None else dates
    if found is None:
        return None
    match, phrase = found
    if not is_asserted(text, match.start()):
        return None
    if _CONDITION.search(text[clause_start(text, match.start()) : match.start()]):
        return None
    if phrase in ("wants to", "hopes to") and _BUT_AFTER.match(text[match.end() :]):
        return None  # "I wanna go swimming but at the same time I don't": a wish taken back
    # What is booked ("a dentist appointment") or where one goes ("the pride parade") is a noun.
    noun = phrase in ("has", _HAS_OWN, "is going to")
    if phrase == _HAS_OWN:
        # "My interview is on Thursday" -> "Jon has Jon's interview".
        start, end = match.span("thing")
        phrase = f"has {possessive(display_name(sentence.speaker))}"
    else:
        start = match.start("gerund") if phrase == "is" else match.end()
        end_match = _LOOP_END.search(text, start)
        end = end_match.start() if end_match else len(text)
    complement = _task(_without_dates(text, start, end, dates).strip(" ,"), noun=noun)
    if complement is None or _NOT_TASKS.match(complement):
        return None
    words = {w for w in re.findall(r"[a-z][\w'-]*", complement.lower())}
    if not any(w in view.word_counts and w not in _GENERIC for w in words):
        return None
    if "{g}" in phrase:
        # "thinking about going camping" -> "plans to go camping", when the verb is known.
        gerund, _, rest = complement.partition(" ")
        base = _BASE_VERBS.get(gerund.lower())
        phrase = "is thinking about" if base is None else "plans to"
        complement = complement if base is None else f"{base} {rest}".strip()
    elif phrase == _VERB:
        # "I fly to Lisbon on Friday" -> "Jon flies to Lisbon".
        verb, _, rest = complement.partition(" ")
        phrase, complement = _third_person_verb(verb), rest
    name = display_name(sentence.speaker)
    other = other_speaker(view, sentence.speaker)
    rewritten = third_person(complement, name, other, capitalize=False)
    if rewritten is None:
        return None
    body = _finish(f"{name} {phrase} {rewritten}", LOOP_MAX_CHARS).rstrip(".")
    return body + _said(sentence, dates)


def _dated_plan(
    text: str, dates: list[Resolved], future: bool, past: bool
) -> tuple[re.Match[str], str] | None:
    """A plan told by its verb or its date: "I'm moving to Austin", "I fly out on Friday"."""
    moving = None if past else _PLAN_ING.search(text)
    if moving is not None:
        return moving, "is"
    if not future:
        return None
    progressive = _PROGRESSIVE.search(text)
    if progressive is not None:  # "I'm visiting Paris next week"
        return progressive, "is"
    schedule = _SCHEDULE.search(text)
    if schedule is not None:
        return schedule, _VERB
    return _booked(text, dates)


def _booked(text: str, dates: list[Resolved]) -> tuple[re.Match[str], str] | None:
    booked = _BOOKED.search(text)
    if booked is not None:
        return booked, "has"
    for thing in _BOOKED_IS.finditer(text):
        # Only when the date follows "is" at once: "my sister is visiting next week" is no thing.
        if any(r.span[0] == thing.end() for r in dates):
            return thing, _HAS_OWN
    return None


def _without_dates(text: str, start: int, end: int, dates: list[Resolved]) -> str:
    """The task without the dates at its ends; one inside it stays ("take this weekend off")."""
    parts: list[str] = []
    cursor = start
    for resolved in dates:
        a, b = resolved.span
        at_an_end = not text[start:a].strip(" ,") or not text[b:end].strip(" ,.!?")
        if a >= start and b <= end and at_an_end:
            parts.append(text[cursor:a])
            cursor = b
    parts.append(text[cursor:end])
    return " ".join("".join(parts).split())


def _said(sentence: _Sentence, dates: list[Resolved]) -> str:
    if sentence.ts is None:
        return ""
    notes = [f"said {format_day(anchor_day(sentence.ts))}"]
    notes += [f"{r.expression} = {r.human}" for r in dates if r.relative]
    return f" ({'; '.join(notes)})"
