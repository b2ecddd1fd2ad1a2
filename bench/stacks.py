"""Reading py-spy's collapsed stacks (``--format raw``): frames, and the samples that count."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# Leaf frames of idle threads (the thread pools waiting for work), not the process's work.
IDLE_LEAVES = (("Condition.wait", "/threading.py"), ("_worker", "/concurrent/futures/thread.py"))


def frame_of(frame: str) -> tuple[str, str]:
    """(function, path from its package root) of one py-spy frame ``func (path:line)``."""
    name, _, rest = frame.rpartition(" (")
    path = rest.rpartition(":")[0].split("site-packages/")[-1].removeprefix(str(REPO) + "/")
    return name, "/" + path


def busy_stacks(path: Path) -> Iterator[tuple[list[tuple[str, str]], int]]:
    """Each stack of a py-spy file with its sample count, innermost frame last; idle ones left
    out."""
    for line in path.read_text(errors="replace").splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        frames = [frame_of(f) for f in stack.split(";") if " (" in f]
        if not frames:
            continue
        leaf_name, leaf_path = frames[-1]
        if any(leaf_name == n and leaf_path.endswith(p) for n, p in IDLE_LEAVES):
            continue
        yield frames, int(count_text)
