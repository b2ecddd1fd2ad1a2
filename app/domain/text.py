"""Tokenising text for search: Unicode-aware words, CJK bigrams, stemming and exact values.

Why ``snowballstemmer`` and not hand-written suffix stripping: Snowball English (Porter2) is a
published, widely used stemming algorithm whose rules were tuned on real vocabularies over decades.
A few ad-hoc suffix rules get the ordinary cases right and the rest wrong (``studies``/``studying``,
doubled consonants as in ``running``, ``-ational``, ``'s``), and each fix is another guess of ours
that nobody else has checked. The package is pure Python (no native build, nothing to download),
is generated from the algorithms' own source by the Snowball project, and switches to PyStemmer's
C implementation of the same algorithms by itself when that optional package is installed.
Stems and each chunk's tokens are cached (``lru_cache``), so each distinct word pays the Python
cost once. Only words and chunks of at most ``CACHED_CHARS`` characters are kept, so the caches
hold a bounded number of bytes, and ``forget_cached_words`` empties them (after a forget: a
cached word may be one the forgotten turn said).

What a token is:

- text is NFKC-normalised and case-folded, so full-width forms, ligatures and case all meet;
- a word is a run of Unicode letters, digits and combining marks (``café``, ``москва``, ``हिन्दी``);
  Latin-script words lose English stopwords and are stemmed, other scripts are kept as they are;
- an ordinal is its number (``29th`` is ``29``);
- a run of Han, Hiragana, Katakana or Hangul becomes overlapping character bigrams (one lone
  character stays a unigram), because these scripts do not separate words with spaces;
- a value joined by ``. : / @ _ # ? = %`` or containing a digit (``ord-12345``, ``10.0.0.1``,
  ``2.4.1``, ``jane@example.com``, a URL, a UUID) is also emitted whole, before its parts, so a
  query that names the value matches it exactly while its parts still match on their own.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from functools import cache, lru_cache

import snowballstemmer

from app.domain.words import STOPWORDS

# Han (with extensions and compatibility forms), iteration marks, Hiragana, Katakana, Hangul.
_CJK = (
    "\u1100-\u11ff\u2e80-\u2fdf\u3005-\u3007\u3040-\u30ff\u3130-\u318f\u31f0-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\uff66-\uff9f"
    "\U00020000-\U0003134f"
)
_CJK_RUN_RE = re.compile(f"([{_CJK}]+)")
# Characters that join the parts of one exact value. An apostrophe joins too, but only inside
# a word ("caroline's"), and a hyphen or plus alone does not make a value ("well-known").
_JOINERS = "-._@:/#?=%+&~"
_VALUE_JOINERS = frozenset("._@:/#?=%~")
_SPLIT_RE = re.compile(f"[{re.escape(_JOINERS)}]+")
_LATIN_RE = re.compile(r"[a-z\u00df-\u024f']+")
_DIGIT_RE = re.compile(r"\d")
# "29th", "22nd", "1st": an ordinal is its number, so "her 29th birthday" finds "turning 29"
# and "June 13th" finds "June 13".
_ORDINAL_RE = re.compile(r"(\d+)(?:st|nd|rd|th)")

_stem_lock = threading.Lock()
_stemmer = snowballstemmer.stemmer("english")


@cache
def _token_re() -> re.Pattern[str]:
    """The chunk pattern; built on first use because listing the combining marks takes ~25 ms."""
    # Python's \w does not match combining marks (Devanagari vowel signs, for one), which would
    # split words apart; the Basic Multilingual Plane holds all marks in common use.
    marks = "".join(
        re.escape(chr(c)) for c in range(0x300, 0x10000) if unicodedata.category(chr(c))[0] == "M"
    )
    word = f"(?:[^\\W_]|[{marks}])+"
    return re.compile(f"{word}(?:(?:[{re.escape(_JOINERS)}]+|['’]){word})*")


# Words and chunks longer than this are not cached: the caches are bounded in bytes, not only in
# entries, and a long chunk (a pasted key, a run without spaces) rarely comes back.
CACHED_CHARS = 64


def stem(word: str) -> str:
    """The Snowball English stem of a case-folded Latin-script word."""
    return _cached_stem(word) if len(word) <= CACHED_CHARS else _stem(word)


def _stem(word: str) -> str:
    # Snowball stemmer objects keep state between calls, so one must not be shared by threads.
    with _stem_lock:
        return str(_stemmer.stemWord(word))


_cached_stem = lru_cache(maxsize=65536)(_stem)


def noun_in(word: str, nouns: frozenset[str]) -> bool:
    """Whether a lower-case ``word`` is one of ``nouns`` or a regular plural of one ("versions",
    "salaries", "cookies")."""
    if word in nouns:
        return True
    if not word.endswith("s"):
        return False
    return word[:-1] in nouns or (word.endswith("ies") and word[:-3] + "y" in nouns)


def forget_cached_words() -> None:
    """Empty the word caches: the words of a forgotten turn may be in them."""
    _cached_stem.cache_clear()
    _cached_chunk.cache_clear()
    _cached_word_tokens.cache_clear()


def _is_value(chunk: str) -> bool:
    return bool(_DIGIT_RE.search(chunk)) or any(c in _VALUE_JOINERS for c in chunk)


def _emit_word(part: str, out: list[str]) -> None:
    if part.isascii():  # most text: no CJK run to split out
        _emit_run(part, out)
        return
    for i, run in enumerate(_CJK_RUN_RE.split(part)):
        if not run:
            continue
        if i % 2:  # a CJK run (split() puts the captured runs at odd positions)
            if len(run) == 1:
                out.append(run)
            else:
                out.extend(run[j : j + 2] for j in range(len(run) - 1))
        else:
            _emit_run(run, out)


# Irregular past forms and their verbs: a stemmer leaves "met" and "meet" apart, and "When did
# you meet Jon?" should find "I met Jon". Left out: forms that are as often something else
# ("left" of a direction, "bit", "lead") or a name ("Won", "Hung", "Sung"), and the light verbs
# (go, get, make, take, come, give, see, know, think, feel), whose rarer past form says more in
# a query than their common one would: "went" joined to "go" matches every "how's it going".
_IRREGULAR_TEXT = """
    heard:hear met:meet bought:buy told:tell brought:bring taught:teach caught:catch ran:run
    sent:send spent:spend built:build began:begin begun:begin wrote:write written:write
    drove:drive driven:drive ate:eat eaten:eat drank:drink swam:swim flew:fly flown:fly
    grew:grow grown:grow threw:throw thrown:throw wore:wear worn:wear chose:choose chosen:choose
    spoke:speak spoken:speak broke:break broken:break forgot:forget forgotten:forget paid:pay
    sold:sell held:hold kept:keep slept:sleep sat:sit stood:stand understood:understand
    fell:fall fallen:fall rode:ride ridden:ride meant:mean dealt:deal learnt:learn sought:seek
    fought:fight found:find lost:lose hid:hide woke:wake woken:wake shook:shake forgave:forgive
    forgiven:forgive became:become lent:lend
