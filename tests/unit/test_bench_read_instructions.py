"""The instruction-count bench: a stored chat loads as it was built and is read at each budget."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.domain.context import EvidenceIndex, MemoryIndex, build_context
from app.domain.context.segments import encode
from app.domain.passport import Passport
from bench.read_instructions import main
from tests.unit.test_context_budget import chat

LINES = [
    ("Ana", "we booked the cabin by the lake for the second week of June"),
    ("Ben", "nice, is the canoe included or do we rent it there"),
    ("Ana", "the canoe costs $40 a day at the marina"),
]
QUESTION = "How much is the canoe?"


def _stored(folder: Path) -> MemoryIndex:
    index = MemoryIndex(Passport.empty("ana"), EvidenceIndex(chat(LINES)))
    (folder / "realtalk-0.seg").write_bytes(encode(index.to_segment()))
    doc = {"head": index.head.to_dict(), "questions": [QUESTION]}
    (folder / "realtalk-0.json").write_text(json.dumps(doc))
    return index


def test_a_stored_chat_reads_as_the_index_it_was_made_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built = _stored(tmp_path)
    asked: list[tuple[str, int]] = []

    def read(index: MemoryIndex, q: str, budget: int) -> object:
        asked.append((q, budget))
        text = build_context(index, q, budget).text
        assert text == build_context(built, q, budget).text
        return text

    monkeypatch.setattr("bench.read_instructions.build_context", read)
    assert main(["load", str(tmp_path), "realtalk:0"]) == 0
    assert len(asked) == 1  # loading reads once, to load what every read needs
    assert main(["read", str(tmp_path), "realtalk:0"]) == 0
    assert asked[2:] == [(QUESTION, 1500), (QUESTION, 3000), (QUESTION, 6000)]
    assert "$40" in build_context(built, QUESTION, 1500).text
