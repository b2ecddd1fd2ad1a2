"""The offline rule extractor: deterministic, no model, no clock.

One segment in; out come the claims the rules can state cleanly about named people (facts,
preferences, open loops, each with the ``turn_ids`` of the turn it came from) and the entities
they can name. No observation and no episode: the verbatim turn log keeps what happened, with its
dates resolved, and a rule rewrite of a turn would only lose its subject and cost budget twice.
Every extracted string is copied from the input (or is a fixed template word).

The work is split into pattern families: each is a plain function that reads a ``_View`` of the
segment and fills part of an ``Extraction``. This module keeps the registry (``FAMILIES``), the
view and entities; facts and preferences live in ``rules_facts``, exact values and open loops in
``rules_events``, and date arithmetic in ``dates``. A new family is one function listed in
``FAMILIES``. A family that raises is run again turn by turn, then sentence by sentence, so it
costs only what it would have added for the sentence it fails on; the failure is recorded in
``Extraction.failures`` and everything else is kept.
"""

from __future__ import annotations

import copy
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime

from app.domain.dates import (
    MONTHS,
    WEEKDAYS,
    segment_time,
)
from app.domain.extract import Extraction, ExtractionInput
from app.domain.passport import Entity, EntityType
from app.domain.rules_events import open_loop_family, value_family
from app.domain.rules_facts import alias_family, fact_family, pref_family, turn_id_of
from app.domain.turns import Segment

ENTITY_NAME_MAX_CHARS = 120
GENERIC_SPEAKERS = frozenset({"user", "assistant", "system", "bot", "ai", "human", "tool"})

