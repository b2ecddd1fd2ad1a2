"""Property tests over what parses user text: arbitrary Unicode and adversarial chat never raise.

The date resolver, the noise pruner, the segmenter, the tokenizer and the whole rule extractor
are fed text hypothesis makes up (any Unicode, and chat built from the phrases the rules look
for), and must neither raise nor record a failed rule.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from itertools import pairwise

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.domain.dates import resolve_relative
from app.domain.extraction.extractor import ExtractionInput
from app.domain.extraction.rules import extract_rules
from app.domain.ingest.noise import prune_noise
from app.domain.ingest.segmentation import segment_turns
from app.domain.ingest.turns import Segment, Turn
from app.domain.text import tokenize

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Times a client may send: any year the datetime type holds.
anchors = st.datetimes(
    min_value=datetime(1, 1, 8), max_value=datetime(9999, 12, 24), timezones=st.just(UTC)
)
# What the rules look for, so that generated chat reaches the patterns, not only the fast paths.
_PHRASES = [
    "I love",
    "I hate",
    "I don't like",
    "I'm into",
    "my favorite",
    "is my favourite",
    "I live in",
    "I moved to",
    "I'm from",
    "I work as a",
    "I work at",
    "my sister",
    "my dog",
    "named",
    "I'm going to",
    "I need to",
    "I'll",
    "we should",
    "let's",
    "remind me to",
    "I'm planning on",
    "never been to",
    "I don't eat",
    "I can't",
    "allergic to",
    "I play",
    "I took up",
    "my name is",
    "call me",
    "I'm 32",
    "my birthday is",
    "new year day",
    "New Years's Eve",
    "valentines",
    "St. Patricks Day",
    "last Christmas",
    "next easter monday",
    "thanksgiving",
    "good friday",
    "yesterday",
    "tomorrow",
    "last week",
    "in two weeks",
    "next month",
    "on Friday",
    "3 days ago",
    "the 19th of February",
    "2023-05-08",
    "8.5.2023",
    "in 2019",
    "tonight",
    "a fortnight ago",
    "Kwekwe",
    "Melanie",
    "Caroline",
    "Zimplats",
    "the",
    "a",
    "and",
    "but",
    "so",
    "because",
    "it",
    "that",
    "you",
    "?",
    "!",
    ".",
    ",",
    "lol",
    "haha",
    "😂",
    "❤️",
    "\n",
    "- ",
    "1.",
    ":",
    "'s",
    "’",
    "https://example.com/x?y=1",
    "ORD-88412",
    "3.11.7",
    "jon@example.com",
    "#4521",
    "I",
    "we",
    "me",
    "my",
    "our",
    "wanna",
    "gonna",
    "gotta",
    "isnt",
    "dont",
    "cuz",
    "tho",
    "toooo",
]
chat_text = st.lists(st.one_of(st.sampled_from(_PHRASES), st.text(max_size=12)), max_size=40).map(
    " ".join
)
any_text = st.one_of(st.text(max_size=400), chat_text)


@SETTINGS
@given(text=any_text, anchor=anchors)
def test_dates_resolve_or_are_left_alone(text: str, anchor: datetime) -> None:
    found = resolve_relative(text, anchor)
    ends = [r.span for r in found]
    for resolved in found:
        start, end = resolved.span
        assert text[start:end] == resolved.expression
    assert all(a[1] <= b[0] for a, b in pairwise(ends))


_HOLIDAY_NAMES = st.sampled_from(
    [
        "christmas",
        "christmas eve",
        "christmas day",
        "xmas",
        "boxing day",
        "halloween",
        "thanksgiving",
        "easter",
        "easter sunday",
        "easter monday",
        "good friday",
    ]
)


@st.composite
def holiday_spellings(draw: st.DrawFn) -> str:
    """Every spelling the holiday pattern can take: 'new yearS's day', 'St Patricks Day', ..."""
    kind = draw(st.sampled_from(["new year", "valentine", "patrick", "plain"]))
    s, apostrophe = draw(st.sampled_from(["", "s"])), draw(st.sampled_from(["", "'", "’"]))
    tail = draw(st.sampled_from(["", "s"]))
    if kind == "new year":
        name = f"new year{s}{apostrophe}{tail} {draw(st.sampled_from(['day', 'eve']))}"
    elif kind == "valentine":
        name = f"valentine{apostrophe}s" + draw(st.sampled_from(["", " day"]))
    elif kind == "patrick":
        name = f"st{draw(st.sampled_from(['', '.']))} patrick{apostrophe}s day"
    else:
        name = draw(_HOLIDAY_NAMES)
    cased = "".join(c.upper() if draw(st.booleans()) else c for c in name)
    lead = draw(st.sampled_from(["", "on ", "last ", "next ", "this ", "for ", "see you "]))
    return lead + cased


