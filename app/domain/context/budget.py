"""``assemble`` takes the ranking of a question's passages, each hit with the turn before and after
it in the same session (a question and its answer), fills the budget greedily in rank order, shows
the chosen turns in time order as ``Speaker: text`` under a ``[7 May 2023]`` heading per day, each
relative date followed by the day it was resolved to at ingest: "yesterday (6 May 2023)". Without
a query it shows the most recent turns. Each item names its turn's client id. Pure: no I/O.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from app.domain.context.index import EvidenceIndex, Scores
from app.domain.context.passages import annotated
from app.domain.context.ranking.candidates import MIN_LINE, allowed_records, sort_time
from app.domain.context.ranking.question import Question
from app.domain.context.ranking.scorer import Ranked, rank
from app.domain.context.records import RecordKind
from app.domain.context.restated import ShownRuns
from app.domain.dates import EVER, DateWindow

# A hit is shown with the turn on each side of it in its session: the message it answers and the
# answer it gets. A neighbour's priority as a share of its hit's score: see ``_by_relevance``.
NEIGHBOUR_WEIGHT = 0.5


ELLIPSIS = "…"

Order = Literal["relevance", "recency"]
Role = Literal["hit", "neighbour", "recent"]


@dataclass(frozen=True, slots=True)
class EvidenceItem:
    """One record a context shows: whole, or the passages of it that were chosen."""

    id: str
    turn_id: str | None
    speaker: str
    ts: str | None
    session: str | None
    text: str  # what the line shows after the date and speaker, dates annotated
    role: Role  # a ranked hit, a neighbour of one, or (without a query) a recent turn
    cut: bool  # only part of the record is shown
    kind: RecordKind = "turn"
    turn_ids: tuple[str, ...] = ()  # the client ids of the turns behind it
    source: str | None = None
    score: float = 0.0  # its best passage's score for the query (0 without one)
    passage: int = -1  # its best scoring passage (-1 without a question)

    def to_dict(self) -> dict[str, Any]:
        """JSON form, with the exact client turn ids behind it as its provenance."""
        return {
            "kind": self.kind,
            "id": self.id,
            "turn_ids": list(self.turn_ids),
            "source": self.source,
            "score": round(self.score, 6),
            "speaker": self.speaker,
            "ts": self.ts,
            "session": self.session,
            "text": self.text,
            "role": self.role,
            "cut": self.cut,
        }


@dataclass(frozen=True, slots=True)
class Evidence:
    """The turns chosen for a query, in time order, and the text they render to."""

    query: str | None
    budget_chars: int
    items: tuple[EvidenceItem, ...]
    text: str
    omitted: int  # matching (or, without a query, older) turns left out
    order: Order
    ranked: Ranked | None = field(default=None, compare=False, repr=False)

    def memories(self) -> list[dict[str, Any]]:
        """Each item's JSON form with ``why``: how its best passage's score was made (None for
        an item that is no candidate, or without a question)."""
        ranked = self.ranked
        return [
            item.to_dict() | {"why": ranked.explain(item.passage) if ranked else None}
            for item in self.items
        ]

    @property
    def turn_ids(self) -> tuple[str, ...]:
        """The client ids of every turn behind what is shown, in time order."""
        return tuple(t for i in self.items for t in i.turn_ids)


class _Selection:
    """The passages chosen so far, per turn, and what their lines cost."""

    def __init__(self, index: EvidenceIndex, room: int) -> None:
        self.index = index
        self.room = room  # characters left, newlines between lines included
        self.chosen: dict[int, set[int]] = {}  # turn -> its passages shown
        self.roles: dict[int, Role] = {}
        self.lines: dict[int, tuple[str, str, bool]] = {}  # turn -> its line as chosen
        self.days: set[str] = set()  # the headings of the days shown (each shown once)
        self.heading = cache(index.heading)  # a turn's day heading and line prefix, read once

    def line(self, turn: int, shown: set[int]) -> tuple[str, str, bool]:
        """(the line, its text after the prefix, whether it is cut) for those passages."""
        index = self.index
        text = index.texts[turn]
        runs: list[list[int]] = []
        for doc in sorted(shown):
            if runs and runs[-1][-1] == doc - 1:
                runs[-1].append(doc)
            else:
                runs.append([doc])
        pieces = [text[index.span(run[0])[0] : index.span(run[-1])[1]].strip() for run in runs]
        own = index.passages_of(turn)
        dates = index.dates(turn)
        body = f" {ELLIPSIS} ".join(annotated(p, dates) for p in pieces)
        cut = len(shown) < len(own)
        if cut and runs[0][0] != own.start:
            body = f"{ELLIPSIS} {body}"
        if cut and runs[-1][-1] != own.stop - 1:
            body = f"{body} {ELLIPSIS}"
        return self.heading(turn)[1] + body, body, cut

    def may_fit(self, turn: int, docs: Iterable[int]) -> bool:
        """False when a new line of ``docs`` of ``turn`` cannot fit whole; true if it may."""
        if turn in self.chosen:
            return True
        # A line holds at least its prefix and its passages' words (annotations only add):
        # what cannot fit is skipped before it is rendered.
        words = self.index.words_in
        return len(self.heading(turn)[1]) + sum(words(d) for d in docs) <= self.room

    def add(self, turn: int, docs: Iterable[int], role: Role) -> bool:
        """Show ``docs`` of ``turn`` too if the budget allows; whether they are shown now."""
        before = self.chosen.get(turn, set())
        shown = before | set(docs)
        if shown == before:
            return turn in self.chosen
        if not self.may_fit(turn, shown):
            return False
        rendered = self.line(turn, shown)
        old = self.lines.get(turn)
        day = self.heading(turn)[0]
        # A new line adds its newline, and the first of its day the day's heading.
        cost = len(rendered[0]) - (len(old[0]) if old is not None else -1)
        cost += len(day) + 1 if day and day not in self.days else 0
        if cost > self.room:
            return False
        self.room -= cost
        self.days.add(day)
        self.chosen[turn] = shown
        self.roles.setdefault(turn, role)
        self.lines[turn] = rendered
        return True


def _neighbour_passage(index: EvidenceIndex, turn: int, scores: Scores, side: int) -> int:
    """The passage of a neighbour to show: its best match, else its end nearest the hit."""
    own, best = index.passages_of(turn), _best_passage(index, turn, scores)
    return best if scores[best] > 0 else (own.stop - 1 if side < 0 else own.start)


def _beside(index: EvidenceIndex, turn: int, side: int) -> int | None:
    """The turn just before (``side`` -1) or after (1) a turn in its session, if any.

    Observations and episodes between them are passed over; they are nobody's neighbours.
    """
    other = turn + side
    while index.is_turn(turn) and 0 <= other < len(index):
        if index.is_turn(other):
            return other if index.same_session(other, turn) else None
        other += side
    return None


def _note(count: int, order: Order) -> str:
    what = "more matching" if order == "relevance" else "older"
    return f"(+{count} {what} memories not shown)"


def assemble(
    index: EvidenceIndex,
    question: Question | None,
    budget_chars: int,
    *,
    window: DateWindow = EVER,
) -> Evidence:
    """The records that best answer ``question`` with their neighbours, in time order, within
    budget; without a question, the newest. A ``window`` keeps only records dated within it."""
    budget = max(budget_chars, 0)
    allowed = allowed_records(index, window)
    found = (
        rank(index, question, allowed, budget)
        if question
        else Ranked(np.zeros(0, np.float32), [], 0)
    )
    scores = found.scores
    if found.order and question is not None:
        selection, omitted = _by_relevance(index, found, budget, allowed, question.tokens)
        order: Order = "relevance"
    else:
        selection, omitted = _by_recency(index, budget, allowed)
        order = "recency"
    items: list[EvidenceItem] = []
    lines: list[str] = []
    epochs = index.record_epochs()
    # Time order (one without a time keeps its log place); a UTC day's lines follow its heading.
    shown_day = ""
    for turn in sorted(selection.chosen, key=lambda t: (sort_time(float(epochs[t])), t)):
        record = index.record(turn)
        line, body, cut = selection.lines[turn]
        best = _best_passage(index, turn, scores) if scores.size else -1  # a shown turn has one
        day = selection.heading(turn)[0]
        if day and day != shown_day:
            lines.append(day)
        shown_day = day
        lines.append(line)
        items.append(
            EvidenceItem(
                id=record.id,
                turn_id=record.turn_id,
                speaker=record.speaker,
                ts=record.ts,
                session=record.session,
                text=body,
                role=selection.roles[turn],
                cut=cut,
                kind=record.kind,
                turn_ids=record.turn_ids,
                source=record.source,
                score=float(scores[best]) if best >= 0 else 0.0,
                passage=best,
            )
        )
    if omitted and items:
        lines.append(_note(omitted, order))
    text = "\n".join(lines)
    assert len(text) <= budget, (len(text), budget)
    asked = question.text if question else None
    return Evidence(asked, budget_chars, tuple(items), text, omitted, order, found)


def _best_passage(index: EvidenceIndex, turn: int, scores: Scores) -> int:
    """The turn's best scoring passage (a turn of one passage needs no look at the scores)."""
    own = index.passages_of(turn)
    return own.start + (int(np.argmax(scores[own.start : own.stop])) if len(own) > 1 else 0)


