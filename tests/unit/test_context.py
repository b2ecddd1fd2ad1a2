"""Context and search: ranking by query, budget, sections, order and provenance."""

from __future__ import annotations

import json
import re
from random import Random
from typing import Any

import numpy as np
import pytest

from app.domain.context import (
    ContextIndex,
    Ranking,
    build_context,
    key_label,
    parse_when,
    rank,
    search,
)
from app.domain.passport import Passport

BUDGETS = (0, 1, 10, 40, 100, 200, 400, 401, 555, 777, 1000, 1500, 2500, 4000, 10_000)
QUERIES = (None, "Lisbon", "When did Melanie run the charity race?", "May 2023", "東京", "zzz")
HEADERS = ("Facts:", "Preferences:", "Open loops:", "Changed:", "Memories (")


def _passport(**sections: Any) -> Passport:
    return Passport.from_dict({"version": "2.1", "user_key": "u_1", **sections})


def _index(**sections: Any) -> ContextIndex:
    return ContextIndex.from_passport(_passport(**sections))


def _epoch(text: str) -> float:
    when = parse_when(text)
    assert when is not None
    return when.epoch


def _story() -> ContextIndex:
    """A small life: a Lisbon trip long ago, a charity race, recent unrelated chatter."""
    return _index(
        facts=[
            {"key": "location", "value": "Kwekwe", "ts": "2024-02-01T10:00:00Z"},
            {"key": "caroline.location", "value": "Boston", "ts": "2023-06-01T10:00:00Z"},
        ],
        prefs=[{"key": "favorite_color", "value": "blue", "ts": "2023-05-08T13:56:00Z"}],
        entities=[
            {"name": "Caroline", "type": "person"},
            {"name": "Melanie", "type": "person", "aliases": ["Mel"]},
            {"name": "Lisbon", "type": "place"},
        ],
        open_loops=[{"item": "Book the flight home", "ts": "2024-01-20T00:00:00Z"}],
        contradictions=[
            {"key": "location", "old": "Harare", "new": "Kwekwe", "ts_new": "2024-02-01T10:00:00Z"}
        ],
        observations=[
            {
                "text": "Caroline spent a week in Lisbon with her sister.",
                "when": "2022-08-14",
                "ts": "2022-09-01T10:00:00Z",
                "source": "seg_lisbon",
                "participants": ["Caroline"],
            },
            {
                "text": "Melanie ran a charity race for mental health.",
                "when": "2023-05-06",
                "ts": "2023-05-08T13:56:00Z",
                "source": "seg_race",
                "participants": ["Melanie"],
            },
            *(
                {
                    "text": f"Melanie baked bread and cleaned the garage, part {i}.",
                    "ts": f"2024-01-{10 + i:02d}T09:00:00Z",
                    "source": "seg_recent",
                    "participants": ["Melanie"],
                }
                for i in range(8)
            ),
        ],
        episodes=[
            {
                "id": "seg_race",
                "ts": "2023-05-08T13:56:00Z",
                "summary": "On 8 May 2023, Caroline and Melanie talked about the charity race.",
                "salience": 0.7,
                "source": "seg_race",
                "participants": ["Caroline", "Melanie"],
                "keywords": ["charity", "race"],
            }
        ],
        sources=[
            {"id": "seg_lisbon", "turn_ids": ["msg_11", "msg_12"]},
            {"id": "seg_race", "turn_ids": ["msg_40", "msg_41", "msg_42"]},
            {"id": "seg_recent", "turn_ids": ["msg_90"]},
        ],
    )


_WORDS = [
    "lisbon",
    "camping",
    "painting",
    "charity",
    "race",
    "guitar",
    "museum",
    "hiking",
    "school",
    "adoption",
    "pottery",
    "support",
    "group",
    "kids",
    "beach",
    "concert",
    "violin",
    "garden",
    "dog",
    "novel",
]


