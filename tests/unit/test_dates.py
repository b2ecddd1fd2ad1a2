"""Relative and absolute date expressions resolved against the time they were said."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.domain.dates import (
    anchor_day,
    detect_tense,
    epoch_day,
    format_day,
    iso_utc,
    month_number,
    resolve_relative,
    stamp_day,
    stamp_epoch,
)
from app.domain.ingest import segment_time
from app.domain.ingest.segmentation import make_segment
from app.domain.ingest.turns import Turn

# Monday 8 May 2023, early afternoon UTC.
MONDAY = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def one(text: str, anchor: datetime = MONDAY) -> tuple[str, str, str, str]:
    """(expression, human, iso, granularity) of the only expression in ``text``."""
    found = resolve_relative(text, anchor)
    assert len(found) == 1, found
    r = found[0]
    return r.expression, r.human, r.iso, r.granularity


@pytest.mark.parametrize(
    ("text", "expression", "human", "iso"),
    [
        ("I went to a support group yesterday", "yesterday", "7 May 2023", "2023-05-07"),
        ("We had cake today", "today", "8 May 2023", "2023-05-08"),
        ("We're going out tonight", "tonight", "8 May 2023", "2023-05-08"),
        ("Last night was fun", "Last night", "7 May 2023", "2023-05-07"),
        ("I ran this morning", "this morning", "8 May 2023", "2023-05-08"),
        ("I saw her yesterday morning", "yesterday morning", "7 May 2023", "2023-05-07"),
        ("It happened the day before yesterday", "the day before yesterday", "6 May 2023", ""),
        ("I'll call you tomorrow", "tomorrow", "9 May 2023", "2023-05-09"),
    ],
)
def test_day_words(text: str, expression: str, human: str, iso: str) -> None:
    got = one(text)
    assert got[:2] == (expression, human)
    assert got[3] == "day"
    if iso:
        assert got[2] == iso


@pytest.mark.parametrize(
    ("text", "human", "iso", "granularity"),
    [
        ("I was busy last week", "the week of 1 May 2023", "2023-05-01", "week"),
        ("I moved last month", "April 2023", "2023-04", "month"),
        ("We married last year", "2022", "2022", "year"),
        ("See you next week", "the week of 15 May 2023", "2023-05-15", "week"),
        ("We go camping next month", "June 2023", "2023-06", "month"),
        ("I retire next year", "2024", "2024", "year"),
        ("Work has been busy this week", "the week of 8 May 2023", "2023-05-08", "week"),
        ("This month is busy", "May 2023", "2023-05", "month"),
    ],
)
def test_last_this_next_periods(text: str, human: str, iso: str, granularity: str) -> None:
    _, got_human, got_iso, got_granularity = one(text)
    assert (got_human, got_iso, got_granularity) == (human, iso, granularity)


def test_weekdays() -> None:
    assert one("I ran a race last Saturday")[1] == "6 May 2023"
    # Said on a Monday, "last Monday" is a week ago, never today.
    assert one("I started last Monday")[1] == "1 May 2023"
    assert one("Let's meet next Friday")[1] == "19 May 2023"
    assert one("I'm seeing him this Friday")[1] == "12 May 2023"
    # A bare weekday follows the tense: past -> the latest one, otherwise the next one.
    assert one("I went hiking on Saturday")[1] == "6 May 2023"
    assert one("I'm hiking on Saturday")[1] == "13 May 2023"
    assert one("Saturday night was wild")[:2] == ("Saturday night", "6 May 2023")


def test_weekends() -> None:
    assert one("We went camping last weekend")[1:3] == ("the weekend of 6 May 2023", "2023-05-06")
    assert one("We went camping this weekend")[1] == "the weekend of 6 May 2023"
    assert one("We're going camping this weekend")[1] == "the weekend of 13 May 2023"
    assert one("Two weekends ago we hiked")[1] == "the weekend of 29 April 2023"
    assert one("Over the weekend I painted")[1] == "the weekend of 6 May 2023"
    assert one("Next weekend we fly")[1] == "the weekend of 20 May 2023"
    # On a Sunday, "this weekend" is the one under way.
    sunday = datetime(2023, 5, 14, 10, tzinfo=UTC)
    assert one("I went camping this weekend", sunday)[1] == "the weekend of 13 May 2023"


@pytest.mark.parametrize(
    ("text", "human", "iso"),
    [
        ("I did it 3 days ago", "5 May 2023", "2023-05-05"),
        ("I did it three days ago", "5 May 2023", "2023-05-05"),
        ("I moved a month ago", "April 2023", "2023-04"),
        ("I moved here from Sweden 4 years ago", "2019", "2019"),
        ("We broke up six months ago", "November 2022", "2022-11"),
    ],
)
def test_n_units_ago(text: str, human: str, iso: str) -> None:
    found = resolve_relative(text, MONDAY)
    assert [(r.human, r.iso, r.approximate) for r in found] == [(human, iso, False)]


@pytest.mark.parametrize(
    ("text", "human", "phrase"),
    [
        ("We met a week ago", "1 May 2023", "on 1 May 2023 (a week before 8 May 2023)"),
        ("ran it 2 weeks ago!", "24 April 2023", "on 24 April 2023 (2 weeks before 8 May 2023)"),
        ("a fortnight ago I sat the exam", "24 April 2023", "on 24 April 2023 (a fortnight"),
        ("two fortnights ago", "10 April 2023", "on 10 April 2023 (two fortnights before"),
        ("the move is in two weeks", "22 May 2023", "on 22 May 2023 (two weeks after 8 May"),
        ("I start a week from today", "15 May 2023", "on 15 May 2023 (a week after 8 May 2023)"),
    ],
)
def test_weeks_and_fortnights_name_the_day(text: str, human: str, phrase: str) -> None:
    found = resolve_relative(text, MONDAY)
    assert len(found) == 1
    assert (found[0].human, found[0].granularity, found[0].approximate) == (human, "day", True)
    assert found[0].phrase.startswith(phrase)


def test_vague_counts_are_approximate() -> None:
    few = resolve_relative("I saw her a few days ago", MONDAY)[0]
    assert few.approximate
    assert few.human == "a few days before 8 May 2023"
    assert few.date == date(2023, 5, 5)
    couple = resolve_relative("a couple of weeks ago we met", MONDAY)[0]
    assert couple.approximate
    assert couple.human == "a couple of weeks before 8 May 2023"
    assert couple.granularity == "week"
    other_day = resolve_relative("I saw him the other day", MONDAY)[0]
    assert other_day.approximate and other_day.human == "a few days before 8 May 2023"
    ahead = resolve_relative("I'll know in a few days", MONDAY)[0]
    assert ahead.human == "a few days after 8 May 2023"


def test_in_n_units_is_ahead() -> None:
    assert one("The move is in two months")[1] == "July 2023"
    assert one("I start 3 days from now")[1] == "11 May 2023"


def test_month_names_follow_tense() -> None:
    march = datetime(2023, 3, 8, tzinfo=UTC)
    assert one("We went to Rome in May", march)[1:3] == ("May 2022", "2022-05")
    assert one("We're going to Rome in May", march)[1:3] == ("May 2023", "2023-05")
    # A hope is for what is to come: in March, "hopefully ... by February" is next February.
    assert one("Hopefully I can finish it by February", march)[1] == "February 2024"
    # Without a tense, the nearer May.
    assert one("Rome in May, then", march)[1] == "May 2023"
    assert one("We visited last March", march)[1] == "March 2022"
    assert one("by the end of June", march)[1] == "the end of June 2023"
    assert one("I visited Paris in March 2022.")[1:3] == ("March 2022", "2022-03")
    # A plan told in the past tense for next month is this year's month (next year's in December).
    assert one("I booked the flights, we fly in April", march)[1] == "April 2023"
    december_1 = datetime(2023, 12, 1, tzinfo=UTC)
    assert one("I booked the flights, we fly in January", december_1)[1] == "January 2024"
    assert one("I booked the flights, we flew in November", december_1)[1] == "November 2023"
    # "have been" is a past: a month last month, though the message looks ahead elsewhere.
    december = datetime(2024, 12, 20, tzinfo=UTC)
    text = (
        "I'm thinking about sleep, I've been averaging 6 hours in November, but I'm aiming higher"
    )
    assert one(text, december)[1] == "November 2024"
    # A month in a clause of its own takes the nearest reading within four months, whatever
    # tense the rest of the message has: "offering to help in December" is no past December.
    october = datetime(2024, 10, 5, tzinfo=UTC)
    text = (
        "Sarah has been supportive, offering to help with packing in December, how can I thank her"
    )
    assert one(text, october)[1] == "December 2024"


def test_a_past_change_from_one_day_to_another_goes_to_the_later_one() -> None:
    found = resolve_relative("I moved the launch from 1 May to 20 June", MONDAY)
    assert [r.iso for r in found] == ["2023-05-01", "2023-06-20"]


def test_a_range_reads_its_year() -> None:
    found = resolve_relative("The hotel is booked for June 14-16, 2024, can't wait", MONDAY)
    assert [(r.iso, r.relative) for r in found] == [("2024-06-14", False)]


def test_years_and_explicit_dates() -> None:
    year = resolve_relative("In 2022 I moved to Kwekwe", MONDAY)[0]
    assert (year.human, year.iso, year.granularity, year.relative) == (
        "2022",
        "2022",
        "year",
        False,
    )
    explicit = resolve_relative("I was born on 5 June 1990", MONDAY)[0]
    assert (explicit.human, explicit.iso, explicit.relative) == ("5 June 1990", "1990-06-05", False)
    assert one("The launch was 2023-04-01")[1] == "1 April 2023"


@pytest.mark.parametrize(
    ("text", "human"),
    [
        ("I left on 10 June", "10 June 2022"),
        # Two days after the said time, a past tense is a said time a little early, not a year.
        ("I left on 10 May", "10 May 2023"),
        ("I booked the table for 20 May", "20 May 2023"),
        # A future tense a few days back is the same day; a month back is next year's.
        ("I'll leave on 5 May", "5 May 2023"),
        ("I'll leave on 1 April", "1 April 2024"),
        # "since" starts in the past whatever the rest of the message says.
        ("Up since 1 March and I'm hoping to keep going", "1 March 2023"),
        ("I'll leave on 10 May", "10 May 2023"),
        ("My exam was May 2nd", "2 May 2023"),
        ("We met on the 3rd of May", "3 May 2023"),
        ("It happened on May 8, 2021", "8 May 2021"),
        ("Dinner is on 8th May", "8 May 2023"),
        # The verb beside a date gives its tense, not a progressive that opens the sentence.
        ("I'm trying to recall the workshop I attended on 10 March", "10 March 2023"),
        # "St." ends no clause: the past verb before it is still the date's.
        ("I visited St. Mary's on 20 June, and I'm going to tell you about it", "20 June 2022"),
        # A "will" anywhere in the clause is a future, though a past participle stands nearer.
        ("The upcoming party in the renovated hall is on 20 June", "20 June 2023"),
        # The day a past change, range or booking goes to is not a year back.
        ("I've decided to delay the launch to 20 June", "20 June 2023"),
        ("I moved the launch to 20 June", "20 June 2023"),
        ("I've scheduled an interview for 20 June", "20 June 2023"),
        ("We planned trips from 20 June", "20 June 2023"),
        # The day of what was offered, agreed or decided lies ahead of the verb.
        ("Sarah offered to babysit the kids on 20 June", "20 June 2023"),
        ("We agreed to split time between families on 20 October", "20 October 2023"),
        ("I decided to limit contact starting 1 May, is that wise?", "1 May 2023"),
        ("We decided to host the barbecue on 20 June at our home", "20 June 2023"),
        ("My friend asked me to help him move on 20 June", "20 June 2023"),
        # A past verb with a place after "to" is still a past: "went to the".
        ("I went to the fair on 20 June", "20 June 2022"),
        ("I managed to finish the report on 20 June", "20 June 2022"),
        # "I've got" is a present; "I got" a past.
        ("I've got a family tradition to attend on 20 June", "20 June 2023"),
        ("She's got a recital on 20 June", "20 June 2023"),
        ("I got the results on 20 June", "20 June 2022"),
        # An -ed word after a word of degree or feeling is an adjective, not a past.
        ("I'm kinda stressed about the recital on 20 June", "20 June 2023"),
        ("Feeling worried about the exam on 20 June", "20 June 2023"),
        # A progressive of feeling or trying is a present state, not a plan.
        ("I'm feeling great about meeting Zara on 20 April", "20 April 2023"),
        (
            "I'm trying to rebuild trust after forgetting our anniversary on 20 April",
            "20 April 2023",
        ),
        # Beyond the date's clause, a "will" is only one more marker: the nearer verb decides.
        (
            "I'm stressed about the review on 20 April, where I got a B, and next time I want an A",
            "20 April 2023",
        ),
        # Beyond the clause, the verb before the date comes first; a comma inside a number is
        # no clause break.
        (
            "I just bought a $40 Defender case and a $60 wireless charger on 20 April, and I'm "
            "wondering if these accessories will be compatible",
            "20 April 2023",
        ),
        (
            "I accepted a $1,000 bonus on 20 April, and I'm thinking of saving some of it",
            "20 April 2023",
        ),
        # A tense from another clause does not carry a day a year off when a reading within four
        # months is there; past that reach it still decides.
        (
            "I'm thinking about how to rebuild trust, after forgetting our anniversary on 20 April",
            "20 April 2023",
        ),
        ("I went over my notes, and the fair on 20 June", "20 June 2023"),
        ("I went over my notes, and the fair on 20 September", "20 September 2022"),
        ("I'm planning my week, and the fair on 20 April", "20 April 2023"),
        # Text whose lower case is longer ("İ") is read around the date the same way.
        ("In İstanbul I will see her on 20 April", "20 April 2024"),
        ("In İstanbul I saw her on 20 April, and I will go back", "20 April 2023"),
    ],
)
def test_day_and_month(text: str, human: str) -> None:
    assert one(text)[1] == human


@pytest.mark.parametrize(
    "text",
    [
        "This may be hard",
        "On Sundays I run",
        "I love Saturday mornings",
        "I have choir every Monday and Wednesday at 7:15 PM",
        "We meet each Friday evening",
        "Every other Monday I call my mom",
        "Every Monday, Wednesday, and Friday I swim",
        "Yoga every Monday/Wednesday",
        "I do it every week on Sunday",
        "The past year was hard",
        "I'll be there in 2 minutes",
        "We had 2022 visitors",
        "Nothing to see here",
    ],
)
def test_no_false_dates(text: str) -> None:
    assert resolve_relative(text, MONDAY) == []


def test_a_day_beside_a_habit_still_resolves() -> None:
    assert [
        r.expression for r in resolve_relative("I ran on Tuesday and swim every Friday", MONDAY)
    ] == ["on Tuesday"]


def test_anchor_is_read_in_utc() -> None:
    # 01:00 on 8 May in UTC+3 is 7 May in UTC, so "yesterday" is 6 May.
    anchor = datetime(2023, 5, 8, 1, 0, tzinfo=timezone(timedelta(hours=3)))
    assert one("I went yesterday", anchor)[1] == "6 May 2023"
    assert one("I went yesterday", datetime(2023, 5, 8, 13, 56))[1] == "7 May 2023"


def test_span_and_phrase() -> None:
    text = "We went camping on Saturday with the kids"
    found = resolve_relative(text, MONDAY)[0]
    assert text[found.span[0] : found.span[1]] == "on Saturday"
    assert found.phrase == "on 6 May 2023"
    since = resolve_relative("I've been here since last week", MONDAY)[0]
    assert since.phrase == "since the week of 1 May 2023"


def test_detect_tense() -> None:
    assert detect_tense("I went hiking") == "past"
    assert detect_tense("we'll go hiking") == "future"
    assert detect_tense("I'm going hiking") == "future"
    assert detect_tense("I'm so excited") is None  # an adjective, not a past tense
    assert detect_tense("The party is amazing") is None
    assert detect_tense("I need a bed") is None
    # After a determiner an -ed word describes a thing: "my scheduled check" is not past.
    assert detect_tense("before my scheduled check") is None
    assert detect_tense("I met her at my scheduled check") == "past"


def test_formatting_helpers() -> None:
    assert format_day(date(2024, 1, 2)) == "2 January 2024"
    assert iso_utc(None) is None
    assert iso_utc(datetime(2023, 5, 8, 1, 2, 3)) == "2023-05-08T01:02:03Z"  # naive means UTC
    assert iso_utc(datetime(2023, 5, 8, 1, 0, tzinfo=timezone(timedelta(hours=3)))) == (
        "2023-05-07T22:00:00Z"
    )
    late = datetime(2023, 12, 31, 23, 0, tzinfo=timezone(timedelta(hours=-2)))
    assert format_day(anchor_day(late)) == "1 January 2024"
    assert [month_number(m) for m in ("Sept.", "january", "MAY", "Mayday")] == [9, 1, 5, None]


def test_segment_time_prefers_the_segment_then_its_turns_then_the_reference() -> None:
    later = MONDAY + timedelta(minutes=2)
    spoken = make_segment([Turn("Ann", "hi", ts=MONDAY), Turn("Ben", "hello", ts=later)])
    reference = MONDAY + timedelta(days=1)
    assert segment_time(spoken, reference) == later
    assert segment_time(replace(spoken, start_ts=None, end_ts=None), reference) == later
    assert segment_time(make_segment([Turn("Ann", "hi")]), reference) == reference
    assert segment_time(make_segment([Turn("Ann", "hi")])) is None


def test_deterministic() -> None:
    text = "Two weekends ago, and a few days ago, and next month in May"
    assert resolve_relative(text, MONDAY) == resolve_relative(text, MONDAY)


@pytest.mark.parametrize(
    ("text", "human", "phrase"),
    [
        (
            "we went to my parents at Christmas",
            "25 December 2022",
            "at Christmas (25 December 2022)",
        ),
        ("over Easter we painted eggs", "9 April 2023", "over Easter (9 April 2023)"),
        ("next Christmas we will go", "25 December 2023", "next Christmas (25 December 2023)"),
        ("last Halloween I dressed up", "31 October 2022", "last Halloween (31 October 2022)"),
        ("for Thanksgiving we will fly home", "23 November 2023", "for Thanksgiving (23 November"),
        ("Good Friday was quiet", "7 April 2023", "Good Friday (7 April 2023)"),
        ("on New Year's Eve we partied", "31 December 2022", "on New Year's Eve (31 December"),
    ],
)
def test_holidays_are_days(text: str, human: str, phrase: str) -> None:
    found = resolve_relative(text, MONDAY)
    assert [(r.human, r.granularity) for r in found] == [(human, "day")]
    assert found[0].phrase.startswith(phrase)


@pytest.mark.parametrize(
    "text", ["I love Christmas", "Easter eggs are the best", "halloween vibes"]
)
def test_a_holiday_named_in_passing_is_no_date(text: str) -> None:
    assert resolve_relative(text, MONDAY) == []


@pytest.mark.parametrize(
    ("said", "day"),
    [
        ("maybe I'll call him new year day!", "1 January 2024"),
        ("see you New Years's Eve", "31 December 2023"),
        ("on valentines", "14 February 2024"),
        ("last St. Patricks Day", "17 March 2023"),
        ("next Valentine’s Day", "14 February 2024"),
    ],
)
def test_every_spelling_of_a_holiday_resolves(said: str, day: str) -> None:
    # "new year day" once raised KeyError and failed a whole segment of a real chat.
    found = resolve_relative(said, datetime(2023, 12, 20, 12, 0, tzinfo=UTC))
    assert [r.human for r in found] == [day]


@pytest.mark.parametrize(
    ("text", "anchor"),
    [
        ("see you last Christmas", datetime(1, 6, 1, tzinfo=UTC)),
        ("it was last Easter", datetime(1, 1, 20, tzinfo=UTC)),
        ("next Good Friday then", datetime(9999, 12, 20, tzinfo=UTC)),
        ("we met last March", datetime(1, 2, 1, tzinfo=UTC)),
    ],
)
def test_a_day_past_the_calendars_ends_is_left_unresolved(text: str, anchor: datetime) -> None:
    # A turn dated in year 1 or 9999 is stored as said; its dates just stay words.
    assert all(1 <= r.date.year <= 9999 for r in resolve_relative(text, anchor))


@given(
    st.datetimes(
        min_value=datetime(1, 1, 2),
        max_value=datetime(9999, 12, 30),
        timezones=st.sampled_from(
            [UTC, timezone(timedelta(hours=-11)), timezone(timedelta(hours=13, minutes=45))]
        ),
    )
)
def test_a_stamps_day_is_the_day_of_its_epoch(when: datetime) -> None:
    # A context's day headings are read from the epoch column: the same UTC day as the stamp's.
    stamp = when.isoformat()
    assert epoch_day(stamp_epoch(stamp)) == stamp_day(stamp)
    assert epoch_day(stamp_epoch(None)) == "" and stamp_day(None) is None
