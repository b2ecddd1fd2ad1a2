"""Homes and work said in passing: settled into ("first week in Austin done"), started, and
lines without their "I" ("moved to Austin last month!")."""

from __future__ import annotations

import re
from collections.abc import Iterator

from app.domain.extraction.rules.guards import clause_start
from app.domain.extraction.rules.lexicon import (
    BARE,
    JOB,
    ME,
    MOVED,
    NEW_JOB,
    NOT_PLACES,
    ORG,
    ORG_WORD,
    PLACE,
    PLACE_WORD,
    STOP,
    is_country,
    org_name,
    place_name,
)
from app.domain.extraction.rules.life import job_hits, location_hits, moved_hits
from app.domain.extraction.rules.ruleset import Hit, Triggered, binder, compiled, gate
from app.domain.extraction.rules.view import Sentence, View

# Words that make a line a holiday, not a home: "our first week in Rome was magic".
_TRIP = re.compile(
    r"\b(?:trip|vacation|holiday|hols|visit|visiting|honeymoon|hotel|hostel|airbnb|tour|"
    r"sightseeing|conference|getaway|cruise|backpacking|festival|layover)\b",
    re.IGNORECASE,
)
_SCHOOL_WORDS = re.compile(r"\b(?:school|university|college|academy|uni|institute)\b", re.I)
_OWN_START = re.compile(r"^(?:i|we|i'm|we're|i've|we've|finally|just|so|still|now|also)\b")


def own_clause(m: re.Match[str]) -> bool:
    """Whether the clause before ``m`` is the speaker's: empty, or opened by I or we."""
    before = m.string[clause_start(m.string, m.start()) : m.start()].strip().lower()
    return not before or _OWN_START.match(before) is not None


def _settled_hits(view: View, sentence: Sentence, m: re.Match[str]) -> Iterator[Hit]:
    # "First week in Austin done": a home, unless the line is about a holiday.
    owned = m.group(0)[:3].lower() in ("my ", "our")
    if (owned or own_clause(m)) and not _TRIP.search(m.string):
        place = place_name(view, m.group("place"))
        if place is not None and not is_country(place):
            yield Hit(sentence.speaker, "location", place, 0.65, "place")


def _home_hits(view: View, sentence: Sentence, m: re.Match[str]) -> Iterator[Hit]:
    # "We closed on a house in Denver", "the move to Austin went fine": where they live now.
    place = place_name(view, m.group("place"))
    if place is not None and own_clause(m):
        yield Hit(sentence.speaker, "location", place, 0.7, "place")


# Words that make an arrival a move, not a visit: "we made it to Toronto! the movers come Friday".
_MOVE_WORDS = re.compile(
    r"\b(?:move|moved|moving|movers|unpack\w*|boxes|for\s+good|officially|new\s+(?:place|flat|"
    r"apartment|house|home|city))\b",
    re.IGNORECASE,
)


def _arrived_hits(view: View, sentence: Sentence, m: re.Match[str]) -> Iterator[Hit]:
    turn = view.around(sentence)
    if _MOVE_WORDS.search(turn) and not _TRIP.search(turn):
        yield from _home_hits(view, sentence, m)


def _former_employer_hits(view: View, sentence: Sentence, m: re.Match[str]) -> Iterator[Hit]:
    org = org_name(m.group("org"))
    if org is not None:
        yield Hit(sentence.speaker, "previous_employer", org, 0.75, "organization")


# "I joined Kestrel Labs": a name that ends like a company is a workplace, unlike "a book club".
_COMPANY_WORD = (
    r"(?:Labs?|Inc\.?|Ltd\.?|LLC|Group|Corp\.?|Corporation|Technologies|Tech|Solutions|Health|"
    r"Bank|Capital|Partners|Studios?|Agency|Consulting|Systems|Software|Media|Hospital|Clinic)"
)


# "Started at Nando's then went dancing" is no job: a start needs work in the turn, or a company.
_WORK_WORDS = re.compile(
    r"\b(?:job|work|working|role|position|team|boss|manager|office|onboarding|colleagues|"
    r"coworkers|co-workers|hired|offer|shift|salary|first\s+(?:day|week))\b",
    re.IGNORECASE,
)


def _started_hits(view: View, sentence: Sentence, m: re.Match[str]) -> Iterator[Hit]:
    if _WORK_WORDS.search(view.around(sentence)) or re.search(
        rf"\b{_COMPANY_WORD}$", m.group("org")
    ):
        yield from _workplace_hits(view, sentence, m)


def _workplace_hits(view: View, sentence: Sentence, m: re.Match[str]) -> Iterator[Hit]:
    # "My first week at Kestrel Labs", "I started at Kestrel Labs": an employer, or a school.
    org = org_name(m.group("org"))
    if org is None or org.lower().removeprefix("the ").split()[0] in NOT_PLACES:
        return
    local = "school" if _SCHOOL_WORDS.search(org) else "employer"
    yield Hit(sentence.speaker, local, org, 0.7, "organization")


_loc, _job = binder(location_hits), binder(job_hits)

