"""Values with history: the numbers, amounts and dates the user states about their own things.

"My rent has now reached $900", "I've raised my savings to $300 a month", "my chess rating went
from 1200 to 1350": said by the user of a user–assistant chat (a
turn whose role is ``user``), about something of theirs (``my ...``), with a verb that asserts the
value holds now (``is``, ``has reached``, ``increased to``). Each value is filed under what it is
about (its ``key``: the words of the subject, stemmed, without function words), so a later value
of the same thing replaces it and the head keeps the earlier ones as its history.

Precision first, because a wrong value shown is worse than none: no value from a clause that
wishes, plans or supposes ("I want my score to be 90%", "if my budget is $500", "my goal is
75%"), from a subject that is a target, or from a value followed by a deadline ("75% by June").
A past tense that is not a change ("my score was 60%") says nothing about now and is skipped.
"""

from __future__ import annotations

import re

from app.domain.dates import MONTH_WORD, WRITTEN_DAY
from app.domain.extraction.extractor import Extraction
from app.domain.extraction.rules.people import provenance, sentence_ts
from app.domain.extraction.rules.view import Sentence, View
from app.domain.passport import Value
from app.domain.text import tokenize

# Words that end a subject: verbs, pronouns and clause words cannot be part of what it names.
_NOT_SUBJECT = (
    r"(?:is|are|was|were|be|been|being|has|have|had|to|from|at|i|i'm|i've|you|it|it's|that|"
    r"which|who|but|so|because|since|now|just|recently|finally|already|currently|also|still|"
    r"reached|hit|hits|sits|stands|increased|improved|risen|rose|grown|grew|gone|went|dropped|"
    r"fallen|fell|decreased|climbed|jumped|changed|moved|shifted|raised|reduced|lowered|cut|"
    r"adjusted|updated|set|extended|pushed|bumped|boosted|upped|brought|and|or|if|when|while|than|"
    r"with|by|what|how|why|can|could|should|would|will|do|does|did)"
)
_WORD = r"[\w][\w'./+&-]{0,29}"
_SUBJECT = rf"(?:(?!{_NOT_SUBJECT}\b){_WORD}\s+){{0,7}}(?!{_NOT_SUBJECT}\b){_WORD}"
# After "my", a subject holds no other "my": "my opinion my rate" is two phrases.
_OWN_SUBJECT = _SUBJECT.replace(_NOT_SUBJECT, _NOT_SUBJECT[:-1] + "|my)")
# A value: an amount, a count or a measure (with what follows it, trimmed below), or a date.
_MONTH = rf"{MONTH_WORD}\.?"
_DATE = WRITTEN_DAY
_TIME = r"\d{1,2}(?::\d{2}(?:\s?[ap]\.?m\b)?|\s?[ap]\.?m\b)"
_MY = re.compile(r"\bmy\b", re.IGNORECASE)
_WHOLE_DATE = re.compile(rf"{_DATE}|{_TIME}", re.IGNORECASE)
# No part of a longer number ("6" of "6:30"), and nothing glued on after it ("2n+1").
_AMOUNT = r"[$€£¥]?\s?\d[\d,]{0,15}(?:\.\d{1,6})?(?:/\d{1,6})?(?![:.]?\d)(?:\s?%)?"
# What may follow an amount as its unit: up to four short words, trimmed by ``_trimmed``.
_AFTER = r"(?:[ ]?[^\W_][\w/%-]{0,19})?(?:[ ][^\W_][\w/%-]{0,19}){0,3}"
_VALUE = rf"(?:{_DATE}|{_TIME}|{_AMOUNT}{_AFTER})(?=[\s,.;:!?)\u2013\u2014-]|$)"


def _named(name: str) -> str:
    return f"(?P<{name}>{_VALUE})"


