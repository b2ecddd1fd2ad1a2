"""The context's hand-set constants swept: both conversation benches, once as the code stands and
once per setting, side by side.

``python -m bench.sweep --half tune "BELIEF_SHARE=0.1" "PASSAGE_TARGET=300;PASSAGE_MAX=400"``

A setting names one or more module constants of ``app/domain/context`` (``;`` between them); each
is set in every context module that holds it, for that run only. Printed per run and budget:
REALTALK's evidence recall, answer and items; BEAM's source messages named, answer and items (the
figures of ``bench.realtalk`` and ``bench.conversations``). Choose on ``--half tune``; report
on ``--half accept``. About 90 s a run.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from types import ModuleType
from typing import Any

from bench.conversations import data as beam_data
from bench.conversations import run as beam_run
from bench.realtalk import data as talk_data
from bench.realtalk import run as talk_run
from bench.recall.run import text_table
from bench.splits import HALVES, of_half

MODULES = (
    "app.domain.context.belief_sentences",
    "app.domain.context.beliefs",
    "app.domain.context.budget",
    "app.domain.context.index",
    "app.domain.context.passages",
    "app.domain.context.ranking.candidates",
    "app.domain.context.ranking.features",
    "app.domain.context.ranking.question",
    "app.domain.context.render",
    "app.domain.context.restated",
    "app.domain.context.sessions",
)
# (REALTALK evidence recall or BEAM sources named, answer, items) per set and budget.
Figures = dict[tuple[str, int], tuple[float, float, float]]


def parse(setting: str) -> dict[str, float]:
    """``"A=1;B=0.5"`` as {name: value}; ValueError for anything else."""
    out: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in setting.split(";"))):
        name, sep, value = part.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"not NAME=VALUE: {part!r}")
        number = float(value)
        out[name.strip()] = int(number) if number.is_integer() and "." not in value else number
    return out


@contextmanager
def constants(values: dict[str, float]) -> Iterator[None]:
    """Every context module's constants of these names set to these values, then put back."""
    modules: list[ModuleType] = [importlib.import_module(m) for m in MODULES]
    saved: list[tuple[ModuleType, str, object]] = []
    try:
        for name, value in values.items():
            holders = [m for m in modules if hasattr(m, name)]
            if not holders:
                raise ValueError(f"no context module has a constant {name}")
            for module in holders:
                saved.append((module, name, getattr(module, name)))
                setattr(module, name, value)
        yield
    finally:
        for module, name, value in reversed(saved):
            setattr(module, name, value)


def chats_of(half: str) -> tuple[list[Any], list[Any]]:
    """The REALTALK conversations and the BEAM chats of one half, read once for every run."""
    talks = of_half(talk_data.load(talk_data.DEFAULT_DATA), lambda c: c.id, "realtalk", half)
    chats = of_half(beam_data.load(beam_data.DEFAULT_DATA), lambda c: c.id, "beam500k", half)
    return list(talks), list(chats)


def measure(talks: Sequence[Any], chats: Sequence[Any]) -> Figures:
    """Both sets' Tessera figures, with the constants as they are now set."""
    out: Figures = {}
    talked, _ = asyncio.run(talk_run.run(talks, talk_run.BUDGETS))
    for b in talk_run.BUDGETS:
        t = talked.tally(talk_run.TESSERA, b, "all")
        out[("realtalk", b)] = (t.recall, t.answer, t.items)
    beamed, _ = asyncio.run(beam_run.run(chats, beam_run.BUDGETS))
    for b in beam_run.BUDGETS:
        t = beamed.tally(beam_run.TESSERA, b, "all")
        out[("beam", b)] = (t.source_recall, t.answer, t.items)
    return out


def table(runs: Sequence[tuple[str, Figures]]) -> str:
    """One row per run: each set's three figures at each budget, "/" between budgets (four
    decimals, so that figures that differ by a fraction of a question do not read as equal)."""
    headers = ["setting", "REALTALK evidence", "answer", "items", "BEAM sources", "answer", "items"]
    rows = []
    for label, figures in runs:
        row = [label]
        for dataset in ("realtalk", "beam"):
            budgets = sorted(b for d, b in figures if d == dataset)
            for at in range(3):
                row.append(" / ".join(f"{figures[(dataset, b)][at]:.4f}" for b in budgets))
        rows.append(row)
    return text_table(headers, rows)


def main(argv: Sequence[str] | None = None) -> int:
    """CLI: the code as it stands, then each setting, on one half; the table at the end."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.sweep", description=(__doc__ or "").splitlines()[0]
    )
    parser.add_argument("settings", nargs="+", help='e.g. "BELIEF_SHARE=0.1"')
    parser.add_argument("--half", choices=HALVES, default="tune")
    args = parser.parse_args(argv)
    try:
        settings = [(s, parse(s)) for s in args.settings]
        for _, values in settings:
            with constants(values):
                pass  # every name is known before the first run
    except ValueError as exc:
        print(f"bad setting: {exc}", file=sys.stderr)
        return 2
    talks, chats = chats_of(args.half)
    runs = [("as the code stands", measure(talks, chats))]
    for label, values in settings:
        with constants(values):
            runs.append((label, measure(talks, chats)))
        print(f"done: {label}", file=sys.stderr)
    print(f"{args.half} halves, at 1,500 / 3,000 / 6,000 characters")
    print(table(runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
