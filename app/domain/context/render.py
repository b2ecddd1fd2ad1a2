"""Query-ranked, budgeted context for one user: what GET /context renders.

Up to four blocks within one character budget: the standing instructions the question needs first
(in ``INSTRUCTION_SHARE`` of it), the beliefs that matter (``beliefs``; with the instructions in
``BELIEF_SHARE``), the sessions of a stretch an overview question names (``sessions``), then the
ranked memories in time order (``budget``). Whatever is left out is counted in the text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from app.domain.context.beliefs import BeliefLine
from app.domain.context.budget import Evidence, assemble
from app.domain.context.index import MemoryIndex
from app.domain.context.ranking.question import Question, with_vector
from app.domain.context.sessions import SESSION_SHARE, SessionLine
from app.domain.dates import EVER, DateWindow

BELIEF_SHARE = 0.2
# Standing instructions come first, in at most this share of the budget (inside BELIEF_SHARE).
INSTRUCTION_SHARE = 0.1
INSTRUCTIONS_HEADER = "Instructions:"
BELIEFS_HEADER = "Beliefs:"
MEMORIES_HEADER = "Memories:"


@dataclass(frozen=True, slots=True)
class Context:
    """The selection ``build_context`` made, as text for a prompt or as JSON."""

    query: str | None
    budget_chars: int
    instructions: tuple[str, ...]
    beliefs: tuple[BeliefLine, ...]
    beliefs_omitted: int
    sessions: tuple[SessionLine, ...]
    evidence: Evidence
    text: str

    def to_json(self) -> dict[str, Any]:
        """The same selection: beliefs with their sentence, memories with exact turn ids."""
        return {
            "query": self.query,
            "budget_chars": self.budget_chars,
            "chars": len(self.text),
            "instructions": list(self.instructions),
            "beliefs": [b.to_dict() for b in self.beliefs],
            "beliefs_omitted": self.beliefs_omitted,
            "sessions": [s.to_dict() for s in self.sessions],
            "memory_order": self.evidence.order,
            "memories": self.evidence.memories(),
            "memories_omitted": self.evidence.omitted,
        }


def _applying_first(
    index: MemoryIndex, tokens: Sequence[str], weight: Mapping[str, float]
) -> list[str]:
    """The instructions a question needs, in order: those that hold for every question, then those
    whose condition the question's words match (the best first); without a question, all of them,
    newest first. One whose condition the question does not match is left out."""
    wanted = set(tokens)

    def rank(n: int) -> tuple[int, float, int]:
        condition = index.conditions[n]
        if condition is None or not wanted:
            return (2, 0.0, -n)
        shared = wanted & condition
        return (1 if shared else 0, sum(weight.get(t, 1.0) for t in shared), -n)

    ranked = sorted(((rank(n), n) for n in range(len(index.instructions))), reverse=True)
    return [index.instructions[n] for (applies, _, _), n in ranked if applies]


def _instructions_block(
    index: MemoryIndex, tokens: Sequence[str], weight: Mapping[str, float], room: int
) -> tuple[list[str], str]:
    """The standing instructions a question needs first, as many whole ones as fit in ``room``."""
    shown: list[str] = []
    used = len(INSTRUCTIONS_HEADER)
    for text in _applying_first(index, tokens, weight):
        line = f"- {text}"
        if used + 1 + len(line) > room:
            break
        shown.append(text)
        used += 1 + len(line)
    if not shown:
        return [], ""
    return shown, "\n".join([INSTRUCTIONS_HEADER, *(f"- {text}" for text in shown)])


def _beliefs_block(lines: list[BeliefLine], omitted: int) -> str:
    if not lines:
        return ""
    out = [BELIEFS_HEADER, *(f"- {line.text}" for line in lines)]
    if omitted:
        out.append(f"(+{omitted} more beliefs not shown)")
    return "\n".join(out)


def build_context(
    index: MemoryIndex,
    q: str | None,
    budget_chars: int,
    window: DateWindow = EVER,
    vector: npt.NDArray[np.float32] | None = None,
) -> Context:
    """Beliefs that matter for ``q``, then the memories that answer it, within the budget
    (``vector``: the question's embedding, when an embedding model is on)."""
    budget = max(budget_chars, 0)
    question = with_vector(Question.of(q), vector)
    tokens = question.tokens if question is not None else ()
    weights = index.word_weights(tokens)
    instructions, head_block = _instructions_block(
        index, tokens, weights, int(budget * INSTRUCTION_SHARE)
    )
    head_used = len(head_block) + 2 if head_block else 0
    # The note of what was left out must fit beside the lines: room is kept for it.
    note_room = len("(+99999 more beliefs not shown)") + 1
    room = int(budget * BELIEF_SHARE) - head_used - len(BELIEFS_HEADER) - 1 - note_room
    lines, omitted = index.beliefs.choose(tokens, max(room, 0), weights)
    block = _beliefs_block(lines, omitted)
    if head_used + len(block) > budget:  # a budget too small for any belief with its header
        lines, block = [], ""
    # What is left goes to the memories, after a blank line and their header.
    used = head_used + (len(block) + 2 if block else 0)
    memory_room = budget - used - len(MEMORIES_HEADER) - 1
    # A question about a whole stretch of conversation gets its sessions first.
    overview = index.sessions.overview(question, window, int(max(memory_room, 0) * SESSION_SHARE))
    sessions: tuple[SessionLine, ...] = ()
    if overview is not None:
        window = overview.window
        sessions = overview.lines
        if overview.text:
            memory_room -= len(overview.text) + 2
    # An overview question's words name no topic: its memories are the stretch's latest.
    asked = None if overview is not None else question
    evidence = assemble(index.evidence, asked, max(memory_room, 0), window=window)
    parts = [part for part in (head_block, block, overview.text if overview else "") if part]
    if evidence.items:
        parts.append(f"{MEMORIES_HEADER}\n{evidence.text}")
    text = "\n\n".join(parts)
    assert len(text) <= budget, (len(text), budget)
    kept = omitted if lines else 0
    return Context(
        q, budget_chars, tuple(instructions), tuple(lines), kept, sessions, evidence, text
    )