_ADVERB = r"(?:(?:now|just|recently|finally|already|currently|also|officially)\s+)"
_HEDGE = r"(?:(?:now|currently|at|around|about|roughly|approximately|only|still|nearly)\s+){0,2}"
# "my alarm is set for 9:15 PM": a setting's value follows its verb.
_SETTING = r"(?:(?:set|scheduled|booked|fixed|capped|pinned)\s+(?:to|at|for|on)\s+)?"
_CHANGE = (
    r"(?:increased|improved|risen|rose|grown|grew|gone|went|dropped|fallen|fell|decreased|"
    r"climbed|jumped|changed|moved|shifted|been\s+(?:increased|raised|reduced|lowered|moved|"
    r"changed|pushed|extended|set|updated|adjusted))(?:\s+(?:up|down|back))?"
)
# "my X is V", "my X has reached V", "my X went from V0 to V".
_MY_VALUE = re.compile(
    rf"\bmy\s+(?P<subject>{_OWN_SUBJECT})\s+(?:(?:has|have)\s+)?{_ADVERB}?"
    rf"(?:is|are|reached|hit|hits|sits\s+at|stands\s+at|{_CHANGE}"
    rf"(?:\s+from\s+{_named('old')})?\s+to)\s+{_HEDGE}{_SETTING}{_named('value')}",
    re.IGNORECASE,
)
_SET = (
    r"(?:increased|raised|bumped|boosted|upped|improved|reduced|lowered|cut|dropped|decreased|"
    r"adjusted|changed|moved|pushed|updated|set|extended|shifted|brought)"
)
# "I've increased my X to V", "we moved the deadline for my X from V0 to V".
_I_SET = re.compile(
    rf"\b(?:i|we)(?:'ve|\s+have)?\s+{_ADVERB}?{_SET}\s+(?:(?:up|down|back)\s+)?"
    rf"(?P<owner>my|the)\s+(?P<subject>{_SUBJECT})\s+"
    rf"(?:from\s+{_named('old')}\s+)?to\s+{_HEDGE}{_named('value')}",
    re.IGNORECASE,
)
# "my X, which has increased to V", "the X, which is currently at V": a relative clause asserts
# its value whatever the main clause wants ("I'm trying to cut my rent, which is $900").
_WHICH_VERB = (
    rf"(?:(?:has|have)\s+)?{_ADVERB}?(?:(?:is|are)(?:\s+{_ADVERB}?averaging)?|averages|"
    rf"averaged|measured|measures|reached|hit|sits\s+at|stands\s+at|"
    rf"(?P<change>{_CHANGE})(?:\s+from\s+{_named('old')})?\s+to)"
)
# "my photography budget, it's been adjusted to $350 monthly": a change said of the subject in
# the clause right after it, with "it", is the subject's too.
_WHICH_VALUE = re.compile(
    rf"\b(?P<owner>my|the)\s+(?P<subject>{_OWN_SUBJECT}),\s+"
    rf"(?:which|it(?='s\s+been\s|\s+has\s)(?:'s)?)\s+{_WHICH_VERB}\s+"
    rf"{_HEDGE}{_SETTING}{_named('value')}",
    re.IGNORECASE,
)
_NOW = re.compile(r"\b(?:now|currently)\b", re.IGNORECASE)
# "the current rate of 5%" may be anyone's; "the new rate of 5%" is one the user changed.
_STATE_WORDS = frozenset({"current", "latest"})
# "my new target weight of 70 kilos", "the new upload limit of 50 files per hour": a changed
# value named with what it is about.
_NEW = r"(?:new|current|updated|revised|latest|adjusted|increased|reduced|lowered|raised)"
_OF_SUBJECT = _SUBJECT.replace(_NOT_SUBJECT, _NOT_SUBJECT[:-1] + "|my|of|the|a|an|as)")
_NEW_VALUE = re.compile(
    rf"\b(?P<owner>my|the)\s+(?P<new>{_NEW})\s+(?P<subject>{_OF_SUBJECT})\s+of\s+{_HEDGE}"
    rf"{_named('value')}",
    re.IGNORECASE,
)
# A clause that wishes, plans or supposes states no value that holds now.
_UNREAL = frozenset(
    {
        *("if", "whether", "unless", "suppose", "supposing", "assuming", "assume", "imagine"),
        *("want", "wants", "wanted", "wish", "hope", "hoping", "goal", "goals", "target"),
        *("targets", "targeting", "aim", "aiming", "aims", "plan", "plans", "planning"),
        *("planned", "would", "should", "could", "might", "will", "going", "trying", "try"),
        *("need", "needs", "expect", "expected", "expecting", "estimate", "estimated"),
        *("projected", "predicted", "ideally", "when", "once", "until", "let's", "lets"),
        *("hopefully", "maybe", "perhaps", "probably", "what", "how", "is", "are"),
    }
)
# "I wonder how my score rose to 95%": what follows "how" is a clause of its own.
_CLAUSE_END = re.compile(
    r"[,;:()\u2013\u2014]|\s-\s|\b(?:and|but|so|because|since|as|how)\b", re.IGNORECASE
)
# How far before a match its clause is read for those words.
CLAUSE_CHARS = 80
_SUBJECT_UNREAL = frozenset(
    {"goal", "target", "aim", "objective", "dream", "ideal", "wish", "plan"}
)
_RANGE_AFTER = re.compile(r"\s{0,2}(?:[-\u2013\u2014]|to\s)\s{0,2}[$€£¥]?\d", re.IGNORECASE)
_DEADLINE_AFTER = re.compile(r"\s{0,3}(?:by|before|until|within)\s", re.IGNORECASE)
# "50% stocks, 40% bonds and 10% cash": one part of a list is not the value.
_LIST_AFTER = re.compile(r"\s{0,2}[,;]\s{0,2}(?:and\s+)?[$€£¥]?\d", re.IGNORECASE)
# The noun phrase and preposition before a "my ..." subject: "the test coverage of ".
_PREPOSITION_BEFORE = re.compile(r"\b(?:of|for|on|in|at|with|from|to|about|by)\s+$", re.I)
_HEAD_BEFORE = re.compile(
    rf"\b(?:the|my)\s+((?:(?!{_NOT_SUBJECT}\b){_WORD}\s+){{0,3}}(?!{_NOT_SUBJECT}\b){_WORD}"
    r"\s+(?:of|for|on|in))\s+$",
    re.IGNORECASE,
)
# "worried about my budget", "working on my thesis": a verb or a word of feeling before the
# preposition, so no noun the subject could belong to.
_FEELING_BEFORE = re.compile(
    r"\b(?:\w+ed|\w+ing|curious|anxious|nervous|happy|unsure|sure|glad|proud|aware|upset)\s+"
    r"(?:about|on|with|by)\s+$",
    re.IGNORECASE,
)
# How far before "my" a subject's head is looked for.
HEAD_CHARS = 100
# Measures that need to say what they measure: "my budget" alone files every budget as one.
_VAGUE = frozenset(
    {"budget", "score", "accuracy", "time", "rate", "average", "total", "cost", "price"}
    | {"progress", "result", "results", "level", "count", "number", "amount", "grade", "speed"}
    | {"practice", "spending", "schedule", "deadline", "meals", "macros", "stocks", "radius"}
    | {"limit", "percentage", "size", "value", "length", "distance", "duration", "estimate"}
)
_QUALIFIERS = frozenset({"current", "new", "latest", "overall", "usual", "typical", "own"})
# Subjects that are not a thing of the user's with a value: a math answer, a question's parts.
_NOT_ABOUT = frozenset(
    {"question", "problem", "answer", "solution", "guess", "point", "idea", "concern", "issue"}
    | {"thought", "approach", "attempt", "understanding", "equation", "formula", "proof"}
)
# Words that may stand after an amount as its unit or what it counts; the rest end it.
_UNIT_STOP = frozenset(
    {
        *("with", "and", "or", "after", "before", "by", "in", "on", "at", "for", "to", "from"),
        *("of", "since", "which", "that", "but", "so", "the", "this", "than", "when", "while"),
        *("because", "as", "if", "is", "are", "was", "i", "my", "you", "it", "now", "so", "far"),
        *("can", "could", "should", "would", "will", "do", "does", "did", "how", "what", "me"),
        *("last", "this", "next", "every", "today", "yesterday", "up", "down", "over", "under"),
        *("ago", "which", "thanks", "due", "but", "not", "yet", "too", "also", "just", "only"),
        *("starting", "beginning", "effective", "including", "using", "after", "following"),
        *("between", "among", "across", "around", "about", "instead", "compared", "versus"),
        *("vs", "except", "without", "within", "into", "onto", "like", "unlike", "plus"),
        *("might", "must", "may", "shall", "seems", "feels", "looks", "sounds", "goes"),
    }
)
# "20 minutes each morning": times of day may follow "each"/"every"/"a"; other -ing words end it.
_ING_UNITS = frozenset({"morning", "evening", "spring", "string", "setting", "reading"})
_UNIT = re.compile(r"[^\W\d_]+(?:/[^\W\d_]+)?")
_PER = frozenset({"per", "a", "an", "each", "every"})
MAX_UNIT_WORDS = 3
MAX_SUBJECT_WORDS = 8
MAX_VALUE_SENTENCE_CHARS = 400