def _by_relevance(
    index: EvidenceIndex,
    found: Ranked,
    budget: int,
    allowed: npt.NDArray[np.bool_] | None,
    tokens: Sequence[str],
) -> tuple[_Selection, int]:
    """Hits (``found.order``) and their neighbours by priority while they fit; and the matching
    records left out.

    A hit's priority is its score; once it is shown, each neighbour waits with ``NEIGHBOUR_WEIGHT``
    times that score, so the context of a strong match comes before a weak match, and a weak
    match before the context of another.
    An assistant's turn (``machine``) is no neighbour of a person's hit. A passage that says
    nothing new (``restated``: each of the question's ``tokens`` in it, or each of its words, is
    in a run a shown passage says) is left out, and a hit left out so is not counted as missing.
    """
    scores, matching, machine = found.scores, found.matching, found.machine
    # Room for the note at its longest, so whatever is chosen, the note still fits.
    room = budget + 1 - (len(_note(matching, "relevance")) + 1)
    selection = _Selection(index, room)
    repeated: set[int] = set()  # hits left out as repeats: what they say is shown
    shown_runs = ShownRuns(tokens)
    ranked = found.order
    turns = index.passage_turns()[ranked].tolist()
    # (-priority, order, passage, turn, is a hit); order keeps rank order among equals.
    priorities = scores[ranked].tolist()
    queue: list[tuple[float, int, int, int, bool]] = [
        (-priority, rank, doc, turn, True)
        for rank, (priority, doc, turn) in enumerate(zip(priorities, ranked, turns, strict=True))
    ]
    heapq.heapify(queue)
    order = len(queue)
    while queue and selection.room >= MIN_LINE:
        priority, _, doc, turn, hit = heapq.heappop(queue)
        if not selection.may_fit(turn, (doc,)):
            continue  # what cannot fit whole is passed over
        text, speaker = index.passage_text(doc), index.speaker_codes[turn]
        new = doc not in selection.chosen.get(turn, ())  # a neighbour's passage may come again
        if new and shown_runs.restates(text, speaker):
            if hit:
                repeated.add(turn)
            continue
        if not selection.add(turn, (doc,), "hit" if hit else "neighbour"):
            continue
        if new:
            shown_runs.add(text, speaker)
        if not hit:
            continue
        for side in (-1, 1):
            other = _beside(index, turn, side)
            if other is None or (allowed is not None and not allowed[other]):
                continue
            passage = _neighbour_passage(index, other, scores, side)
            if machine is not None and machine[passage] and not machine[doc]:
                continue  # a person's words need no assistant's answer around them
            order += 1
            heapq.heappush(queue, (priority * NEIGHBOUR_WEIGHT, order, passage, other, False))
    shown = sum(1 for t in selection.chosen if index.best_score(t, scores) > 0)
    omitted = max(matching - shown - len(repeated - selection.chosen.keys()), 0)
    return selection, omitted


def _by_recency(
    index: EvidenceIndex, budget: int, allowed: npt.NDArray[np.bool_] | None
) -> tuple[_Selection, int]:
    """The newest records that fit, whole or by their last passage, until one does not."""
    total = len(index) if allowed is None else int(allowed.sum())
    selection = _Selection(index, budget + 1 - (len(_note(total, "recency")) + 1))
    for turn in range(len(index) - 1, -1, -1):
        if allowed is not None and not allowed[turn]:
            continue
        own = index.passages_of(turn)
        if not (
            selection.add(turn, own, "recent") or selection.add(turn, (own.stop - 1,), "recent")
        ):
            break
    return selection, total - len(selection.chosen)
