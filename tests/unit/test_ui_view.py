"""How the inspector words a passport: dates, items, a version's changes, days, provenance."""

from __future__ import annotations

from datetime import date

from app.ui import view

M1 = {"id": "m1", "speaker": "Mel", "text": "I moved to Kwekwe last week.", "source": "seg_a"}
M2 = {"id": "m2", "speaker": "Mel", "text": "I work as a nurse now.", "source": "seg_a"}


def test_dates_read_as_people_write_them() -> None:
    assert view.readable("2023-05-08T13:56:00Z") == "8 May 2023, 13:56 UTC"
    assert view.readable("2023-05-08T15:56:00+02:00") == "8 May 2023, 13:56 UTC"
    assert view.readable("2023-05-08T00:00:00Z") == "8 May 2023"
    assert view.readable("2023-05-20") == "20 May 2023"
    assert view.readable("2023-06") == "June 2023"
    assert view.readable("sometime in May") == "sometime in May"
    assert view.readable(None) == ""


def test_each_section_has_a_one_line_description() -> None:
    assert view.describe("facts", {"key": "location", "value": "Kwekwe"}) == "location: Kwekwe"
    assert view.describe("prefs", {"key": "tea", "value": {"milk": True}}) == 'tea: {"milk":true}'
    assert view.describe("entities", {"name": "Ana", "type": "person", "aliases": ["Annie"]}) == (
        "Ana (person), also Annie"
    )
    assert view.describe("contradictions", {"key": "city", "old": "A", "new": "B"}) == "city: A → B"
    value = {
        "key": "quiz score",
        "about": "quiz score",
        "value": "75%",
        "history": [{"value": "60%"}],
    }
    assert view.describe("values", value) == "quiz score: 75% (before: 60%)"
    assert view.describe("turns", M1) == "Mel: I moved to Kwekwe last week."
    assert view.describe("open_loops", {"item": "Book the flight"}) == "Book the flight"


def test_a_replaced_value_is_one_changed_line() -> None:
    lines = view.changes_of(
        "facts",
        added=[{"key": "city", "value": "Kwekwe"}, {"key": "job", "value": "nurse"}],
        removed=[{"key": "city", "value": "Harare"}, {"key": "pet", "value": "cat"}],
    )
    assert [(c.kind, c.text) for c in lines] == [
        ("changed", "city: Harare → Kwekwe"),
        ("added", "job: nurse"),
        ("removed", "pet: cat"),
    ]
    turns = view.changes_of("turns", added=[M2], removed=[M1])
    assert [c.kind for c in turns] == ["added", "removed"]


def test_a_section_says_when_some_changes_are_not_shown() -> None:
    items = {"added": [M1], "removed": []}
    assert view.section_changes("turns", items, {"added": 1, "removed": 0}).more is False
    assert view.section_changes("turns", items, {"added": 5, "removed": 0}).more is True


def test_a_belief_is_traced_to_its_messages() -> None:
    by_id = {"m2": M2}
    by_source = {"seg_a": [M1, M2]}
    named = view.said("facts", {"key": "job", "value": "nurse", "turn_ids": ["m2"]}, by_id, {})
    assert named.exact and named.messages == [M2]
    # Without ids, the message of its conversation that shares the most words with it.
    city = {"key": "city", "value": "Kwekwe", "source": "seg_a"}
    guessed = view.said("facts", city, {}, by_source)
    assert not guessed.exact and guessed.messages == [M1]
    unknown = view.said("facts", {"key": "x", "value": "Lisbon", "source": "seg_a"}, {}, by_source)
    assert unknown.messages == []


def test_pages_of_a_section() -> None:
    items = list(range(120))
    first = view.page_of("facts", items, 0, 50)
    assert (first.items[0], len(first.items), first.previous, first.next) == (0, 50, None, 50)
    last = view.page_of("facts", items, 100, 50)
    assert (last.items, last.previous, last.next, last.total) == (items[100:], 50, None, 120)
    assert view.page_of("facts", [], 30, 50).items == []


def test_the_timeline_groups_by_day_in_time_order() -> None:
    doc = {
        "turns": [
            {"id": "m2", "text": "b", "ts": "2023-05-21T10:00:00Z"},
            {"id": "m1", "text": "a", "ts": "2023-05-08T13:56:00Z"},
            {"id": "m0", "text": "undated"},
        ],
        "observations": [{"text": "ran a race", "ts": "2023-05-21T09:00:00Z"}],
    }
    days = view.days(doc, ("turns", "observations"))
    assert [d.day for d in days] == [date(2023, 5, 8), date(2023, 5, 21), None]
    assert [d.title for d in days] == ["Monday 8 May 2023", "Sunday 21 May 2023", "Undated"]
    assert [e.section for e in days[1].entries] == ["observations", "turns"]


def test_a_user_key_is_one_segment_of_an_address() -> None:
    assert view.quoted("a/b c?d#e") == "a%2Fb%20c%3Fd%23e"
