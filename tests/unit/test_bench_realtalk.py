"""The real-conversation benchmark's measures and plumbing, on tiny made-up conversations."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from bench.realtalk.data import DataError, parse
from bench.realtalk.metrics import Answer, Haystack, evidence_ids, normalise, split_items
from bench.realtalk.run import BASELINE, TESSERA, WHOLE, RawMessages, main, provenance, run


def found(answer: str, context: str) -> bool:
    return Answer.of(answer).in_context(Haystack.of(context))


# --- normalisation and dates ---------------------------------------------------------------------


def test_normalise_folds_case_punctuation_apostrophes_and_whitespace() -> None:
    assert normalise("  Soufflé\tand LATTE!! ") == "soufflé and latte"
    assert normalise("Rosa’s  dog") == normalise("rosas dog") == "rosas dog"


def test_phrases_match_whole_words_only() -> None:
    assert found("the cat", "We saw The CAT, finally.")
    assert not found("cat", "they concatenate strings")
    assert not found("", "anything at all")


@pytest.mark.parametrize(
    "context",
    [
        "[2024-01-02] bo: back home",
        "it was 2 January 2024",
        "on the 2nd of January, 2024",
        "January 2, 2024 was cold",
        "jan 2nd 2024",
        "02.01.2024, 10:00:00",
        "see you Jan 2",
    ],
)
def test_a_day_answer_matches_that_day_in_any_spelling(context: str) -> None:
    assert found("On 02.01.2024.", context)
    assert found("2 January, 2024", context)
    assert found("January 2, 2024", context)


@pytest.mark.parametrize(
    "context", ["[2024-01-03] bo: hi", "2023-01-02", "12.01.2024", "January 2024", "jan 20"]
)
def test_a_day_answer_does_not_match_another_day_or_its_month(context: str) -> None:
    assert not found("2 January 2024", context)


def test_a_month_answer_matches_the_month_not_a_day_in_it() -> None:
    assert found("Since September 2023.", "moved here in Sept, 2023")
    assert found("September 2023", "since 2023-09")
    assert not found("September 2023", "on 2023-09-14")
    assert not found("September 2023", "October 2023")


def test_an_answer_with_two_dates_needs_both() -> None:
    answer = "From 3 May 2023 to 7 May 2023"
    assert found(answer, "2023-05-03 ... and back on May 7, 2023")
    assert not found(answer, "2023-05-03 only")
    assert Answer.of(answer).item_share(Haystack.of("2023-05-03 only")) == 0.5


def test_numbers_that_are_not_dates_stay_text() -> None:
    assert Answer.of("Up to 0.5% alcohol").dates == ()
    assert Answer.of("3.14.2024").dates == ()  # no 14th month
    assert found("Up to 0.5% alcohol", "it has up to 0.5 % alcohol")


# --- list answers --------------------------------------------------------------------------------


def test_items_split_on_commas_semicolons_ampersands_and_the_word_and() -> None:
    assert split_items("Ramen, tacos, and pho.") == ["ramen", "tacos", "pho"]
    assert split_items("tea & cake; biscuits") == ["tea", "cake", "biscuits"]
    assert split_items("Yes") == ["yes"]
    assert split_items("Handstand") == ["handstand"]  # 'and' inside a word is no separator


def test_item_share_counts_the_items_found() -> None:
    answer = Answer.of("Ramen, tacos and pho")
    assert answer.item_share(Haystack.of("we had RAMEN then Pho")) == pytest.approx(2 / 3)
    assert not answer.in_context(Haystack.of("we had ramen then pho"))
    assert Answer.of("13 May, 2023").item_share(Haystack.of("[2023-05-13] x")) == 1.0


def test_evidence_ids_read_however_the_data_writes_them() -> None:
    assert evidence_ids(["D4:79; D4:83", "D20:17.", "D4:79", "D1:2, D1:3"]) == [
        "D4:79",
        "D4:83",
        "D20:17",
        "D1:2",
        "D1:3",
    ]
    assert evidence_ids(["nothing here"]) == []


# --- data and runs -------------------------------------------------------------------------------


def message(n: int, session: int, speaker: str, text: str, when: str) -> dict[str, Any]:
    return {
        "clean_text": text,
        "speaker": speaker,
        "date_time": when,
        "dia_id": f"D{session}:{n}",
        "img_file": [],
        "img_url": [],
    }


def made_up() -> dict[str, Any]:
    """Two people, three sessions; session_10 sorts after session_2 by number."""
    doc: dict[str, Any] = {"name": {"speaker_1": "Tomi", "speaker_2": "rosa"}}
    filler = ["ok", "sounds good", "haha yes", "same here", "talk later"]
    doc["session_1"] = [
        message(
            1,
            1,
            "Tomi",
            "my sister Ines just adopted a parrot called Mango",
            "04.03.2024, 20:01:00",
        ),
        message(2, 1, "rosa", "omg a parrot!! does it talk", "04.03.2024, 20:02:10"),
        *[message(3 + i, 1, "Tomi", t, "04.03.2024, 20:05:00") for i, t in enumerate(filler)],
    ]
    doc["session_1_date_time"] = "04.03.2024, 20:01:00"
    doc["session_2"] = [
        message(1, 2, "rosa", "i started pottery classes yesterday", "06.03.2024, 19:00:00"),
        message(2, 2, "Tomi", "nice, what did u make", "06.03.2024, 19:01:00"),
        message(3, 2, "rosa", "a wonky bowl and a mug", "06.03.2024, 19:02:00"),
        message(4, 2, "rosa", "", "06.03.2024, 19:03:00"),
    ]
    doc["session_10"] = [
        message(1, 10, "Tomi", "Ines says Mango learned to whistle", "20.03.2024, 08:00:00"),
    ]
    doc["events_session_1"] = {}
    doc["qa"] = [
        {
            "question": "What is the name of the parrot?",
            "answer": "Mango",
            "evidence": ["D1:1"],
            "category": 1,
        },
        {
            "question": "What did rosa make at pottery?",
            "answer": "A wonky bowl and a mug.",
            "evidence": ["D2:3"],
            "category": 1,
        },
        {
            "question": "When did rosa start pottery classes?",
            "answer": "On 05.03.2024.",
            "evidence": ["D2:1"],
            "category": 2,
        },
    ]
    return doc


def test_parse_reads_sessions_in_number_order_and_skips_empty_messages() -> None:
    conversation = parse(made_up(), "Chat_0_Tomi_Rosa")
    assert conversation.speakers == ("Tomi", "rosa")
    assert [s[0].id for s in conversation.sessions] == ["D1:1", "D2:1", "D10:1"]
    assert [m.id for m in conversation.sessions[1]] == ["D2:1", "D2:2", "D2:3"]
    assert conversation.sessions[0][1].ts.isoformat() == "2024-03-04T20:02:10+00:00"
    assert [q.category for q in conversation.questions] == ["multi-hop", "multi-hop", "temporal"]
    with pytest.raises(DataError):
        parse({"name": {}, "session_1": [{"speaker": "x"}], "qa": []}, "broken")


def test_the_baseline_fills_the_budget_in_rank_order_and_shows_time_order() -> None:
    raw = RawMessages(parse(made_up(), "c"))
    text, named = raw.context("what is the parrot called", 120)
    assert len(text) <= 120
    assert "D1:1" in named
    assert text.startswith("[2024-03-04] Tomi: my sister Ines just adopted a parrot")
    everything, _ = raw.context("parrot", 10**6)
    assert everything == raw.whole()


def test_provenance_collects_turn_ids_from_every_section() -> None:
    doc = {"facts": [{"turn_ids": ["a"]}], "memories": [{"turn_ids": ["b", "c"]}, {"turn_id": "d"}]}
    assert sorted(provenance(doc)) == ["a", "b", "c", "d"]


def test_a_run_scores_all_three_systems() -> None:
    results, meta = asyncio.run(run([parse(made_up(), "c")], [300, 3000]))
    assert meta["questions"] == 3 and meta["failed_segments"] == 0
    whole = results.tally(WHOLE, 0, "all")
    # "yesterday" is 5 March, a day no message is dated: only a resolved date would hold it.
    assert whole.answer == whole.items == pytest.approx(2 / 3) and whole.recall == 1.0
    assert results.tally(WHOLE, 0, "temporal").answer == 0.0
    baseline = results.tally(BASELINE, 3000, "all")
    assert baseline.answer == pytest.approx(2 / 3) and baseline.recall == 1.0  # it all fits
    assert results.tally(BASELINE, 300, "multi-hop").questions == 2
    assert results.tally(TESSERA, 3000, "all").questions == 3
    # Tessera keeps the conversation: its context at a roomy budget holds the parrot's name.
    assert results.tally(TESSERA, 3000, "multi-hop").items > 0


def test_main_reads_a_data_directory_and_writes_the_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "Chat_1_Tomi_Rosa.json").write_text(json.dumps(made_up()), encoding="utf-8")
    out = tmp_path / "figures.json"
    assert main(["--data", str(tmp_path), "--budgets", "500,2000", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "bm25 raw messages" in printed and "by category" in printed
    figures = json.loads(out.read_text(encoding="utf-8"))
    assert set(figures["systems"][TESSERA]) == {"500", "2000"}
    assert figures["systems"][WHOLE]["all"]["multi-hop"]["answer_in_context"] == 1.0
    assert main(["--data", str(tmp_path / "missing")]) == 2


def test_answer_dates_read_only_in_the_spellings_asked_for() -> None:
    context = Haystack.of("[2024-01-02] bo: back home")
    assert Answer.of("On 02.01.2024.").in_context(context)
    narrow = Answer.of("On 02.01.2024.", spellings=("d_month_y",))
    assert narrow.dates == () and not narrow.in_context(context)
    assert Answer.of("2 January 2024", spellings=("d_month_y",)).in_context(context)
