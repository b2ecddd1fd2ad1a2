"""Key deduplication, tiers 1 and 2: exact match on the normalised key, then a guarded fuzzy match.

Tier 0 (the extractor reusing known keys) happens before this module; tier 3 (an offline LLM pass
over the whole key list) after it. Tier 2 auto-merges only on strong evidence, refuses outright
when two keys differ in polarity (``budget_min``/``budget_max``), and defers the uncertain band to
review. Refusing or reviewing keeps the incoming key as its own, so a wrong call costs a duplicate
key, never an overwritten belief.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any, Literal

from app.domain.keys import key_tokens, normalize_key, split_namespace

Action = Literal["new", "exact", "merge", "refuse", "review"]

# --- thresholds -------------------------------------------------------------------------------
# score = JW_WEIGHT * Jaro-Winkler + (1 - JW_WEIGHT) * token overlap,
# where the overlap is a Dice coefficient over tokens that counts typo-close words as equal.
JW_WEIGHT = 0.6
# Strong evidence is the same token multiset after spelling/plural/order folding, the same letters
# split differently (user_name/username), or a near-identical string with near-identical tokens.
MERGE_MIN_JW = 0.95
MERGE_MIN_OVERLAP = 0.8
# Pairs scoring in [REVIEW_MIN_SCORE, merge) are uncertain: kept apart and queued for review.
REVIEW_MIN_SCORE = 0.78
# Two tokens count as the same word in the overlap when this close (typos: adress/address) ...
TOKEN_FUZZY_MIN_JW = 0.92
# ... and both are at least this long (short words are too easy to confuse: age/page).
TOKEN_FUZZY_MIN_LEN = 4
# Jaro-Winkler: common-prefix bonus per character, the longest prefix counted, and the Jaro score
# below which no bonus is given (Winkler's original boost threshold).
JW_PREFIX_SCALE = 0.1
JW_MAX_PREFIX = 4
JW_BOOST_THRESHOLD = 0.7

# --- vocabulary -------------------------------------------------------------------------------
# Pairs of tokens with opposite (or mutually exclusive) meaning: keys differing by one never merge.
_ANTONYM_LIST = (
    ("min", "max"),
    ("minimum", "maximum"),
    ("lower", "upper"),
    ("low", "high"),
    ("enabled", "disabled"),
    ("enable", "disable"),
    ("on", "off"),
    ("true", "false"),
    ("yes", "no"),
    ("allow", "deny"),
    ("allowed", "denied"),
    ("allowed", "blocked"),
    ("allow", "block"),
    ("whitelist", "blacklist"),
    ("like", "dislike"),
    ("love", "hate"),
    ("include", "exclude"),
    ("included", "excluded"),
    ("start", "end"),
    ("begin", "end"),
    ("from", "to"),
    ("before", "after"),
    ("first", "last"),
    ("first", "second"),
    ("primary", "secondary"),
    ("open", "closed"),
    ("open", "close"),
    ("in", "out"),
    ("input", "output"),
    ("inbound", "outbound"),
    ("up", "down"),
    ("left", "right"),
    ("add", "remove"),
    ("buy", "sell"),
    ("sender", "recipient"),
    ("source", "target"),
    ("income", "expense"),
    ("credit", "debit"),
    ("gain", "loss"),
    ("win", "loss"),
    ("positive", "negative"),
    ("plus", "minus"),
    ("old", "new"),
    ("current", "previous"),
    ("current", "former"),
    ("past", "future"),
    ("home", "work"),
    ("personal", "work"),
    ("personal", "business"),
    ("public", "private"),
    ("mother", "father"),
    ("brother", "sister"),
    ("son", "daughter"),
    ("husband", "wife"),
    ("boyfriend", "girlfriend"),
    ("male", "female"),
    ("success", "failure"),
    ("valid", "invalid"),
    ("accept", "reject"),
    ("accepted", "rejected"),
    ("online", "offline"),
    ("active", "inactive"),
)
ANTONYMS = frozenset(frozenset(pair) for pair in _ANTONYM_LIST)
# A token like this in one key but not the other flips its meaning (has_access / has_no_access).
NEGATIONS = frozenset(
    {"no", "not", "non", "never", "without", "none", "un", "cannot", "cant", "dont", "doesnt"}
    | {"didnt", "isnt", "wont", "nor", "neither", "nobody", "nothing"}
)
# word vs prefix+word (likes/dislikes, able/unable, active/inactive) is a polarity flip too.
NEGATION_PREFIXES = frozenset({"un", "dis", "non", "in", "im", "ir", "il", "de"})


@dataclass(frozen=True)
class KeyDecision:
    """How one incoming key was resolved against the known keys."""

    incoming: str
    resolved: str  # the key to use
    existing: str | None  # the known key it was matched (or compared) with
    tier: int  # 0 verbatim, 1 normalised, 2 fuzzy
    action: Action
    score: float
    reason: str

    def to_dict(self) -> dict[str, Any]:
        """A plain JSON-ready dict."""
        return asdict(self)


def jaro(a: str, b: str) -> float:
    """Jaro similarity in [0, 1]."""
    if a == b:
        return 1.0
    if not a or not b:
        return 0.0
    window = max(max(len(a), len(b)) // 2 - 1, 0)
    matched_b = [False] * len(b)
    a_matches: list[str] = []
    for i, ch in enumerate(a):
        for j in range(max(0, i - window), min(len(b), i + window + 1)):
            if not matched_b[j] and b[j] == ch:
                matched_b[j] = True
                a_matches.append(ch)
                break
    m = len(a_matches)
    if m == 0:
        return 0.0
    b_matches = [ch for ch, hit in zip(b, matched_b, strict=True) if hit]
    transpositions = sum(x != y for x, y in zip(a_matches, b_matches, strict=True)) / 2
    return (m / len(a) + m / len(b) + (m - transpositions) / m) / 3


def jaro_winkler(a: str, b: str) -> float:
    """Jaro-Winkler similarity in [0, 1] (prefix scale 0.1, prefix up to 4, boost above 0.7)."""
    sim = jaro(a, b)
    if sim <= JW_BOOST_THRESHOLD:
        return sim
    prefix = 0
    for x, y in zip(a[:JW_MAX_PREFIX], b[:JW_MAX_PREFIX], strict=False):
        if x != y:
            break
        prefix += 1
    return sim + prefix * JW_PREFIX_SCALE * (1 - sim)


# Word pairs repeat across keys (key vocabularies are small): the short ones are cached.
_CACHED_PAIR_CHARS = 64


def _close(a: str, b: str) -> bool:
    """``_words_close``, cached for pairs short enough to keep the cache small in bytes."""
    return _cached_close(a, b) if len(a) + len(b) <= _CACHED_PAIR_CHARS else _words_close(a, b)


def _words_close(a: str, b: str) -> bool:
    """Two words close enough to be one word misspelt (adress/address); numbers never are."""
    return (
        not a.isdigit()
        and not b.isdigit()
        and min(len(a), len(b)) >= TOKEN_FUZZY_MIN_LEN
        and jaro_winkler(a, b) >= TOKEN_FUZZY_MIN_JW
    )


_cached_close = lru_cache(maxsize=65536)(_words_close)


def _soft_overlap(a: Sequence[str], b: Sequence[str]) -> float:
    """Dice coefficient over tokens, counting near-identical words (typos) as matches."""
    if not a or not b:
        return 0.0
    left = list(b)
    unmatched: list[str] = []
    matches = 0
    for token in a:
        if token in left:
            left.remove(token)
            matches += 1
        else:
            unmatched.append(token)
    for token in unmatched:
        for other in left:
            if _close(token, other):
                left.remove(other)
                matches += 1
                break
    return 2 * matches / (len(a) + len(b))


def _negated(x: str, y: str) -> bool:
    """True when one word is the other with a negating prefix (likes/dislikes, able/unable)."""
    short, long = (x, y) if len(x) < len(y) else (y, x)
    return long.endswith(short) and long[: len(long) - len(short)] in NEGATION_PREFIXES


def _cancels(a: Sequence[str], b: Sequence[str]) -> bool:
    """Every word of ``a`` is a number, a negation, or the opposite of some word of ``b``."""
    for x in a:
        if x.isdigit() or x in NEGATIONS:
            continue
        if not any(frozenset((x, y)) in ANTONYMS or _negated(x, y) for y in b):
            return False
    return True


def polarity_conflict(a: Sequence[str], b: Sequence[str]) -> tuple[list[str], bool]:
    """Why two token lists differ in polarity (empty if they do not), and whether the rest matches.

    "The rest" is what is left once the conflicting tokens and all numbers are taken out: when it
    is the same, the keys name the same thing with opposite polarity (budget_min/budget_max).
    """
    only_a = sorted(set(a) - set(b))
    only_b = sorted(set(b) - set(a))
    reasons: list[str] = []
    drop: set[str] = set()
    for x in only_a:
        for y in only_b:
            if frozenset((x, y)) in ANTONYMS:
                reasons.append(f"antonyms {x}/{y}")
                drop.update((x, y))
            elif _negated(x, y):
                reasons.append(f"negated {x}/{y}")
                drop.update((x, y))
    neg_a = NEGATIONS.intersection(a)
    neg_b = NEGATIONS.intersection(b)
    if bool(neg_a) != bool(neg_b):
        reasons.append(f"negation {'/'.join(sorted(neg_a | neg_b))} on one side only")
    drop.update(neg_a | neg_b)
    nums_a = sorted(t for t in a if t.isdigit())
    nums_b = sorted(t for t in b if t.isdigit())
    if nums_a != nums_b:
        reasons.append(f"numbers {'_'.join(nums_a) or '-'} vs {'_'.join(nums_b) or '-'}")
    if not reasons:
        return [], False
    rest_a = Counter(t for t in a if t not in drop and not t.isdigit())
    rest_b = Counter(t for t in b if t not in drop and not t.isdigit())
    return reasons, rest_a == rest_b


# Preference keys open with how the person stands to the thing. These say the same stance: a
# hobby is a thing one likes. A stance of the other sign (dislike) is a polarity conflict.
_STANCES = {"like": "+", "love": "+", "enjoy": "+", "hobby": "+", "dislike": "-", "hate": "-"}
# "likes_hiking" and "likes_hiking_mountains": the longer may add this many words.
TASTE_MAX_EXTRA = 2


def same_taste(a: Sequence[str], b: Sequence[str]) -> bool:
    """Two preference keys (folded tokens) of one stance whose topics agree word for word as far
    as the shorter goes, the longer adding at most ``TASTE_MAX_EXTRA`` words.

    ``like_pottery``/``hobby_pottery`` and ``like_hiking``/``like_hiking_mountain`` are one taste;
    ``like_tea``/``like_green_tea`` are two (the topic's head differs).
    """
    if len(a) < 2 or len(b) < 2 or NEGATIONS.intersection(a) or NEGATIONS.intersection(b):
        return False
    stance = _STANCES.get(a[0])
    if stance is None or stance != _STANCES.get(b[0]):
        return False
    short, long = sorted((tuple(a[1:]), tuple(b[1:])), key=len)
    return long[: len(short)] == short and len(long) - len(short) <= TASTE_MAX_EXTRA


@dataclass(frozen=True)
class _Prepared:
    """What tier 2 needs of one key, computed once per key string."""

    namespace: str
    local: str
    tokens: tuple[str, ...]
    joined: str
    sorted_joined: str
    letters: str


@lru_cache(maxsize=8192)  # the same known keys are compared with every incoming key
def _prepare(normalized: str) -> _Prepared:
    namespace, local = split_namespace(normalized)
    tokens = tuple(key_tokens(local))
    return _Prepared(
        namespace, local, tokens, "_".join(tokens), "_".join(sorted(tokens)), "".join(tokens)
    )


@dataclass(frozen=True)
class _Comparison:
    known: str
    action: Action  # "merge", "refuse", "review" or "new"
    score: float
    reason: str


def _compare(a: _Prepared, b: _Prepared, known: str) -> _Comparison | None:
    """Tier 2 verdict for one pair in the same namespace; None when they share nothing."""
    same_letters = bool(a.tokens) and a.letters == b.letters
    # user_name and username share every word, just split differently.
    overlap = 1.0 if same_letters else _soft_overlap(a.tokens, b.tokens)
    # Most pairs share no word; a polarity refusal between them needs every word to cancel out
    # (on/off), which is cheap to rule out first.
    if overlap == 0 and not (_cancels(a.tokens, b.tokens) and _cancels(b.tokens, a.tokens)):
        return None
    reasons, rest_same = polarity_conflict(a.tokens, b.tokens)
    refusable = bool(reasons) and rest_same
    if JW_WEIGHT + (1 - JW_WEIGHT) * overlap < REVIEW_MIN_SCORE and not refusable:
        # Even a perfect Jaro-Winkler could not lift this pair to review (and every merge rule
        # needs overlap >= MERGE_MIN_OVERLAP), so skip the Jaro-Winkler work.
        return None
    jw = max(
        jaro_winkler(a.local, b.local),
        jaro_winkler(a.joined, b.joined),
        jaro_winkler(a.sorted_joined, b.sorted_joined),
    )
    score = round(JW_WEIGHT * jw + (1 - JW_WEIGHT) * overlap, 4)
    detail = f"jw={jw:.4f} overlap={overlap:.4f}"
    if reasons:
        # A polarity difference only matters between keys that would otherwise be alike.
        if refusable or score >= REVIEW_MIN_SCORE:
            return _Comparison(known, "refuse", score, "polarity: " + "; ".join(reasons))
        return _Comparison(known, "new", score, detail)
    if a.tokens and a.sorted_joined == b.sorted_joined:
        return _Comparison(known, "merge", score, "same tokens after spelling/plural/order folding")
    if same_taste(a.tokens, b.tokens):
        return _Comparison(known, "merge", score, "the same taste, one said more narrowly")
    if same_letters:
        return _Comparison(known, "merge", score, "same words, split differently")
    if jw >= MERGE_MIN_JW and overlap >= MERGE_MIN_OVERLAP:
        return _Comparison(known, "merge", score, f"near-identical spelling ({detail})")
    if score >= REVIEW_MIN_SCORE:
        return _Comparison(known, "review", score, f"uncertain ({detail})")
    return _Comparison(known, "new", score, detail)


# When several known keys are candidates, the strongest verdict wins: a merge, then a pair worth a
# human look (review), then a refusal; ties go to the higher score, then to the earlier known key.
_PRIORITY: dict[str, int] = {"merge": 0, "review": 1, "refuse": 2, "new": 3}


# Tier 2 compares an incoming key with at most this many known keys: those that share the most
# words with it. A passport with thousands of keys then costs each merged key the same.
CANDIDATES_MAX = 16
# Of the keys that share one word (a word every key has, say), only the newest this many are
# read: what a merged key costs stays bounded however common its words are.
WORD_READ_MAX = 64


def _variants(token: str) -> list[str]:
    """The word and each spelling of it one letter shorter: two words one typo apart share one."""
    if token.isdigit() or len(token) < TOKEN_FUZZY_MIN_LEN:
        return []
    return [token, *(token[:i] + token[i + 1 :] for i in range(len(token)))]


def _partners(token: str) -> list[str]:
    """The words that flip this one's meaning: its antonyms, and it with a negating prefix."""
    found = [other for pair in _ANTONYMS_OF.get(token, ()) for other in pair if other != token]
    found.extend(prefix + token for prefix in NEGATION_PREFIXES)
    found.extend(
        token[len(prefix) :]
        for prefix in NEGATION_PREFIXES
        if token.startswith(prefix) and len(token) > len(prefix)
    )
    return found


def _trivial(tokens: Sequence[str]) -> bool:
    """Only numbers and negations: such keys cancel out against one another."""
    return all(t.isdigit() or t in NEGATIONS for t in tokens)


_ANTONYMS_OF: dict[str, list[frozenset[str]]] = {}
for _pair in ANTONYMS:
    for _word in _pair:
        _ANTONYMS_OF.setdefault(_word, []).append(_pair)


class KnownKeys:
    """The known keys of one section, indexed so resolving a key costs the same however many.

    Tier 2 compares a key only with the known keys that could score anything against it: those
    that share a word, a word one typo apart, the same letters, a word of opposite meaning, or
    (for keys of numbers and negations only) another such key; at most ``CANDIDATES_MAX``.
    """

    def __init__(self, keys: Iterable[str] = ()) -> None:
        self.keys: list[str] = []
        self._prepared: list[_Prepared] = []
        self._position: dict[str, int] = {}
        self._normalized: dict[str, str] = {}
        self._namespaces: set[str] = set()
        self._by_word: dict[tuple[str, str], list[int]] = {}
        self._by_variant: dict[tuple[str, str], list[int]] = {}
        self._by_letters: dict[tuple[str, str], list[int]] = {}
        self._trivial: dict[str, list[int]] = {}
        for key in keys:
            self.add(key)

    def __contains__(self, key: object) -> bool:
        return key in self._position

    def __len__(self) -> int:
        return len(self.keys)

    def position(self, key: str) -> int | None:
        """Where ``key`` is among the known keys, or None."""
        return self._position.get(key)

    def add(self, key: str) -> None:
        """Know one more key (a key already known is left where it is)."""
        if key in self._position:
            return
        at = self._position[key] = len(self.keys)
        self.keys.append(key)
        norm = normalize_key(key)
        self._normalized.setdefault(norm, key)
        prepared = _prepare(norm)
        self._prepared.append(prepared)
        if not prepared.local:
            return
        space = prepared.namespace
        self._namespaces.add(space)
        for token in set(prepared.tokens):
            self._by_word.setdefault((space, token), []).append(at)
            for variant in _variants(token):
                self._by_variant.setdefault((space, variant), []).append(at)
        self._by_letters.setdefault((space, prepared.letters), []).append(at)
        if _trivial(prepared.tokens):
            self._trivial.setdefault(space, []).append(at)

    def normalized(self, norm: str) -> str | None:
        """The first known key that normalises to ``norm``."""
        return self._normalized.get(norm)

    def has_namespace(self, namespace: str) -> bool:
        """Whether any known key (with a local part) lives in ``namespace``."""
        return namespace in self._namespaces

    def candidates(self, incoming: _Prepared) -> list[tuple[str, _Prepared]]:
        """The known keys worth comparing with ``incoming``, in the order they were known."""
        space = incoming.namespace
        hits: Counter[int] = Counter()

        def newest(index: dict[tuple[str, str], list[int]], word: str) -> list[int]:
            return index.get((space, word), [])[-WORD_READ_MAX:]

        for token in set(incoming.tokens):
            hits.update(newest(self._by_word, token))
            for partner in _partners(token):
                hits.update(newest(self._by_word, partner))
            typo_close: set[int] = set()
            for variant in _variants(token):
                typo_close.update(newest(self._by_variant, variant))
            hits.update(typo_close)
        hits.update(newest(self._by_letters, incoming.letters))
        if _trivial(incoming.tokens):
            hits.update(self._trivial.get(space, [])[-WORD_READ_MAX:])
        chosen = sorted(hits, key=lambda at: (-hits[at], at))[:CANDIDATES_MAX]
        return [(self.keys[at], self._prepared[at]) for at in sorted(chosen)]


def resolve_key(key: str, known: KnownKeys | Sequence[str], *, fuzzy: bool = True) -> KeyDecision:
    """Resolve an incoming key against known keys: tier 1 exact, then (``fuzzy``) tier 2."""
    index = known if isinstance(known, KnownKeys) else KnownKeys(known)
    own = key.strip() or key
    if key in index:
        return KeyDecision(key, key, key, 0, "exact", 1.0, "known key")
    norm = normalize_key(key)
    if not norm:
        return KeyDecision(key, own, None, 1, "new", 0.0, "nothing left after normalisation")
    same = index.normalized(norm)
    if same is not None:
        return KeyDecision(key, same, same, 1, "exact", 1.0, f"normalised: {norm}")
    if not fuzzy:
        return KeyDecision(key, own, None, 1, "new", 0.0, "no known key of this name")
    incoming = _prepare(norm)
    if not index.has_namespace(incoming.namespace):
        return KeyDecision(key, own, None, 1, "new", 0.0, "no known key in this namespace")
    comparisons: list[_Comparison] = []
    for candidate, prepared in index.candidates(incoming):
        comparison = _compare(incoming, prepared, candidate)
        if comparison is not None:
            comparisons.append(comparison)
    if not comparisons:
        return KeyDecision(key, own, None, 2, "new", 0.0, "no known key is close")
    best = min(comparisons, key=lambda c: (_PRIORITY[c.action], -c.score))
    if best.action == "merge":
        return KeyDecision(key, best.known, best.known, 2, "merge", best.score, best.reason)
    if best.action == "new":
        reason = f"closest {best.known!r}: {best.reason}"
        return KeyDecision(key, own, None, 2, "new", best.score, reason)
    return KeyDecision(key, own, best.known, 2, best.action, best.score, best.reason)
