"""The extraction cache: what its key depends on; a cached extraction merges like a fresh one."""

from __future__ import annotations

from datetime import UTC, datetime

from app.domain.extraction.extractor import Extraction, ExtractionInput
from app.domain.extraction.rules import RuleExtractor
from app.domain.ingest.segmentation import make_segment
from app.domain.ingest.turns import Turn
from app.domain.memory.log import source_of
from app.domain.memory.merge import merge_extraction
from app.domain.passport import Passport
from app.services.extraction import Work, cache_key, extractor_name, uses_model

MAY_8 = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
ACCEPTED = datetime(2024, 1, 1, tzinfo=UTC)
DATED = make_segment([Turn("Melanie", "I moved to Kwekwe last week for a new job.", ts=MAY_8)])
UNDATED = make_segment([Turn("Melanie", "I moved to Kwekwe last week for a new job.")])


def key(work: Work, known: tuple[str, ...] = (), extractor: str = "openai:gpt-4o-mini") -> str:
    return cache_key(work, known, extractor)


def test_the_same_prompt_inputs_give_the_same_key() -> None:
    a = Work(DATED, "Melanie", ACCEPTED)
    assert key(a) == key(Work(DATED, "Melanie", datetime(2025, 1, 1, tzinfo=UTC)))
    assert len(key(a)) == 64


def test_anything_the_prompt_depends_on_changes_the_key() -> None:
    base = key(Work(DATED, "Melanie", ACCEPTED))
    assert key(Work(UNDATED, "Melanie", ACCEPTED)) != base  # another segment
    assert key(Work(DATED, "Caroline", ACCEPTED)) != base  # another subject
    assert key(Work(DATED, "Melanie", ACCEPTED), known=("location",)) != base
    assert key(Work(DATED, "Melanie", ACCEPTED), extractor="openai:gpt-4o") != base
    # Undated turns are stamped with the job's time, which the prompt states.
    undated = key(Work(UNDATED, "Melanie", ACCEPTED))
    assert key(Work(UNDATED, "Melanie", datetime(2025, 1, 1, tzinfo=UTC))) != undated


def test_extractor_names() -> None:
    assert extractor_name("rules") == "rules" and not uses_model("rules")
    assert extractor_name("OpenAI: gpt-4o-mini") == "openai:gpt-4o-mini"
    assert uses_model(extractor_name("ollama:llama3.2:3b"))


async def test_a_cached_extraction_merges_exactly_like_the_fresh_one() -> None:
    segment = make_segment(
        [
            Turn("Melanie", "I moved to Kwekwe last week for a new job.", ts=MAY_8, id="m1"),
            Turn("Caroline", "Congrats! I still need to book the flight to Harare.", ts=MAY_8),
        ]
    )
    fresh = await RuleExtractor().extract(ExtractionInput(segment=segment, subject="Melanie"))
    cached = Extraction.from_items_dict(fresh.items_dict())
    assert cached.items_dict() == fresh.items_dict()

    def merged(extraction: Extraction) -> dict[str, object]:
        passport = Passport.empty("mel")
        merge_extraction(passport, extraction, source_of(segment, ACCEPTED), now="2024-01-01")
        return passport.to_dict()

    assert merged(cached) == merged(fresh)
    assert merged(fresh)["facts"], "the rule extractor saw something to remember"