def _random_index(rng: Random) -> ContextIndex:
    """A passport of random size and shape, with long values, Unicode and missing fields."""

    def words(k: int) -> str:
        return " ".join(rng.choice(_WORDS) for _ in range(k))

    def date() -> str:
        return f"20{rng.randint(22, 24)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"

    n_obs, n_eps = rng.randint(0, 60), rng.randint(0, 15)
    return _index(
        facts=[
            {"key": f"fact_{i}", "value": words(rng.randint(1, 80)), "ts": date()}
            for i in range(rng.randint(0, 30))
        ],
        prefs=[
            {"key": f"likes_{rng.choice(_WORDS)}_{i}", "value": rng.choice([True, "yes", 3])}
            for i in range(rng.randint(0, 12))
        ],
        entities=[
            {"name": f"Person {i} 東京", "type": rng.choice(["person", "place", "other"])}
            for i in range(rng.randint(0, 25))
        ],
        open_loops=[{"item": words(rng.randint(2, 30))} for _ in range(rng.randint(0, 8))],
        contradictions=[
            {"key": f"k{i}", "old": words(2), "new": words(3), "ts_new": date()}
            for i in range(rng.randint(0, 9))
        ],
        observations=[
            {
                "text": words(rng.randint(3, 150))
                + rng.choice(["", " in May 2023", " 東京タワー"]),
                **({"when": date()} if rng.random() < 0.6 else {}),
                **({"ts": date() + "T10:00:00Z"} if rng.random() < 0.8 else {}),
                "source": f"s{i % 5}",
                "participants": rng.sample(["Melanie", "Caroline", "Jon"], rng.randint(0, 2)),
            }
            for i in range(n_obs)
        ],
        episodes=[
            {
                "id": f"e{i}",
                "ts": date() + "T12:00:00Z",
                "summary": words(rng.randint(5, 120)),
                "salience": rng.random(),
            }
            for i in range(n_eps)
        ],
        sources=[{"id": f"s{i}", "turn_ids": [f"m{i}"]} for i in range(5)],
    )


# --- budget ---------------------------------------------------------------------------------


def test_budget_is_never_exceeded_and_headers_never_dangle() -> None:
    rng = Random(20240201)
    for _ in range(12):
        index = _random_index(rng)
        for budget in BUDGETS:
            for q in QUERIES:
                text = build_context(index, q, budget).render_text()
                assert len(text) <= budget, (budget, q, len(text))
                lines = text.split("\n") if text else []
                for i, line in enumerate(lines):
                    if line.startswith(HEADERS):  # a header is followed by one of its items
                        assert i + 1 < len(lines) and lines[i + 1].startswith("- "), text


def test_story_fits_every_budget_exactly() -> None:
    index = _story()
    for budget in range(0, 900, 7):
        context = build_context(index, "Lisbon", budget)
        assert len(context.render_text()) <= budget
        assert context.to_json()["chars"] == len(context.render_text())


def test_facts_are_always_present_when_they_fit() -> None:
    text = build_context(_story(), "charity race", 2000).render_text()
    assert text.startswith("Facts:\n- location: Kwekwe\n- Caroline's location: Boston\n")
    assert "Preferences:\n- favorite color: blue" in text
    tight = build_context(_story(), None, 120).render_text()
    assert "- location: Kwekwe" in tight


def test_under_pressure_the_oldest_facts_drop_and_the_text_says_how_many() -> None:
    facts = [
        {"key": f"fact_{i:02d}", "value": f"value {i}", "ts": f"2023-01-{i + 1:02d}"}
        for i in range(30)
    ]
    context = build_context(_index(facts=facts), None, 400)
    text = context.render_text()
    shown = re.findall(r"^- fact (\d+):", text, re.MULTILINE)
    assert 0 < len(shown) < 30
    assert f"(+{30 - len(shown)} more facts not shown)" in text
    # Newest first, and the ones left out are the oldest.
    assert [int(s) for s in shown] == list(range(29, 29 - len(shown), -1))
    assert context.to_json()["omitted"]["facts"] == 30 - len(shown)


