"""What every rule family reads: a segment cut into sentences, with who said each and when."""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime

from app.domain.dates import MONTHS, WEEKDAYS, Resolved, resolve_relative
from app.domain.extraction.extractor import Extraction, ExtractionInput
from app.domain.extraction.rules.known import KnownKeyNames
from app.domain.ingest import segment_time
from app.domain.ingest.turns import MACHINE_ROLES, Segment, role_of
from app.domain.prose import prose_of
from app.domain.words import CHAT_STOPWORDS

# Speakers that are machines: they never state facts about themselves.
MACHINE_SPEAKERS = frozenset({"assistant", "system", "bot", "ai", "tool"})
# Speaker names that name a role, not a person.
GENERIC_SPEAKERS = MACHINE_SPEAKERS | {"user", "human"}

CALENDAR_WORDS = frozenset(w.lower() for w in (*MONTHS, *WEEKDAYS))

WORD_RE = re.compile(r"[^\W\d_]\w*(?:['-]\w+)*|\d+(?:[.,:/-]\d+)*")
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
# Trailing filler is looked for in a sentence's last characters only: a pattern anchored at the
# end would otherwise be tried from every comma of a long run.
_TRAILING_FILLER_CHARS = 80
# A sentence longer than this is read in pieces cut at a space: no claim a rule can state is
# longer, and every rule's work is then bounded by the piece, whatever the turn's length.
MAX_SENTENCE_CHARS = 1000
# The words of its turn a rule may read around a sentence ("a move, or a visit?"), either side.
TURN_CONTEXT_CHARS = 300


@dataclass(frozen=True, slots=True)
class Sentence:
    """One sentence of one turn, with the display name of who said it."""

    speaker: str
    text: str
    words: tuple[str, ...]  # lowercased tokens
    small_talk: bool
    ts: datetime | None = None  # when it was said: the turn's time, else the segment's
    turn: int = 0  # which turn of the segment it belongs to: a turn's sentences share context
    offset: int = 0  # where it starts in its turn's sentences joined by spaces (``around``)


@dataclass(slots=True)
class View:
    """What every pattern family reads: the segment, cut into sentences, with its time."""

    segment: Segment
    subject: str | None
    known_keys: KnownKeyNames
    when: datetime | None
    participants: list[str]
    sentences: list[Sentence]
    word_counts: Counter[str] = field(default_factory=Counter)
    # Dates resolved in this segment's texts: families resolve the same sentence more than once.
    _dates: dict[tuple[str, datetime], list[Resolved]] = field(default_factory=dict)
    # Each turn's sentences joined by spaces, the text ``around`` reads.
    turn_texts: dict[int, str] = field(default_factory=dict)

    def around(self, sentence: Sentence, chars: int = TURN_CONTEXT_CHARS) -> str:
        """The sentence with the words of its turn around it, ``chars`` either side at most."""
        text = self.turn_texts.get(sentence.turn, sentence.text)
        start = max(0, sentence.offset - chars)
        return text[start : sentence.offset + len(sentence.text) + chars]

    def dates_in(self, text: str, anchor: datetime) -> list[Resolved]:
        """The date expressions of ``text`` resolved against ``anchor`` (once per segment)."""
        found = self._dates.get((text, anchor))
        if found is None:
            found = self._dates[text, anchor] = resolve_relative(text, anchor)
        return found

    def user_sentences(self) -> Iterator[Sentence]:
        """The sentences of turns whose role is ``user``: the person of a user–assistant chat."""
        turns = self.segment.turns
        for sentence in self.sentences:
            turn = turns[sentence.turn] if 0 <= sentence.turn < len(turns) else None
            if turn is not None and role_of(turn.speaker, turn.role) == "user":
                yield sentence


PatternFamily = Callable[[View, Extraction], None]


# --- the view -------------------------------------------------------------------------------


def build_view(request: ExtractionInput) -> View:
    segment = request.segment
    speakers = [_speaker_name(t.kind, t.speaker, t.table, request.subject) for t in segment.turns]
    participants = list(dict.fromkeys(speakers))
    names = {w.lower() for p in participants for w in WORD_RE.findall(p)}
    when = segment_time(segment, request.reference_ts)
    sentences: list[Sentence] = []
    turn_texts: dict[int, str] = {}
    for index, (who, turn) in enumerate(zip(speakers, segment.turns, strict=True)):
        said: list[str] = []
        offset = 0
        # An assistant's, system's or tool's message is never the source of a belief, and code,
        # logs and markup in anyone's message hold no claim: the rules read a person's prose.
        prose = "" if role_of(turn.speaker, turn.role) in MACHINE_ROLES else prose_of(turn.text)
        for raw in _SENTENCE_SPLIT_RE.split(prose.replace("’", "'")):
            for piece in _pieces(" ".join(raw.split())):
                sentence = _make_sentence(who, piece, names, turn.ts or when, index)
                if sentence is not None:
                    sentences.append(dataclasses.replace(sentence, offset=offset))
                    said.append(sentence.text)
                    offset += len(sentence.text) + 1
        turn_texts[index] = " ".join(said)
    view = View(
        segment=segment,
        subject=request.subject,
        known_keys=KnownKeyNames(request.known_keys),
        when=when,
        participants=participants,
        sentences=sentences,
        turn_texts=turn_texts,
    )
    for sentence in sentences:
        if not sentence.small_talk:
            view.word_counts.update(w for w in sentence.words if _is_keyword(w, names))
    return view


def _pieces(text: str, limit: int = MAX_SENTENCE_CHARS) -> list[str]:
    """``text`` cut at a space into pieces of at most ``limit`` characters (no space: anywhere)."""
    pieces: list[str] = []
    while len(text) > limit:
        cut = text.rfind(" ", limit // 2, limit + 1)
        cut = cut if cut > 0 else limit
        pieces.append(text[:cut])
        text = text[cut:].lstrip(" ")
    return [*pieces, text]


def _without_trailing_filler(text: str) -> str:
    head, tail = text[:-_TRAILING_FILLER_CHARS], text[-_TRAILING_FILLER_CHARS:]
    return head + _TRAILING_FILLER_RE.sub("", tail)


def _make_sentence(
    who: str, text: str, names: set[str], ts: datetime | None, turn: int
) -> Sentence | None:
    if not text:
        return None
    cleaned = _without_trailing_filler(_SMALL_TALK_RE.sub("", text)).strip(" ,;:-")
    tokens = WORD_RE.findall(cleaned)
    content = [t for t in tokens if t.lower() not in CHAT_STOPWORDS and t.lower() not in names]
    # "Hey Mel!" leaves only a name behind: still a greeting.
    stripped = cleaned != text
    small_talk = not content or (
        stripped and len(content) <= 2 and all(t[0].isupper() for t in content)
    )
    words = tuple(t.lower().removesuffix("'s") for t in tokens)
    if stripped:
        cleaned = cleaned[:1].upper() + cleaned[1:]
    return Sentence(who, cleaned if cleaned else text, words, small_talk, ts, turn)


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
        and word not in CHAT_STOPWORDS
        and word not in names
        and word not in CALENDAR_WORDS
        and not word[0].isdigit()
    )