# A plain English stopword list plus conversational filler: keywords should say what a segment
# is about, not how people chat.
_STOPWORD_TEXT = """
    a about above after again against ago all almost also although always am among an and any
    anyone anything are aren't around as at away back be because been before being below between
    both but by can can't cannot could couldn't did didn't do does doesn't doing don't done down
    during each either else enough even ever every everyone everything few for from further get
    gets getting go goes going gone got gotta had hadn't has hasn't have haven't having he he'd
    he'll he's her here here's hers herself him himself his how how's however i i'd i'll i'm i've
    if in into is isn't it it's its itself just keep know knew let let's like likely lot lots
    made make makes many may maybe me might mine more most much must mustn't my myself near need
    needs never new next no nor not nothing now of off often oh ok okay old on once one only or
    other others otherwise our ours ourselves out over own per perhaps please pretty quite rather
    really right said same say says see seem seems shall shan't she she'd she'll she's should
    shouldn't since so some someone something sometimes soon still such sure take than that
    that's the their theirs them themselves then there there's these they they'd they'll they're
    they've thing things think this those though through thus to too took under until up upon us
    very via want wants was wasn't way we we'd we'll we're we've well went were weren't what
    what's whatever when when's where where's whether which while who who's whom whose why why's
    will with within without won't would wouldn't yeah yes yet you you'd you'll you're you've
    your yours yourself yourselves
    hi hello hey hiya bye goodbye thanks thank thx cheers lol lmao haha hahaha hehe wow omg cool
    nice great awesome amazing good bad fine glad sorry guess mean means feel feels felt gonna
    wanna kinda sorta actually definitely totally literally basically anyway anyways
    today yesterday tomorrow tonight morning evening afternoon day days week weeks month months
    year years time times recently lately earlier later last first ago
    happen happens happened come comes came tell told ask asked hear heard look looking try tried
    trying talk talked talking thought use used congratulations congrats
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
_NAME_STARTERS = frozenset({"new", "old", "great", "good", "first", "little", "big"})

_CALENDAR_WORDS = frozenset(w.lower() for w in (*MONTHS, *WEEKDAYS))

_WORD_RE = re.compile(r"[^\W\d_]\w*(?:['-]\w+)*|\d+(?:[.,:/-]\d+)*")
# No split after a title or a short form: "Dr. Lee", "St. Louis", "e.g. this".
_SENTENCE_SPLIT_RE = re.compile(
    r"(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bSt\.)(?<!\bMrs\.)(?<!\bvs\.)(?<!\be\.g\.)"
    r"(?<!\bi\.e\.)(?<=[.!?…])\s+|\n+"
)
# Greetings and small talk carry no memory: they are stripped before sentences are scored.
# Greetings go whatever follows; words like "great" or "no" only when punctuation follows, so
# "Great Barrier Reef" and "No one came" survive.
_GREETING = (
    r"(?:hi|hey|hello|hiya|heya|yo|good (?:morning|afternoon|evening|night)|bye|goodbye|"
    r"see (?:you|ya)(?: later| soon)?|take care|thanks(?: a lot| so much)?|"
    r"thank you(?: so much)?|thx|cheers|lol|lmao|haha+|hehe|omg|"
    r"how are you(?: doing)?|how's it going|what's up|how have you been|"
    r"how (?:are|have) things(?: been)?|nice to (?:meet|see|hear from) you)\b"
)
_FILLER = (
    r"(?:wow|oh|ah|aw+|ok|okay|cool|nice|great|awesome|amazing|sure|yes|yeah|yep|no|nope|same|"
    r"i'm (?:good|fine|great|doing well)|not much|you too|me too|glad to hear(?: that)?|"
    r"sounds good|that's (?:great|cool|nice|awesome|amazing))(?=\s*(?:[,!.?~:;]|$))"
)
_SMALL_TALK_RE = re.compile(rf"^(?:(?:{_GREETING}|{_FILLER})[\s,!.?:;~-]*)+", re.IGNORECASE)
_TRAILING_FILLER_RE = re.compile(r"(?:[\s,]+(?:lol|lmao|haha+|hehe|xd|:\)|:d))+\s*$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class _Sentence:
    """One sentence of one turn, with the display name of who said it."""

    speaker: str
    text: str
    words: tuple[str, ...]  # lowercased tokens
    small_talk: bool
    ts: datetime | None = None  # when it was said: the turn's time, else the segment's
    turn: int = 0  # which turn of the segment it belongs to: a turn's sentences share context


@dataclass(slots=True)
class _View:
    """What every pattern family reads: the segment, cut into sentences, with its time."""

    segment: Segment
    subject: str | None
    known_keys: tuple[str, ...]
    when: datetime | None
    participants: list[str]
    sentences: list[_Sentence]
    word_counts: Counter[str] = field(default_factory=Counter)


PatternFamily = Callable[[_View, Extraction], None]


class RuleExtractor:
    """The default extractor: offline rules, deterministic, no model calls."""

    name = "rules"

    async def extract(self, request: ExtractionInput) -> Extraction:
        """Extract an episode and entities from one segment."""
        return extract_rules(request)


def extract_rules(request: ExtractionInput) -> Extraction:
    """The synchronous body of ``RuleExtractor.extract``; a rule that raises is recorded."""
    view = _build_view(request)
    out = Extraction()
    for family in FAMILIES:
        _guarded(family, view, out)
    return out


def _guarded(family: PatternFamily, view: _View, out: Extraction) -> None:
    """Run ``family`` on the whole view; if it raises, turn by turn, then sentence by sentence.

    A rule that fails on one sentence then costs only what it would have added for that
    sentence: the other sentences, and every other family, still give what they give.
    """
    trial = copy.deepcopy(out)
    try:
        family(view, trial)
    except Exception as error:
        parts = _parts(view)
        if len(parts) <= 1:
            out.failures.append(_failure(family, view, error))
            return
        for part in parts:
            _guarded(family, replace(view, sentences=part), out)
        return
    for name in ("facts", "prefs", "entities", "open_loops", "failures"):
        setattr(out, name, getattr(trial, name))


def _parts(view: _View) -> list[list[_Sentence]]:
    """The view's sentences by turn, or one by one when they are all of one turn."""
    turns: dict[int, list[_Sentence]] = {}
    for sentence in view.sentences:
        turns.setdefault(sentence.turn, []).append(sentence)
    if len(turns) > 1:
        return list(turns.values())
    return [[s] for s in view.sentences]


def _failure(family: PatternFamily, view: _View, error: Exception) -> dict[str, str]:
    turns = {s.turn for s in view.sentences}
    turn_id = turn_id_of(view, turns.pop()) if len(turns) == 1 else None
    return {
        "rule": family.__name__,
        "turn_id": turn_id or "",
        "error": f"{type(error).__name__}: {error}",
    }


# --- the view -------------------------------------------------------------------------------