def test_budget_shared_between_facts_and_memories() -> None:
    facts = [{"key": f"fact_{i}", "value": "x" * 60} for i in range(40)]
    observations = [{"text": f"Trip number {i} to Lisbon.", "when": "2023-01-01"} for i in range(5)]
    text = build_context(
        _index(facts=facts, observations=observations), "Lisbon", 1500
    ).render_text()
    assert "more facts not shown" in text
    assert "Memories (most relevant, in time order):" in text


# --- ranking --------------------------------------------------------------------------------


def test_query_surfaces_the_lisbon_memory_over_recent_unrelated_ones() -> None:
    index = _story()
    best = search(index, "What did Caroline do in Lisbon?", 3)
    assert best[0].memory.text == "Caroline spent a week in Lisbon with her sister."
    text = build_context(index, "Lisbon trip", 400).render_text()
    assert "Lisbon with her sister" in text
    assert "garage" not in text


def test_when_question_prefers_the_dated_observation() -> None:
    best = search(_story(), "When did Melanie run the charity race?", 2)
    assert best[0].memory.kind == "observation"
    assert best[0].memory.date_label == "2023-05-06"
    assert best[1].memory.kind == "episode"
    # Without "when", the episode that names both words twice can lead; the boost is temporal.
    plain = search(_story(), "charity race charity", 2)
    assert {m.memory.kind for m in plain} == {"observation", "episode"}


def test_naming_a_participant_lifts_their_memories() -> None:
    observations = [
        {"text": "Went hiking twice, hiking all day.", "participants": ["Jon"]},
        {"text": "Went hiking.", "participants": ["Caroline"]},
        *({"text": f"Talked {i}.", "participants": ["Caroline", "Jon"]} for i in range(6)),
    ]
    index = _index(observations=observations, entities=[{"name": "Caroline", "type": "person"}])
    assert search(index, "hiking", 1)[0].memory.participants == ("Jon",)
    assert search(index, "Caroline hiking", 1)[0].memory.participants == ("Caroline",)


def test_entity_alias_counts_as_naming_the_entity() -> None:
    observations = [
        {"text": "Bought new running shoes.", "participants": ["Melanie"]},
        {"text": "Bought new running shoes.", "participants": ["Jon"]},
    ]
    entities = [{"name": "Melanie", "type": "person", "aliases": ["Mel"]}]
    index = _index(observations=observations, entities=entities)
    # "Mel" is in no memory's text: only the alias links the query to Melanie's memory.
    assert search(index, "running shoes", 1)[0].memory.participants == ("Jon",)
    assert search(index, "Mel running shoes", 1)[0].memory.participants == ("Melanie",)


def test_query_naming_a_month_and_year_finds_memories_dated_then() -> None:
    observations = [
        {"text": "Adopted a dog named Max.", "when": "2023-05-20"},
        {"text": "Adopted a cat.", "when": "2023-07-02"},
        {"text": "Went to a concert.", "when": "2023-05-03"},
    ]
    found = [m.memory.text for m in search(_index(observations=observations), "May 2023", 10)]
    assert set(found) == {"Adopted a dog named Max.", "Went to a concert."}


def test_exact_value_and_cjk_memories_are_found() -> None:
    observations = [
        {"text": "Ticket 550e8400-e29b-41d4-a716-446655440000 was closed."},
        {"text": "Ticket 550e8400-e29b-41d4-a716-446655440001 is open."},
        {"text": "私は東京タワーに行きました。"},
    ]
    index = _index(observations=observations)
    hit = search(index, "status of 550e8400-e29b-41d4-a716-446655440000", 1)[0]
    assert hit.memory.text.endswith("was closed.")
    assert search(index, "東京", 5)[0].memory.text.startswith("私は東京")


