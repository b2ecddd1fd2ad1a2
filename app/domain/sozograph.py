"""The SozoGraph library's own reading of the passport format, both ways.

The library (0.3) reads a fixed set of fields per section and refuses any other field of an item;
it keeps unknown top-level sections under ``meta._unknown``. An export for it therefore holds
each item with only those fields, and, as it has no section for verbatim turns, each turn as an
observation: ``"<speaker>: <text>"``, with its time, its first resolved date as ``when``, its
session as ``source`` and its speaker as the one participant. A SozoGraph file read back
(``turns_of_observations``) gives those observations back as turns, so Tessera → SozoGraph →
Tessera keeps who said what and when (a turn's own id is the one thing the format cannot carry:
a turn comes back with the id ingest derives from its content, which is its id again when the
client gave none; the native export keeps everything).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from app.domain.dates import iso_utc, parse_instant
from app.domain.ids import turn_content_id

# The fields the SozoGraph library (0.3) reads per section; it refuses any other field of an
# item, while it keeps unknown top-level sections (such as ``turns``) under ``meta._unknown``.
SOZOGRAPH_FIELDS = {
    "facts": ("key", "value", "ts", "confidence", "source"),
    "prefs": ("key", "value", "ts", "confidence", "source"),
    "entities": ("name", "type", "aliases"),
    "open_loops": ("item", "ts", "source"),
    "contradictions": ("key", "old", "new", "ts_old", "ts_new", "source_old", "source_new"),
    "episodes": ("id", "ts", "summary", "participants", "keywords", "salience", "source"),
    "observations": ("text", "ts", "when", "source", "participants"),
    "sources": ("id", "kind", "ts", "hash", "source"),
}
SOZOGRAPH_SOURCE_KINDS = ("transcript", "firestore", "rtdb", "supabase", "chat", "form", "unknown")
# What stands in for a provenance the library requires and an item lacks.
UNKNOWN_SOURCE = "unknown"
UNKNOWN_TIME = "1970-01-01T00:00:00Z"


def _time(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    return parse_instant(value)


def _iso_or_none(value: Any) -> str | None:
    return value if _time(value) is not None else None


def sozograph_item(section: str, item: Any) -> dict[str, Any] | None:
    """An item as the SozoGraph library reads it (None: it cannot hold one like it).

    Fields the library does not know are left out; a time it could not read, a confidence or
    salience outside 0..1 and a missing value are left to its defaults; a required provenance
    that is missing reads "unknown". Use the native export to keep everything.
    """
    fields = SOZOGRAPH_FIELDS.get(section)
    if fields is None or not isinstance(item, dict):
        return item if fields is None else None
    out = {k: item[k] for k in fields if k in item and item[k] is not None}
    for name in ("ts",):
        if name in out and _iso_or_none(out[name]) is None:
            del out[name]
    for name in ("confidence", "salience"):
        value = out.get(name)
        if value is not None and not (isinstance(value, int | float) and 0 <= value <= 1):
            del out[name]
    if section in ("facts", "prefs"):
        out.setdefault("value", item.get("value"))
    if section == "contradictions":
        out.setdefault("old", item.get("old"))
        out.setdefault("new", item.get("new"))
        for name in ("ts_old", "ts_new"):
            out[name] = _iso_or_none(out.get(name)) or UNKNOWN_TIME
        for name in ("source_old", "source_new"):
            out.setdefault(name, UNKNOWN_SOURCE)
    if section == "observations":
        out["when"] = out.get("when") if isinstance(out.get("when"), str) else ""
    if section == "sources" and out.get("kind") not in SOZOGRAPH_SOURCE_KINDS:
        out["kind"] = "chat" if out.get("kind") in ("text",) else UNKNOWN_SOURCE
    if "source" in fields and section != "sources" and not out.get("source"):
        out["source"] = UNKNOWN_SOURCE
    required = {
        "facts": ("key",),
        "prefs": ("key",),
        "entities": ("name",),
        "open_loops": ("item",),
        "episodes": ("id", "summary"),
        "observations": ("text",),
        "sources": ("id",),
    }
    if any(not out.get(name) for name in required.get(section, ())):
        return None
    return out


def sozograph_value(key: str, value: Any) -> Any:
    """A top-level value of a document as the SozoGraph library reads it."""
    if key in SOZOGRAPH_FIELDS and isinstance(value, list):
        return [i for i in (sozograph_item(key, item) for item in value) if i is not None]
    if key == "updated_at":
        return _iso_or_none(value)  # None: left out, the library stamps its own
    if key == "meta" and not isinstance(value, dict):
        return {"legacy_meta": value}
    return value


def sozograph_row(section: str, item: Any) -> dict[str, Any] | None:
    """An item of a log section as the library reads it: a turn as an observation."""
    if section == "turns":
        return turn_observation(item)
    return sozograph_item(section, item)


def turn_observation(turn: Any) -> dict[str, Any] | None:
    """A verbatim turn as a SozoGraph observation (None: one with no text)."""
    if not isinstance(turn, dict) or not isinstance(turn.get("text"), str) or not turn["text"]:
        return None
    speaker = _text(turn.get("speaker")).strip() or _text(turn.get("role")).strip()
    out: dict[str, Any] = {"text": f"{speaker}: {turn['text']}" if speaker else turn["text"]}
    ts = _iso_or_none(turn.get("ts"))
    if ts is not None:
        out["ts"] = ts
    dates = turn.get("dates")
    first = dates[0] if isinstance(dates, list) and dates else None
    day = first.get("day") if isinstance(first, dict) else None
    out["when"] = day if isinstance(day, str) and _iso_or_none(day) is not None else ""
    session, source = turn.get("session"), turn.get("source")
    out["source"] = next((s for s in (session, source) if isinstance(s, str) and s), UNKNOWN_SOURCE)
    if speaker:
        out["participants"] = [speaker]
    return out


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def sozograph_document(doc: dict[str, Any]) -> dict[str, Any]:
    """A whole document as the library reads it: its turns among the observations."""
    out = dict(doc)
    turns = out.pop("turns", None)
    if isinstance(turns, list) and turns:
        said = [o for o in (turn_observation(t) for t in turns) if o is not None]
        held = out.get("observations")
        # Turns first, as the streamed export writes them (log kinds in order).
        out["observations"] = [*said, *(held if isinstance(held, list) else [])]
    return {
        k: v
        for k, v in ((k, sozograph_value(k, v)) for k, v in out.items())
        if v is not None or k != "updated_at"
    }


def turns_of_observations(doc: Any) -> Any:
    """A SozoGraph file's observations of one speaker's words back as turns.

    Only a document without a ``turns`` section is read so (a Tessera document has one, even
    empty); an observation is a turn when it has exactly one participant and its text starts
    with that name and a colon, as ``turn_observation`` writes it. Other observations stay.
    """
    if not isinstance(doc, dict) or "turns" in doc or not isinstance(doc.get("observations"), list):
        return doc
    turns: list[dict[str, Any]] = []
    kept: list[Any] = []
    seen: dict[tuple[str, str, str | None, str | None], int] = {}
    for item in doc["observations"]:
        turn = _turn_of(item)
        if turn is None:
            kept.append(item)
            continue
        # The id ingest derives for a turn the client gave none: such a turn comes back as it was.
        said = (turn["speaker"], turn["text"], turn.get("ts"), turn.get("session"))
        nth = seen[said] = seen.get(said, -1) + 1
        turns.append({"id": turn_content_id(*said, nth), **turn})
    if not turns:
        return doc
    return {**doc, "observations": kept, "turns": turns}


def _turn_of(item: Any) -> dict[str, Any] | None:
    if not isinstance(item, dict) or not isinstance(item.get("text"), str):
        return None
    people = item.get("participants")
    if not isinstance(people, list) or len(people) != 1 or not isinstance(people[0], str):
        return None
    speaker = people[0]
    prefix = f"{speaker}: "
    if not speaker or not item["text"].startswith(prefix) or len(item["text"]) == len(prefix):
        return None
    turn: dict[str, Any] = {"speaker": speaker, "text": item["text"][len(prefix) :]}
    when = _time(item.get("ts"))
    if when is not None:
        turn["ts"] = iso_utc(when)
    source = item.get("source")
    if isinstance(source, str) and source and source != UNKNOWN_SOURCE:
        turn["session"] = source
    return turn
