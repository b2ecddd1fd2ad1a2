"""Instruments, sports, hobbies and languages ("I play the cello", "I took up pottery")."""

from __future__ import annotations

import re
from collections.abc import Iterator

from app.domain.extraction.rules.guards import is_question
from app.domain.extraction.rules.lexicon import ADV, ME, SELF
from app.domain.extraction.rules.ruleset import Hit, Triggered, compiled, gate
from app.domain.extraction.rules.view import Sentence, View
from app.domain.words import I_AM

# --- hobbies, instruments, sports and languages ---

_INSTRUMENT_TEXT = """
    piano keyboard keyboards guitar bass violin viola cello saxophone sax drums drum ukulele uke
    flute clarinet trumpet trombone tuba harp banjo mandolin accordion harmonica oboe bassoon
    organ synth synthesizer bagpipes fiddle xylophone marimba sitar tabla djembe bongos
    harmonium piccolo"""
_INSTRUMENT = "|".join(sorted(_INSTRUMENT_TEXT.split(), key=len, reverse=True))
_INSTRUMENT_NAMES = {"sax": "saxophone", "uke": "ukulele", "drum": "drums", "keyboards": "keyboard"}
# Instruments no other word is spelt like, safe to read in a bare answer ("a bit of sax").
_CLEAR_INSTRUMENTS = re.compile(
    r"\b(?P<inst>piano|guitar|violin|viola|cello|saxophone|sax|drums|ukulele|uke|flute|"
    r"clarinet|trumpet|trombone|tuba|harp|banjo|mandolin|accordion|harmonica|oboe|bassoon|"
    r"bagpipes|fiddle|xylophone|sitar)\b",
    re.IGNORECASE,
)
_PLAY_QUESTION = re.compile(r"\b(?:play|instruments?)\b", re.IGNORECASE)
_SPORT_TEXT = """
    tennis, golf, football, soccer, basketball, baseball, volleyball, rugby, cricket, hockey,
    ice hockey, badminton, squash, pickleball, padel, chess, poker, bridge, darts, pool, snooker,
    ultimate frisbee, frisbee, softball, table tennis, ping pong, lacrosse, netball, handball,
    water polo, mahjong, video games, board games, d&d, dungeons and dragons, scrabble"""
_SPORT = "|".join(
    re.escape(w.strip()).replace(r"\ ", r"\s+")
    for w in sorted(_SPORT_TEXT.split(","), key=len, reverse=True)
)
_HOBBY_TEXT = """
    pottery, ceramics, painting, knitting, crochet, crocheting, yoga, pilates, running, jogging,
    rock climbing, climbing, bouldering, hiking, cycling, mountain biking, biking, swimming,
    surfing, photography, gardening, baking, woodworking, birdwatching, bird watching, fishing,
    ice skating, skating, skateboarding, skiing, snowboarding, dancing, salsa, ballet, boxing,
    kickboxing, karate, judo, taekwondo, jiu jitsu, jiu-jitsu, fencing, archery, calligraphy,
    journaling, sewing, embroidery, quilting, meditation, kayaking, canoeing, rowing, sailing,
    scuba diving, drawing, sketching, astronomy, scrapbooking, origami, crossfit, weightlifting,
    powerlifting, trail running, martial arts, choir, improv, singing, poetry, blogging, cooking,
    tai chi, spinning, zumba, barre, rollerblading, horse riding, horseback riding, triathlons,
    marathons, writing"""
_HOBBY = "|".join(
    re.escape(w.strip()).replace(r"\ ", r"\s+")
    for w in sorted(_HOBBY_TEXT.split(","), key=len, reverse=True)
)
_LANGUAGE_TEXT = """
    spanish french german italian portuguese japanese mandarin chinese cantonese korean arabic
    russian hindi urdu dutch swedish norwegian danish finnish greek turkish polish hebrew swahili
    shona ndebele zulu xhosa afrikaans vietnamese thai tagalog irish welsh asl latin"""
_LANGUAGE = "|".join(_LANGUAGE_TEXT.split())
_LESSONS = r"(?i:lessons|classes|class|course|workshop)"


def slug(phrase: str) -> str:
    return "_".join(re.sub(r"[^\w]", "", w) for w in phrase.lower().replace("&", "and").split())


def _plays_hits(view: View, sentence: Sentence, m: re.Match[str]) -> Iterator[Hit]:
    found = m.group("inst") or m.group("game")
    thing = " ".join(found.lower().split())
    thing = _INSTRUMENT_NAMES.get(thing, thing)
    learning = "learn" in m.group(0).lower()
    yield Hit(sentence.speaker, f"plays_{slug(thing)}", True, 0.7 if learning else 0.8)


def _hobby_hits(view: View, sentence: Sentence, m: re.Match[str]) -> Iterator[Hit]:
    found = m.groupdict().get("hobby") or _HOBBY_VERBS[m.group("verb").lower()]
    hobby = slug(" ".join(found.split()).replace("-", " "))
    yield Hit(sentence.speaker, f"hobby_{hobby}", True, 0.75)


