from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="Usage")


@_attrs_define
class Usage:
    """Model usage of a job, over all its runs.

    Attributes:
        cache_hits (int | Unset): Segments answered from the cache, no call. Default: 0.
        calls (int | Unset):  Default: 0.
        input_tokens (int | Unset):  Default: 0.
        output_tokens (int | Unset):  Default: 0.
    """

    cache_hits: int | Unset = 0
    calls: int | Unset = 0
    input_tokens: int | Unset = 0
    output_tokens: int | Unset = 0
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        cache_hits = self.cache_hits

        calls = self.calls

        input_tokens = self.input_tokens

        output_tokens = self.output_tokens

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if cache_hits is not UNSET:
            field_dict["cache_hits"] = cache_hits
        if calls is not UNSET:
            field_dict["calls"] = calls
        if input_tokens is not UNSET:
            field_dict["input_tokens"] = input_tokens
        if output_tokens is not UNSET:
            field_dict["output_tokens"] = output_tokens

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        cache_hits = d.pop("cache_hits", UNSET)

        calls = d.pop("calls", UNSET)

        input_tokens = d.pop("input_tokens", UNSET)

        output_tokens = d.pop("output_tokens", UNSET)

        usage = cls(
            cache_hits=cache_hits,
            calls=calls,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
        )

        usage.additional_properties = d
        return usage

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
