"""The rule extractor over every message of the REALTALK conversations, when ../shared has them.

Real chat is the adversarial input the rules meet: no message may raise or fail a rule. The data
is not part of the repository (``bench/realtalk``); without it the test is skipped.
"""

from __future__ import annotations

import pytest

from app.domain.extraction.extractor import ExtractionInput
from app.domain.extraction.rules import extract_rules
from app.domain.ingest.segmentation import prepare
from bench.realtalk.data import DEFAULT_DATA, load
from bench.realtalk.run import payload_of

pytestmark = pytest.mark.skipif(
    not DEFAULT_DATA.is_dir() or not any(DEFAULT_DATA.glob("*.json")),
    reason=f"no REALTALK conversations in {DEFAULT_DATA}",
)


def test_every_message_goes_through_the_rules_without_a_failure() -> None:
    seen = 0
    for conversation in load(DEFAULT_DATA):
        for session in conversation.sessions:
            payload = payload_of(conversation, session)
            for segment in prepare(payload):
                request = ExtractionInput(segment=segment, subject=payload.subject)
                out = extract_rules(request)
                assert out.failures == [], (conversation.id, out.failures)
                seen += len(segment.turns)
    assert seen == sum(len(c.messages) for c in load(DEFAULT_DATA))
