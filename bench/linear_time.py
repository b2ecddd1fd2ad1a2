"""Linear time on any text: each stage that reads user text, fed adversarial input as it grows.

``python -m bench.linear_time [--sizes 10,50,200] [--stages ...] [--inputs ...] [--limit S]``

Each stage (normalise, prune, segment; resolve dates; the rule extractor; the tokenizer; passages)
reads one turn made by repeating an adversarial unit (date phrases, one character, long runs
without spaces, nested brackets, capitalised words, plans, ...) up to each size in KB, and the
table prints the time per KB. A stage that is linear in its input keeps its time per KB as the
input grows; ``x`` is the last size's time per KB over the first's (1.0: linear; a quadratic
stage doubles it with every doubling of the input). A cell that takes longer than ``--limit``
seconds stops its row: the larger sizes are not run.

``--merges`` times merging 10 / 20 / 40 / 80 segments of 250 new preferences each into an
empty passport (``merge_extraction``, as a job does), and prints each count's seconds and its
ratio to the half count: about 2 is linear, 4 quadratic.

``--patterns`` audits the regular expressions instead: every compiled pattern at module level in
``app/domain`` (and in its rule tables) is searched over adversarial strings of 500 and 1,000
characters, and those whose time grows more than 2.8 times are listed. A pattern listed there is
safe only where it is used anchored or on input of bounded length (a timestamp, a key, the tail
of a sentence): the list says where to look, not what is wrong.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import pkgutil
import re
import signal
import sys
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

from app.domain.context.passages import passages
from app.domain.dates import SPAN_OF_TIME, turn_dates
from app.domain.extraction import Extraction, ExtractionInput
from app.domain.extraction.rules import extract_rules
from app.domain.ingest import IngestLimits, IngestPayload, InputError, Turn, prepare
from app.domain.ingest.segmentation import make_segment
from app.domain.memory.merge import merge_extraction
from app.domain.passport import Belief, Passport, Source
from app.domain.prose import prose_of
from app.domain.text import tokenize

ANCHOR = datetime(2024, 5, 8, 13, 56, tzinfo=UTC)
SIZES_KB = (10, 50, 200)
LIMITS = IngestLimits(max_items=10, max_turn_chars=10_000_000)

# Units repeated to the size asked: the worst cases the property tests and reviews found.
INPUTS: dict[str, str] = {
    "date phrases": "on 12 May ",
    "relative dates": "last Friday, two weeks ago, ",
    "counted spans": "a couple of  - a few 12 hours, an ",
    "one character": "x",
    "spaces": " ",
    "newlines": "\n",
    "no spaces": "ab1",
    "dots": ". ",
    "nested brackets": "((((([[[[{{{{",
    "capitalised words": "Aa ",
    "plans": "I need to ",
    "instructions": "From now on, always use x, not y. ",
    "pets and people": "my dog Max and my sister Ann, ",
    "values": "v1.2.3 ORD-1234 ",
    "stated values": "the cost of my test coverage is 95% and I've increased my budget to $500 ",
    "hex": "deadbeef",
    "chat": "I moved to Kwekwe last week for a new job at Zimplats! ",
    "code fences": "```\nx = 1;\n",
    "backticks": "`a` b `",
    "markdown": "## Title\n- **Label**: text at https://example.com/a/b `code` ",
}
# Inputs that a repeated unit cannot make: each sentence names another thing.
VARIED = {"varied preferences": lambda n: f"I like {_word(n)}. "}


def _word(n: int) -> str:
    """A made-up word of letters for ``n``: distinct numbers, distinct words."""
    letters = "bcdfghjklmnprstvwz"
    out = []
    n += len(letters) ** 3  # at least four letters
    while n:
        n, digit = divmod(n, len(letters))
        out.append(letters[digit] + "aeiou"[digit % 5])
    return "".join(out)


def _segment_of(text: str) -> ExtractionInput:
    # The user of a user–assistant chat: every rule family reads it, instructions included.
    turn = Turn("Ann", text, ts=ANCHOR, id="t1", role="user")
    return ExtractionInput(segment=make_segment([turn]), subject="Ann", reference_ts=ANCHOR)


def _prepare(text: str) -> None:
    # Blank text is refused, once read to the end.
    with contextlib.suppress(InputError):
        prepare(IngestPayload.model_validate({"text": text}), limits=LIMITS)


STAGES: dict[str, Callable[[str], object]] = {
    "prepare": _prepare,
    "dates": lambda text: turn_dates(text, ANCHOR),
    "spans of time": lambda text: list(SPAN_OF_TIME.finditer(text)),
    "rules": lambda text: extract_rules(_segment_of(text)),
    "tokenize": tokenize,
    "passages": passages,
    "prose": prose_of,
}


def made(unit: str, kb: int) -> str:
    """``unit`` repeated to ``kb`` kilobytes of text (or a varied input that long)."""
    size = kb * 1000
    if unit in VARIED:
        parts, length, n = [], 0, 0
        while length < size:
            parts.append(VARIED[unit](n))
            length, n = length + len(parts[-1]), n + 1
        return "".join(parts)[:size]
    return (unit * (size // len(unit) + 1))[:size]


def timed(stage: Callable[[str], object], text: str) -> float:
    """Seconds one call takes (the best of two, after caches are cleared by fresh input)."""
    best = float("inf")
    for salt in ("", "\u200b"):  # a different string each time, so no cache answers
        started = time.perf_counter()
        stage(text + salt)
        best = min(best, time.perf_counter() - started)
    return best


def run(
    sizes: Sequence[int], stages: Sequence[str], inputs: Sequence[str], limit: float
) -> list[tuple[str, str, list[float | None]]]:
    """(stage, input, ms per KB at each size; None where a smaller size went past the limit)."""
    rows = []
    for stage in stages:
        for name in inputs:
            per_kb: list[float | None] = []
            stopped = False
            for kb in sizes:
                if stopped:
                    per_kb.append(None)
                    continue
                seconds = timed(STAGES[stage], made(INPUTS.get(name, name), kb))
                per_kb.append(seconds * 1000 / kb)
                stopped = seconds > limit
            rows.append((stage, name, per_kb))
    return rows


def growth(per_kb: Sequence[float | None]) -> str:
    """The last size's time per KB over the first's, or "stopped" past the limit."""
    if any(v is None for v in per_kb):
        return "stopped"
    first, last = per_kb[0], per_kb[-1]
    assert first is not None and last is not None
    return f"{last / first:.1f}" if first > 0 else "-"


def report(rows: list[tuple[str, str, list[float | None]]], sizes: Sequence[int]) -> str:
    """The table: ms per KB at each size, and its growth."""
    head = ["stage", "input", *(f"{kb} KB ms/KB" for kb in sizes), "x"]
    lines = [" | ".join(head), " | ".join("---" for _ in head)]
    for stage, name, per_kb in rows:
        cells = [f"{v:.2f}" if v is not None else "-" for v in per_kb]
        lines.append(" | ".join([stage, name, *cells, growth(per_kb)]))
    return "\n".join(f"| {line} |" for line in lines)


AUDIT_UNITS = (
    *("a", " ", "A", "Aa ", "a ", ",", ", ", ". ", "1", "1.", "-", "ha", "I ", "i am ", "my "),
    *("the ", "(", ")", "'", "/", ":", "a.", "a@", "ab1", "\n", "aa-", "I'm ", "Mom ", "on "),
    *("12 ", "lol ", "!", "é"),
)


def domain_patterns() -> list[tuple[str, re.Pattern[str]]]:
    """Every compiled pattern at module level in app/domain, in tables too, by dotted name."""
    import app.domain as domain

    found: list[tuple[str, re.Pattern[str]]] = []
    for info in pkgutil.walk_packages(domain.__path__, "app.domain."):
        module = importlib.import_module(info.name)
        for attr, value in vars(module).items():
            stack: list[tuple[str, object]] = [(f"{info.name}.{attr}", value)]
            while stack:
                name, item = stack.pop()
                if isinstance(item, re.Pattern):
                    found.append((name, item))
                elif isinstance(item, tuple):
                    stack += [(f"{name}[{i}]", v) for i, v in enumerate(item)]
    return found


class _TooSlow(Exception):
    pass


def _searched(pattern: re.Pattern[str], text: str) -> float:
    """Seconds one search takes, at most two (then 99)."""

    def stop(*_: object) -> None:
        raise _TooSlow

    signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, 2.0)
    started = time.perf_counter()
    try:
        pattern.search(text)
    except _TooSlow:
        return 99.0
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return time.perf_counter() - started


def pattern_audit() -> list[tuple[float, float, str, str]]:
    """(growth, seconds at 1,000 chars, pattern, unit) of patterns that grow past linear."""
    slow = []
    for name, pattern in domain_patterns():
        worst: tuple[float, float, str, str] | None = None
        for unit in AUDIT_UNITS:
            for tail in ("", "!"):
                small = _searched(pattern, made(unit, 1)[:500] + tail)
                if small < 0.0005:
                    continue
                large = _searched(pattern, made(unit, 1) + tail)
                if large / small > 2.8 and (worst is None or large > worst[1]):
                    worst = (large / small, large, name, repr(unit + tail))
        if worst is not None:
            slow.append(worst)
    return slow


MERGE_SEGMENTS = (10, 20, 40, 80)
BELIEFS_PER_SEGMENT = 250


def merge_extractions(segments: int) -> list[tuple[Extraction, Source]]:
    """``segments`` extractions of ``BELIEFS_PER_SEGMENT`` preferences no other one holds."""
    out = []
    for s in range(segments):
        prefs = [
            Belief(key=f"likes_{_word(s * BELIEFS_PER_SEGMENT + i)}", value=True)
            for i in range(BELIEFS_PER_SEGMENT)
        ]
        source = Source(id=f"seg_{s}", kind="chat", ts="2024-05-08T00:00:00Z", hash=f"h{s}")
        out.append((Extraction(prefs=prefs), source))
    return out


def merge_times(counts: Sequence[int]) -> list[tuple[int, float]]:
    """(segments, seconds to merge them one after another into one empty passport)."""
    rows = []
    for count in counts:
        extractions = merge_extractions(count)
        passport = Passport.empty("u")
        started = time.perf_counter()
        for extraction, source in extractions:
            merge_extraction(passport, extraction, source, now="2024-05-08T00:00:00Z")
        rows.append((count, time.perf_counter() - started))
    return rows


def merge_report(rows: Sequence[tuple[int, float]]) -> str:
    """Segments, seconds, and the ratio to the row before (2 when the time doubles with them)."""
    lines = ["| segments | beliefs | s | x previous |", "| --- | --- | --- | --- |"]
    previous = None
    for count, seconds in rows:
        ratio = f"{seconds / previous:.2f}" if previous else "-"
        lines.append(f"| {count} | {count * BELIEFS_PER_SEGMENT} | {seconds:.2f} | {ratio} |")
        previous = seconds
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the table and print it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=",".join(map(str, SIZES_KB)))
    parser.add_argument("--stages", default=",".join(STAGES))
    parser.add_argument("--inputs", default=",".join([*INPUTS, *VARIED]))
    parser.add_argument("--limit", type=float, default=20.0, help="seconds a cell may take")
    parser.add_argument("--patterns", action="store_true", help="audit app/domain's patterns")
    parser.add_argument("--merges", action="store_true", help="time merges as segments double")
    args = parser.parse_args(argv)
    if args.merges:
        print(merge_report(merge_times(MERGE_SEGMENTS)))
        return 0
    if args.patterns:
        for growth_, seconds, name, unit in pattern_audit():
            print(f"{growth_:5.1f}x {seconds:8.4f} s  {name}  {unit}")
        return 0
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = run(sizes, args.stages.split(","), args.inputs.split(","), args.limit)
    print(report(rows, sizes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