def test_no_query_orders_by_recency_then_salience() -> None:
    episodes = [
        {"id": "old", "ts": "2023-01-01T00:00:00Z", "summary": "Old but vital.", "salience": 1.0},
        {"id": "low", "ts": "2024-03-01T00:00:00Z", "summary": "New, minor.", "salience": 0.1},
        {"id": "high", "ts": "2024-03-01T00:00:00Z", "summary": "New, major.", "salience": 0.9},
        {"id": "mid", "ts": "2024-02-20T00:00:00Z", "summary": "Recent.", "salience": 0.5},
    ]
    order = [m.memory.text for m in search(_index(episodes=episodes), None, 10)]
    assert order == ["New, major.", "New, minor.", "Recent.", "Old but vital."]


def test_since_and_until_filter_by_date_and_drop_undated() -> None:
    observations = [
        {"text": "January thing.", "when": "2023-01-15"},
        {"text": "March thing.", "when": "2023-03-15"},
        {"text": "June thing.", "when": "2023-06-15"},
        {"text": "Undated thing."},
    ]
    index = _index(observations=observations)
    since, until = _epoch("2023-02-01"), _epoch("2023-04-01")
    found = [m.memory.text for m in search(index, "thing", 10, since=since, until=until)]
    assert found == ["March thing."]
    assert {index.memories[i].text for i, _ in rank(index, None, since=since)} == {
        "March thing.",
        "June thing.",
    }
    text = build_context(index, "thing", 1000, until=until).render_text()
    assert "January thing." in text and "March thing." in text
    assert "June thing." not in text and "Undated thing." not in text


# --- sections and format --------------------------------------------------------------------


def test_chosen_memories_are_printed_in_time_order_with_dates() -> None:
    rng = Random(7)
    observations = [
        {"text": f"Went to the museum, visit {i}.", "when": f"2023-{rng.randint(1, 12):02d}-10"}
        for i in range(20)
    ]
    text = build_context(_index(observations=observations), "museum", 600).render_text()
    dates = re.findall(r"^- (\d{4}-\d{2}-\d{2}): Went", text, re.MULTILINE)
    assert len(dates) > 3
    assert dates == sorted(dates)


def test_sections_read_easily() -> None:
    text = build_context(_story(), "Lisbon", 2000).render_text()
    assert "People and things: Lisbon (place), Caroline (person), Melanie (person)" in text
    assert "Open loops:\n- Book the flight home (2024-01-20)" in text
    assert "Changed:\n- location: Harare → Kwekwe (2024-02-01)" in text
    assert "- 2022-08-14: Caroline spent a week in Lisbon with her sister." in text
    order = [text.index(h) for h in ("Facts:", "Preferences:", "People", "Open", "Changed:")]
    assert order == sorted(order) and order[-1] < text.index("Memories (")


def test_episode_line_does_not_repeat_its_date() -> None:
    text = build_context(_story(), "charity race", 2000).render_text()
    assert "- 2023-05-08: Caroline and Melanie talked about the charity race." in text


def test_only_the_five_newest_changes_are_shown() -> None:
    contradictions = [
        {"key": "job", "old": f"job {i}", "new": f"job {i + 1}", "ts_new": f"2023-0{i + 1}-01"}
        for i in range(8)
    ]
    context = build_context(_index(contradictions=contradictions), None, 2000)
    text = context.render_text()
    assert text.count("- job: ") == 5
    assert "- job: job 7 → job 8 (2023-08-01)" in text
    assert "job 2 → job 3" not in text
    assert "(+3 more older changes not shown)" in text


def test_key_labels() -> None:
    assert key_label("location") == "location"
    assert key_label("favorite_color") == "favorite color"
    assert key_label("caroline.location") == "Caroline's location"
    assert key_label("mary_jane.home_town") == "Mary Jane's home town"


def test_json_has_the_same_selection_with_provenance() -> None:
    context = build_context(_story(), "When did Melanie run the charity race?", 1000)
    data = context.to_json()
    json.dumps(data)  # plain JSON
    memories = data["memories"]
    assert [m["text"] for m in memories] == [m.memory.text for m in context.memories]
    race = next(m for m in memories if m["kind"] == "observation")
    assert race["source"] == "seg_race"
    assert race["turn_ids"] == ["msg_40", "msg_41", "msg_42"]
    assert race["rank"] == 1 and race["score"] > 0
    assert [f["key"] for f in data["facts"]] == ["location", "caroline.location"]
    assert data["omitted"]["facts"] == 0
    assert data["omitted"]["memories"] == len(rank(context_index := _story(), context.query)) - len(
        memories
    )
    assert context_index.memories  # the index is reusable after building contexts