def _build_view(request: ExtractionInput) -> _View:
    segment = request.segment
    speakers = [_speaker_name(t.kind, t.speaker, t.table, request.subject) for t in segment.turns]
    participants = list(dict.fromkeys(speakers))
    names = {w.lower() for p in participants for w in _WORD_RE.findall(p)}
    when = segment_time(segment, request.reference_ts)
    sentences = [
        sentence
        for index, (who, turn) in enumerate(zip(speakers, segment.turns, strict=True))
        for raw in _SENTENCE_SPLIT_RE.split(turn.text.replace("’", "'"))
        if (sentence := _make_sentence(who, " ".join(raw.split()), names, turn.ts or when, index))
        is not None
    ]
    view = _View(
        segment=segment,
        subject=request.subject,
        known_keys=request.known_keys,
        when=when,
        participants=participants,
        sentences=sentences,
    )
    for sentence in sentences:
        if not sentence.small_talk:
            view.word_counts.update(w for w in sentence.words if _is_keyword(w, names))
    return view


def _make_sentence(
    who: str, text: str, names: set[str], ts: datetime | None, turn: int
) -> _Sentence | None:
    if not text:
        return None
    cleaned = _TRAILING_FILLER_RE.sub("", _SMALL_TALK_RE.sub("", text)).strip(" ,;:-")
    tokens = _WORD_RE.findall(cleaned)
    content = [t for t in tokens if t.lower() not in STOPWORDS and t.lower() not in names]
    # "Hey Mel!" leaves only a name behind: still a greeting.
    stripped = cleaned != text
    small_talk = not content or (
        stripped and len(content) <= 2 and all(t[0].isupper() for t in content)
    )
    words = tuple(t.lower().removesuffix("'s") for t in tokens)
    if stripped:
        cleaned = cleaned[:1].upper() + cleaned[1:]
    return _Sentence(who, cleaned if cleaned else text, words, small_talk, ts, turn)


def _speaker_name(kind: str, speaker: str, table: str | None, subject: str | None) -> str:
    if kind == "row":
        return table or speaker or "rows"
    # The passport is about its subject, so the default "user" author is that person.
    if subject and speaker.strip().lower() == "user":
        return subject
    return speaker.strip() or "user"


def _is_keyword(word: str, names: set[str]) -> bool:
    # Numbers, two-letter words and the speakers' own names say little about the topic.
    return (
        len(word) > 2
        and word not in STOPWORDS
        and word not in names
        and word not in _CALENDAR_WORDS
        and not word[0].isdigit()
    )


# --- the families ---------------------------------------------------------------------------


def entity_family(view: _View, out: Extraction) -> None:
    """Named speakers as people, and capitalised multi-word names as ``other``; conservative."""
    seen = {e.name.lower() for e in out.entities}

    def add(name: str, kind: EntityType) -> None:
        # A run of capitals longer than any name (a shouted line) would fail the model's limit.
        if name.lower() not in seen and len(name) <= ENTITY_NAME_MAX_CHARS:
            seen.add(name.lower())
            out.entities.append(Entity(name=name, type=kind, aliases=[]))

    if view.segment.kind != "row":  # a row segment's participants are table names
        for who in view.participants:
            if _looks_like_person(who):
                add(who, "person")
    for sentence in view.sentences:
        if not sentence.small_talk:
            for phrase in _proper_phrases(sentence.text):
                add(phrase, "other")


# Order matters: entity_family names speakers and phrases first, so later families only type
# them (place, organization) and add aliases.
FAMILIES: tuple[PatternFamily, ...] = (
    entity_family,
    fact_family,
    pref_family,
    alias_family,
    value_family,
    open_loop_family,
)


# --- names ----------------------------------------------------------------------------------


def _looks_like_person(name: str) -> bool:
    # Handles like "bot_1" or "u_123" are not names; keep only word-like ones.
    return (
        name.lower() not in GENERIC_SPEAKERS
        and re.fullmatch(r"[^\W\d_]+(?:[ '.-]+[^\W\d_]+)*\.?", name) is not None
    )


