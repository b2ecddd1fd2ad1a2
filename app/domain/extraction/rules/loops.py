"""Open loops: plans, intentions and to-dos, in the third person.

``open_loop_family`` takes plans and to-dos ("I need to", "I'm going to", "remind me to", "we
should", "I plan to", "I'm thinking about ...ing") with the day they were said and any date they
name: "Melanie plans to go camping (said 8 May 2023; next month = June 2023)". A move or a start
is a plan without a date ("we're moving to Austin!", "starting at Kestrel Labs in two weeks",
subject left out), and so is anything booked or scheduled for a future day: "can't do drinks on
Wednesday, I have my eye test" -> "Marcus has Marcus's eye test (said 13 March 2023; on Wednesday
= 15 March 2023)", also when the day is in the sentence before, in the same turn; "my interview
is on Thursday"; "I fly to Lisbon on Friday". A planned move or job is only a loop: the fact
comes once it has happened (see ``facts``).

A loop is kept only when it names something to do, with its object, said plainly: no pronoun
object ("I need to pick him up"), no second clause, choice or hedge ("give it a go as well
sounds great", "find or build better routines"), no state ("be awake"), no condition ("when I
really need to focus"), no wish taken back ("I wanna go swimming but ..."). Promises with "I'll",
"let's", "can't wait to" and "looking forward to" are pleasantries in chat and give none.

Pronouns are rewritten conservatively (``pronouns``): I/we -> the speaker's name (with the verb
agreeing: "I am" -> "Caroline is"), me/us -> the name, my/our/mine -> "Caroline's"; otherwise the
sentence is skipped. Plans are taken from people only; database rows give none.
"""

from __future__ import annotations

import re

from app.domain.dates import Resolved, anchor_day, format_day
from app.domain.extraction.extractor import Extraction
from app.domain.extraction.rules.guards import clause_start, is_asserted, statement
from app.domain.extraction.rules.people import display_name, is_person, provenance, sentence_ts
from app.domain.extraction.rules.pronouns import (
    finish,
    other_speaker,
    possessive,
    third_person,
    third_person_verb,
    word_set,
)
from app.domain.extraction.rules.view import Sentence, View
from app.domain.passport import OpenLoop
from app.domain.words import I_ALONE, I_AM, STRETCHED, WE_ALONE

LOOP_MAX_CHARS = 240


# --- open loops -----------------------------------------------------------------------------

_WERE = r"(?<![\w'])(?i:we're|we\s+are)(?![\w'])"
_ADV = (
    r"(?:\s+(?i:really|definitely|totally|probably|also|still|just|finally|seriously|"
    r"actually|so|honestly|hopefully|now|soon|literally))*"
)
_GERUND = r"(?P<gerund>[a-z]+ing)\b"

