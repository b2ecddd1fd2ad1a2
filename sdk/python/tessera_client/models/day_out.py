from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="DayOut")


@_attrs_define
class DayOut:
    """One UTC day.

    Attributes:
        cache_hits (int): Segments answered from the extraction cache.
        calls (int): Model calls, repairs included.
        day (datetime.date):
        ingest_bytes (int): Bytes of ingest bodies accepted (counted against TESSERA_TENANT_INGEST_BYTES_PER_DAY).
        input_tokens (int):
        jobs (int): Job runs that finished (done or failed).
        output_tokens (int):
    """

    cache_hits: int
    calls: int
    day: datetime.date
    ingest_bytes: int
    input_tokens: int
    jobs: int
    output_tokens: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        cache_hits = self.cache_hits

        calls = self.calls

        day = self.day.isoformat()

        ingest_bytes = self.ingest_bytes

        input_tokens = self.input_tokens

        jobs = self.jobs

        output_tokens = self.output_tokens

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cache_hits": cache_hits,
                "calls": calls,
                "day": day,
                "ingest_bytes": ingest_bytes,
                "input_tokens": input_tokens,
                "jobs": jobs,
                "output_tokens": output_tokens,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        cache_hits = d.pop("cache_hits")

        calls = d.pop("calls")

        day = datetime.date.fromisoformat(d.pop("day"))

        ingest_bytes = d.pop("ingest_bytes")

        input_tokens = d.pop("input_tokens")

        jobs = d.pop("jobs")

        output_tokens = d.pop("output_tokens")

        day_out = cls(
            cache_hits=cache_hits,
            calls=calls,
            day=day,
            ingest_bytes=ingest_bytes,
            input_tokens=input_tokens,
            jobs=jobs,
            output_tokens=output_tokens,
        )

        day_out.additional_properties = d
        return day_out

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