def test_output_is_deterministic() -> None:
    first = build_context(_random_index(Random(3)), "charity lisbon", 1200)
    second = build_context(_random_index(Random(3)), "charity lisbon", 1200)
    assert first.render_text() == second.render_text()
    assert first.to_json() == second.to_json()


def test_nothing_matching_falls_back_to_recent_memories() -> None:
    context = build_context(_story(), "zeppelin", 1000)
    assert context.memory_order == "recency"
    assert "Memories (most recent, in time order):" in context.render_text()


def test_empty_passport_renders_nothing() -> None:
    index = ContextIndex.from_passport(Passport.empty("u_1"))
    assert build_context(index, "anything", 1000).render_text() == ""
    assert search(index, "anything", 5) == []
    assert index.approx_bytes() >= 0


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("2023-05-08T13:56:00Z", "2023-05-08"),
        ("2023-05-20", "2023-05-20"),
        ("2023-05", "2023-05"),
        ("2023", "2023"),
        ("1:56 pm on 8 May, 2023", "2023-05-08"),
        ("May 20, 2023", "2023-05-20"),
        ("June 2023", "2023-06"),
    ],
)
def test_dates_parse_to_labels(text: str, label: str) -> None:
    when = parse_when(text)
    assert when is not None and when.label == label


def test_unparseable_dates_are_undated() -> None:
    assert parse_when("sometime last year") is None
    assert parse_when("2023-13-45") is None
    assert parse_when(None) is None


def test_a_long_newest_fact_is_not_crowded_out_by_memories() -> None:
    facts = [{"key": "bio", "value": "A long biography. " * 10, "ts": "2024-01-01"}]
    observations = [{"text": f"Lisbon trip {i}.", "when": "2023-01-01"} for i in range(40)]
    text = build_context(_index(facts=facts, observations=observations), "Lisbon", 400)
    assert text.render_text().startswith("Facts:\n- bio: A long biography.")
    assert "Lisbon trip" in text.render_text()


def test_naming_the_period_puts_that_periods_match_first() -> None:
    observations = [
        {"text": "Went to a rock concert.", "when": "2023-05-03"},
        {"text": "Went to a concert, a great concert, the best concert.", "when": "2023-08-01"},
    ]
    index = _index(observations=observations)
    assert search(index, "concert", 1)[0].memory.date_label == "2023-08-01"
    assert search(index, "concert in May 2023", 1)[0].memory.date_label == "2023-05-03"


# --- people's names, duplicates, dates, open loops, budget under a query ------------------------


def _ruth_and_tom(*more: dict[str, Any]) -> ContextIndex:
    """Ruth's chatter, rewritten in the third person (her name again and again), Tom's, and more."""
    chatter = [
        "Ruth turned it off and on, Ruth shook it, Ruth read the manual.",
        "Ruth organised Ruth's desk drawer.",
        "Ruth knows, Ruth knows, Ruth has been terrible at replying.",
        "Ruth has given up on the umbrella.",
        "Guess what Ruth found in Ruth's old jacket.",
    ]
    observations = [
        {"text": text, "ts": f"2023-02-{10 + i:02d}T10:00:00Z", "participants": ["Ruth"]}
        for i, text in enumerate(chatter)
    ]
    observations += [
        {
            "text": f"Tom made soup, round {i}.",
            "ts": "2023-02-01T10:00:00Z",
            "participants": ["Tom"],
        }
        for i in range(6)
    ]
    return _index(observations=[*observations, *more])


