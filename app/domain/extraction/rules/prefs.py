"""Likes, dislikes and favourites, each polarity under its own key (likes_x / dislikes_x)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from app.domain.extraction.extractor import Extraction
from app.domain.extraction.rules.guards import statement
from app.domain.extraction.rules.lexicon import ADV, IC, SELF, clean_value
from app.domain.extraction.rules.people import is_person
from app.domain.extraction.rules.ruleset import (
    Hit,
    RuleSet,
    Triggered,
    binder,
    compiled,
    emit,
    fire,
    usable,
)
from app.domain.extraction.rules.view import Sentence, View
from app.domain.words import I_AM

# --- preferences ----------------------------------------------------------------------------

# Where the object of "I love ..." ends: punctuation, or a word that opens another clause.
_OBJECT = (
    r"(?P<obj>[^,.;:!?()\"“”]{1,80}?)"
    r"(?=\s*[,.;:!?()\"“”]|\s+-\s|\s*$|\s+(?i:but|because|since|so|although|though|when|while|"
    r"whenever|if|too|lol|haha|which|cause|'cause|cuz|as\s+well|as\s+much|these\s+days|"
    r"nowadays|lately|recently|right\s+now|at\s+the\s+moment|anymore|a\s+lot|so\s+much|now|"
    r"(?:this|all|last)\s+(?:year|week|month|summer|winter|spring|fall|autumn|weekend|day)|"
    r"again|either|actually|anyway|honestly|tbh|"
    r"and\s+(?:i|we|it|that|they|he|she|you|my))\b)"
)
_LIKE_VERBS = {
    "love": 0.85,
    "adore": 0.85,
    "enjoy": 0.8,
    "like": 0.75,
    "prefer": 0.75,
    "dig": 0.7,
    "loved": 0.8,
    "liked": 0.8,
    "enjoyed": 0.8,
    "adored": 0.8,
}
# Objects that are about the conversation, not a taste: "I love that", "I love how you ...".
_NOT_TOPIC_TEXT = """
    it that this these those them him her you your yours how what when where why who which
    whatever everything anything something nothing all each one ones lots lot much so very
    being hearing seeing talking chatting reading knowing having getting"""
_NOT_TOPICS = frozenset(_NOT_TOPIC_TEXT.split())
_LEADING_TEXT = "a an the my our some any all of to really just so also too more most going doing"
_LEADING = frozenset([*_LEADING_TEXT.split(), "having", "taking", "spending", "getting"])
_TOPIC_END_TEXT = """
    with in at on for during from by about when because after before around over under and
    or but while than like near into onto through"""
_TOPIC_END = frozenset(_TOPIC_END_TEXT.split())
_TOPIC_SKIP = frozenset({"a", "an", "the", "my", "our", "some", "of", "to", "very", "really"})


def topic_key(phrase: str) -> str | None:
    """``camping`` for "going camping with the kids": up to three head words, or None."""
    words = [w.lower() for w in re.findall(r"[^\W_]+(?:['-][^\W_]+)*", phrase)]
    while words and words[0] in _LEADING:
        words = words[1:]
    head: list[str] = []
    for word in words:
        if word in _TOPIC_END and head:
            break
        if word in _TOPIC_SKIP:
            continue
        head.append(re.sub(r"[^\w]", "", word.replace("'", "")))
        if len(head) == 3:
            break
    topic = "_".join(w for w in head if w)
    return topic or None


def _pref_value(raw: str, *, pointed: bool = False) -> str | None:
    value = clean_value(raw)
    # "I enjoyed our chat", "I like the following", "I love the vibes": the thing is the
    # conversation's, pointed at rather than named (a favourite may be "the lava cake").
    if not pointed and re.match(r"(?:our|the)\s+[a-z]", value):
        return None
    value = re.sub(r"^my\s+", "", value, flags=re.I)
    words = value.lower().split()
    if not words or words[0] in _NOT_TOPICS or {"you", "your", "yours"} & set(words):
        return None
    return value


def pref_hits(view: View, sentence: Sentence, m: re.Match[str], polarity: str) -> Iterator[Hit]:
    value = _pref_value(m.group("obj"))
    topic = topic_key(value) if value else None
    if value is None or topic is None:
        return
    verb = " ".join((m.groupdict().get("verb") or "").lower().split())
    confidence = _LIKE_VERBS.get(verb, 0.8 if polarity == "dislikes" else 0.75)
    if polarity == "dislikes" and verb in ("hate", "loathe", "detest", "can't stand"):
        confidence = 0.85
    if m.groupdict().get("we"):
        confidence -= 0.1
    yield Hit(sentence.speaker, f"{polarity}_{topic}", value, round(confidence, 2))


def _favorite_hits(view: View, sentence: Sentence, m: re.Match[str]) -> Iterator[Hit]:
    value = _pref_value(m.group("obj"), pointed=True)
    if value is None:
        return
    thing = topic_key(m.group("thing") or "")
    if thing is None:
        topic = topic_key(value)
        if topic is not None:
            yield Hit(sentence.speaker, f"likes_{topic}", value, 0.85)
        return
    yield Hit(sentence.speaker, f"favorite_{thing}", value, 0.9)


# "X is the best <thing>" names a favourite only for a kind of thing, not "the best part".
_NOT_KINDS_TEXT = """
    thing things part parts way time times day days idea news feeling bit one ones kind sort
    decision move call choice plan option answer advice"""
_NOT_KINDS = frozenset(_NOT_KINDS_TEXT.split())
_DEICTIC_TEXT = "it this that these those today tonight he she they which what"
_DEICTIC = frozenset(_DEICTIC_TEXT.split())


def _best_hits(view: View, sentence: Sentence, m: re.Match[str]) -> Iterator[Hit]:
    thing = m.group("thing").lower()
    first = m.group("obj").split()[0].lower()
    if thing in _NOT_KINDS or first in _DEICTIC:
        return
    yield from _favorite_hits(view, sentence, m)


_NEG_VERB = (
    r"(?P<verb>(?i:hate|dislike|detest|loathe|can't\s+stand|cannot\s+stand|can\s+not\s+stand|"
    r"(?:don't|do\s+not)\s+(?:really\s+|much\s+|particularly\s+)?(?:like|enjoy|love|care\s+for)|"
    r"never\s+(?:really\s+)?(?:liked|enjoyed|cared\s+for)))"
)
_FAN = (
    r"(?i:into|obsessed\s+with|passionate\s+about|crazy\s+about|fond\s+of|keen\s+on|hooked\s+on|"
    r"(?:a\s+)?(?:(?:big|huge|massive|great|real)\s+)?fan\s+of)"
)
_FAVORITE = r"(?i:favou?rite|fave|fav)"


_pref = binder(pref_hits)

PREF_RULES: tuple[Triggered, ...] = compiled(
    [
        (
            r"love|adore|enjoy|like|prefer|dig",
            rf"{SELF}{ADV}\s+(?P<verb>(?i:love|adore|enjoy|like|prefer|dig))\s+(?!(?i:to\s+)?"
            rf"(?:it|that|this)\b){_OBJECT}",
            _pref("likes"),
        ),
        (
            r"loved|liked|enjoyed|adored",
            rf"{IC}(?i:'ve|\s+have){ADV}\s+(?:(?i:always)\s+)?(?P<verb>(?i:loved|liked|enjoyed|"
            rf"adored))\s+{_OBJECT}",
            _pref("likes"),
        ),
        (
            r"into|obsessed|passionate|crazy|fond|keen|hooked|fan",
            rf"{I_AM}{ADV}\s+(?P<verb>{_FAN})\s+{_OBJECT}",
            _pref("likes"),
        ),
        (
            r"hate|dislike|detest|loathe|stand|like|enjoy|love|care",
            rf"{SELF}{ADV}\s+{_NEG_VERB}\s+{_OBJECT}",
            _pref("dislikes"),
        ),
        (
            r"not|never",
            rf"{I_AM}\s+(?i:not|never)\s+(?:(?i:really|very|that|too|much|of|a|an)\s+)*"
            rf"(?P<verb>{_FAN})\s+{_OBJECT}",
            _pref("dislikes"),
        ),
        (
            r"never",
            r"(?<![\w'])(?i:i)(?:(?i:'ll|\s+will|'m|\s+am))?\s+(?i:never)\s+(?:(?i:going\s+to|gonna)\s+)?"
            r"(?:(?i:go|do|try|eat|watch|play|drink|visit|take)\s+)?"
            r"(?P<obj>[^,.;:!?()\"]{1,60}?)\s+(?i:again)\b",
            _pref("dislikes"),
        ),
        (
            r"never",
            r"^(?P<obj>[^,.;:!?()\"]{2,60}?)\s*[,.!?…-]+\s*(?i:never\s+again)\b",
            _pref("dislikes"),
        ),
        (
            r"person",
            rf"{I_AM}{ADV}\s+(?P<neg>(?i:not|never\s+been)\s+)?(?:(?i:really|much\s+of|more\s+of|"
            r"definitely|totally|such|a\s+big|big|huge)\s+)*(?i:a|an)\s+(?:(?i:big|huge|total|"
            r"real)\s+)?(?P<obj>[a-z]+(?:\s+[a-z]+)?)\s+(?i:person)\b",
            # "Not a morning person" is a dislike; "a chill person", "a mixed up person" describe
            # the person, not a taste, so only the negated form is kept.
            lambda v, s, m: pref_hits(v, s, m, "dislikes") if m.group("neg") else iter(()),
        ),
        (
            r"live",
            rf"{SELF}{ADV}\s+(?P<verb>(?i:live))\s+(?i:for)\s+"
            rf"(?!(?i:it|that|this|now|free|a\s+living|the\s+moment|each\s+other)\b){_OBJECT}",
            _pref("likes"),
        ),
        (
            r"enough",
            rf"{SELF}\s+(?i:can't|cannot|can\s+not|can't\s+ever)\s+(?i:get)\s+(?i:enough)\s+"
            rf"(?i:of)\s+(?!(?i:it|that|this|them|you)\b){_OBJECT}",
            _pref("likes"),
        ),
        (
            # "nothing beats a cold beer", "nothing clears my head like tennis"; "it was nothing
            # like Paris" compares, so only at the start of a sentence or after "there's".
            r"nothing",
            r"(?:^|(?<![\w'])(?i:there's|there\s+is)\s+)(?:(?i:honestly|really|just)\s+)?"
            # The verb right after "nothing" ("clears", "relaxes"): "nothing I tried worked like
            # the old one" compares.
            r"(?i:nothing)\s+(?:(?i:beats|compares\s+to|tops)|(?i:[a-z]+s)\s+"
            r"(?:(?!(?i:like)\b)[\w']+\s+){0,3}(?i:like)|(?<=(?i:there's nothing ))(?i:like)|"
            r"(?<=(?i:there is nothing ))(?i:like))\s+"
            rf"(?!(?i:it|that|this|you|me|i)\b){_OBJECT}",
            _pref("likes"),
        ),
        (
            r"nothing but",
            rf"{IC}(?:(?i:'ve|\s+have))?{ADV}\s+(?:(?i:been)\s+)?(?i:read|reading|watched|"
            r"watching|listened\s+to|listening\s+to|played|playing)\s+(?i:nothing\s+but)\s+"
            rf"{_OBJECT}",
            _pref("likes"),
        ),
        (
            r"jam",
            r"^(?:(?i:honestly|ok|okay|man|dude|lol|oh|tbh)\s+)?(?P<obj>[^,.;:!?()\"]{2,40}?)\s+"
            r"(?i:is|are)\s+(?i:my|totally\s+my|so\s+my)\s+(?i:jam)\b",
            _pref("likes"),
        ),
        (
            r"best",
            r"^(?P<obj>[^,.;:!?()\"]{2,40}?)\s+(?i:is|are)\s+(?:(?i:by\s+far|hands\s+down|"
            r"honestly|easily|still)\s+)?(?i:the)\s+(?i:best)\s+(?P<thing>[a-z]+)\b"
            r"(?!\s+(?i:ever|i've|i\s+have|i|we|you|of|in|at|on|for|to|around|here|there)\b)",
            _best_hits,
        ),
        (
            r"go-to|go to|usual",
            r"(?<![\w'])(?i:my)\s+(?i:go-to|go\s+to|usual)(?:\s+(?P<thing>[a-zA-Z][\w-]*))?\s*"
            rf"(?:(?i:is|'s)\s+|:\s*){_OBJECT}",
            _favorite_hits,
        ),
        (
            r"fav",
            rf"(?<![\w'])(?i:my)\s+(?:(?i:all[- ]time|absolute|very|personal)\s+)?{_FAVORITE}"
            r"(?:\s+(?P<thing>[a-zA-Z][\w-]*(?:\s+[a-zA-Z][\w-]*){0,3}?))?\s+"
            rf"(?i:is|are|has\s+to\s+be|would\s+(?:have\s+to\s+)?be|'s)\s+{_OBJECT}",
            _favorite_hits,
        ),
        (
            r"fav",
            # At the start only: after a comma the subject is an aside ("Crystal Lake, east of
            # Denver is my favorite").
            r"^(?P<obj>[^,.;:!?()\"]{1,50}?)\s+(?i:is|are|'s)\s+(?i:my)\s+"
            rf"(?:(?i:all[- ]time|absolute|very)\s+)?{_FAVORITE}"
            r"(?:\s+(?P<thing>[a-zA-Z][\w-]*(?:\s+[a-zA-Z][\w-]*)?))?(?=\s*[,.;:!?]|\s*$)",
            _favorite_hits,
        ),
    ]
)


_PREF_RULESET = RuleSet.of(PREF_RULES)
_NEVER_AGAIN = re.compile(r"^\W*never\s+again\b", re.IGNORECASE)
_SHORT_TOPIC = re.compile(r"^(?P<obj>[^,.;:!?()\"]{2,60}?)[\s?!.…]*$")


def pref_family(view: View, out: Extraction) -> None:
    """Likes, dislikes and favourites, as separate keys per polarity (likes_x / dislikes_x)."""
    if view.segment.kind == "row":
        return
    previous: Sentence | None = None
    for sentence in view.sentences:
        text = sentence.text
        if is_person(view, sentence.speaker) and _NEVER_AGAIN.match(text) and previous:
            # "Camping in the rain? Never again." - the topic is the sentence before.
            same_speaker = previous.speaker == sentence.speaker
            short = _SHORT_TOPIC.match(previous.text)
            if same_speaker and short and len(short.group("obj").split()) <= 6:
                for hit in pref_hits(view, sentence, short, "dislikes"):
                    emit(view, out, sentence, hit, "prefs")
        previous = sentence
        said = statement(text) if usable(view, sentence) else None
        if said is None:
            continue
        text = said
        fire(_PREF_RULESET, view, out, sentence, text, "prefs")