def value_family(view: View, out: Extraction) -> None:
    """Values the user states about their own things in a user–assistant chat."""
    seen = {(v.key, v.value) for v in out.values}
    for sentence in view.user_sentences():
        for about, old, value in stated_values(sentence.text):
            key = value_key(about)
            if not key:
                continue
            for said in (old, value):
                if said is not None and (key, said) not in seen:
                    seen.add((key, said))
                    out.values.append(_value(view, sentence, key, about, said))


def stated_values(text: str) -> list[tuple[str, str | None, str]]:
    """(what it is about, the value before if said, the value) for each value the text states."""
    if len(text) > MAX_VALUE_SENTENCE_CHARS or not any(c.isdigit() for c in text):
        return []
    found: list[tuple[str, str | None, str]] = []
    for pattern in (_MY_VALUE, _I_SET, _WHICH_VALUE, _NEW_VALUE):
        for match in pattern.finditer(text):
            subject = _subject(pattern, match, text)
            if subject is None or not value_key(subject):
                continue  # "my of is 5": what it is about has no words of its own
            trimmed = _trimmed(match["value"])
            if trimmed is None:
                continue
            value, used = trimmed
            # What the value's words left over, then the rest of the text: "95% by June".
            rest = " ".join(match["value"].split()[used:]) + " " + text[match.end() :]
            # A relative clause asserts its value whatever its main clause says.
            clause = pattern is not _WHICH_VALUE
            if not _asserted(text, match.start(), rest, subject, clause=clause):
                continue
            said_before = match.groupdict().get("old")
            old_trimmed = _trimmed(said_before) if said_before else None
            old = _with_unit(old_trimmed[0], value) if old_trimmed else None
            found.append((subject, old, value))
    return found