def test_a_memory_that_only_repeats_the_name_does_not_outrank_one_that_answers() -> None:
    answer = {
        "text": "Ruth and Tom talked about the weekend, the weather and the bus. Tom: the bus was "
        "late again, forty minutes in the rain. Ruth: the motorcycle exam went fine in the end, I "
        "got my licence. Tom: ambitious. Ruth: we should get dinner soon, I miss the old place.",
        "ts": "2023-01-12T10:00:00Z",
        "participants": ["Ruth", "Tom"],
    }
    index = _ruth_and_tom(
        answer,
        {"text": "Tom has an exam on Friday.", "participants": ["Tom"]},
        {"text": "Tom's sister failed her exam.", "participants": ["Tom"]},
    )
    found = [m.memory.text for m in search(index, "What exam did Ruth pass?", 20)]
    # Before Tom's exams too: the question is about Ruth.
    assert found[0] == answer["text"]
    # Asked about someone else, Ruth's memories do not come first just for naming her.
    assert {m.memory.participants for m in search(index, "Tom soup", 6)} == {("Tom",)}


def test_a_query_of_only_a_name_gives_that_persons_recent_memories() -> None:
    index = _ruth_and_tom({"text": "Tom fixed the bike.", "ts": "2023-03-01T10:00:00Z"})
    found = search(index, "Ruth", 10)
    assert len(found) == 5 and all(m.memory.participants == ("Ruth",) for m in found)
    assert found[0].memory.text == "Guess what Ruth found in Ruth's old jacket."  # the newest
    context = build_context(index, "Ruth", 2000)
    assert "Ruth's desk drawer" in context.render_text()
    assert "soup" not in context.render_text()


def _race_story(extra_episode: str = "") -> ContextIndex:
    """A race told twice from one chat (an observation and the episode quoting it), and more."""
    return _index(
        observations=[
            {
                "text": "Melanie ran a charity race for mental health.",
                "when": "2023-05-06",
                "source": "seg_race",
                "participants": ["Melanie"],
            },
            {
                "text": "The running club from work asked Melanie to join their team for the "
                "autumn charity race, and she has not said yes yet.",
                "when": "2023-03-01",
                "source": "seg_later",
                "participants": ["Melanie"],
            },
        ],
        episodes=[
            {
                "id": "seg_race",
                "ts": "2023-05-08T13:56:00Z",
                "summary": "Caroline and Melanie talked about the weekend. Melanie: I ran a "
                "charity race for mental health on Saturday. Caroline: so proud of you!"
                + extra_episode,
                "salience": 0.9,
                "source": "seg_race",
                "participants": ["Caroline", "Melanie"],
            }
        ],
        sources=[
            {"id": "seg_race", "turn_ids": ["m1", "m2"]},
            {"id": "seg_later", "turn_ids": ["m9"]},
        ],
    )


def test_an_episode_repeating_a_shown_observation_gives_way_to_other_memories() -> None:
    index = _race_story()
    ranked = [m.memory.kind for m in search(index, "charity race", 3)]
    assert ranked.index("episode") == 1  # the episode outranks the second race
    context = build_context(index, "charity race", 300)
    assert {m.memory.kind for m in context.memories} == {"observation"}
    assert len(context.memories) == 2
    assert "(+1 more memories not shown)" in context.render_text()
    # It waits, it is not dropped: a budget with room shows it too.
    assert len(build_context(index, "charity race", 2000).memories) == 3


def test_an_episode_that_matches_more_of_the_query_is_still_shown() -> None:
    index = _race_story(" Melanie: the medal is on the fridge.")
    kinds = [m.memory.kind for m in build_context(index, "charity race medal", 400).memories]
    assert "episode" in kinds


