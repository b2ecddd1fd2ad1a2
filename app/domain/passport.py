"""The passport document (SozoGraph passport format 2.x): models, migration, canonical bytes."""

from __future__ import annotations

import unicodedata
from typing import Annotated, Any, Literal

import orjson
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, PrivateAttr, Strict

from app.domain.ids import canonical_bytes

PASSPORT_FORMAT = "2.1"
ENTITY_TYPES = (
    "person",
    "organization",
    "project",
    "product",
    "place",
    "tool",
    "skill",
    "concept",
    "other",
)
EntityType = Literal[
    "person", "organization", "project", "product", "place", "tool", "skill", "concept", "other"
]
SECTIONS = (
    "facts",
    "prefs",
    "entities",
    "open_loops",
    "contradictions",
    "instructions",
    "values",
    "observations",
    "episodes",
    "sources",
    "turns",
)


# A JSON number, as the spec says: true/false and numeric strings are not read as one.
Number = Annotated[float, Strict()]


class PassportError(ValueError):
    """A document that cannot be read as a passport."""


# A user key is the client's own id of its user: 1-256 characters, neither starting nor ending
# with a space, without control characters or slashes (a path could not hold it), and not
# starting with a dot ("." and ".." are resolved away by clients before a request is sent).
USER_KEY_MAX_CHARS = 256
# C1 controls (\x7f-\x9f, NEL among them) and the byte-order mark are named outright: regex
# engines disagree on whether ``\s`` holds them, and the spec's readers must agree with ours.
USER_KEY_PATTERN = (
    r"^[^.\s\x00-\x1f\x7f-\x9f\ufeff/\\]"
    r"([^\x00-\x1f\x7f-\x9f/\\]*[^\s\x00-\x1f\x7f-\x9f\ufeff/\\])?$"
)
USER_KEY_RULE = (
    "1-256 characters; no control characters, slash or backslash; no space at either end; "
    "not starting with a dot. Keys are compared in Unicode NFC: composed and decomposed "
    "letters name the same user."
)


def normal_user_key(key: str) -> str:
    """The one form a user key is stored and compared in: Unicode NFC."""
    return key if key.isascii() else unicodedata.normalize("NFC", key)


class _Item(BaseModel):
    # extra="allow" keeps keys we do not know, so an import/export round trip loses nothing.
    model_config = ConfigDict(extra="allow", validate_assignment=False)

    def to_dict(self) -> dict[str, Any]:
        """Only the fields that were given, plus unknown ones: what came in goes out."""
        return self.model_dump(mode="json", exclude_unset=True)


def _not_only_nul(key: str) -> str:
    """A key with something besides NUL (JSONB cannot hold NUL; it is dropped before storing)."""
    if not key.strip("\x00"):
        raise ValueError("a key of only NUL characters is empty once they are dropped")
    return key


class Belief(_Item):
    """A keyed belief: a fact or a preference. The newest ``ts`` wins."""

    key: Annotated[str, AfterValidator(_not_only_nul)] = Field(
        min_length=1, max_length=512, json_schema_extra={"pattern": "[^\\x00]"}
    )
    value: Any = None
    ts: str | None = None
    confidence: Number | None = None
    source: str | None = None


class Entity(_Item):
    """A named thing the user talks about."""

    name: str = Field(min_length=1, max_length=512)
    type: EntityType = "other"
    aliases: list[str] = Field(default_factory=list)


class OpenLoop(_Item):
    """A plan, promise or to-do that is not closed yet."""

    item: str = Field(min_length=1)
    ts: str | None = None
    source: str | None = None


class Contradiction(_Item):
    """A keyed belief that changed: the old value, the new one, and when each was said."""

    key: str
    old: Any = None
    new: Any = None
    ts_old: str | None = None
    ts_new: str | None = None
    source_old: str | None = None
    source_new: str | None = None


class Instruction(_Item):
    """A standing instruction the user gave the agent ("always answer in French").

    ``key`` is what it governs: a newer instruction of the same key replaces it, and the ones it
    replaced stay in ``history``, newest first, each with its own ``ts``, ``source`` and
    ``turn_ids``, so a forget can take any of them away.
    """

    key: str = Field(min_length=1, max_length=512)
    text: str = Field(min_length=1)
    ts: str | None = None
    source: str | None = None
    history: list[dict[str, Any]] = Field(default_factory=list)


class Value(_Item):
    """A value the user stated about a thing of theirs ("Redis memory usage: 200MB").

    ``key`` is what it is about (the subject's stemmed words), ``about`` the subject as said.
    A newer value of the same key replaces it; the ones it replaced stay in ``history``, newest
    first, each with its own ``value``, ``ts``, ``source`` and ``turn_ids``.
    """

    key: str = Field(min_length=1, max_length=512)
    about: str = ""
    value: str = Field(min_length=1, max_length=512)
    ts: str | None = None
    source: str | None = None
    history: list[dict[str, Any]] = Field(default_factory=list)


class Observation(_Item):
    """Something that happened, in the third person, with its absolute date."""

    text: str = Field(min_length=1)
    when: str | None = None
    ts: str | None = None
    source: str | None = None
    participants: list[str] = Field(default_factory=list)


class Episode(_Item):
    """A summary of one segment of conversation."""

    id: str = Field(min_length=1)
    ts: str | None = None
    summary: str = ""
    salience: Number | None = None
    source: str | None = None
    participants: list[str] = Field(default_factory=list)
    keywords: list[str] = Field(default_factory=list)