def _subject(pattern: re.Pattern[str], match: re.Match[str], text: str) -> str | None:
    """What a match is about, or None when whose it is, or what, is not said."""
    subject = " ".join(match["subject"].split())
    owner = match["owner"].lower() if "owner" in pattern.groupindex else "my"
    if owner == "the":
        if pattern is _I_SET and not _MY.search(subject):
            return None  # "the deadline" alone: whose it is is not said
        # "the X, which has risen to V", "the new X of V": a value that changes is one the
        # user follows; "the tower, which is 330 m tall" is not theirs.
        if pattern is _WHICH_VALUE and not (match["change"] or _NOW.search(match[0])):
            return None
        if pattern is _NEW_VALUE and match["new"].lower() in _STATE_WORDS:
            return None
        return subject
    if pattern is _I_SET:
        return subject
    # "the test coverage of my API module is 65%" is about the coverage.
    head = _head_of(text[max(0, match.start() - HEAD_CHARS) : match.start()])
    if pattern is _MY_VALUE:
        if head == "":
            return None
        return f"{head} {subject}" if head else subject
    # "the floor of my shed, which is 3x4 metres", "a script for my part, which is 9 pages
    # long": which of the two the clause is about is not said.
    if pattern is _WHICH_VALUE:
        return None if head is not None else subject
    return None if head else subject


