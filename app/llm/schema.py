"""What an LLM extractor must answer, as pydantic models and a strict JSON schema, and the
validation that turns that untrusted answer into a domain ``Extraction``.

The output models mirror the passport items of ``app.domain.passport``: each carries every field
of its domain model except the ones the adapter fills from the segment (``ts``, ``source``, the
episode ``id``). ``LOCKSTEP`` records that split and a unit test fails when the two drift.

Model output is data, never code: it is parsed as JSON, clipped and checked here, and nothing in it
is executed, fetched or used as a path.
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections.abc import Callable, Collection, Iterator, Mapping
from copy import deepcopy
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from app.domain.dates import iso_utc
from app.domain.extraction.extractor import Extraction
from app.domain.ingest import segment_time
from app.domain.ingest.turns import Segment
from app.domain.keys import normalize_key
from app.domain.passport import (
    ENTITY_TYPES,
    Belief,
    Entity,
    EntityType,
    Episode,
    Observation,
    OpenLoop,
)
from app.llm.errors import InvalidOutputError

log = logging.getLogger(__name__)

SCHEMA_NAME = "passport_extraction"

# Caps on what one segment may add to a passport: a runaway or hostile answer stays small.
MAX_ITEMS = {"facts": 40, "prefs": 40, "entities": 40, "open_loops": 20, "observations": 30}
MAX_KEY_CHARS = 80
MAX_VALUE_CHARS = 300
MAX_NAME_CHARS = 120
MAX_ALIASES = 5
MAX_PARTICIPANTS = 12
MAX_TEXT_CHARS = 400  # an open loop or an observation
MAX_SUMMARY_CHARS = 600
MAX_KEYWORDS = 8  # as many as the rule extractor gives an episode
MAX_KEYWORD_CHARS = 40
MAX_REPLY_CHARS = 200_000  # a reply longer than this is not parsed at all
DEFAULT_CONFIDENCE = 0.5
DEFAULT_SALIENCE = 0.5
# The subject's own keys carry no namespace; a model that writes "user.location" means "location".
SELF_NAMESPACES = frozenset({"user", "me", "self", "subject", "the_user"})

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")  # Postgres JSONB rejects \u0000 outright
_WHEN = re.compile(r"\d{4}(?:-\d{2}(?:-\d{2})?)?")
_HAS_LETTER = re.compile(r"[^\W\d_]")

Scalar = str | int | float | bool
M = TypeVar("M", bound=BaseModel)


class _Out(BaseModel):
    # Docstrings and field descriptions below are part of the schema the model reads.
    # Unknown keys in a reply are ignored rather than refused: they cost nothing and carry nothing.
    model_config = ConfigDict(extra="ignore")


class BeliefOut(_Out):
    """A keyed belief about a person: a fact or a preference."""

    key: str = Field(
        description="snake_case key. The subject's own keys are plain (location); another "
        "person's keys are firstname.key (caroline.location). Reuse a known key when it fits."
    )
    value: Scalar = Field(description="The value, as short as it can be and still be true.")
    confidence: float = Field(
        DEFAULT_CONFIDENCE, description="0 to 1: how sure the transcript makes this."
    )


class EntityOut(_Out):
    """A named thing someone talks about."""

    name: str = Field(description="The name as written in the transcript.")
    type: EntityType = Field("other", description="The kind of thing the name refers to.")
    aliases: list[str] = Field(
        default_factory=list, description="Other names used for it in the transcript."
    )

    @field_validator("type", mode="before")
    @classmethod
    def _known_type(cls, value: object) -> object:
        # A type outside the passport's list is kept as "other" rather than losing the entity.
        text = value.strip().lower() if isinstance(value, str) else value
        return text if text in ENTITY_TYPES else "other"


class OpenLoopOut(_Out):
    """A plan, promise or to-do that is still open."""

    item: str = Field(description="What is still to be done, in a short imperative phrase.")


class ObservationOut(_Out):
    """Something that happened, with when it happened."""

    text: str = Field(description="One sentence in the third person, naming who did what.")
    when: str | None = Field(
        None,
        description="When it happened as an absolute date (YYYY-MM-DD, YYYY-MM or YYYY), "
        "resolved from the turn timestamps; null when the transcript does not say.",
    )
    participants: list[str] = Field(default_factory=list, description="Who took part.")


class EpisodeOut(_Out):
    """A summary of the whole segment."""

    summary: str = Field(description="Two or three sentences: who, what, and when.")
    salience: float = Field(
        DEFAULT_SALIENCE, description="0 to 1: how much this segment matters for remembering."
    )
    participants: list[str] = Field(default_factory=list, description="Who spoke or took part.")
    keywords: list[str] = Field(
        default_factory=list, description="Up to eight lowercase topic words."
    )


class ExtractionOutput(_Out):
    """Everything worth remembering from one segment of conversation."""

    facts: list[BeliefOut] = Field(default_factory=list, description="Stable facts.")
    prefs: list[BeliefOut] = Field(
        default_factory=list,
        description="Preferences: likes_x, dislikes_x, favorite_x, or a plain key (tone).",
    )
    entities: list[EntityOut] = Field(default_factory=list)
    open_loops: list[OpenLoopOut] = Field(default_factory=list)
    observations: list[ObservationOut] = Field(default_factory=list)
    episode: EpisodeOut


@dataclass(frozen=True, slots=True)
class Lockstep:
    """An output model, the domain model it becomes, and the fields the adapter fills itself."""

    output: type[BaseModel]
    domain: type[BaseModel]
    filled_by_adapter: frozenset[str] = field(default_factory=frozenset)


LOCKSTEP: tuple[Lockstep, ...] = (
    Lockstep(BeliefOut, Belief, frozenset({"ts", "source"})),
    Lockstep(EntityOut, Entity),
    Lockstep(OpenLoopOut, OpenLoop, frozenset({"ts", "source"})),
    Lockstep(ObservationOut, Observation, frozenset({"ts", "source"})),
    Lockstep(EpisodeOut, Episode, frozenset({"id", "ts", "source"})),
)


# --- the JSON schema ----------------------------------------------------------------------------


def strict_json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """A model's JSON schema in the subset OpenAI strict structured outputs accepts.

    Every property required, ``additionalProperties: false``, optional values as
    ``anyOf [..., null]``, references inlined (so Ollama and Anthropic read the same schema), and
    no ``title`` or ``default``.
    """
    raw = model.model_json_schema()
    defs = raw.pop("$defs", {})
    return _strict_node(raw, defs)


def _strict_node(node: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    if "$ref" in node:
        target = deepcopy(defs[node["$ref"].rsplit("/", 1)[-1]])
        target.update({k: v for k, v in node.items() if k != "$ref"})
        return _strict_node(target, defs)
    out = {k: v for k, v in node.items() if k not in ("title", "default")}
    if "properties" in out:
        out["properties"] = {
            name: _strict_node(child, defs) for name, child in out["properties"].items()
        }
        out["required"] = list(out["properties"])
        out["additionalProperties"] = False
    if "items" in out:
        out["items"] = _strict_node(out["items"], defs)
    if "anyOf" in out:
        out["anyOf"] = [_strict_node(child, defs) for child in out["anyOf"]]
    return out


def output_json_schema() -> dict[str, Any]:
    """The extraction schema every provider is given through its structured-output mechanism."""
    return strict_json_schema(ExtractionOutput)


# --- decoding -----------------------------------------------------------------------------------


def _refuse_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows")


def decode_json(text: str) -> object:
    """Parse a reply as JSON; a reply wrapped in one Markdown code fence is unwrapped."""
    body = text.strip()
    if len(body) > MAX_REPLY_CHARS:
        raise InvalidOutputError(f"the reply is {len(body)} characters long; it must be shorter")
    if body.startswith("```"):
        # Models without a native JSON mode like to fence their answer: tolerate exactly that.
        body = body.split("\n", 1)[1] if "\n" in body else ""
        body = body.rstrip().removesuffix("```").strip()
    if not body:
        raise InvalidOutputError("the reply was empty; answer with one JSON object")
    try:
        return json.loads(body, parse_constant=_refuse_constant)
    except ValueError as exc:
        raise InvalidOutputError(f"the reply is not valid JSON: {exc}") from exc
    except RecursionError as exc:  # "[[[[...": hostile or broken, never a real answer
        raise InvalidOutputError("the reply is nested too deeply") from exc


# --- validation -----------------------------------------------------------------------------------


@dataclass(slots=True)
class _Context:
    """What validation needs besides the answer: where it came from, and what it may reuse."""

    segment: Segment
    ts: str | None
    subject_namespaces: frozenset[str]
    known_keys: frozenset[str]
    dropped: dict[str, int] = field(default_factory=dict)

    def drop(self, section: str) -> None:
        self.dropped[section] = self.dropped.get(section, 0) + 1


def to_extraction(
    output: object,
    segment: Segment,
    *,
    subject: str | None = None,
    known_keys: Collection[str] = (),
    reference_ts: datetime | None = None,
) -> Extraction:
    """Validate an untrusted answer (decoded JSON or ``ExtractionOutput``) into an ``Extraction``.

    The answer's shape must be right (an object with the extraction's sections, each a list):
    otherwise ``InvalidOutputError`` says why, for a repair turn. Within that shape, lists are
    cut to ``MAX_ITEMS``, strings clipped, confidence and salience clamped into [0, 1], unknown
    entity types become "other", and items that still do not fit (a bad key, empty text, a
    wrong type) are dropped.
    """
    data = _as_mapping(output)
    ctx = _Context(
        segment=segment,
        ts=iso_utc(segment_time(segment, reference_ts)),
        subject_namespaces=_subject_namespaces(subject),
        known_keys=frozenset(known_keys),
    )
    out = Extraction()
    out.facts = _beliefs(_section(data, "facts", BeliefOut, ctx), "facts", ctx)
    out.prefs = _beliefs(_section(data, "prefs", BeliefOut, ctx), "prefs", ctx)
    out.entities = _entities(_section(data, "entities", EntityOut, ctx), ctx)
    out.open_loops = _open_loops(_section(data, "open_loops", OpenLoopOut, ctx), ctx)
    out.observations = _observations(_section(data, "observations", ObservationOut, ctx), ctx)
    out.episode = _episode(data.get("episode"), ctx)
    if ctx.dropped:
        # Counts only: the dropped text may be personal data and does not belong in logs.
        log.warning("segment %s: dropped invalid items %s", segment.id, ctx.dropped)
    return out


def _as_mapping(output: object) -> Mapping[str, Any]:
    if isinstance(output, BaseModel):
        return output.model_dump()
    if not isinstance(output, Mapping):
        raise InvalidOutputError(f"the reply must be one JSON object, not {_json_type(output)}")
    if not any(name in output for name in ExtractionOutput.model_fields):
        wanted = ", ".join(ExtractionOutput.model_fields)
        raise InvalidOutputError(f"the reply object has none of the fields {wanted}")
    return output


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _section(data: Mapping[str, Any], name: str, model: type[M], ctx: _Context) -> list[M]:
    raw = data.get(name)
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise InvalidOutputError(f"{name} must be an array, not {_json_type(raw)}")
    items: list[M] = []
    for item in raw[: MAX_ITEMS[name]]:
        try:
            items.append(model.model_validate(item))
        except ValidationError:
            ctx.drop(name)
    return items


def _subject_namespaces(subject: str | None) -> frozenset[str]:
    names = set(SELF_NAMESPACES)
    if subject:
        full = normalize_key(subject).replace(".", "_")
        names.add(full)
        names.add(full.split("_", 1)[0])  # "Melanie Smith" writes melanie.location too
    return frozenset(n for n in names if n)


def _line(text: str) -> str:
    """One line of text: control characters gone, runs of whitespace made one space."""
    return " ".join(_CONTROL.sub(" ", text).split())


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in cut[limit // 2 :]:
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:") + "…"


def _unit(value: float, default: float) -> float:
    """Into [0, 1]; NaN or infinity become the default."""
    if not math.isfinite(value):
        return default
    return round(min(max(value, 0.0), 1.0), 4)


def _names(values: list[str], limit: int, *, exclude: str = "") -> list[str]:
    """Cleaned, clipped, de-duplicated (ignoring case) names, at most ``limit``."""
    seen = {exclude.casefold()} if exclude else set()
    out: list[str] = []
    for value in values:
        name = _clip(_line(value), MAX_NAME_CHARS)
        if name and name.casefold() not in seen:
            seen.add(name.casefold())
            out.append(name)
            if len(out) == limit:
                break
    return out


def clean_key(key: str, known: Collection[str], subject_namespaces: Collection[str]) -> str:
    """A model's key in the passport's form, or "" when it is not usable as a key."""
    text = _line(key)
    if text in known:
        return text  # dedupe tier 0: a known key is reused exactly as it is stored
    norm = normalize_key(text)
    parts = norm.split(".")
    if not norm or len(norm) > MAX_KEY_CHARS or len(parts) > 2 or not _HAS_LETTER.search(norm):
        return ""
    if len(parts) == 2 and parts[0] in subject_namespaces:
        return parts[1]
    return norm


def _value(value: Scalar) -> Scalar | None:
    if isinstance(value, str):
        return _clip(_line(value), MAX_VALUE_CHARS) or None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _beliefs(items: list[BeliefOut], section: str, ctx: _Context) -> list[Belief]:
    by_key: dict[str, Belief] = {}
    for item in items:
        key = clean_key(item.key, ctx.known_keys, ctx.subject_namespaces)
        value = _value(item.value)
        if not key or value is None:
            ctx.drop(section)
            continue
        # The same key twice in one answer: the later statement is the current one.
        by_key.pop(key, None)
        by_key[key] = Belief(
            key=key,
            value=value,
            ts=ctx.ts,
            confidence=_unit(item.confidence, DEFAULT_CONFIDENCE),
            source=ctx.segment.id,
        )
    return list(by_key.values())


def _distinct(
    items: list[M], text_of: Callable[[M], str], limit: int, ctx: _Context, section: str
) -> Iterator[tuple[M, str]]:
    """Each item with its cleaned, clipped text; an empty or repeated (ignoring case) one drops."""
    seen: set[str] = set()
    for item in items:
        text = _clip(_line(text_of(item)), limit)
        if not text or text.casefold() in seen:
            ctx.drop(section)
            continue
        seen.add(text.casefold())
        yield item, text


def _entities(items: list[EntityOut], ctx: _Context) -> list[Entity]:
    return [
        Entity(name=name, type=item.type, aliases=_names(item.aliases, MAX_ALIASES, exclude=name))
        for item, name in _distinct(items, lambda e: e.name, MAX_NAME_CHARS, ctx, "entities")
    ]


def _open_loops(items: list[OpenLoopOut], ctx: _Context) -> list[OpenLoop]:
    loops = _distinct(items, lambda loop: loop.item, MAX_TEXT_CHARS, ctx, "open_loops")
    return [OpenLoop(item=text, ts=ctx.ts, source=ctx.segment.id) for _, text in loops]


def clean_when(when: str | None) -> str | None:
    """An absolute date (YYYY, YYYY-MM or YYYY-MM-DD, a datetime cut to its date), else None."""
    if not when:
        return None
    text = when.strip()
    match = _WHEN.match(text)
    if match is None:
        return None
    head = match.group(0)
    rest = text[len(head) :]
    if rest and not (len(head) == 10 and rest[0] in "T "):
        return None  # "2023-05 or so", "2023s": not a date we can file under
    try:
        if len(head) == 10:
            date.fromisoformat(head)
        elif len(head) == 7 and not 1 <= int(head[5:]) <= 12:
            return None
    except ValueError:
        return None
    return head


def _observations(items: list[ObservationOut], ctx: _Context) -> list[Observation]:
    out: list[Observation] = []
    for item in items:
        text = _clip(_line(item.text), MAX_TEXT_CHARS)
        if not text:
            ctx.drop("observations")
            continue
        out.append(
            Observation(
                text=text,
                when=clean_when(item.when),
                ts=ctx.ts,
                source=ctx.segment.id,
                participants=_names(item.participants, MAX_PARTICIPANTS),
            )
        )
    return out


def _episode(raw: object, ctx: _Context) -> Episode | None:
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise InvalidOutputError(f"episode must be an object, not {_json_type(raw)}")
    try:
        item = EpisodeOut.model_validate(raw)
    except ValidationError:
        ctx.drop("episode")
        return None
    summary = _clip(_line(item.summary), MAX_SUMMARY_CHARS)
    if not summary:
        ctx.drop("episode")
        return None
    short = [k for k in item.keywords if len(k.strip()) <= MAX_KEYWORD_CHARS]
    keywords = [k.lower() for k in _names(short, MAX_KEYWORDS)]
    return Episode(
        id=ctx.segment.id,
        ts=ctx.ts,
        summary=summary,
        salience=_unit(item.salience, DEFAULT_SALIENCE),
        source=ctx.segment.id,
        participants=_names(item.participants, MAX_PARTICIPANTS),
        keywords=keywords,
    )