"""
IRREGULAR_VERBS = dict(pair.split(":") for pair in _IRREGULAR_TEXT.split())


def _emit_run(run: str, out: list[str]) -> None:
    # A run without CJK: a Latin-script word is stemmed, anything else kept as it is.
    if _LATIN_RE.fullmatch(run):
        if run not in STOPWORDS:
            word = stem(IRREGULAR_VERBS.get(run, run)).strip("'")
            if word:
                out.append(word)
    elif ordinal := _ORDINAL_RE.fullmatch(run):
        out.append(ordinal.group(1))
    else:
        out.extend(w for w in run.split("'") if w and w not in STOPWORDS)


def tokenize(text: str) -> list[str]:
    """Search tokens of ``text``: case-folded, stemmed words, CJK bigrams and whole exact values."""
    if text.isascii():  # NFKC leaves ASCII as it is, and its case folding is lower()
        text = text.lower()
    else:
        text = unicodedata.normalize("NFKC", text).casefold().replace("’", "'")
    out: list[str] = []
    for chunk in _token_re().findall(text):
        out += _cached_chunk(chunk) if len(chunk) <= CACHED_CHARS else _chunk_tokens(chunk)
    return out


def word_tokens(word: str) -> frozenset[str]:
    """The search tokens of one word, as a set: whether a passage's word is one a question asks
    is looked up for the same words read after read."""
    return _cached_word_tokens(word) if len(word) <= CACHED_CHARS else _word_tokens(word)


def _word_tokens(word: str) -> frozenset[str]:
    return frozenset(tokenize(word))


_cached_word_tokens = lru_cache(maxsize=16384)(_word_tokens)


# Words that frame a question about what was said ("What did I say my address was?", "the
# city I mentioned", "Did she tell you when?"): they name the telling, not what was told, and
# would match every turn that says "I'd say" or "as you mentioned".
_FRAMING_TEXT = "say said says saying mention mentioned mentions mentioning tell told tells recall"
# "go" in a question says where or when, not what ("Where do I go shopping?", "When did she go
# to the fair?"), and matches every "grab-and-go" and "how's it going".
_LIGHT_TEXT = "go goes going"


@cache
def _framing() -> frozenset[str]:
    words = f"{_FRAMING_TEXT} {_LIGHT_TEXT}".split()
    return frozenset(t for word in words for t in tokenize(word))


# Words that ask for the first time something was said or done ("When did I first mention the
# trip?", "for the first time", "at the start of our conversation"): they order the answer in
# time and are not words of it. "first" counts only before a verb: "my first article", "the
# first term" name a thing.
_FIRST_TIME_RE = re.compile(
    r"\bfor\s+the\s+(?:very\s+)?first\s+time\b|"
    r"\bat\s+the\s+(?:very\s+)?(?:start|beginning|outset)"
    r"(?:\s+of\s+(?:our|the|this)\s+(?:conversation|chat|talk))?\b|"
    r"\bin\s+the\s+beginning\b|\binitially\b|\bfirst\s+(?=([a-z]{2,20})\b)",
    re.IGNORECASE,
)
_FIRST_VERB_TEXT = """
    ask bring buy call come commit contact decide describe discuss do encounter feel find get go
    hear join learn make meet mention move notice open play post read reach realize realise say
    see send set share show sign start talk tell text think try use visit watch write
    said saw seen did got went came made took thought felt
