"""What a warm context read costs on the development sets, in instructions: a count that a busy
machine does not disturb, where ``bench.read_speed``'s milliseconds vary from run to run.

``python -m bench.read_instructions store DIR [--half accept]`` ingests both sets' chats of a half
as ``bench.read_speed`` does and keeps each chat's index as a stored segment with its head and
questions (``DIR/realtalk-0.seg``, ``DIR/realtalk-0.json``, ...).
``python -m bench.read_instructions count DIR realtalk:0 beam:0,1 ...`` then runs, under
``valgrind --tool=cachegrind``, a process that loads those chats' indexes and one that loads them
and reads every question at 1,500 / 3,000 / 6,000 characters; the difference over the reads is
what one read costs. Runs of the same code still differ by a few percent (when the collector
runs, where objects lie), less over more reads. To compare two commits, run both commands at
each (a segment's format may differ between them): ``PYTHONPATH=<worktree> python -m
bench.read_instructions ...``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from app.domain.context import MemoryIndex, build_context
from app.domain.context.segments import decode, encode
from app.domain.passport import Passport
from bench.read_speed import BUDGETS, beam, realtalk

_SETS = {"beam": beam, "realtalk": realtalk}
_REFS = re.compile(r"I\s+refs:\s+([\d,]+)")


def store(folder: Path, half: str) -> None:
    """Each chat's index of the half as a stored segment, its head and its questions."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, load in _SETS.items():
        for n, (index, questions) in enumerate(asyncio.run(load(half))):
            (folder / f"{name}-{n}.seg").write_bytes(encode(index.to_segment()))
            doc = {"head": index.head.to_dict(), "questions": questions}
            (folder / f"{name}-{n}.json").write_text(json.dumps(doc))


def _named(folder: Path, pick: str) -> list[Path]:
    """The stored chats a pick ``set:n,m`` names, each as its path without a suffix."""
    name, numbers = pick.split(":")
    return [folder / f"{name}-{n}" for n in numbers.split(",")]


def _questions(folder: Path, pick: str) -> list[list[str]]:
    """The questions of each chat a pick names."""
    return [
        json.loads(p.with_suffix(".json").read_text())["questions"] for p in _named(folder, pick)
    ]


def _chats(folder: Path, picks: Sequence[str]) -> list[tuple[MemoryIndex, list[str]]]:
    """The stored chats named ``set:n,m``, loaded as a read finds them."""
    out = []
    for pick in picks:
        for path in _named(folder, pick):
            doc = json.loads(path.with_suffix(".json").read_text())
            segment = decode(path.with_suffix(".seg").read_bytes())
            index = MemoryIndex.of_segments(Passport.from_dict(doc["head"]), [segment])
            out.append((index, doc["questions"]))
    return out


def reads(folder: Path, picks: Sequence[str], read: bool) -> None:
    """Load the chats (and with ``read``, read each question at every budget)."""
    chats = _chats(folder, picks)
    build_context(chats[0][0], "a first read to load what every read needs", 1500)
    if read:
        for index, questions in chats:
            for q in questions:
                for budget in BUDGETS:
                    build_context(index, q, budget)


def _instructions(folder: Path, picks: Sequence[str], mode: str) -> int:
    command = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
    command += [sys.executable, "-m", "bench.read_instructions", mode, str(folder), *picks]
    # One hash seed for every run: sets and dicts then iterate and collide alike each time.
    env = os.environ | {"PYTHONHASHSEED": "0"}
    done = subprocess.run(command, capture_output=True, text=True, check=True, env=env)
    found = _REFS.search(done.stderr)
    if found is None:
        raise RuntimeError(f"no instruction count in valgrind's output: {done.stderr[-500:]}")
    return int(found.group(1).replace(",", ""))


def count(folder: Path, picks: Sequence[str]) -> None:
    """Per pick: the reads made and the millions of instructions one costs."""
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (apt-get install valgrind)")
    print(f"{'chats':14} {'reads':>6} {'M instructions per read':>24}")
    for pick in picks:
        n = sum(len(questions) for questions in _questions(folder, pick)) * len(BUDGETS)
        cost = _instructions(folder, [pick], "read") - _instructions(folder, [pick], "load")
        print(f"{pick:14} {n:>6} {cost / n / 1e6:>24.2f}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.read_instructions", description=__doc__)
    parser.add_argument("mode", choices=("store", "count", "load", "read"))
    parser.add_argument("folder", type=Path)
    parser.add_argument("picks", nargs="*", help="set:n,m (count, load, read)")
    parser.add_argument("--half", default="accept", choices=("tune", "accept", "all"))
    args = parser.parse_args(argv)
    if args.mode == "store":
        store(args.folder, args.half)
    elif args.mode == "count":
        count(args.folder, args.picks)
    else:
        reads(args.folder, args.picks, args.mode == "read")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