@pytest.mark.parametrize(
    ("text", "when", "line"),
    [
        ("On 1 February 2023 Jon adopted a dog.", "2023-02-01", "- 2023-02-01: Jon adopted a dog."),
        (
            "On 1 February 2023, Jon adopted a dog.",
            "2023-02-01",
            "- 2023-02-01: Jon adopted a dog.",
        ),
        (
            "On February 1, 2023 Jon adopted a dog.",
            "2023-02-01",
            "- 2023-02-01: Jon adopted a dog.",
        ),
        (
            "Jon tried the escape room on 6 March 2023.",
            "2023-03-06",
            "- 2023-03-06: Jon tried the escape room.",
        ),
        # Another day, or a day where the line only knows the month: the text keeps it.
        (
            "On 1 February 2023 Jon adopted a dog.",
            "2023-02-03",
            "- 2023-02-03: On 1 February 2023 Jon adopted a dog.",
        ),
        (
            "On 1 February 2023 Jon adopted a dog.",
            "2023-02",
            "- 2023-02: On 1 February 2023 Jon adopted a dog.",
        ),
        (
            "Jon slept eleven hours on the night of 6 March 2023.",
            "2023-03-06",
            "- 2023-03-06: Jon slept eleven hours on the night of 6 March 2023.",
        ),
        (
            "The parcel has not moved since 6 March 2023.",
            "2023-03-06",
            "- 2023-03-06: The parcel has not moved since 6 March 2023.",
        ),
    ],
)
def test_a_memory_line_states_its_own_date_once(text: str, when: str, line: str) -> None:
    index = _index(observations=[{"text": text, "when": when}])
    assert index.lines == (line,)


def _loops(*items: tuple[str, str]) -> list[dict[str, str]]:
    return [{"item": item, "ts": ts} for item, ts in items]


def test_goodbye_loops_are_left_out_and_counted() -> None:
    loops = _loops(
        ("Jon needs to go cook, talk later (said 31 January 2023)", "2023-01-31T12:00:00Z"),
        ("Maya gotta run", "2023-02-01T12:00:00Z"),
        ("Jon needs to go to the dentist on Friday", "2023-01-20T12:00:00Z"),
        ("Maya will send Jon the recipe (said 24 June 2023)", "2023-06-24T12:00:00Z"),
    )
    observations = [{"text": "Jon and Maya chatted.", "participants": ["Jon", "Maya"]}]
    context = build_context(_index(open_loops=loops, observations=observations), None, 2000)
    text = context.render_text()
    assert "cook" not in text and "gotta run" not in text
    assert "- Jon needs to go to the dentist on Friday (2023-01-20)" in text
    # The item already says the day it was said: no second date.
    assert "- Maya will send Jon the recipe (said 24 June 2023)\n" in text
    assert "(+2 more open loops not shown)" in text
    assert context.omitted["open_loops"] == 2


def test_with_a_query_open_loops_it_names_come_first_and_others_yield() -> None:
    loops = _loops(
        ("Book the dentist for the kids", "2023-01-05T12:00:00Z"),
        *((f"Call the plumber about leak {i}", f"2023-03-{i + 1:02d}T12:00:00Z") for i in range(5)),
    )
    observations = [
        {"text": f"Went to the dentist, visit {i}, all fine.", "when": f"2023-02-{i + 1:02d}"}
        for i in range(30)
    ]
    index = _index(open_loops=loops, observations=observations)
    tight = build_context(index, "dentist", 1000)
    assert [loop.item for loop in tight.open_loops] == ["Book the dentist for the kids"]
    assert "(+5 more open loops not shown)" in tight.render_text()
    assert "plumber" not in tight.render_text()
    # Without a query, the newest loops come first; with room, everything is shown.
    assert "plumber about leak 4" in build_context(index, None, 1000).render_text()
    assert len(build_context(index, "dentist", 10_000).open_loops) == 6