# (pattern, phrase): the phrase is what follows the name; "{g}" takes the base verb of a gerund.
_LOOP_TABLE: tuple[tuple[str, str], ...] = (
    (rf"(?:{I_ALONE}|{WE_ALONE}){_ADV}\s+(?i:need|have|must)\s+(?i:to)\b", "needs to"),
    (rf"(?:{I_ALONE}|{WE_ALONE})(?i:'ve|\s+have)\s+(?i:got)\s+(?i:to)\b", "needs to"),
    # "I must have made a mistake" says what probably happened, not what is to be done.
    (rf"(?:{I_ALONE}|{WE_ALONE}){_ADV}\s+(?i:gotta|must)\b(?!\s+(?i:have)\b)", "needs to"),
    (rf"(?:{I_AM}|{_WERE}){_ADV}\s+(?i:going\s+to|gonna)\b", "is going to"),
    (r"(?<![\w'])(?i:remind\s+me\s+to)\b", "asked to be reminded to"),
    (rf"(?:{I_ALONE}|{WE_ALONE}){_ADV}\s+(?i:should)\b", "should"),
    (rf"(?:{I_ALONE}|{WE_ALONE}){_ADV}\s+(?i:plan|intend)\s+(?i:to)\b", "plans to"),
    (rf"(?:{I_AM}|{_WERE}){_ADV}\s+(?i:planning)\s+(?i:to)\b", "plans to"),
    (rf"(?:{I_AM}|{_WERE}){_ADV}\s+(?i:planning\s+on)\s+(?={_GERUND})", "plans to {g}"),
    # Weighing a thing is no plan to do it: "I'm considering buying a laptop" stays so.
    (
        rf"(?:{I_AM}|{_WERE}){_ADV}\s+(?i:thinking\s+(?:about|of))\s+(?={_GERUND})",
        "is thinking about",
    ),
    (rf"(?:{I_AM}|{_WERE}){_ADV}\s+(?i:considering)\s+(?={_GERUND})", "is considering"),
    (rf"(?:{I_ALONE}|{WE_ALONE}){_ADV}\s+(?:(?i:want)\s+(?i:to)|(?i:wanna))\b", "wants to"),
    (rf"(?:{I_ALONE}|{WE_ALONE}){_ADV}\s+(?i:hope)\s+(?i:to)\b", "hopes to"),
    (rf"(?:{I_AM}|{_WERE}){_ADV}\s+(?i:hoping)\s+(?i:to)\b", "hopes to"),
    (
        rf"(?:{I_ALONE}|{WE_ALONE})\s+(?i:promise)(?:\s+(?i:to|(?:that\s+)?i'll|(?:that\s+)?i\s+will))\b",
        "promised to",
    ),
    (rf"(?:{I_AM}|{_WERE}){_ADV}\s+(?i:about)\s+(?i:to)\b", "is about to"),
    (r"(?<![\w'])(?i:my|our)\s+(?i:goal|plan)\s+(?i:is)\s+(?i:to)\b", "aims to"),
)
_LOOP_PATTERNS = tuple((re.compile(p), phrase) for p, phrase in _LOOP_TABLE)
_PROGRESSIVE = re.compile(rf"(?:{I_AM}|{_WERE}){_ADV}\s+{_GERUND}")
# Gerunds that make a plan without a date: "we're moving to Austin!" (but "starting to feel").
_PLAN_ING = re.compile(
    rf"(?:{I_AM}|{_WERE}){_ADV}\s+(?P<gerund>moving|relocating|starting|flying|heading|off(?=\s+to\b))\s+"
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
    rf"(?:{I_ALONE}|{WE_ALONE}){_ADV}\s+(?i:have(?:\s+got)?|got)\s+(?=(?i:a|an|my|our|the|this)\s)|"
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
    rf"(?:{I_ALONE}|{WE_ALONE}){_ADV}\s+(?=(?i:fly|leave|start|move|head|travel|drive|arrive|return|"
    r"begin|graduate|visit|meet|race|run|compete|perform|present|speak|sit|take|interview|"
    r"close|marry|open|launch|play|see|go|get\s+back|come\s+back)\b)"
)
# A run of spaces is tried from its start only: from inside it the same words follow.
_LOOP_END = re.compile(
    r"\.(?!\w)|[;!?…]|,\s*(?:but|so|because|and\s+then|and\s+i|and\s+we|though)\b|"
    r"(?<!\s)\s+(?:but|because|since|cause|cuz|lol|haha|though)\b|(?<!\s)\s+-\s",
    re.IGNORECASE,
)
# Complements that are speech acts or replies, not things to do.
_NOT_TASKS = re.compile(
    r"^(?:never|not|no\s+longer|be\s+(?:honest|frank|fine|ok|okay|right\s+back|back|careful|there\s+for)|say|admit|"
    r"tell\s+you|bet|guess|agree|go\s+now|get\s+going|let\s+you\s+know|keep\s+you\s+posted|"
    r"keep\s+(?:that|it|this)\s+in\s+mind|think\s+about\s+it|try|see|check\s+it\s+out|"
    r"do\s+(?:that|it|this|the\s+same)|miss\s+you|talk\s+(?:to\s+you|soon|later)|take\s+care|"
    r"remember\s+(?:that|this)|look\s+into\s+it|(?:stop|pass|sleep|go|leave|run)$|"
    # A feeling that grows is no task: "I'm getting a bit anxious about it".
    r"get(?:ting)?\s+(?:(?:a\s+(?:bit|little)|kinda|kind\s+of|really|so|pretty|more|very|too)\s+)?"
    r"(?:anxious|nervous|worried|stressed|excited|tired|bored|scared|frustrated|overwhelmed|"
    r"confused|impatient|annoyed|sick))\b",
    re.IGNORECASE,
)
_GENERIC = word_set("try check keep think look make get going sure thing stuff things")
# A task is a verb and its object, said plainly. "I'll remember that", "I'm gonna go grab
# something" or "I need to pick him up" name nothing an agent could follow up on; a second clause
# ("... so that I can call them") or a hedge makes it a thought, not a task.
_NOT_IN_TASK = word_set(
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
# A task is something done: "be awake", "be famous" are states, "do in the future" is nothing,
# "I should have the funds ready" is an expectation.
_NOT_TASK_VERBS = word_set("be do have")
# "..., but" or "... but" before the clause ends: a space right before "but" is enough to know.
_BUT = re.compile(r"(?:,\s*|\s)but\b", re.IGNORECASE)
_CLAUSE_END = re.compile(r"[.;!?]")
# "when I really need to focus": a condition, not a plan.
_CONDITION = re.compile(
    r"\b(?:when|whenever|if|unless|until|once)\b|"
    # "can you suggest skills I should learn": a loop inside a request is the request's.
    r"\b(?:can|could|would|will)\s+you\b",
    re.IGNORECASE,
)
# Where a clause of its own begins: a date before it is another clause's ("a race in May, but
# first I have to fix my bike"); a comma alone does not ("Tomorrow, I'm going").
_OWN_CLAUSE = re.compile(r"[;]|\b(?:but|and|so|because|although|though|or)\b", re.IGNORECASE)
# Trailing words that only hedge the time: kept out of the task, not a reason to drop it. They
# are looked for in the task's last characters only (an end-anchored pattern is tried from every
# space of a long text).
_TAIL_HEDGE_CHARS = 120
_TAIL_HEDGES = re.compile(
    r"(?:\s+(?:too|as\s+well|soon|eventually|in\s+general|later|though|tho|sooner\s+rather\s+"
    r"than\s+later|right\s+now|for\s+sure|asap|um+|uh+|especially))+$",
    re.IGNORECASE,
)
_HEDGES = re.compile(
    r"^(?:(?:definitely|probably|really|just|actually|also|soon|finally|seriously|totally|"
    r"literally|honestly|still)\s+)+",
    re.IGNORECASE,
)
_TASK_WORD = re.compile(r"[a-z][\w'-]*", re.IGNORECASE)
_BRACKETS = (("(", ")"), ("[", "]"), ("{", "}"))
_TASK_MAX_WORDS = 10


def _task(complement: str, *, noun: bool = False) -> str | None:
    """The task said, without hedging adverbs, if it is a plain verb and object; else None.

    ``noun``: the complement is the thing booked ("my eye test"), not a verb and its object.
    """
    task = _HEDGES.sub("", complement)
    head, tail = task[:-_TAIL_HEDGE_CHARS], task[-_TAIL_HEDGE_CHARS:]
    task = (head + _TAIL_HEDGES.sub("", tail)).strip(" ,")
    if _MID_CLAUSE.search(task):
        return None  # "give it a go as well sounds great", "find or build better routines"
    if "\\" in task or any(task.count(o) != task.count(c) for o, c in _BRACKETS):
        return None  # cut inside a formula: "use the formula m = (y2"
    words = [w.lower() for w in _TASK_WORD.findall(task)]
    if len(words) < 2 - noun or len(words) > _TASK_MAX_WORDS or words[-1] in _NOT_LAST_WORDS:
        return None
    no_verb = words[0] in (_PREPOSITIONS if noun else _NOT_LAST_WORDS | _NOT_TASK_VERBS)
    if no_verb or any(w in _NOT_IN_TASK for w in words):
        return None  # "going to in Miami": the verb's object is missing
    if STRETCHED.search(task):
        return None
    return task


_PREPOSITIONS = word_set("of to for with in on at by from like and or but as about into")
_NOT_LAST_WORDS = word_set(
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


def open_loop_family(view: View, out: Extraction) -> None:
    """Plans, intentions, promises and to-dos, in the third person with their dates."""
    if view.segment.kind == "row":
        return
    seen = {loop.item for loop in out.open_loops}
    previous: Sentence | None = None
    for sentence in view.sentences:
        said = said_part(view, sentence)
        before = previous if previous is not None and previous.turn == sentence.turn else None
        previous = sentence
        item = _loop_item(view, sentence, said, before) if said is not None else None
        if item is not None and item not in seen:
            seen.add(item)
            loop = {"item": item, "ts": sentence_ts(sentence), "source": view.segment.id}
            out.open_loops.append(OpenLoop.model_validate({**loop, **provenance(view, sentence)}))


def _loop_item(
    view: View, sentence: Sentence, text: str, before: Sentence | None = None
) -> str | None:
    bare = _BARE_PLAN.match(text)
    if bare is not None:
        rest = text[bare.end() :]
        text = f"{text[: bare.end()]}I'm {rest[:1].lower()}{rest[1:]}"
    dates = view.dates_in(text, sentence.ts) if sentence.ts is not None else []
    today = anchor_day(sentence.ts) if sentence.ts is not None else None
    future = today is not None and any(r.date > today for r in dates)
    past = today is not None and any(r.date < today for r in dates)
    found = _find_loop(text) or _dated_plan(text, dates, future, past)
    if found is None and before is not None and today is not None and before.ts is not None:
        # "Can't do drinks on Wednesday. I have my eye test": the day is in the sentence before.
        earlier = [r for r in view.dates_in(before.text, before.ts) if r.date > today]
        found = _booked(text, []) if earlier and not dates else None
        dates = earlier if found is not None else dates
    if found is None:
        return None
    match, phrase = found
    if not is_asserted(text, match.start()):
        return None
    if _CONDITION.search(text[clause_start(text, match.start()) : match.start()]):
        return None
    if phrase in ("wants to", "hopes to") and _taken_back(text, match.end()):
        return None  # "I wanna go swimming but at the same time I don't": a wish taken back
    # What is booked ("a dentist appointment") or where one goes ("the pride parade") is a noun.
    noun = phrase in ("has", _HAS_OWN, "is going to")
    has_own = phrase == _HAS_OWN
    if has_own:
        # "My interview is on Thursday" -> "Jon has Jon's interview".
        start, end = match.span("thing")
        phrase = f"has {possessive(display_name(sentence.speaker))}"
    else:
        start = match.start("gerund") if phrase == "is" else match.end()
        end_match = _LOOP_END.search(text, start)
        end = end_match.start() if end_match else len(text)
    task, removed = _without_dates(text, start, end, dates)
    if has_own:
        # "My deadline is February 28, 2024": the day after "is" is what makes it a plan.
        removed += [r for r in dates if r.span[0] == match.end() and r not in removed]
    complement = _task(task.strip(" ,"), noun=noun)
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
        phrase, complement = third_person_verb(verb), rest
    name = display_name(sentence.speaker)
    other = other_speaker(view, sentence.speaker)
    rewritten = third_person(complement, name, other, capitalize=False)
    if rewritten is None:
        return None
    body = finish(f"{name} {phrase} {rewritten}", LOOP_MAX_CHARS).rstrip(".")
    own = [m.end() for m in _OWN_CLAUSE.finditer(text, 0, match.start())]
    return body + _said(sentence, [r for r in dates if r.span[0] >= max(own, default=0)], removed)


def _taken_back(text: str, start: int) -> bool:
    """Whether "but" follows ``start`` in the same clause: "I wanna go swimming but ..."."""
    end = _CLAUSE_END.search(text, start)
    return _BUT.search(text, start, end.start() if end else len(text)) is not None


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


def _without_dates(
    text: str, start: int, end: int, dates: list[Resolved]
) -> tuple[str, list[Resolved]]:
    """The task without the dates at its ends, and those dates; one inside it stays ("take this
    weekend off")."""
    parts: list[str] = []
    removed: list[Resolved] = []
    cursor = start
    for resolved in dates:
        a, b = resolved.span
        at_an_end = not text[start:a].strip(" ,") or not text[b:end].strip(" ,.!?")
        if a >= start and b <= end and at_an_end:
            parts.append(text[cursor:a])
            removed.append(resolved)
            cursor = b
    parts.append(text[cursor:end])
    return " ".join("".join(parts).split()), removed


def _said(sentence: Sentence, dates: list[Resolved], removed: list[Resolved]) -> str:
    """When it was said and its dates: a relative one resolved, a full one the task lost."""
    if sentence.ts is None:
        return ""
    notes = [f"said {format_day(anchor_day(sentence.ts))}"]
    for r in dates:
        if r.relative:
            notes.append(f"{r.expression} = {r.human}")
        elif r in removed:
            notes.append(r.expression)  # "coming up on June 20, 2024": the day is the point
    return f" ({'; '.join(notes)})"


def said_part(view: View, sentence: Sentence) -> str | None:
    """What a person states in a sentence (no question, no small talk), or None."""
    if sentence.small_talk or not is_person(view, sentence.speaker):
        return None
    return statement(sentence.text)
