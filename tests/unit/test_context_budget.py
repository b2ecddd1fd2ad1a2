"""Context assembly over verbatim turns, on made-up chats."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest

from app.domain.bm25 import K1, B
from app.domain.columns import CHUNK
from app.domain.context import EvidenceIndex, TurnRecord
from app.domain.context.budget import Evidence, assemble
from app.domain.context.passages import PASSAGE_MAX, passages
from app.domain.context.ranking.question import Question
from app.domain.dates import SaidDate, turn_dates
from bench.ranking import collector_walk


def ask(index: EvidenceIndex, q: str | None, budget: int, **kwargs: Any) -> Evidence:
    """The evidence ``assemble`` picks for ``q`` read as a question."""
    return assemble(index, Question.of(q), budget, **kwargs)


START = datetime(2023, 5, 7, 18, 0, tzinfo=UTC)  # Sunday 7 May 2023


def chat(
    lines: list[tuple[str, str]], *, session_every: int = 0, days: int = 0
) -> list[TurnRecord]:
    """Turns from (speaker, text), a minute apart (or ``days`` apart), ids t0, t1, ..."""
    out = []
    for i, (speaker, text) in enumerate(lines):
        when = START + (timedelta(days=days * i) if days else timedelta(minutes=i))
        session = f"s{i // session_every}" if session_every else "s0"
        out.append(
            TurnRecord(
                id=f"row{i}",
                turn_id=f"t{i}",
                speaker=speaker,
                text=text,
                ts=when.isoformat(),
                session=session,
                dates=turn_dates(text, when),
                position=i,
            )
        )
    return out


FILLER = [
    ("Ana", "morning! how are you"),
    ("Ben", "good good, busy week"),
    ("Ana", "same here honestly"),
    ("Ben", "did you see the match"),
    ("Ana", "no I missed it"),
    ("Ben", "it was a great game"),
]
CHAT = [
    *FILLER,
    ("Ben", "what did you name the new puppy?"),
    ("Ana", "we called her Biscuit"),
    ("Ben", "cute!!"),
    *FILLER,
    ("Ana", "I ran my first half marathon yesterday"),
    ("Ben", "wow congrats, how long did it take"),
    ("Ana", "two hours and ten minutes"),
    *FILLER,
]


def test_ranking_finds_the_turn_and_shows_its_neighbours() -> None:
    index = EvidenceIndex(chat(CHAT))
    evidence = ask(index, "What is the name of the puppy?", 200)
    assert evidence.order == "relevance"
    # The hit is the question; the turns on either side come with it, the answer among them.
    assert {"t5", "t6", "t7"} <= set(evidence.turn_ids)
    assert "Ben: what did you name the new puppy?" in evidence.text
    assert "Ana: we called her Biscuit" in evidence.text
    roles = {item.turn_id: item.role for item in evidence.items}
    assert roles["t6"] == "hit" and roles["t7"] == "neighbour"


def test_lines_carry_date_and_speaker_and_resolved_relative_dates() -> None:
    evidence = ask(EvidenceIndex(chat(CHAT)), "half marathon", 300)
    assert evidence.text.startswith("[7 May 2023]\n")
    assert "\nAna: I ran my first half marathon yesterday (6 May 2023)\n" in evidence.text


def test_a_days_lines_follow_one_heading_of_that_day() -> None:
    lines = [
        ("Ana", "the kiln fired my first bowl today"),
        ("Ben", "show me the bowl"),
        ("Ana", "the glaze on the bowl cracked overnight"),
        ("Ben", "cracked glaze can look nice on a bowl"),
    ]
    records = chat(lines)
    records[2:] = chat(lines, days=1)[2:]  # the last two said on 9 and 10 May
    evidence = ask(EvidenceIndex(records), "bowl glaze", 1000)
    assert evidence.text.splitlines() == [
        "[7 May 2023]",
        "Ana: the kiln fired my first bowl today (7 May 2023)",
        "Ben: show me the bowl",
        "[9 May 2023]",
        "Ana: the glaze on the bowl cracked overnight",
        "[10 May 2023]",
        "Ben: cracked glaze can look nice on a bowl",
    ]
    # The JSON items keep each turn's own time and speaker; their text has no heading.
    assert [i.text for i in evidence.items][:2] == [
        "the kiln fired my first bowl today (7 May 2023)",
        "show me the bowl",
    ]


def test_a_heading_counts_against_the_budget_once_per_day() -> None:
    lines = [(("Ana", "Ben")[i % 2], f"note {i} about the garden shed") for i in range(12)]
    for days in (0, 1):  # one day for all, or a day each
        for budget in range(40, 400, 7):
            evidence = ask(EvidenceIndex(chat(lines, days=days)), "garden shed", budget)
            headings = [line for line in evidence.text.splitlines() if line.startswith("[")]
            assert len(evidence.text) <= budget
            assert len(headings) == len({item.ts[:10] for item in evidence.items if item.ts})


def test_turn_dates_resolve_beside_the_text_against_the_time_said() -> None:
    assert turn_dates("we met last Saturday", START) == (SaidDate("last Saturday", "2023-05-06"),)
    assert turn_dates("we met last Saturday", None) == ()
    assert turn_dates("nothing dated here", START) == ()
    assert SaidDate("yesterday", "2023-05-06").to_dict() == {
        "said": "yesterday",
        "day": "2023-05-06",
    }


def test_a_question_answered_only_by_a_resolved_date_is_found_by_that_date() -> None:
    evidence = ask(EvidenceIndex(chat(CHAT)), "what happened on 6 May 2023", 120)
    assert "half marathon yesterday (6 May 2023)" in evidence.text


def test_overlapping_windows_merge_and_no_turn_is_shown_twice() -> None:
    lines = [*FILLER, ("Ana", "the pasta place was closed"), ("Ben", "pasta tomorrow then?")]
    evidence = ask(EvidenceIndex(chat([*lines, *FILLER])), "pasta", 1000)
    ids = evidence.turn_ids
    assert len(ids) == len(set(ids))
    assert evidence.text.count("pasta place was closed") == 1
    assert {"t5", "t6", "t7", "t8"} <= set(ids)


def test_shown_in_time_order_whatever_the_rank() -> None:
    records = chat(
        [("Ana", "tea is fine"), ("Ben", "ok"), ("Ana", "tea tea tea, green tea please")], days=1
    )
    evidence = ask(EvidenceIndex(records), "tea", 1000)
    positions = [int(i[1:]) for i in evidence.turn_ids]
    assert positions == sorted(positions) == [0, 1, 2]


@pytest.mark.parametrize("budget", [0, 10, 30, 60, 100, 150, 333, 700, 2000])
def test_the_budget_is_never_exceeded(budget: int) -> None:
    index = EvidenceIndex(chat(CHAT * 5))
    for q in ("puppy name", "marathon", "how", None, "nothing matches this"):
        evidence = ask(index, q, budget)
        assert len(evidence.text) <= budget
        for item in evidence.items:  # every item is a line of the text
            assert item.text in evidence.text


def test_provenance_is_each_shown_turns_own_client_id() -> None:
    index = EvidenceIndex(chat(CHAT))
    evidence = ask(index, "marathon", 400)
    text_lines = evidence.text.splitlines()
    shown = [line for line in text_lines if not line.startswith(("(+", "["))]
    assert len(shown) == len(evidence.turn_ids)
    by_id = {index.record(i).turn_id: index.record(i) for i in range(len(index))}
    for turn_id, line in zip(evidence.turn_ids, shown, strict=True):
        assert by_id[turn_id].text.split(" (")[0][:20] in line
    assert evidence.memories()[0]["turn_ids"] == [evidence.turn_ids[0]]


def test_duplicates_are_shown_once() -> None:
    lines = [
        ("Ana", "see you at the climbing gym"),
        *FILLER,
        ("Ana", "see you at the climbing gym"),
    ]
    evidence = ask(EvidenceIndex(chat(lines)), "climbing gym", 1000)
    assert evidence.text.count("climbing gym") == 1


def test_a_line_said_many_times_is_shown_once_and_not_counted_as_left_out() -> None:
    lines = [("Ana", "coffee at nine?"), ("Ben", "sure")] * 30 + [("Ana", "Coffee  at nine?")]
    evidence = ask(EvidenceIndex(chat(lines, session_every=2)), "coffee at nine", 1000)
    said = [item for item in evidence.items if "coffee" in item.text.lower()]
    assert [item.turn_id for item in said] == ["t60"]  # the latest saying
    assert evidence.omitted == 0
    # The same words from someone else are another memory.
    lines.append(("Ben", "coffee at nine?"))
    evidence = ask(EvidenceIndex(chat(lines, session_every=2)), "coffee at nine", 1000)
    said = [item for item in evidence.items if "coffee" in item.text.lower()]
    assert sorted(item.speaker for item in said) == ["Ana", "Ben"]


def test_what_was_left_out_is_said_in_one_line() -> None:
    lines = [("Ana", f"coffee number {i} of the day") for i in range(40)]
    evidence = ask(EvidenceIndex(chat(lines, session_every=1)), "coffee", 200)
    assert evidence.omitted > 0
    assert (
        evidence.text.splitlines()[-1] == f"(+{evidence.omitted} more matching memories not shown)"
    )
    assert len(evidence.items) + evidence.omitted == 40


LONG_ANSWER = "\n\n".join(
    [
        "Sure, here is how I would set up the project. " * 6,
        "First install the dependencies with pip and create a virtual environment. " * 5,
        "```python\ndef handler(event):\n    return event['body']\n```",
        "For the database, the migration adds a column named shipping_zone to orders. " * 4,
        "Finally, run the tests and deploy the service behind the load balancer. " * 5,
    ]
)


def test_a_long_turn_is_cut_into_passages_on_boundaries() -> None:
    spans = passages(LONG_ANSWER)
    assert len(spans) > 3
    assert all(end - start <= PASSAGE_MAX for start, end in spans)
    # Passages are pieces of the turn, in order, never overlapping.
    assert all(a[1] <= b[0] for a, b in itertools.pairwise(spans))
    assert passages("short one") == [(0, 9)]


def test_a_long_turn_is_ranked_and_shown_by_the_passage_that_matches() -> None:
    lines = [
        ("user", "how do I set up the orders service"),
        ("assistant", LONG_ANSWER),
        ("user", "thanks"),
    ]
    index = EvidenceIndex(chat(lines))
    assert index.n_passages > 3
    evidence = ask(index, "which column did the migration add", 450)
    item = next(i for i in evidence.items if i.turn_id == "t1")
    assert "shipping_zone" in item.text and item.cut
    assert "load balancer" not in item.text
    assert len(evidence.text) <= 450 < len(LONG_ANSWER)
    # The question before it fits, so it is shown too.
    assert "t0" in evidence.turn_ids


def test_a_message_to_an_assistant_is_cut_finer_than_one_between_people() -> None:
    prompt = " ".join(
        [
            "I moved the launch of the shop to the first of June after the supplier slipped.",
            "My budget for ads is now five hundred dollars a month, up from three hundred.",
            "Here is the error I get when I run the import script on the staging server.",
            "Can you tell me how to fix it before the demo with Priya on Friday afternoon?",
            "Also, should I keep the old orders table or migrate it to the new schema first?",
            "Thanks for all the help so far.",
        ]
    )
    assert 400 < len(prompt) <= PASSAGE_MAX
    to_assistant = EvidenceIndex(chat([("user", prompt), ("assistant", "Sure.")]))
    between_people = EvidenceIndex(chat([("Ana", prompt), ("Ben", "Sure.")]))
    assert to_assistant.n_passages > 2  # the prompt in pieces, and the answer
    assert between_people.n_passages == 2  # each message whole
    shown = ask(to_assistant, "what is my ads budget", 400)
    assert "five hundred dollars" in shown.text and "migrate it" not in shown.text


def test_a_long_neighbour_is_shown_only_as_far_as_the_budget_allows() -> None:
    lines = [("assistant", LONG_ANSWER), ("user", "what about the shipping_zone index")]
    evidence = ask(EvidenceIndex(chat(lines)), "shipping_zone index", 120)
    assert evidence.turn_ids == ("t1",)
    assert len(evidence.text) <= 120


def test_a_neighbour_is_shown_whole_when_it_fits() -> None:
    story = (
        "So the landlord finally called back about the heating. He says the boiler is older "
        "than both of us, the part is out of stock everywhere in the region, and the earliest "
        "a technician can come is the second week of next month, which means another three "
        "weeks of cold showers unless we buy a portable heater ourselves and keep the receipt"
    )
    assert 300 < len(story) <= PASSAGE_MAX
    lines = [*FILLER, ("Ana", story), ("Ben", "ugh, did he offer a discount on the rent?")]
    evidence = ask(EvidenceIndex(chat(lines)), "discount on the rent", 1500)
    assert "keep the receipt" in evidence.text  # the whole message the hit answers
    by_id = {item.turn_id: item for item in evidence.items}
    assert by_id["t6"].role == "neighbour" and not by_id["t6"].cut


def test_a_persons_match_comes_without_the_assistants_answers_around_it() -> None:
    lines = [
        ("assistant", "Glad to help. Good luck with the move, and enjoy the new place!"),
        ("user", "my mom lives 3 miles from me, so I visit her on Sundays"),
        ("assistant", "That is a lovely routine. Regular visits help older parents a lot."),
        ("user", "how should I plan the orders service"),
        ("assistant", "Plan the orders service around one table per aggregate."),
        (
            "user",
            "the mall is too far to walk to with the kids and the dog on a cold and rainy "
            "winter evening after work",
        ),
    ]
    evidence = ask(EvidenceIndex(chat(lines)), "how far does my mom live", 260)
    # The other match of the person's comes before the answers around the first, which say
    # nothing of it.
    assert evidence.turn_ids == ("t1", "t5")
    # An assistant's match still comes with the person's words it answers.
    answered = ask(EvidenceIndex(chat(lines)), "one table per aggregate", 2000)
    assert {"t3", "t4"} <= set(answered.turn_ids)


def test_extend_ranks_as_a_build_from_scratch() -> None:
    records = chat(CHAT * 3, session_every=7)
    whole = EvidenceIndex(records)
    grown = EvidenceIndex()
    queries = ("puppy name", "half marathon yesterday", "good week")
    for i in range(0, len(records), 5):
        assert grown.extend(records[i : i + 5]) == len(records[i : i + 5])
        grown.scores(queries[i % 3].split())  # reads between writes change nothing
    assert grown.extend(records[:10]) == 0  # rows it holds are not added again
    for q in queries:
        tokens = q.split()
        assert np.array_equal(whole.scores(tokens), grown.scores(tokens))
        assert ask(whole, q, 500) == ask(grown, q, 500)


def test_length_norms_use_the_mean_length_of_the_first_power_of_two_passages() -> None:
    lines = [("Ana", "kayak"), ("Ben", "kayak kayak trip"), ("Ana", "kayak trip north coast river")]
    index = EvidenceIndex(chat(lines))

    def bm25(n: int, df: int, avgdl: float, tf_dl: list[tuple[int, int]]) -> list[float]:
        idf = np.log1p((n - df + 0.5) / (df + 0.5))
        return [idf * tf / (tf + K1 * (1 - B + B * dl / avgdl)) for tf, dl in tf_dl]

    # Each passage also holds its speaker's name: lengths 2, 4 and 6; the sample is the first 2.
    expected = bm25(3, 3, (2 + 4) / 2, [(1, 2), (2, 4), (1, 6)])
    assert np.allclose(index.scores(["kayak"]), expected, rtol=1e-6)
    # A fourth passage doubles the index: the mean is taken again, over all four.
    index.extend(chat([*lines, ("Ben", "kayak")])[3:])
    expected = bm25(4, 4, (2 + 4 + 6 + 2) / 4, [(1, 2), (2, 4), (1, 6), (1, 2)])
    assert np.allclose(index.scores(["kayak"]), expected, rtol=1e-6)


def test_a_read_after_extend_sees_the_new_turn() -> None:
    index = EvidenceIndex(chat(CHAT))
    assert "kayak" not in ask(index, "kayak", 500).text
    new = chat([*CHAT, ("Ben", "bought a kayak today")])[-1:]
    index.extend(new)
    evidence = ask(index, "kayak", 500)
    assert evidence.turn_ids[-1] == new[0].turn_id


def test_empty_index_and_empty_query() -> None:
    empty = EvidenceIndex()
    for q in (None, "", "anything"):
        evidence = ask(empty, q, 500)
        assert evidence.text == "" and evidence.items == () and evidence.omitted == 0
    index = EvidenceIndex(chat(CHAT))
    recent = ask(index, None, 100)
    assert recent.order == "recency"
    assert recent.turn_ids[-1] == f"t{len(CHAT) - 1}"  # the newest turn, shown last
    assert recent.text.splitlines()[0] == "[7 May 2023]"
    assert recent.text.splitlines()[-2].startswith("Ben: ")
    assert recent.text.splitlines()[-1] == f"(+{recent.omitted} older memories not shown)"
    assert ask(index, "   ", 100).turn_ids == recent.turn_ids
    # A query that matches nothing still gives the recent turns rather than nothing.
    assert ask(index, "zeppelin", 100).order == "recency"


def test_a_named_speaker_is_lifted_in_any_case_and_with_a_typo() -> None:
    lines = [("Marta", "I love hiking in the hills"), ("Jonas", "I love hiking too"), *FILLER]
    index = EvidenceIndex(chat(lines, session_every=1))
    for q in ("What does Marta love?", "what does marta love", "what does Martha love"):
        evidence = ask(index, q, 90)  # room for one line and the note
        assert evidence.turn_ids == ("t0",), q
    assert ask(index, "what does jonas love", 90).turn_ids == ("t1",)


def test_unicode_text_and_speakers() -> None:
    lines = [
        ("Zoë", "On a mangé une crème brûlée délicieuse à Montréal"),
        ("Сергей", "Мы были в Москве на выходных"),
        ("美咲", "昨日は東京で寿司を食べました"),
        *FILLER,
    ]
    index = EvidenceIndex(chat(lines, session_every=1))
    assert ask(index, "crème brûlée", 200).turn_ids == ("t0",)
    assert ask(index, "москве", 200).turn_ids == ("t1",)
    evidence = ask(index, "東京", 200)
    assert evidence.turn_ids == ("t2",)
    assert "美咲: 昨日は東京" in evidence.text


def test_a_long_history_adds_next_to_nothing_for_the_garbage_collector_to_walk() -> None:
    # Every full collection walks what a cached index holds: it must not grow with the log.
    def held(n: int) -> int:
        lines = [("Ana", f"yesterday I saw friend {i}") for i in range(n)]
        records = chat(lines, session_every=20, days=1)
        summary = TurnRecord(
            id="obs", turn_id=None, speaker="Ana", text="Ana sees friends", ts=None,
            session=None, dates=(), position=n, kind="observation", sources=("t0", "t1"),
        )  # fmt: skip
        index = EvidenceIndex([*records, summary])
        assert index.dates(1) and index.record(n).turn_ids == ("t0", "t1")
        return collector_walk(index)

    # At most the open chunk of each column (a list per column would be a visit per record).
    assert held(200) < held(20_000) < 10 * CHUNK


def test_a_code_block_is_a_passage_of_its_own_cut_only_between_its_lines() -> None:
    code = "\n".join(f"total_{i} = compute({i})" for i in range(40))
    text = (
        f"Here is the fix, read it before merging.\n```python\n{code}\n```\nThen rerun the suite."
    )
    spans = passages(text, 250, 350)
    pieces = [text[a:b].strip() for a, b in spans]
    assert pieces[0] == "Here is the fix, read it before merging."
    assert pieces[1].startswith("```python\ntotal_0 = ") and pieces[-1] == "Then rerun the suite."
    for piece in pieces[1:-1]:  # code only, whole lines only
        assert all(line.startswith(("total_", "```")) for line in piece.split("\n"))
        assert "rerun" not in piece and "merging" not in piece


def test_a_heading_is_never_a_passage_alone_nor_the_end_of_one() -> None:
    intro = "Good question, and a common one when a team grows. " * 5
    steps = "Set the budget per sprint and review it every Friday with the team lead. " * 4
    tail = "### Review\n\nDone.\n\n## Next\n\n### Tools\n\nA list."
    text = f"{intro}\n\n### Sprint Budget\n\n{steps}\n\n{tail}"
    pieces = [text[a:b].strip() for a, b in passages(text, 250, 350)]
    for piece in pieces:
        lines = [line for line in piece.split("\n") if line.strip()]
        assert not lines[-1].startswith("#"), piece  # what a heading heads travels with it
    assert any(p.startswith("### Sprint Budget\n\nSet the budget") for p in pieces)
    assert pieces[-1].endswith("A list.") and "### Tools" in pieces[-1]
