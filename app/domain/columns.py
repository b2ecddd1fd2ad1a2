"""An append-only column of strings that the garbage collector does not walk.

A list of a few hundred thousand strings is one container, but every full collection visits each
of its items. The column keeps its strings in sealed tuples of ``CHUNK`` items instead: a tuple
that holds only strings (or None) is untracked by CPython's collector once a collection has seen
it (see ``gc.is_tracked``), so a collection walks at most the open chunk, however long the column.
"""

from __future__ import annotations

import operator
from array import array
from collections.abc import Iterable, Iterator, Sequence
from typing import TypeVar, overload

_SHIFT = 10
_MASK = (1 << _SHIFT) - 1
CHUNK = 1 << _SHIFT
# str, or str | None for a column with gaps: None is as invisible to the collector as a string.
S = TypeVar("S", bound=str | None)


class StrColumn(Sequence[S]):
    """Strings (or None) by place, appended at the end, read by place."""

    __slots__ = ("_open", "_sealed")

    def __init__(self, values: Iterable[S] = ()) -> None:
        self._sealed: list[tuple[S, ...]] = []
        self._open: list[S] = []
        self.extend(values)

    @classmethod
    def of(cls, values: Sequence[S]) -> StrColumn[S]:
        """A column of ``values`` (a whole list at once: sealed a chunk at a time)."""
        column: StrColumn[S] = cls()
        full = len(values) - len(values) % CHUNK
        column._sealed = [tuple(values[i : i + CHUNK]) for i in range(0, full, CHUNK)]
        column._open = list(values[full:])
        return column

    def append(self, value: S) -> None:
        """Add ``value`` at the end."""
        self._open.append(value)
        if len(self._open) == CHUNK:
            self._sealed.append(tuple(self._open))
            self._open = []

    def extend(self, values: Iterable[S]) -> None:
        """Add each of ``values`` at the end, in order."""
        for value in values:
            self.append(value)

    def __len__(self) -> int:
        return len(self._sealed) * CHUNK + len(self._open)

    @overload
    def __getitem__(self, i: int) -> S: ...

    @overload
    def __getitem__(self, i: slice) -> list[S]: ...

    def __getitem__(self, i: int | slice) -> S | list[S]:
        if type(i) is int and i >= 0:  # the common case, kept short: a read per line shown
            chunk = i >> _SHIFT
            sealed = self._sealed
            if chunk < len(sealed):
                return sealed[chunk][i & _MASK]
            return self._open[i - len(sealed) * CHUNK]  # an IndexError past the end
        if isinstance(i, slice):
            start, stop, step = i.indices(len(self))
            chunk = start >> _SHIFT
            if step == 1 and start < stop and chunk == (stop - 1) >> _SHIFT:  # one chunk's run
                held = self._sealed[chunk] if chunk < len(self._sealed) else self._open
                return list(held[start & _MASK : ((stop - 1) & _MASK) + 1])
            return [self[j] for j in range(start, stop, step)]
        at = operator.index(i)
        if at < 0:
            at += len(self)
        if at < 0:
            raise IndexError("column index out of range")
        return self[at]

    def __iter__(self) -> Iterator[S]:
        for chunk in self._sealed:
            yield from chunk
        yield from self._open


class StrRuns:
    """Per place, a run of strings (maybe none), appended at the end, read by place."""

    __slots__ = ("_ends", "_values")

    def __init__(self) -> None:
        self._values: StrColumn[str] = StrColumn()
        self._ends = array("q")  # per place: where its run ends in ``_values``

    @classmethod
    def of(cls, values: Sequence[str], ends: array[int]) -> StrRuns:
        """Runs of ``values``, each ending where ``ends`` says (one end per place)."""
        runs = cls()
        runs._values = StrColumn.of(values)
        runs._ends = ends
        return runs

    @property
    def values(self) -> StrColumn[str]:
        """Every run's strings, one after another."""
        return self._values

    @property
    def ends(self) -> array[int]:
        """Per place: where its run ends in ``values``."""
        return self._ends

    def append(self, run: Iterable[str]) -> None:
        """Add the next place's run."""
        self._values.extend(run)
        self._ends.append(len(self._values))

    def __len__(self) -> int:
        return len(self._ends)

    def __getitem__(self, i: int) -> tuple[str, ...]:
        ends = self._ends
        if i < 0:
            i += len(ends)
            if i < 0:
                raise IndexError("run index out of range")
        end = ends[i]  # an IndexError past the end
        start = ends[i - 1] if i else 0
        return tuple(self._values[start:end]) if start < end else ()
