from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="PlanOut")


@_attrs_define
class PlanOut:
    """What processing a payload takes: segments and extraction calls.

    Attributes:
        estimated_input_tokens (int):
        extraction_calls (int):
        extractor (str): The configured extractor: rules or provider:model.
        interactions (int):
        max_segment_tokens (int):
        mean_segment_tokens (float):
        model_calls (int): Paid model calls at most (a repaired answer adds one; cached segments cost none): 0 with the
            rule extractor, else one per segment.
        segments (int):
    """

    estimated_input_tokens: int
    extraction_calls: int
    extractor: str
    interactions: int
    max_segment_tokens: int
    mean_segment_tokens: float
    model_calls: int
    segments: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        estimated_input_tokens = self.estimated_input_tokens

        extraction_calls = self.extraction_calls

        extractor = self.extractor

        interactions = self.interactions

        max_segment_tokens = self.max_segment_tokens

        mean_segment_tokens = self.mean_segment_tokens

        model_calls = self.model_calls

        segments = self.segments

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "estimated_input_tokens": estimated_input_tokens,
                "extraction_calls": extraction_calls,
                "extractor": extractor,
                "interactions": interactions,
                "max_segment_tokens": max_segment_tokens,
                "mean_segment_tokens": mean_segment_tokens,
                "model_calls": model_calls,
                "segments": segments,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        estimated_input_tokens = d.pop("estimated_input_tokens")

        extraction_calls = d.pop("extraction_calls")

        extractor = d.pop("extractor")

        interactions = d.pop("interactions")

        max_segment_tokens = d.pop("max_segment_tokens")

        mean_segment_tokens = d.pop("mean_segment_tokens")

        model_calls = d.pop("model_calls")

        segments = d.pop("segments")

        plan_out = cls(
            estimated_input_tokens=estimated_input_tokens,
            extraction_calls=extraction_calls,
            extractor=extractor,
            interactions=interactions,
            max_segment_tokens=max_segment_tokens,
            mean_segment_tokens=mean_segment_tokens,
            model_calls=model_calls,
            segments=segments,
        )

        plan_out.additional_properties = d
        return plan_out

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
