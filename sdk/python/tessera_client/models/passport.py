from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.belief import Belief
    from ..models.contradiction import Contradiction
    from ..models.entity import Entity
    from ..models.episode import Episode
    from ..models.instruction import Instruction
    from ..models.observation import Observation
    from ..models.open_loop import OpenLoop
    from ..models.passport_meta import PassportMeta
    from ..models.source import Source
    from ..models.turn_entry import TurnEntry
    from ..models.value import Value


T = TypeVar("T", bound="Passport")


@_attrs_define
class Passport:
    """One end user's memory document.

    Attributes:
        contradictions (list[Contradiction] | Unset):
        entities (list[Entity] | Unset):
        episodes (list[Episode] | Unset):
        facts (list[Belief] | Unset):
        instructions (list[Instruction] | Unset):
        meta (PassportMeta | Unset):
        observations (list[Observation] | Unset):
        open_loops (list[OpenLoop] | Unset):
        prefs (list[Belief] | Unset):
        sources (list[Source] | Unset):
        turns (list[TurnEntry] | Unset):
        updated_at (None | str | Unset):
        user_key (None | str | Unset):
        values (list[Value] | Unset):
        version (str | Unset):  Default: '2.1'.
    """

    contradictions: list[Contradiction] | Unset = UNSET
    entities: list[Entity] | Unset = UNSET
    episodes: list[Episode] | Unset = UNSET
    facts: list[Belief] | Unset = UNSET
    instructions: list[Instruction] | Unset = UNSET
    meta: PassportMeta | Unset = UNSET
    observations: list[Observation] | Unset = UNSET
    open_loops: list[OpenLoop] | Unset = UNSET
    prefs: list[Belief] | Unset = UNSET
    sources: list[Source] | Unset = UNSET
    turns: list[TurnEntry] | Unset = UNSET
    updated_at: None | str | Unset = UNSET
    user_key: None | str | Unset = UNSET
    values: list[Value] | Unset = UNSET
    version: str | Unset = "2.1"
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        contradictions: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.contradictions, Unset):
            contradictions = []
            for contradictions_item_data in self.contradictions:
                contradictions_item = contradictions_item_data.to_dict()
                contradictions.append(contradictions_item)

        entities: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.entities, Unset):
            entities = []
            for entities_item_data in self.entities:
                entities_item = entities_item_data.to_dict()
                entities.append(entities_item)

        episodes: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.episodes, Unset):
            episodes = []
            for episodes_item_data in self.episodes:
                episodes_item = episodes_item_data.to_dict()
                episodes.append(episodes_item)

        facts: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.facts, Unset):
            facts = []
            for facts_item_data in self.facts:
                facts_item = facts_item_data.to_dict()
                facts.append(facts_item)

        instructions: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.instructions, Unset):
            instructions = []
            for instructions_item_data in self.instructions:
                instructions_item = instructions_item_data.to_dict()
                instructions.append(instructions_item)

        meta: dict[str, Any] | Unset = UNSET
        if not isinstance(self.meta, Unset):
            meta = self.meta.to_dict()

        observations: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.observations, Unset):
            observations = []
            for observations_item_data in self.observations:
                observations_item = observations_item_data.to_dict()
                observations.append(observations_item)

        open_loops: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.open_loops, Unset):
            open_loops = []
            for open_loops_item_data in self.open_loops:
                open_loops_item = open_loops_item_data.to_dict()
                open_loops.append(open_loops_item)

        prefs: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.prefs, Unset):
            prefs = []
            for prefs_item_data in self.prefs:
                prefs_item = prefs_item_data.to_dict()
                prefs.append(prefs_item)

        sources: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.sources, Unset):
            sources = []
            for sources_item_data in self.sources:
                sources_item = sources_item_data.to_dict()
                sources.append(sources_item)

        turns: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.turns, Unset):
            turns = []
            for turns_item_data in self.turns:
                turns_item = turns_item_data.to_dict()
                turns.append(turns_item)

        updated_at: None | str | Unset
        if isinstance(self.updated_at, Unset):
            updated_at = UNSET
        else:
            updated_at = self.updated_at

        user_key: None | str | Unset
        if isinstance(self.user_key, Unset):
            user_key = UNSET
        else:
            user_key = self.user_key

        values: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.values, Unset):
            values = []
            for values_item_data in self.values:
                values_item = values_item_data.to_dict()
                values.append(values_item)

        version = self.version

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if contradictions is not UNSET:
            field_dict["contradictions"] = contradictions
        if entities is not UNSET:
            field_dict["entities"] = entities
        if episodes is not UNSET:
            field_dict["episodes"] = episodes
        if facts is not UNSET:
            field_dict["facts"] = facts
        if instructions is not UNSET:
            field_dict["instructions"] = instructions
        if meta is not UNSET:
            field_dict["meta"] = meta
        if observations is not UNSET:
            field_dict["observations"] = observations
        if open_loops is not UNSET:
            field_dict["open_loops"] = open_loops
        if prefs is not UNSET:
            field_dict["prefs"] = prefs
        if sources is not UNSET:
            field_dict["sources"] = sources
        if turns is not UNSET:
            field_dict["turns"] = turns
        if updated_at is not UNSET:
            field_dict["updated_at"] = updated_at
        if user_key is not UNSET:
            field_dict["user_key"] = user_key
        if values is not UNSET:
            field_dict["values"] = values
        if version is not UNSET:
            field_dict["version"] = version

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.belief import Belief  # noqa: PLC0415
        from ..models.contradiction import Contradiction  # noqa: PLC0415
        from ..models.entity import Entity  # noqa: PLC0415
        from ..models.episode import Episode  # noqa: PLC0415
        from ..models.instruction import Instruction  # noqa: PLC0415
        from ..models.observation import Observation  # noqa: PLC0415
        from ..models.open_loop import OpenLoop  # noqa: PLC0415
        from ..models.passport_meta import PassportMeta  # noqa: PLC0415
        from ..models.source import Source  # noqa: PLC0415
        from ..models.turn_entry import TurnEntry  # noqa: PLC0415
        from ..models.value import Value  # noqa: PLC0415

        d = dict(src_dict)
        _contradictions = d.pop("contradictions", UNSET)
        contradictions: list[Contradiction] | Unset = UNSET
        if _contradictions is not UNSET:
            contradictions = []
            for contradictions_item_data in _contradictions:
                contradictions_item = Contradiction.from_dict(contradictions_item_data)

                contradictions.append(contradictions_item)

        _entities = d.pop("entities", UNSET)
        entities: list[Entity] | Unset = UNSET
        if _entities is not UNSET:
            entities = []
            for entities_item_data in _entities:
                entities_item = Entity.from_dict(entities_item_data)

                entities.append(entities_item)

        _episodes = d.pop("episodes", UNSET)
        episodes: list[Episode] | Unset = UNSET
        if _episodes is not UNSET:
            episodes = []
            for episodes_item_data in _episodes:
                episodes_item = Episode.from_dict(episodes_item_data)

                episodes.append(episodes_item)

        _facts = d.pop("facts", UNSET)
        facts: list[Belief] | Unset = UNSET
        if _facts is not UNSET:
            facts = []
            for facts_item_data in _facts:
                facts_item = Belief.from_dict(facts_item_data)

                facts.append(facts_item)

        _instructions = d.pop("instructions", UNSET)
        instructions: list[Instruction] | Unset = UNSET
        if _instructions is not UNSET:
            instructions = []
            for instructions_item_data in _instructions:
                instructions_item = Instruction.from_dict(instructions_item_data)

                instructions.append(instructions_item)

        _meta = d.pop("meta", UNSET)
        meta: PassportMeta | Unset
        if isinstance(_meta, Unset):
            meta = UNSET
        else:
            meta = PassportMeta.from_dict(_meta)

        _observations = d.pop("observations", UNSET)
        observations: list[Observation] | Unset = UNSET
        if _observations is not UNSET:
            observations = []
            for observations_item_data in _observations:
                observations_item = Observation.from_dict(observations_item_data)

                observations.append(observations_item)

        _open_loops = d.pop("open_loops", UNSET)
        open_loops: list[OpenLoop] | Unset = UNSET
        if _open_loops is not UNSET:
            open_loops = []
            for open_loops_item_data in _open_loops:
                open_loops_item = OpenLoop.from_dict(open_loops_item_data)

                open_loops.append(open_loops_item)

        _prefs = d.pop("prefs", UNSET)
        prefs: list[Belief] | Unset = UNSET
        if _prefs is not UNSET:
            prefs = []
            for prefs_item_data in _prefs:
                prefs_item = Belief.from_dict(prefs_item_data)

                prefs.append(prefs_item)

        _sources = d.pop("sources", UNSET)
        sources: list[Source] | Unset = UNSET
        if _sources is not UNSET:
            sources = []
            for sources_item_data in _sources:
                sources_item = Source.from_dict(sources_item_data)

                sources.append(sources_item)

        _turns = d.pop("turns", UNSET)
        turns: list[TurnEntry] | Unset = UNSET
        if _turns is not UNSET:
            turns = []
            for turns_item_data in _turns:
                turns_item = TurnEntry.from_dict(turns_item_data)

                turns.append(turns_item)

        def _parse_updated_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        updated_at = _parse_updated_at(d.pop("updated_at", UNSET))

        def _parse_user_key(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        user_key = _parse_user_key(d.pop("user_key", UNSET))

        _values = d.pop("values", UNSET)
        values: list[Value] | Unset = UNSET
        if _values is not UNSET:
            values = []
            for values_item_data in _values:
                values_item = Value.from_dict(values_item_data)

                values.append(values_item)

        version = d.pop("version", UNSET)

        passport = cls(
            contradictions=contradictions,
            entities=entities,
            episodes=episodes,
            facts=facts,
            instructions=instructions,
            meta=meta,
            observations=observations,
            open_loops=open_loops,
            prefs=prefs,
            sources=sources,
            turns=turns,
            updated_at=updated_at,
            user_key=user_key,
            values=values,
            version=version,
        )

        passport.additional_properties = d
        return passport

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
