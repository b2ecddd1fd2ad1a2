"""Derived data under the chain: a stored index segment's digest, and whether it says what the
log says.

A segment is derived from log rows the version chain covers. Its digest is SHA-256 over the
root (hash) of its newest version and its bytes, so bytes changed in the database, or a segment
moved to another user or history, no longer match; a load that finds a mismatch builds the index
from the log instead. The digest has no key: someone who can write the database can recompute
it. ``records_differ`` is what holds then: it compares what a segment says of each record (the
text an agent is shown, its ids, speaker and date line) with the log row it names.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from app.domain.context.index import segment_of
from app.domain.context.records import records_of
from app.domain.context.segments import RECORD_TEXTS, StoredVectors, decode
from app.domain.context.vectors import Embedding

_DOMAIN = b"tessera.index-segment.v1\n"
# How far a stored vector's number may be from the model's making now (half precision's rounding).
VECTOR_TOLERANCE = 2e-3

Row = tuple[int, str, dict]


def segment_digest(root: str, body: bytes) -> str:
    """The digest of a stored segment whose newest version's hash is ``root``."""
    return hashlib.sha256(_DOMAIN + root.encode("utf-8") + b"\n" + body).hexdigest()


def records_differ(body: bytes, rows: Sequence[Row], model: Embedding | None = None) -> str | None:
    """How a stored segment differs from the log rows of its versions (id, kind, item), or None.

    ``rows`` are the rows the segment may index (its versions' turns, observations, episodes and
    sources, in log order); the segment may hold only the newest of them (a base an API process
    built for its cache). With ``model`` (the local embedding model), vectors it made are
    compared with what it makes of the passages now.
    """
    try:
        stored = decode(body)
    except (ValueError, IndexError, KeyError, TypeError) as exc:
        return f"it cannot be read ({exc})"
    ids = stored.texts["ids"]
    named = {str(i) for i in ids} | {e.id for e in stored.episodes}
    kept = [row for row in rows if str(row[0]) in named or row[1] == "source"]
    records = records_of(kept)
    held = stored.vectors()
    # The model's vectors are made with the rebuild, when the segment holds some of that model.
    checked = model if model is not None and held is not None and held[0] == model.name else None
    rebuilt = segment_of([r for r in records if r.id in named], checked)
    if list(rebuilt.texts["ids"]) != list(ids):
        return "its records are not the log's rows"
    for column in RECORD_TEXTS:
        if list(rebuilt.texts[column]) != list(stored.texts[column]):
            return f"its {column} are not what the log says"
    said = {r.id: r.text for r in records}
    if any(said.get(e.id) != e.text for e in stored.episodes):
        return "its episodes are not what the log says"
    return _vectors_differ(held, rebuilt.vectors()) if checked is not None else None


def _vectors_differ(held: StoredVectors | None, made: StoredVectors | None) -> str | None:
    """How stored vectors differ from what their model makes of the passages now, or None."""
    if held is None or not len(held[1]):
        return None
    if made is None or made[1].shape[1] != held[1].shape[1]:
        return "its vectors are not of the size its model makes"
    rows = len(held[1])
    # Both were kept in half precision: equal to within its rounding.
    if not np.allclose(held[1].astype(np.float32), made[1][:rows], atol=VECTOR_TOLERANCE):
        return "its vectors are not what its model makes of its passages"
    return None
