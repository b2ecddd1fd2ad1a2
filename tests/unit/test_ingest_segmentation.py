"""Segmentation and planning: budgets, boundaries, deterministic ids, and plan arithmetic."""

from __future__ import annotations

import base64
import random
from datetime import UTC, datetime, timedelta

import pytest

from app.domain.ingest.payload import IngestLimits, IngestPayload, InputError
from app.domain.ingest.segmentation import (
    PROMPT_OVERHEAD_TOKENS,
    estimate_tokens,
    plan_segments,
    prepare,
    segment_turns,
    turn_tokens,
)
from app.domain.ingest.turns import Turn

T0 = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def chat(text: str, **kw: object) -> Turn:
    return Turn(speaker=str(kw.pop("speaker", "ann")), text=text, **kw)  # type: ignore[arg-type]


def test_estimate_tokens_is_characters_over_four_rounded_up() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("a") == 1
    assert estimate_tokens("abcd") == 1
    assert estimate_tokens("abcde") == 2
    assert estimate_tokens("x" * 4000) == 1000


def test_budget_is_respected_and_oversized_turn_stands_alone() -> None:
    turns = [chat("w" * 100, id=f"m{i}") for i in range(30)]
    turns.insert(12, chat("big " * 1000, id="huge"))
    segments = segment_turns(turns, max_tokens=300)

    huge = [s for s in segments if "huge" in s.turn_ids]
    assert len(huge) == 1
    assert huge[0].turn_ids == ("huge",)
    assert huge[0].tokens > 300
    for segment in segments:
        if segment is not huge[0]:
            assert segment.tokens <= 300
            assert segment.tokens == sum(turn_tokens(t) for t in segment.turns)
    # Nothing dropped, nothing reordered.
    assert [t for s in segments for t in s.turns] == turns


def test_greedy_packing_fills_segments() -> None:
    turns = [chat("x" * 95) for _ in range(10)]  # "ann: " + 95 chars = 25 tokens each
    segments = segment_turns(turns, max_tokens=100)
    assert [len(s.turns) for s in segments] == [4, 4, 2]


def test_session_change_closes_a_segment() -> None:
    turns = [chat("a", session="s1"), chat("b", session="s1"), chat("c", session="s2")]
    segments = segment_turns(turns)
    assert [[t.text for t in s.turns] for s in segments] == [["a", "b"], ["c"]]
    assert [s.session for s in segments] == ["s1", "s2"]


def test_gap_over_max_closes_but_shorter_gap_does_not() -> None:
    turns = [
        chat("a", ts=T0),
        chat("b", ts=T0 + timedelta(hours=2)),
        chat("c", ts=T0 + timedelta(hours=6)),
    ]
    segments = segment_turns(turns)
    assert [[t.text for t in s.turns] for s in segments] == [["a", "b"], ["c"]]
    assert segments[0].start_ts == T0
    assert segments[0].end_ts == T0 + timedelta(hours=2)


def test_four_hour_gap_closes_across_an_undated_turn() -> None:
    turns = [chat("a", ts=T0), chat("b"), chat("c", ts=T0 + timedelta(hours=4))]
    segments = segment_turns(turns)
    assert [[t.text for t in s.turns] for s in segments] == [["a", "b"], ["c"]]


def test_rows_and_chat_do_not_share_a_segment() -> None:
    turns = [
        chat("hi"),
        Turn(speaker="t", text="t: a=1", kind="row", table="t"),
        Turn(speaker="t", text="t: a=2", kind="row", table="t"),
        Turn(speaker="user", text="a note", kind="text"),
    ]
    segments = segment_turns(turns)
    assert [[t.kind for t in s.turns] for s in segments] == [["chat"], ["row", "row"], ["text"]]


def test_chat_and_text_blocks_can_share_a_segment() -> None:
    turns = [chat("hi"), Turn(speaker="user", text="a note", kind="text")]
    assert len(segment_turns(turns)) == 1


def test_identical_input_gives_identical_ids_and_hashes() -> None:
    def build() -> list[Turn]:
        return [chat(f"turn {i}", ts=T0 + timedelta(minutes=i), id=f"m{i}") for i in range(50)]

    first = segment_turns(build(), max_tokens=50)
    second = segment_turns(build(), max_tokens=50)
    assert [(s.id, s.hash) for s in first] == [(s.id, s.hash) for s in second]
    assert len({s.id for s in first}) == len(first) > 1
    assert all(s.id.startswith("seg_") and s.hash.startswith("sha256:") for s in first)