def _head_of(before: str) -> str | None:
    """What a ``my ...`` subject belongs to when a preposition joins them ("the coverage of").

    None when no preposition comes before ``my``; empty when one does but its head is not a
    plain noun phrase (then the value is not read).
    """
    if not _PREPOSITION_BEFORE.search(before) or _FEELING_BEFORE.search(before):
        return None
    head = _HEAD_BEFORE.search(before)
    return " ".join(head[1].split()) + " my" if head else ""


def value_key(about: str) -> str:
    """What a value is about, as a key: its subject's stemmed words without function words."""
    words = tokenize(about)
    if not words or len(words) > MAX_SUBJECT_WORDS:
        return ""
    return " ".join(words)


def _asserted(text: str, start: int, rest: str, subject: str, *, clause: bool = True) -> bool:
    """Whether the clause states the value as holding now (no wish, plan, supposition or target).

    ``clause``: whether the words before the match, within its clause, are read for a wish.
    """
    if clause:
        before = text[max(0, start - CLAUSE_CHARS) : start]
        ends = list(_CLAUSE_END.finditer(before))
        said_before = before[ends[-1].end() :] if ends else before
        if {w.lower() for w in re.findall(r"[\w']+", said_before)} & _UNREAL:
            return False
    subject_words = {w.lower() for w in subject.split()}
    if subject_words & _SUBJECT_UNREAL or subject.split()[-1].lower() in _NOT_ABOUT:
        return False
    if len(subject_words - _QUALIFIERS) <= 1 and subject_words & _VAGUE:
        return False  # "my budget": which budget, or score, is not said
    # "75% by June 30": a deadline after a value makes it a target; "8 AM–4 PM" is a range and
    # "50% stocks, 40% bonds" a list, of which one part alone would be wrong.
    return not (_DEADLINE_AFTER.match(rest) or _RANGE_AFTER.match(rest) or _LIST_AFTER.match(rest))


def _trimmed(said: str) -> tuple[str, int] | None:
    """The value as said, ending at the last word of its unit ("45ms per frame").

    Also returns how many of the words given it used.
    """
    words = said.split()
    if not words:
        return None
    if _WHOLE_DATE.fullmatch(said.strip()):
        return " ".join(words).rstrip(",;"), len(words)
    if not any(c.isdigit() for c in words[0]) and not re.match(_MONTH, words[0], re.I):
        # "$ 450": the currency sign and the number are one value.
        if len(words) < 2:
            return None
        words = [words[0] + words[1], *words[2:]]
    kept = [words[0].rstrip(",.")]
    units = 0
    n = 1
    used = len(said.split()) - len(words)  # "$ 450" was two words
    while n < len(words) and units < MAX_UNIT_WORDS:
        if words[n - 1].endswith((",", ".", ";")):
            break  # "$900, goes up": a comma ends the value
        word = words[n].lower().rstrip(",.")
        if word in _PER and n + 1 < len(words) and words[n + 1].lower() not in _UNIT_STOP:
            kept += [word, words[n + 1].rstrip(",.")]
            n += 1
        elif word == "out" and n + 2 < len(words) and words[n + 1].lower() == "of":
            kept += ["out", "of", words[n + 2].rstrip(",.")]
            n += 2
        elif _unit_word(word):
            kept.append(words[n].rstrip(",."))
        else:
            break
        units += 1
        n += 1
    return " ".join(kept).replace(" %", "%"), n + used


def _with_unit(old: str, new: str) -> str:
    """ "from 30 to 18 minutes": a bare number before a measure has the measure's unit."""
    number, _, unit = new.partition(" ")
    if not old.replace(",", "").replace(".", "").isdigit() or not unit:
        return old
    return f"{old} {unit}" if number[-1:].isdigit() else old


def _unit_word(word: str) -> bool:
    if word == "%":
        return True
    if not _UNIT.fullmatch(word) or word in _UNIT_STOP:
        return False
    return not (word.endswith("ing") and len(word) > 5 and word not in _ING_UNITS)


def _value(view: View, sentence: Sentence, key: str, about: str, said: str) -> Value:
    data = {"key": key, "about": about, "value": said, "ts": sentence_ts(sentence)}
    return Value.model_validate({**data, "source": view.segment.id, **provenance(view, sentence)})