def test_with_a_query_unnamed_facts_yield_to_memories_but_never_silently() -> None:
    facts = [
        {"key": f"fact_{i:02d}", "value": f"value {i}", "ts": f"2023-01-{i + 1:02d}"}
        for i in range(30)
    ]
    facts.append({"key": "favorite_trail", "value": "Skyline", "ts": "2022-01-01"})
    observations = [
        {"text": f"Hiked the Skyline trail, outing {i}.", "when": f"2023-03-{i + 1:02d}"}
        for i in range(25)
    ]
    index = _index(facts=facts, observations=observations)
    browse, asked = build_context(index, None, 1500), build_context(index, "skyline trail", 1500)
    assert asked.facts[0].key == "favorite_trail"  # the fact the query names comes first
    assert 1 < len(asked.facts) < len(browse.facts)
    assert len(asked.memories) > len(browse.memories)
    left = 31 - len(asked.facts)
    assert f"(+{left} more facts not shown)" in asked.render_text()
    assert asked.omitted["facts"] == left
    # With room for everything, every fact is there.
    assert len(build_context(index, "skyline trail", 10_000).facts) == 31


def test_an_episode_matching_a_term_past_the_63rd_is_still_shown() -> None:
    # Query terms are tracked as bits, 63 to a word: a long question keeps every one.
    filler = " ".join(f"word{i:03d}" for i in range(70))
    index = _race_story(" Melanie: the medal is on the fridge.")
    kinds = [m.memory.kind for m in build_context(index, f"{filler} race medal", 400).memories]
    assert "episode" in kinds
    kinds = [m.memory.kind for m in build_context(index, f"{filler} charity race", 300).memories]
    assert kinds.count("episode") == 0


@pytest.mark.parametrize("k", [0, 1, 5, 48, 499, 500, 2000])
def test_a_ranking_read_in_part_is_the_start_of_the_full_order(k: int) -> None:
    rng = np.random.default_rng(k)
    scores = rng.integers(0, 20, size=1000).astype(np.float64)  # many ties
    candidates = np.flatnonzero(rng.random(1000) < 0.5)
    ranking = Ranking(candidates, scores)
    full = candidates[np.lexsort((-candidates, -scores[candidates]))]
    best, others = ranking.split(k)
    rest = others(np.arange(1000))
    assert best.size >= min(k, full.size)
    assert best.tolist() == full[: best.size].tolist()
    assert sorted(rest.tolist()) == sorted(full[best.size :].tolist())
    assert [i for i, _ in ranking] == full.tolist()
    for position in full[:: max(1, full.size // 7)].tolist():
        assert ranking.rank_of(position) == full.tolist().index(position) + 1
    assert ranking.best_of(rest) == int(full[best.size]) if rest.size else True


def test_short_memories_deep_in_the_ranking_still_fill_the_budget() -> None:
    # Sixty long observations rank first and take most of the room; short ones ranked below
    # all of them (past the few dozen put in order first) still fill what is left, with their
    # true rank.
    long_text = "Melanie talked about the garden at length: " + "roses and tulips, " * 12
    observations = [
        {"text": f"{long_text}day {i}.", "when": f"2023-01-{i % 28 + 1:02d}", "source": "s1"}
        for i in range(60)
    ]
    observations += [
        {"text": f"Garden note {i}.", "when": "2022-01-01", "source": "s2"} for i in range(30)
    ]
    index = _index(observations=observations, sources=[{"id": "s1"}, {"id": "s2"}])
    context = build_context(index, "garden roses tulips", 3000)
    text = context.render_text()
    assert len(text) <= 3000
    short = [m for m in context.memories if m.memory.text.startswith("Garden note")]
    assert len(short) >= 3 and all(m.rank > 60 for m in short)
    ranks = {m.position: m.rank for m in search(index, "garden roses tulips", 100)}
    assert all(ranks[m.position] == m.rank for m in context.memories)


def test_remembered_section_plans_give_what_a_fresh_index_gives() -> None:
    # The sections before the memories are planned once per budget and named words; reads that
    # name other facts, or none, or use another budget, must not see each other's plan.
    reads = [
        ("Where does Caroline live now?", 600),
        ("What does Melanie like?", 600),
        ("Where does Caroline live now?", 600),
        ("Where does Caroline live now?", 3000),
        ("", 600),
        ("charity race", 600),
    ]
    shared = _story()
    for q, budget in reads:
        assert build_context(shared, q, budget).render_text() == (
            build_context(_story(), q, budget).render_text()
        )
    assert 0 < len(shared.plans) <= 6
