"""Standing instructions: what the user tells the assistant to do from now on.

"Always answer in French", "use TypeScript, not JavaScript", "don't suggest paid services ever
again": said by the user of a user–assistant chat (a turn whose role is ``user``), in a sentence
that is itself the instruction. Two people chatting give each other no standing instructions, so
a turn without that role is never read here; a question is never one.

Precision first: an instruction needs a marker that it stands (``always``, ``never``, ``from
now on``, ``ever again``, ``anymore``) or a form that only an instruction has (``answer in
<language>``, ``use X, not Y``, ``stop suggesting ...``). Each instruction gets the ``key`` of
what it governs, so a newer one on the same thing replaces the older: the reply language, the
pair of things chosen between, or its own words without the marker and the polarity ("never
use emojis" and "always use emojis" share a key).
"""

from __future__ import annotations

import re

from app.domain.extraction.extractor import Extraction
from app.domain.extraction.rules.people import provenance, sentence_ts
from app.domain.extraction.rules.view import Sentence, View
from app.domain.passport import Instruction

# Where a sentence may start before its instruction: "please", "and", "oh, and also".
_LEAD = r"^(?:(?:oh|ok|okay|also|and|btw|but|one more thing|please|just)[\s,:-]+){0,4}"
# What an assistant does with its answers: the verbs an "always"/"never" instruction governs.
_VERBS = (
    r"(?:answer|respond|reply|write|use|include|format|explain|suggest|recommend|mention|add|"
    r"show|cite|provide|speak|assume|comment|document|test|return|list|prefer|call me|"
    r"address me|refer to me|put|wrap|give me|ask me|check|double-check|run|apologi[sz]e|"
    r"say|end with|start with|begin with)\b"
)
_ALWAYS = re.compile(_LEAD + r"(?:always|never)\s+" + _VERBS, re.IGNORECASE)
_WANT = re.compile(
    _LEAD + r"(?:i want|i'd like|i would like|i need)\s+you\s+to\s+(?:always|never)\s+" + _VERBS,
    re.IGNORECASE,
)
_FROM_NOW_WORDS = (
    r"(?:from now on|going forward|from here on(?: out)?|in (?:the )?future|"
    r"for (?:all )?future (?:answers|responses|replies))(?:\s*,\s*|\s+)(?:please\s+)?"
)
_FROM_NOW = re.compile(
    _LEAD + _FROM_NOW_WORDS + r"(?:(?:don't|do not|always|never|only)\s+)?" + _VERBS,
    re.IGNORECASE,
)
_DONT = re.compile(_LEAD + r"(?:don't|do not)\s+(?:ever\s+)?" + _VERBS, re.IGNORECASE)
# "... ever again", "... anymore", "... from now on" at the end make a "don't" stand.
_STANDING_TAIL = re.compile(
    r"(?:ever again|again|anymore|any more|from now on|going forward|in (?:the )?future|"
    r"in any of your (?:answers|responses|replies))\W{0,3}$",
    re.IGNORECASE,
)
_STOP = re.compile(
    _LEAD + r"(?:stop|quit)\s+(?:using|suggesting|adding|including|recommending|mentioning|"
    r"apologi[sz]ing|writing|saying|calling me|asking me)\b",
    re.IGNORECASE,
)
_LANGUAGES = (
    r"(english|french|spanish|german|italian|portuguese|dutch|polish|russian|ukrainian|"
    r"japanese|chinese|mandarin|korean|arabic|hebrew|hindi|turkish|swedish|norwegian|danish|"
    r"finnish|greek|czech|vietnamese|thai|indonesian)"
)
_LANGUAGE = re.compile(
    _LEAD
    + f"(?:{_FROM_NOW_WORDS})?"
    + r"(?:(?:always|only)\s+)?(?:answer|respond|reply|write|talk|speak)\s+(?:to me\s+)?"
    r"(?:only\s+)?in\s+" + _LANGUAGES + r"\b",
    re.IGNORECASE,
)
# "use TypeScript, not JavaScript", "use pnpm instead of npm".
_CHOICE = re.compile(
    _LEAD
    + f"(?:{_FROM_NOW_WORDS})?"
    + r"(?:(?:always|only)\s+)?use\s+([\w.+#-]{1,40})(?:\s*,\s*|\s+)"
    r"(?:not|instead of|rather than|over)\s+([\w.+#-]{1,40})\b",
    re.IGNORECASE,
)
# Words an instruction's key leaves out: its marker and its polarity, so a reversal replaces.
_MARKERS = frozenset(
    {
        *("oh", "ok", "okay", "also", "and", "btw", "but", "one", "more", "thing", "please"),
        *("just", "always", "never", "only", "don't", "do", "not", "ever", "again", "anymore"),
        *("any", "from", "now", "on", "going", "forward", "here", "out", "in", "the", "future"),
        *("for", "all", "i", "want", "i'd", "like", "would", "need", "you", "to", "stop", "quit"),
    }
)
_GERUNDS = {
    "using": "use",
    "suggesting": "suggest",
    "adding": "add",
    "including": "include",
    "recommending": "recommend",
    "mentioning": "mention",
    "apologizing": "apologize",
    "apologising": "apologise",
    "writing": "write",
    "saying": "say",
    "calling": "call",
    "asking": "ask",
}
_KEY_WORDS = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
# An instruction is one sentence: longer ones are explanations that merely contain a marker.
MAX_INSTRUCTION_CHARS = 240
MAX_KEY_WORDS = 8


def instruction_family(view: View, out: Extraction) -> None:
    """Standing instructions in the user's own sentences of a user–assistant chat."""
    seen = {i.key for i in out.instructions}
    for sentence in view.user_sentences():
        key = instruction_key(sentence.text)
        if key is None or key in seen:
            continue
        seen.add(key)
        out.instructions.append(_instruction(view, sentence, key))


def instruction_key(text: str) -> str | None:
    """What the sentence instructs about, if it is a standing instruction; else None."""
    text = text.strip()
    if not text or len(text) > MAX_INSTRUCTION_CHARS or text.endswith("?"):
        return None
    if _LANGUAGE.match(text):
        return "reply language"
    if choice := _CHOICE.match(text):
        pair = sorted(w.lower() for w in choice.groups())
        return f"use {pair[0]} or {pair[1]}"
    standing = (
        _ALWAYS.match(text)
        or _WANT.match(text)
        or _FROM_NOW.match(text)
        or _STOP.match(text)
        or (_DONT.match(text) and _STANDING_TAIL.search(text[-40:]))
    )
    if not standing:
        return None
    words = [w for w in _KEY_WORDS.findall(text.lower()) if w not in _MARKERS]
    # "stop suggesting X" and "never suggest X" govern the same thing.
    words = [_GERUNDS.get(w, w) for w in words]
    return " ".join(words[:MAX_KEY_WORDS]) or None


def _instruction(view: View, sentence: Sentence, key: str) -> Instruction:
    data = {"key": key, "text": sentence.text, "ts": sentence_ts(sentence)}
    return Instruction.model_validate(
        {**data, "source": view.segment.id, **provenance(view, sentence)}
    )