SETTLED_RULES: tuple[Triggered, ...] = compiled(
    [
        # homes, including the ones settled into ("first week in Austin done")
        (
            gate("moved relocated"),
            rf"{ME}{MOVED}(?:\s+(?i:from)\s+(?P<origin>{PLACE_WORD}(?:\s+{PLACE_WORD})*))?"
            rf"\s+(?i:to)\s+{PLACE}",
            moved_hits,
        ),
        (gate("living based"), rf"{BARE}(?i:living|based)\s+(?i:in)\s+{PLACE}", _loc("location")),
        (
            gate("first second third 1st 2nd"),
            r"(?:^|(?<![\w'])(?i:my|our)\s+)(?i:first|second|third|1st|2nd)\s+"
            rf"(?i:weeks?|months?)\s+(?i:in)\s+{PLACE}",
            _settled_hits,
        ),
        (
            gate("settling settled"),
            rf"(?i:settling|settled)\s+(?i:in(?:to)?)\s+(?:(?i:life\s+in)\s+)?{PLACE}",
            _settled_hits,
        ),
        (
            gate("life"),
            rf"(?:^|(?<![\w'])(?i:loving|enjoying)\s+)(?i:life)\s+(?i:in)\s+{PLACE}",
            _settled_hits,
        ),
        (
            gate("new"),
            r"(?<![\w'])(?i:my|our)\s+new\s+(?i:place|flat|apartment|house|home|condo|"
            rf"neighbou?rhood)\s+(?i:in)\s+{PLACE}",
            _settled_hits,
        ),
        (
            gate("house home place flat apartment condo"),
            rf"{ME}(?i:bought|closed\s+on|found|signed\s+(?:a|the)\s+lease\s+on|moved\s+into)\s+"
            r"(?i:a|an|our|my|the)\s+(?:(?i:new|first|little|own|dream)\s+)*"
            rf"(?i:house|home|place|flat|apartment|condo)\s+(?i:in)\s+{PLACE}",
            _home_hits,
        ),
        (
            gate("since after moving relocating move"),
            r"(?<![\w'])(?i:since|after)\s+(?:(?i:moving|relocating|the\s+move|our\s+move|"
            rf"my\s+move)\s+)(?i:to)\s+{PLACE}",
            _home_hits,
        ),
        (
            gate("unpacking unpacked unpack"),
            r"(?<![\w'])(?i:unpack(?:ing|ed)?)\s+(?:(?i:the\s+)?(?i:last\s+)?(?i:boxes)\s+)?"
            rf"(?i:in)\s+{PLACE}",
            _home_hits,
        ),
        (
            gate("made arrived landed"),
            rf"{ME}(?i:made\s+it|arrived|landed)\s+(?i:to|in)\s+{PLACE}",
            _arrived_hits,
        ),
        (
            gate("move"),
            rf"(?<![\w'])(?i:the|our|my)\s+(?i:move)\s+(?i:to)\s+{PLACE}\s+"
            r"(?i:went|was|is\s+(?:finally\s+)?(?:done|complete|over))\b",
            _home_hits,
        ),
        # work: started, first weeks, new teams, and lines without their "I"
        (
            gate("started began"),
            rf"{ME}(?i:started|began)\s+(?i:at|with)\s+{ORG}",
            _started_hits,
        ),
        (
            gate("first second third 1st 2nd"),
            r"(?:^|(?<![\w'])(?i:my|our)\s+)(?i:first|second|third|1st|2nd)\s+"
            rf"(?i:days?|weeks?|months?)\s+(?i:at)\s+{ORG}",
            _workplace_hits,
        ),
        (
            gate("new"),
            r"(?<![\w'])(?i:my|our)\s+new\s+(?i:job|role|position|gig|team|boss|manager|office|"
            rf"colleagues|coworkers|co-workers)\s+(?i:at|with)\s+{ORG}",
            _workplace_hits,
        ),
        (
            gate("job position role gig internship"),
            rf"{BARE}(?i:started|began|got|landed|accepted|took|found)\s+{NEW_JOB}"
            rf"(?:\s+(?i:as)\s+(?:(?i:an?)\s+)?{JOB}{STOP})?(?:\s+(?i:at|with|for)\s+{ORG})?",
            _job(True),
        ),
        (gate("working"), rf"{BARE}(?i:working)\s+(?i:at|for)\s+{ORG}", _job(True)),
        (
            gate("joined"),
            rf"{ME}(?i:joined)\s+{ORG}\s+(?i:as)\s+(?:(?i:an?|the)\s+)?{JOB}{STOP}",
            _job(True),
        ),
        (
            gate("joined"),
            rf"{ME}(?i:joined)\s+(?P<org>(?:[Tt]he\s+)?(?:{ORG_WORD}\s+){{0,3}}{_COMPANY_WORD})",
            _workplace_hits,
        ),
        (
            gate("offer"),
            rf"{ME}(?i:accepted|took|signed)\s+(?i:the|an|their|a)\s+(?:(?i:job)\s+)?(?i:offer)\s+"
            rf"(?i:from|at|with)\s+{ORG}",
            _workplace_hits,
        ),
        (
            gate("boss manager coworkers colleagues co-workers team"),
            r"(?<![\w'])(?i:my|our)\s+(?i:boss|manager|coworkers|colleagues|co-workers|team)\s+"
            rf"(?i:at)\s+{ORG}",
            _workplace_hits,
        ),
        (
            gate("lost quit left laid let fired"),
            rf"{ME}(?:(?i:lost|quit|left)\s+(?i:my)\s+(?i:job|position|role)\s+(?i:at|with)|"
            r"(?i:got|was|been)\s+(?i:laid\s+off|let\s+go|fired)\s+(?i:from|by))\s+"
            rf"{ORG}",
            _former_employer_hits,
        ),
    ]
)