def _proper_phrases(text: str) -> list[str]:
    """Runs of two or more capitalised words ("Hope Street", "New York City").

    Words must be separated by one space, so "Paris. London" is no phrase. A leading common word
    ("The", "Last"), interjection ("Happy") or adverb ("Usually") is dropped, a possessive ends the
    name ("Taylor Swift's dress") or starts it ("Seattle's Pike Place Market"), and "I" ends a run.
    Skipped: runs of only month, day or holiday names, shouted lines, headings ("Stay Hydrated:"),
    and runs cut by a number, before it ("1 Tbsp Honey") or after it ("John Wick Chapter 4").
    """
    phrases: list[str] = []
    run: list[str] = []
    run_start = 0
    prev_end = -1
    for match in _WORD_RE.finditer(text):
        word = match.group(0)
        capital = word[0].isupper() and word != "I" and not word.startswith("I'")
        if run and not (capital and text[prev_end : match.start()] == " "):
            phrases.extend(_clean_phrase(run, text, run_start, prev_end))
            run = []
        if capital:
            if not run:
                run_start = match.start()
            run.append(word)
        prev_end = match.end()
    if run:
        phrases.extend(_clean_phrase(run, text, run_start, prev_end))
    return phrases


def _at_start(text: str, offset: int) -> bool:
    # Numbering, bullets and invisible marks before a run still leave it at the line's start.
    return _LINE_LEAD.fullmatch(text[:offset]) is not None


# Words that open a capitalised run without being part of a name.
_NOT_NAME_START_TEXT = """
    happy merry dear woohoo yay yo alright thats apparently usually specifically absolutely
    famous authentic modern mostly"""
_NOT_NAME_START = frozenset(_NOT_NAME_START_TEXT.split())
_HOLIDAY_TEXT = """
    new year years eve day christmas xmas easter halloween thanksgiving valentine valentines
    boxing good friday st patrick patricks hanukkah diwali eid ramadan"""
_HOLIDAY_WORDS = frozenset(_HOLIDAY_TEXT.split())
_NUMBER_NEAR = re.compile(r"\d")
_LINE_LEAD = re.compile(r"[\W\d_]*")
# "60 g Plain Yogurt", "2 Tbsp Honey": a quantity and its unit before the run.
_MEASURE_BEFORE = re.compile(r"\d\s*[A-Za-z]{0,4}\.?$")
# "Where the Crawdads Sing", "Temple of Olympian Zeus": the run ends a longer title.
_TITLE_BEFORE = re.compile(r"(?:^|\s)[A-Z][\w']*\s+(?:of|the|of\s+the)$")
_TITLE_GOES_ON = re.compile(r"\s+(?:of|the|of\s+the|over\s+the|on\s+the)\s+[A-Z]")
_LIKE_SUFFIXES = ("-like", "-esque", "-style", "-ish")


def _clean_phrase(words: list[str], text: str, start: int, end: int) -> list[str]:
    before, after = text[:start].rstrip(), text[end:]
    if _NUMBER_NEAR.match(after.lstrip(" .#")[:1]) or _MEASURE_BEFORE.search(before):
        return []  # a measure ("2 Tbsp Honey") or a name cut short ("Olaplex No. 3")
    if _TITLE_BEFORE.search(before):
        return []
    if _at_start(text, start) and (after.lstrip().startswith(":") or not after.strip()):
        return []  # a heading or a list item: "Trim Regularly: ...", "Travel Insurance"
    if all(w.isupper() for w in words):
        return []  # shouting, or initials run together: "PAT DRY", "PB N J"
    if _TITLE_GOES_ON.match(after) or any(w.lower().endswith(_LIKE_SUFFIXES) for w in words):
        return []  # part of a longer title ("Lost City of the Incas"), or "Death Star-like"
    for index, word in enumerate(words):
        if word.lower().endswith(("'s", "’s")):
            # The owner is another name when more follows: keep what is owned.
            last = index == len(words) - 1
            words = [*words[:-1], word[:-2]] if last else words[index + 1 :]
            break
    # A leading function word ("The", "Last", "My") is not part of the name, except the few
    # adjectives names often start with ("New York", "Great Barrier Reef").
    while words and (
        (words[0].lower() in STOPWORDS and words[0].lower() not in _NAME_STARTERS)
        or words[0].lower() in _NOT_NAME_START
        or words[0].lower().endswith(("ly", "ing"))
    ):
        words = words[1:]
    if _at_start(text, start) and words and words[0].lower() in _CALENDAR_WORDS:
        words = words[1:]
    if len(words) < 2 or all(w.lower() in _CALENDAR_WORDS for w in words):
        return []
    if all(w.lower() in _HOLIDAY_WORDS for w in words):
        return []
    return [" ".join(words)]