# "I paint", "I run every morning": a verb said as a habit, with nothing after it but when.
_HOBBY_VERBS = {
    "paint": "painting",
    "draw": "drawing",
    "knit": "knitting",
    "bake": "baking",
    "sing": "singing",
    "dance": "dancing",
    "run": "running",
    "swim": "swimming",
    "hike": "hiking",
    "surf": "surfing",
    "climb": "climbing",
    "skate": "skating",
    "ski": "skiing",
    "cycle": "cycling",
    "sew": "sewing",
    "crochet": "crochet",
    "garden": "gardening",
    "meditate": "meditation",
    "boulder": "bouldering",
    "jog": "jogging",
    "cook": "cooking",
}
_HABIT_END = (
    r"(?=\s*[,.;:!?)…]|\s*$|\s+(?i:every|a\s+lot|most|on\s+weekends|on\s+the\s+weekends|"
    r"on\s+\w+days|in\s+my\s+(?:free|spare)\s+time|for\s+fun|regularly|daily|whenever|"
    r"sometimes|when\s+i\s+can|twice|three\s+times|once\s+a|in\s+a\s+choir|competitively|"
    r"too|as\s+well|and|now|again|these\s+days|lol|haha)\b)"
)


def _language_hits(view: View, sentence: Sentence, m: re.Match[str]) -> Iterator[Hit]:
    language = m.group("lang").lower()
    verb = "speaks" if re.search(r"speak|fluent", m.group(0), re.I) else "learning"
    yield Hit(sentence.speaker, f"{verb}_{language}", True, 0.75)


def instrument_answer(question: Sentence, answer: Sentence) -> Iterator[Hit]:
    """An instrument named in answer to "what do you play?" ("a bit of saxophone")."""
    if not is_question(question.text) or not _PLAY_QUESTION.search(question.text):
        return
    if is_question(answer.text) or len(answer.words) > 12:
        return
    for match in _CLEAR_INSTRUMENTS.finditer(answer.text):
        thing = match.group("inst").lower()
        yield Hit(answer.speaker, f"plays_{_INSTRUMENT_NAMES.get(thing, thing)}", True, 0.7)


PASTIME_RULES: tuple[Triggered, ...] = compiled(
    [
        # instruments, sports, hobbies and languages
        (
            gate(_INSTRUMENT_TEXT),
            rf"(?:{ME}|{I_AM}{ADV}\s+)(?i:play|plays|playing|been\s+playing|learning|learn|"
            r"been\s+learning|(?:started|began|begun)\s+(?:learning|playing|to\s+learn)|"
            r"learned|learnt|took\s+up|taken\s+up|picked\s+up|practi[cs]e|practi[cs]ing)\s+"
            r"(?:(?i:to\s+play|how\s+to\s+play)\s+)?(?:(?i:the|a\s+bit\s+of|some|a\s+little|"
            r"a\s+lot\s+of|my|our|bass|lead|rhythm|electric|acoustic|classical|jazz)\s+)*"
            rf"(?P<inst>(?i:{_INSTRUMENT}))(?![\w-])(?P<game>)",
            _plays_hits,
        ),
        (
            gate("lessons classes class course teacher"),
            rf"(?:(?<![\w'])(?i:my|our)|{ME}(?i:take|taking|started|booked|signed\s+up\s+for|"
            rf"have)|{I_AM}{ADV}\s+(?i:taking|doing))\s+(?:(?i:some|a|an)\s+)?"
            rf"(?P<inst>(?i:{_INSTRUMENT}))\s+(?i:lessons|classes|class|course|teacher)(?P<game>)",
            _plays_hits,
        ),
        (
            gate("play playing"),
            rf"(?:{ME}|{I_AM}{ADV}\s+)(?i:play|playing|been\s+playing)\s+"
            r"(?:(?i:a\s+lot\s+of|some|a\s+bit\s+of|competitive|casual|pickup|weekly)\s+)?"
            rf"(?P<game>(?i:{_SPORT}))(?![\w-])(?P<inst>)",
            _plays_hits,
        ),
        (
            gate(_HOBBY_TEXT),
            rf"(?:{ME}|{I_AM}{ADV}\s+)(?i:took\s+up|taken\s+up|picked\s+up|started|"
            r"got\s+into|gotten\s+into|getting\s+into|been\s+getting\s+into|do|doing|been\s+doing|"
            r"go|been\s+going|practi[cs]e|practi[cs]ing)\s+"
            r"(?:(?i:a\s+lot\s+of|some|a\s+bit\s+of|more|lots\s+of|a\s+little)\s+)?"
            rf"(?P<hobby>(?i:{_HOBBY}))(?![\w-])(?!\s+(?i:shoes|gear|trip|tomorrow|tonight))",
            _hobby_hits,
        ),
        (
            frozenset(_HOBBY_VERBS),
            rf"{SELF}{ADV}\s+(?P<verb>(?i:{'|'.join(_HOBBY_VERBS)})){_HABIT_END}(?P<hobby>)",
            _hobby_hits,
        ),
        (
            gate("lessons classes class course workshop"),
            # "I took a pilates class" is one class; taking or joining them is a hobby.
            rf"(?:{ME}(?i:take|taking|started|joined|booked|signed\s+up\s+for|enrolled\s+in)"
            rf"|{I_AM}{ADV}\s+(?i:taking|doing))\s+(?:(?i:a|an|some|the)\s+)?"
            rf"(?P<hobby>(?i:{_HOBBY}))\s+{_LESSONS}",
            _hobby_hits,
        ),
        (
            gate(_LANGUAGE_TEXT),
            rf"(?:(?:{ME}|{I_AM}{ADV}\s+)(?i:learning|learn|started\s+learning|"
            rf"been\s+learning|speak|taking)\s+(?:(?i:some|a\s+bit\s+of|a\s+little|fluent|"
            rf"basic|conversational)\s+)?|{I_AM}{ADV}\s+(?i:fluent\s+in)\s+)"
            rf"(?P<lang>(?i:{_LANGUAGE}))(?![\w-])",
            _language_hits,
        ),
    ]
)
