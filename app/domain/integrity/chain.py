"""The hash chain over a user's versions, and what later forgets record on a version.

A version's hash is the SHA-256 of the canonical JSON of::

    {"prev": <previous version's hash, or GENESIS for version 0>, "version": n, "cause": "...",
     "actor": "<API key prefix, or ''>",
     "delta": <digest of [its head delta, its snapshot or null], as written>,
     "added": [<content hashes of the log rows it added>, sorted],
     "removed": [<content hashes of the log rows it took out of the passport>, sorted],
     "redacted": [<a forget: content hashes of the rows it deleted>, sorted],
     "rewrites": {"rows": [[<hash before>, <hash after>], ...],
                  "deltas": [[version, <digest>], ...]}}

A forget deletes rows and rewrites older versions' deltas and rows, so their content no longer
hashes to what the chain holds. The chain itself is never rewritten: the older version records
what the forget did to it (its ``Redactions``), the forget's own link lists the same redactions
and rewrites, and the check accepts a change only when both agree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.domain.integrity.canonical import digest


@dataclass(frozen=True)
class Erased:
    """What a forget did to the history: rows deleted (their hashes), rows and deltas rewritten."""

    redacted: tuple[str, ...] = ()
    rows: tuple[tuple[str, str], ...] = ()  # (hash as written, hash now)
    deltas: tuple[tuple[int, str], ...] = ()  # (version, digest of its delta now)


@dataclass(frozen=True)
class Link:
    """What a version's hash is taken over, besides the previous hash, its number and cause."""

    delta: str
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    actor: str = ""
    redacted: tuple[str, ...] = ()
    rewritten_rows: tuple[tuple[str, str], ...] = ()  # (hash as written, hash now)
    rewritten_deltas: tuple[tuple[int, str], ...] = ()  # (version, digest of its delta now)

    @classmethod
    def of(
        cls,
        delta_value: Any,
        added: list[str],
        removed: list[str],
        actor: str = "",
        erased: Erased | None = None,
    ) -> Link:
        """The link of a version that wrote ``delta_value`` and these rows (hashes in any order)."""
        erased = erased or Erased()
        return cls(
            digest(delta_value),
            tuple(sorted(added)),
            tuple(sorted(removed)),
            actor,
            tuple(sorted(erased.redacted)),
            tuple(sorted(erased.rows)),
            tuple(sorted(erased.deltas)),
        )

    def to_json(self) -> dict[str, Any]:
        """The link as the version row stores it (``passport_version.chain``)."""
        return {
            "actor": self.actor,
            "delta": self.delta,
            "added": list(self.added),
            "removed": list(self.removed),
            "redacted": list(self.redacted),
            "rewrites": {
                "rows": [list(pair) for pair in self.rewritten_rows],
                "deltas": [list(pair) for pair in self.rewritten_deltas],
            },
        }

    @classmethod
    def from_json(cls, value: Any) -> Link:
        """A stored link; ValueError when it is not one."""
        if not isinstance(value, dict) or not isinstance(value.get("delta"), str):
            raise ValueError("not a chain link")
        rewrites = value.get("rewrites") or {}
        return cls(
            value["delta"],
            _strings(value.get("added")),
            _strings(value.get("removed")),
            str(value.get("actor") or ""),
            _strings(value.get("redacted")),
            tuple((str(a), str(b)) for a, b in _pairs(rewrites.get("rows"))),
            tuple((int(a), str(b)) for a, b in _pairs(rewrites.get("deltas"))),
        )


def link_hash(prev: str, version: int, cause: str, link: Link) -> str:
    """The hash of a version: over the previous hash, its number, cause and link."""
    return digest({"prev": prev, "version": version, "cause": cause, **link.to_json()})


@dataclass
class Redactions:
    """What later forgets did to one version: rows deleted or rewritten, its delta rewritten.

    Each entry names the forget version that did it; that version's link lists the same change.
    """

    added: list[tuple[str, int]] = field(default_factory=list)  # (hash, forget) of rows it added
    removed: list[tuple[str, int]] = field(default_factory=list)  # ... of rows it removed
    rows: dict[str, tuple[str, int]] = field(default_factory=dict)  # hash written -> (now, forget)
    delta: tuple[str, int] | None = None  # (digest of the delta now, forget)

    def written(self, current: str) -> str:
        """The hash a row had when written, given the hash of its content now."""
        for before, (now, _) in self.rows.items():
            if now == current:
                return before
        return current

    def rewrite_row(self, current: str, now: str, forget: int) -> str:
        """Record that ``forget`` rewrote the row whose content hashes to ``current``; returns
        the hash it was written with."""
        before = self.written(current)
        self.rows[before] = (now, forget)
        return before

    def to_json(self) -> dict[str, Any]:
        """As ``passport_version.redactions`` stores it (``{}`` when nothing was redacted)."""
        out: dict[str, Any] = {}
        if self.added:
            out["added"] = [list(p) for p in self.added]
        if self.removed:
            out["removed"] = [list(p) for p in self.removed]
        if self.rows:
            out["rows"] = {k: list(v) for k, v in sorted(self.rows.items())}
        if self.delta is not None:
            out["delta"] = list(self.delta)
        return out

    @classmethod
    def from_json(cls, value: Any) -> Redactions:
        """Stored redactions; ValueError when they are not readable."""
        if not value:
            return cls()
        if not isinstance(value, dict):
            raise ValueError("not a redaction record")
        rows = value.get("rows") or {}
        if not isinstance(rows, dict):
            raise ValueError("not a redaction record")
        found = value.get("delta")
        found_delta = (
            (str(found[0]), int(found[1])) if isinstance(found, list) and len(found) == 2 else None
        )
        return cls(
            [(str(h), int(f)) for h, f in _pairs(value.get("added"))],
            [(str(h), int(f)) for h, f in _pairs(value.get("removed"))],
            {str(k): (str(v[0]), int(v[1])) for k, v in rows.items() if _is_pair(v)},
            found_delta,
        )


def _strings(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError("not a list of hashes")
    return tuple(value)


def _is_pair(value: Any) -> bool:
    return isinstance(value, list | tuple) and len(value) == 2


def _pairs(value: Any) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(_is_pair(v) for v in value):
        raise ValueError("not a list of pairs")
    return value
