"""Recompute a user's chain from the stored rows, one version at a time, in bounded memory.

The check holds the head as the deltas build it, the previous hash, the hashes of rows a later
version takes out, and what later forgets still have to confirm; it never holds the log. Each
stored version is fed with the rows it added as stored now, each with the version that took it
out of the passport (if one did).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from app.domain.integrity.canonical import digest, row_hash
from app.domain.integrity.chain import Link, Redactions, link_hash
from app.domain.memory import delta as deltas


@dataclass(frozen=True)
class StoredVersion:
    """A version row as stored."""

    version: int
    cause: str
    hash: str | None
    chain: Any
    redactions: Any
    delta: Any
    snapshot: Any


# A log row as the check reads it: kind, item, and the version that took it out (or None).
LoggedRow = tuple[str, Any, int | None]


@dataclass(frozen=True)
class Flaw:
    """Where the chain first fails and why."""

    version: int
    reason: str


@dataclass
class ChainCheck:
    """The running state of one user's check, from ``start`` (0, or the start of a tail)."""

    prev: str
    head: dict[str, Any] | None
    start: int = 0
    versions: int = 0
    rows: int = 0
    seek: str | None = None  # a root kept elsewhere: the version whose hash it is is noted
    sought_at: int | None = None
    # forget version -> what versions before it say it did: (version saying it, what)
    owed: dict[int, list[tuple[int, tuple[Any, ...]]]] = field(default_factory=dict)
    # version -> content hashes (as stored now) of the rows it takes out of the passport
    removals: dict[int, list[str]] = field(default_factory=dict)

    @property
    def next(self) -> int:
        """The version the check expects next."""
        return self.start + self.versions

    def expect_removal(self, version: int, kind: str, item: Any) -> None:
        """Note a row added before the check's start that ``version`` took out (a tail check)."""
        self.removals.setdefault(version, []).append(row_hash(kind, item))

    def feed(self, stored: StoredVersion, added: list[LoggedRow]) -> Flaw | None:
        """Check one version with the rows it added (kind, item, the version that removed it)."""
        number = stored.version
        if number != self.next:
            return Flaw(self.next, f"version {self.next} is missing")
        try:
            link = Link.from_json(stored.chain)
            red = Redactions.from_json(stored.redactions)
        except (ValueError, TypeError, IndexError):
            return Flaw(number, "its chain record is unreadable")
        flaw = (
            self._delta(stored, link, red)
            or self._head(stored)
            or self._rows(number, link, red, added)
            or self._forget(stored, link)
        )
        if flaw is not None:
            return flaw
        if stored.hash != link_hash(self.prev, number, stored.cause, link):
            return Flaw(number, "its hash does not match its content and the previous hash")
        self.prev = stored.hash
        if stored.hash == self.seek:
            self.sought_at = number
        self.versions += 1
        self.rows += len(added)
        return None

    def finish(self, version: int, root: str | None, doc: Any) -> Flaw | None:
        """Compare the passport row (its version, root and head) with what the versions built."""
        last = self.next - 1
        for forget, owed in sorted(self.owed.items()):
            if owed:
                return Flaw(
                    owed[0][0], f"it records a redaction by version {forget}, never written"
                )
        for removed_by in sorted(self.removals):
            if self.removals[removed_by]:
                return Flaw(
                    last, f"rows are marked taken out by version {removed_by}, never written"
                )
        if version != last:
            return Flaw(
                min(version, last), f"the passport is at version {version}, its history at {last}"
            )
        if root != self.prev:
            return Flaw(last, "the passport's root is not its newest version's hash")
        if self.head is not None and doc != self.head:
            return Flaw(last, "the passport's head differs from what its versions' deltas build")
        return None

    def _owe(self, forget: int, at: int, what: tuple[Any, ...]) -> None:
        self.owed.setdefault(forget, []).append((at, what))

    def _delta(self, stored: StoredVersion, link: Link, red: Redactions) -> Flaw | None:
        found = digest([stored.delta, stored.snapshot])
        expected = link.delta
        if red.delta is not None:
            expected, forget = red.delta
            self._owe(forget, stored.version, ("delta", stored.version, expected))
        if found != expected:
            return Flaw(stored.version, "its head delta was changed")
        return None

    def _head(self, stored: StoredVersion) -> Flaw | None:
        # A snapshot is the head at its version, as every reader takes it (it is chained too).
        if stored.snapshot is not None:
            if not isinstance(stored.snapshot, dict):
                return Flaw(stored.version, "its snapshot is not a document")
            self.head = stored.snapshot
            return None
        if self.head is None:
            return Flaw(stored.version, "it has no snapshot to start the head from")
        try:
            self.head = deltas.apply(self.head, stored.delta)
        except (deltas.DeltaError, TypeError, KeyError, IndexError, AttributeError):
            return Flaw(stored.version, "its head delta does not apply to the head before it")
        return None

    def _rows(
        self,
        number: int,
        link: Link,
        red: Redactions,
        added: list[LoggedRow],
    ) -> Flaw | None:
        hashes = []
        for kind, item, removed_by in added:
            now = row_hash(kind, item)
            hashes.append(now)
            if removed_by is not None:
                if removed_by <= number:
                    return Flaw(number, "a row it added is marked taken out before it was added")
                self.removals.setdefault(removed_by, []).append(now)
        for side, rows, gone, expected in (
            ("added", hashes, red.added, link.added),
            ("removed", self.removals.pop(number, []), red.removed, link.removed),
        ):
            found: Counter[str] = Counter()
            for now in rows:
                written = red.written(now)
                if written != now:
                    self._owe(red.rows[written][1], number, ("row", written, now))
                found[written] += 1
            for hashed, forget in gone:
                found[hashed] += 1
                self._owe(forget, number, ("gone", hashed))
            if found != Counter(expected):
                return Flaw(number, f"a row it {side} was changed, deleted or slipped in")
        return None

    def _forget(self, stored: StoredVersion, link: Link) -> Flaw | None:
        owed = self.owed.pop(stored.version, [])
        if owed and stored.cause != "forget":
            return Flaw(
                owed[0][0], f"it names version {stored.version} as a forget, which it is not"
            )
        rows, versions, redacted = (
            set(link.rewritten_rows),
            set(link.rewritten_deltas),
            set(link.redacted),
        )
        for at, what in owed:
            confirmed = (
                (what[0] == "gone" and what[1] in redacted)
                or (what[0] == "row" and (what[1], what[2]) in rows)
                or (what[0] == "delta" and (what[1], what[2]) in versions)
            )
            if not confirmed:
                return Flaw(at, f"a redaction it records is not in forget version {stored.version}")
        return None