@pytest.mark.parametrize(
    "change",
    [
        {"text": "I live in Harare."},
        {"speaker": "bob"},
        {"ts": T0 + timedelta(seconds=1)},
        {"id": "m2"},
        {"session": "s2"},
    ],
)
def test_any_content_change_changes_the_id(change: dict[str, object]) -> None:
    base = {"text": "I live in Kwekwe.", "speaker": "ann", "ts": T0, "id": "m1", "session": "s1"}
    [a] = segment_turns([Turn(**base)])  # type: ignore[arg-type]
    [b] = segment_turns([Turn(**{**base, **change})])  # type: ignore[arg-type]
    assert a.id != b.id
    assert a.hash != b.hash


def test_turn_ids_are_recorded_in_order_skipping_missing() -> None:
    [segment] = segment_turns([chat("a", id="m1"), chat("b"), chat("c", id="m3")])
    assert segment.turn_ids == ("m1", "m3")


def test_undated_segment_has_no_time_span() -> None:
    [segment] = segment_turns([chat("a"), chat("b")])
    assert segment.start_ts is None and segment.end_ts is None


def test_plan_numbers_match_the_segments() -> None:
    turns = [chat("y" * (40 * (i % 7 + 1)), id=f"m{i}") for i in range(40)]
    segments = segment_turns(turns, max_tokens=200)
    plan = plan_segments(segments)
    total = sum(s.tokens for s in segments)
    assert plan.interactions == 40
    assert plan.segments == plan.extraction_calls == len(segments) > 1
    assert plan.estimated_input_tokens == total + PROMPT_OVERHEAD_TOKENS * len(segments)
    assert plan.max_segment_tokens == max(s.tokens for s in segments)
    assert plan.max_segment_tokens >= plan.mean_segment_tokens
    assert plan.mean_segment_tokens == round(total / len(segments), 1)
    assert plan.to_dict()["extraction_calls"] == len(segments)


def test_plan_of_nothing_is_zero() -> None:
    plan = plan_segments([])
    assert (plan.extraction_calls, plan.estimated_input_tokens, plan.mean_segment_tokens) == (
        0,
        0,
        0.0,
    )


def test_prepare_prunes_noise_before_segmenting() -> None:
    blob = base64.b64encode(random.Random(7).randbytes(30_000)).decode()
    payload = IngestPayload.model_validate(
        {"turns": [{"speaker": "ann", "text": f"my logo {blob}", "id": "m1"}]}
    )
    [segment] = prepare(payload)
    assert segment.turns[0].text.startswith("my logo [base64 omitted: ")
    assert segment.tokens < 50  # the 40,000-char blob no longer counts
    assert segment.turn_ids == ("m1",)


def test_prepare_and_plan_agree_for_the_same_payload() -> None:
    body = {
        "session_ts": "8 May 2023",
        "turns": [{"speaker": "ann", "text": "z" * 1000, "id": f"m{i}"} for i in range(20)],
    }
    first = prepare(IngestPayload.model_validate(body), max_tokens=600)
    second = prepare(IngestPayload.model_validate(body), max_tokens=600)
    assert [s.id for s in first] == [s.id for s in second]
    assert plan_segments(first).extraction_calls == len(first) == 10
    assert all(s.start_ts == datetime(2023, 5, 8, tzinfo=UTC) for s in first)


def test_prepare_surfaces_input_errors() -> None:
    payload = IngestPayload.model_validate({"turns": [{"speaker": "a", "text": "x" * 50}]})
    with pytest.raises(InputError, match="max_turn_chars"):
        prepare(payload, limits=IngestLimits(max_turn_chars=10))


def test_a_payload_of_blank_turns_is_refused_not_stored_as_nothing() -> None:
    payload = IngestPayload.model_validate({"turns": [{"speaker": "a", "text": "   "}]})
    with pytest.raises(InputError, match="blank"):
        prepare(payload)
    image_only = {"role": "user", "content": [{"type": "input_image", "image_url": "x"}]}
    with pytest.raises(InputError, match="no text part"):
        prepare(IngestPayload.model_validate({"turns": [image_only]}))


def test_responses_api_text_parts_are_kept() -> None:
    turns = [
        {"role": "user", "content": [{"type": "input_text", "text": "My cat is called Pip."}]},
        {"role": "assistant", "content": [{"type": "output_text", "text": "Pip is a fine name."}]},
    ]
    (segment,) = prepare(IngestPayload.model_validate({"turns": turns}))
    assert [t.text for t in segment.turns] == ["My cat is called Pip.", "Pip is a fine name."]