# A year from the calendar's ends: "last Valentine's" said in January of year 1 has no day.
holiday_anchors = st.datetimes(
    min_value=datetime(2, 1, 1), max_value=datetime(9998, 12, 31), timezones=st.just(UTC)
)


@SETTINGS
@given(said=holiday_spellings(), anchor=holiday_anchors)
def test_every_holiday_the_pattern_matches_has_a_day(said: str, anchor: datetime) -> None:
    found = resolve_relative(f"maybe I'll call him {said}!", anchor)
    if said.startswith(("last ", "next ")):
        assert found, said  # a holiday with last/next always names a day


@SETTINGS
@given(text=any_text)
def test_noise_pruning_keeps_chat_and_never_raises(text: str) -> None:
    pruned = prune_noise(text)
    assert isinstance(pruned, str)


@SETTINGS
@given(text=chat_text)
def test_plain_chat_is_not_noise(text: str) -> None:
    words = " ".join(w for w in text.split() if len(w) < 20)
    assert prune_noise(words) == words


@SETTINGS
@given(text=any_text)
def test_tokens_are_words_and_the_tokenizer_never_raises(text: str) -> None:
    tokens = tokenize(text)
    assert all(isinstance(t, str) and t for t in tokens)
    assert tokens == tokenize(text)


turns = st.lists(
    st.builds(
        Turn,
        speaker=st.sampled_from(["Melanie", "Caroline", "user", "assistant", "", "Ann Lee"]),
        text=any_text,
        ts=st.one_of(st.none(), anchors),
        id=st.one_of(st.none(), st.text(min_size=1, max_size=6)),
        session=st.sampled_from([None, "s1", "s2"]),
    ),
    max_size=12,
)


@SETTINGS
@given(turns=turns, max_tokens=st.integers(min_value=1, max_value=400))
def test_segments_keep_every_turn_in_order(turns: list[Turn], max_tokens: int) -> None:
    segments = segment_turns(turns, max_tokens=max_tokens, max_gap=timedelta(hours=6))
    assert [t for s in segments for t in s.turns] == turns
    assert all(s.tokens <= max_tokens or len(s.turns) == 1 for s in segments)


@SETTINGS
@given(turns=turns, subject=st.sampled_from([None, "Melanie", "caroline", "Ann Lee"]))
def test_the_rule_extractor_never_fails_on_chat(turns: list[Turn], subject: str | None) -> None:
    segment = Segment(id="seg_prop", turns=tuple(turns), tokens=1)
    out = extract_rules(ExtractionInput(segment=segment, subject=subject))
    assert out.failures == []
    ids = {t.id for t in turns if t.id}
    for belief in [*out.facts, *out.prefs, *out.open_loops]:
        assert set(belief.to_dict().get("turn_ids", [])) <= ids
    for belief in [*out.facts, *out.prefs]:
        assert belief.key and belief.value not in ("", None)
    orjson.dumps(out.items_dict())  # every item is JSON, as the passport stores it