class Source(_Item):
    """Where memory came from; ``turn_ids`` trace it back to the client's own message ids."""

    id: str = Field(min_length=1)
    kind: str = "chat"
    ts: str | None = None
    hash: str | None = None
    turn_ids: list[str] = Field(default_factory=list)


class SaidDate(_Item):
    """A relative date in a turn and the day it was resolved to when it was said."""

    said: str
    day: str


class TurnEntry(_Item):
    """One turn as it was said, verbatim: Tessera's addition to the SozoGraph format.

    ``id`` is the client's own message id (a content-derived ``t_...`` id when it gave none),
    ``dates`` the relative dates of the text resolved at ingest, beside the text, never in it.
    """

    id: str = Field(min_length=1, max_length=200)
    speaker: str = ""
    # user, assistant, system or tool: given by the client, or read from a role-word speaker.
    role: str | None = None
    text: str
    ts: str | None = None
    session: str | None = None
    source: str | None = None
    dates: list[SaidDate] = Field(default_factory=list)


class Passport(_Item):
    """One end user's memory document."""

    version: str = PASSPORT_FORMAT
    updated_at: str | None = None
    user_key: str | None = None
    facts: list[Belief] = Field(default_factory=list)
    prefs: list[Belief] = Field(default_factory=list)
    entities: list[Entity] = Field(default_factory=list)
    open_loops: list[OpenLoop] = Field(default_factory=list)
    contradictions: list[Contradiction] = Field(default_factory=list)
    instructions: list[Instruction] = Field(default_factory=list)
    values: list[Value] = Field(default_factory=list)
    observations: list[Observation] = Field(default_factory=list)
    episodes: list[Episode] = Field(default_factory=list)
    sources: list[Source] = Field(default_factory=list)
    turns: list[TurnEntry] = Field(default_factory=list)
    meta: dict[str, Any] = Field(default_factory=dict)
    # Working state a writer keeps with this object while it changes it (never serialised).
    _scratch: dict[str, Any] = PrivateAttr(default_factory=dict)

    def scratch(self) -> dict[str, Any]:
        """Working state kept with this object (a merge's lookup tables); never serialised."""
        return self._scratch

    @classmethod
    def empty(cls, user_key: str) -> Passport:
        """A new passport with every section present and empty."""
        return cls(
            version=PASSPORT_FORMAT,
            updated_at=None,
            user_key=user_key,
            facts=[],
            prefs=[],
            entities=[],
            open_loops=[],
            contradictions=[],
            observations=[],
            episodes=[],
            sources=[],
            turns=[],
            meta={},
        )

    @classmethod
    def from_dict(cls, doc: Any) -> Passport:
        """Read a passport of format 1.x or 2.x; a 1.x document is migrated to 2.1."""
        if not isinstance(doc, dict):
            raise PassportError("a passport must be a JSON object")
        # A private copy: nested values (meta, unknown keys) must never be shared with the caller,
        # or a merge would also change the "old" document a version delta is computed from.
        try:
            doc = orjson.loads(orjson.dumps(doc))
        except (TypeError, orjson.JSONEncodeError) as exc:
            raise PassportError(f"not JSON-serialisable: {exc}") from exc
        fmt = str(doc.get("version", PASSPORT_FORMAT))
        major = fmt.split(".", 1)[0]
        if major == "1":
            doc = _migrate_1_to_2(doc)
        elif major != "2":
            raise PassportError(f"unsupported passport format version {fmt!r} (1.x and 2.x load)")
        try:
            return cls.model_validate(doc)
        except ValueError as exc:
            raise PassportError(str(exc)) from exc

    def to_dict(self) -> dict[str, Any]:
        """What came in goes out; sections filled after loading are always written."""
        out = super().to_dict()
        for section in (*SECTIONS, "meta"):
            if section not in out and getattr(self, section):
                self.model_fields_set.add(section)
                out[section] = self.model_dump(mode="json", exclude_unset=True, include={section})[
                    section
                ]
        return out

    def known_keys(self) -> list[str]:
        """Every fact and preference key, for the extractor to reuse (dedupe tier 0)."""
        return [b.key for b in self.facts] + [b.key for b in self.prefs]

    def to_bytes(self) -> bytes:
        """Canonical serialisation: sorted keys, so the same passport gives the same bytes."""
        return canonical_bytes(self.to_dict())


def known_keys_of(doc: dict[str, Any]) -> list[str]:
    """``Passport.known_keys`` of a stored head, read without parsing the whole document."""
    keys = []
    for section in ("facts", "prefs"):
        items = doc.get(section)
        for item in items if isinstance(items, list) else ():
            if isinstance(item, dict) and isinstance(item.get("key"), str):
                keys.append(item["key"])
    return keys


def _migrate_1_to_2(doc: dict[str, Any]) -> dict[str, Any]:
    """1.x had no episodes or observations; some writers kept beliefs as a key->value map."""
    out = dict(doc)
    for section in ("facts", "prefs"):
        value = out.get(section)
        if isinstance(value, dict):
            out[section] = [{"key": k, "value": v} for k, v in value.items()]
    for section in SECTIONS:
        out.setdefault(section, [])
    out.setdefault("meta", {})
    meta = dict(out["meta"]) if isinstance(out["meta"], dict) else {"legacy_meta": out["meta"]}
    meta.setdefault("migrated_from", str(doc.get("version")))
    out["meta"] = meta
    out["version"] = PASSPORT_FORMAT
    return out
