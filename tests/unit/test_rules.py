"""The offline rule extractor: one deterministic episode per segment, conservative entities."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from app.domain.extract import Extraction, ExtractionInput, Extractor
from app.domain.rules import STOPWORDS, RuleExtractor, extract_rules
from app.domain.turns import Segment, Turn

MAY_8 = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def _segment(turns: list[Turn], seg_id: str = "seg_0123456789abcdef", **kw: object) -> Segment:
    return Segment(id=seg_id, turns=tuple(turns), tokens=sum(len(t.text) for t in turns) // 4, **kw)  # type: ignore[arg-type]


def _chat() -> Segment:
    return _segment(
        [
            Turn("Caroline", "Hey Mel! Good to see you! How have you been?", ts=MAY_8),
            Turn("Melanie", "Hey Caroline! I'm swamped with the kids & work. What's up with you?"),
            Turn("Caroline", "I went to a LGBTQ support group yesterday and it was so powerful."),
            Turn("Melanie", "Wow, that's cool! Did you hear any inspiring stories at the group?"),
            Turn(
                "Caroline", "The transgender stories were so inspiring. The support group helped."
            ),
            Turn("Melanie", "I ran a charity race for mental health last Saturday."),
            Turn("Melanie", "The charity race raised $5,000 for the Hope Street Clinic. lol"),
        ],
        start_ts=MAY_8 - timedelta(minutes=5),
        end_ts=MAY_8,
    )


async def _run(segment: Segment, **kw: object) -> Extraction:
    return await RuleExtractor().extract(ExtractionInput(segment=segment, **kw))  # type: ignore[arg-type]


def test_is_an_extractor() -> None:
    extractor: Extractor = RuleExtractor()
    assert extractor.name == "rules"


async def test_one_episode_with_id_source_ts_participants() -> None:
    out = await _run(_chat())
    episode = out.episode
    assert episode is not None
    assert episode.id == "seg_0123456789abcdef"
    assert episode.source == "seg_0123456789abcdef"
    assert episode.ts == "2023-05-08T13:56:00Z"
    assert episode.participants == ["Caroline", "Melanie"]
    assert 0.0 <= (episode.salience or 0.0) <= 1.0
    assert out.calls == 0
    # Every field the service writes is set explicitly, so exclude_unset dumps all of them.
    assert set(episode.to_dict()) == {
        "id",
        "ts",
        "summary",
        "salience",
        "source",
        "participants",
        "keywords",
    }


async def test_summary_names_speakers_and_absolute_date() -> None:
    summary = (await _run(_chat())).episode.summary  # type: ignore[union-attr]
    assert summary.startswith("On 8 May 2023, Caroline and Melanie talked about ")
    assert len(summary) <= 300
    assert "Caroline: I went to a LGBTQ support group yesterday" in summary
    assert "Hope Street Clinic" in summary
    # Greetings and small talk are not quoted.
    for noise in ("Hey Mel", "How have you been", "lol", "Wow"):
        assert noise not in summary


async def test_summary_is_extractive() -> None:
    segment = _chat()
    summary = (await _run(segment)).episode.summary  # type: ignore[union-attr]
    quoted = summary.split(". ", 1)[1]
    source = " ".join(t.text for t in segment.turns)
    for part in quoted.split(": ")[1:]:
        sentence = part.rsplit(" ", 1)[0] if part.endswith(("Caroline", "Melanie")) else part
        assert sentence[:30] in source


async def test_greetings_only_segment_still_has_an_episode() -> None:
    segment = _segment(
        [
            Turn("Caroline", "hi!"),
            Turn("Melanie", "Hey Caroline, how are you? lol"),
            Turn("Caroline", "Good, thanks!"),
        ],
        end_ts=MAY_8,
    )
    out = await _run(segment)
    assert out.episode is not None
    assert out.episode.summary == "On 8 May 2023, Caroline and Melanie only made small talk."
    assert out.episode.keywords == []
    assert out.episode.salience == 0.1
    assert [e.name for e in out.entities] == ["Caroline", "Melanie"]


async def test_empty_segment() -> None:
    out = await _run(_segment([]))
    assert out.episode is not None
    assert out.episode.summary == "Nothing was said."
    assert out.episode.participants == []
    assert out.episode.ts is None


async def test_deterministic() -> None:
    first = await _run(_chat(), subject="Caroline")
    second = await _run(_chat(), subject="Caroline")
    assert first.episode is not None and second.episode is not None
    assert first.episode.to_dict() == second.episode.to_dict()
    assert [e.to_dict() for e in first.entities] == [e.to_dict() for e in second.entities]


async def test_row_segment_names_the_table() -> None:
    segment = _segment(
        [
            Turn("orders", "id: 17, status: shipped, total: 42.50", kind="row", table="orders"),
            Turn("orders", "id: 18, status: cancelled, total: 9.99", kind="row", table="orders"),
            Turn("x", "id: 3, name: Acme Corp, city: Kwekwe", kind="row", table="customers"),
        ],
        end_ts=MAY_8,
    )
    out = await _run(segment)
    assert out.episode is not None
    assert out.episode.participants == ["orders", "customers"]
    assert out.episode.summary.startswith(
        "On 8 May 2023, 3 rows from tables orders and customers. orders: id: 17"
    )
    # Table names are not people.
    assert [(e.name, e.type) for e in out.entities] == [("Acme Corp", "other")]


async def test_keywords_exclude_stopwords_and_are_ranked() -> None:
    out = await _run(_chat())
    keywords = out.episode.keywords  # type: ignore[union-attr]
    assert 0 < len(keywords) <= 8
    assert not set(keywords) & STOPWORDS
    assert all(k == k.lower() for k in keywords)
    assert "caroline" not in keywords  # speakers are participants, not topics
    # "group" is said three times; the rest twice, and ties go alphabetically.
    assert keywords[:6] == ["group", "charity", "inspiring", "race", "stories", "support"]


async def test_text_block_uses_subject_and_reference_time() -> None:
    segment = _segment(
        [Turn("user", "I moved to Kwekwe last month for a job at Zimplats.", kind="text")]
    )
    reference = datetime(2024, 1, 2, 9, 30, tzinfo=timezone(timedelta(hours=2)))
    out = await _run(segment, subject="Tawanda", reference_ts=reference)
    assert out.episode is not None
    assert out.episode.participants == ["Tawanda"]
    assert out.episode.ts == "2024-01-02T07:30:00Z"
    assert out.episode.summary.startswith("On 2 January 2024, Tawanda wrote about ")
    assert "Tawanda: I moved to Kwekwe last month (December 2023)" in out.episode.summary
    # The fact families type the places and employers they read (this test once expected only
    # the speaker, before the extractor read facts).
    assert [(e.name, e.type) for e in out.entities] == [
        ("Tawanda", "person"),
        ("Kwekwe", "place"),
        ("Zimplats", "organization"),
    ]
    assert {b.key: b.value for b in out.facts} == {"location": "Kwekwe", "employer": "Zimplats"}


async def test_generic_speakers_are_not_people() -> None:
    segment = _segment(
        [Turn("user", "I started a pottery class."), Turn("assistant", "Pottery sounds fun!")]
    )
    out = await _run(segment)
    assert out.episode is not None
    assert out.episode.participants == ["user", "assistant"]
    assert out.episode.summary.startswith("The user and the assistant talked about ")
    assert "User: I started a pottery class." in out.episode.summary
    assert out.entities == []


async def test_turn_times_are_used_when_the_segment_has_none() -> None:
    segment = _segment([Turn("Ann", "I got a puppy named Biscuit.", ts=MAY_8)])
    out = await _run(segment, reference_ts=datetime(2030, 1, 1, tzinfo=UTC))
    assert out.episode is not None and out.episode.ts == "2023-05-08T13:56:00Z"


def test_entities_are_conservative() -> None:
    segment = _segment(
        [
            Turn("Jo", "Last Friday I visited New York City with Ann Lee."),
            Turn("Jo", "The Great Barrier Reef is next. In May I go. Paris. London is after."),
            Turn("bot_1", "Noted."),
        ]
    )
    out = extract_rules(ExtractionInput(segment=segment))
    assert [(e.name, e.type) for e in out.entities] == [
        ("Jo", "person"),
        ("New York City", "other"),
        ("Ann Lee", "other"),
        ("Great Barrier Reef", "other"),
    ]
    assert all(e.to_dict()["aliases"] == [] for e in out.entities)


def test_salience_rises_with_signals() -> None:
    plain = _segment([Turn("Ann", "The weather was mild and the tea was warm.")])
    eventful = _segment(
        [
            Turn("Ann", "I moved to Kwekwe on 3 June with Tendai Moyo."),
            Turn("Ann", "I started a job at Zimplats in July."),
        ]
    )
    low = extract_rules(ExtractionInput(segment=plain)).episode
    high = extract_rules(ExtractionInput(segment=eventful)).episode
    assert low is not None and high is not None
    assert (low.salience or 0) < (high.salience or 0) <= 1.0


def test_long_segment_summary_is_bounded() -> None:
    long_sentence = "I moved to Kwekwe " + "and then to another very distant town " * 30 + "."
    segment = _segment([Turn("Ann", long_sentence), Turn("Ben", "Kwekwe again? " * 40)])
    episode = extract_rules(ExtractionInput(segment=segment)).episode
    assert episode is not None
    assert len(episode.summary) <= 300
    assert episode.summary.startswith("Ann and Ben talked about ")


async def test_summary_date_is_the_utc_day() -> None:
    late = datetime(2023, 12, 31, 23, 0, tzinfo=timezone(timedelta(hours=-2)))
    out = await _run(_segment([Turn("Ann", "I adopted a dog called Rex.", ts=late)]))
    assert out.episode is not None
    assert out.episode.ts == "2024-01-01T01:00:00Z"
    assert out.episode.summary.startswith("On 1 January 2024, Ann ")
