"""Per-question figures of a benchmark run, and the questions whose figure changed between two.

``python -m bench.conversations --questions A.jsonl`` (or ``python -m bench.realtalk``) writes one
line per question and budget: whether Tessera's context held the whole answer, the share of its
items it held, and the share of its labelled messages it named. Then

``python -m bench.questions A.jsonl B.jsonl [--measure items] [--group G] [--budget N]``

lists each question whose figure differs between the two runs (run on the same chats, in the same
order) and the net change per budget, in questions: which questions a cell's difference is made of.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

MEASURES = ("answered", "items", "named")


@dataclass(frozen=True, slots=True)
class QuestionFigure:
    """One question's figures at one budget (``named`` None when it has no labelled message)."""

    question: str
    group: str  # its ability (BEAM) or category (REALTALK)
    budget: int
    answered: bool
    items: float
    named: float | None

    def value(self, measure: str) -> float:
        """The figure ``measure`` names, as a number (a question without labels counts 0)."""
        return float(getattr(self, measure) or 0.0)


def write_figures(path: Path, figures: Iterable[QuestionFigure]) -> None:
    """The figures as JSON lines."""
    path.write_text("".join(json.dumps(asdict(f)) + "\n" for f in figures), encoding="utf-8")


def read_figures(path: Path) -> list[QuestionFigure]:
    """The figures a run wrote."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [QuestionFigure(**json.loads(line)) for line in lines if line.strip()]


@dataclass(frozen=True, slots=True)
class Change:
    """A question whose figure differs between two runs."""

    before: QuestionFigure
    after: QuestionFigure
    measure: str

    @property
    def delta(self) -> float:
        return self.after.value(self.measure) - self.before.value(self.measure)


def changes(
    before: Sequence[QuestionFigure],
    after: Sequence[QuestionFigure],
    measure: str,
    group: str | None = None,
) -> list[Change]:
    """The questions (of ``group``, or all) whose ``measure`` differs; the runs must be of the
    same questions in the same order (ValueError otherwise)."""
    if len(before) != len(after):
        raise ValueError(f"the runs hold {len(before)} and {len(after)} figures")
    out = []
    for b, a in zip(before, after, strict=True):
        if (b.question, b.budget) != (a.question, a.budget):
            raise ValueError("the runs are of different questions, or in another order")
        if group is not None and b.group != group:
            continue
        change = Change(b, a, measure)
        if abs(change.delta) > 1e-9:
            out.append(change)
    return out


def net(found: Iterable[Change]) -> dict[int, float]:
    """The sum of the changes per budget: questions gained, less questions lost."""
    out: dict[int, float] = {}
    for change in found:
        out[change.before.budget] = out.get(change.before.budget, 0.0) + change.delta
    return dict(sorted(out.items()))


def main(argv: Sequence[str] | None = None) -> int:
    """CLI: the changed questions, one a line, then the net change per budget."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.questions", description=(__doc__ or "").splitlines()[0]
    )
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--measure", choices=MEASURES, default="answered")
    parser.add_argument("--group", help="only questions of this ability or category")
    parser.add_argument("--budget", type=int, help="only this budget")
    args = parser.parse_args(argv)
    try:
        before, after = read_figures(args.before), read_figures(args.after)
        found = changes(before, after, args.measure, args.group)
    except (OSError, ValueError, TypeError) as exc:
        print(f"cannot compare the runs: {exc}", file=sys.stderr)
        return 2
    if args.budget is not None:
        found = [c for c in found if c.before.budget == args.budget]
    for c in found:
        was, now = c.before.value(c.measure), c.after.value(c.measure)
        where = f"{c.before.budget:>6,}  {c.before.group:<24}"
        print(f"{where} {was:.2f} -> {now:.2f}  {c.before.question}")
    if not found:
        print("no question's figure differs")
        return 0
    print("net, in questions: " + ", ".join(f"{k:,}: {v:+.2f}" for k, v in net(found).items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