"""
_FIRST_VERBS = frozenset(_FIRST_VERB_TEXT.split()) | frozenset(IRREGULAR_VERBS)


def _first_time_spans(text: str) -> list[tuple[int, int]]:
    """Where ``text`` asks for the first time something was said or done."""
    spans = []
    for match in _FIRST_TIME_RE.finditer(text):
        after = match.group(1)
        if after is not None:
            word = after.lower()
            if not (word in _FIRST_VERBS or (word.endswith("ed") and len(word) > 4)):
                continue
        spans.append(match.span())
    return spans


def asks_first(text: str) -> bool:
    """Whether a question asks for the first time something was said or done."""
    return bool(_first_time_spans(text))


def query_tokens(text: str) -> list[str]:
    """The search tokens of a question: ``tokenize`` without the words that frame it as a
    question about what was said or about the first time, nor "go", unless they are all it
    asks."""
    tokens: list[str] = []
    spans = _first_time_spans(text)
    if spans:
        parts, at = [], 0
        for start, end in spans:
            parts.append(text[at:start])
            at = end
        tokens = tokenize(" ".join([*parts, text[at:]]))
    tokens = tokens or tokenize(text)
    framing = _framing()
    kept = [t for t in tokens if t not in framing]
    return kept if kept else tokens


def _chunk_tokens(chunk: str) -> tuple[str, ...]:
    """The tokens of one chunk: a word, or a value (whole, then its parts)."""
    out: list[str] = []
    parts = _SPLIT_RE.split(chunk)
    if len(parts) > 1 and _is_value(chunk):
        out.append(chunk)
    for part in parts:
        _emit_word(part, out)
    return tuple(out)


# Chunks repeat: a passport's words across its memories, a user's words across questions.
_cached_chunk = lru_cache(maxsize=16384)(_chunk_tokens)
