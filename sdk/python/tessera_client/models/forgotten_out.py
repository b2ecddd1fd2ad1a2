from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.receipt_out import ReceiptOut


T = TypeVar("T", bound="ForgottenOut")


@_attrs_define
class ForgottenOut:
    """What forgetting removed, from the passport now and from every stored version.

    Attributes:
        beliefs (int): Facts, preferences, open loops, changes and entities.
        cached_extractions (int): Cached model extractions dropped.
        derived_rows (int): Observations, episodes and sources derived from them.
        payloads_scrubbed (int): Stored job payloads the turns were taken out of.
        receipt (ReceiptOut): A signed account of what a forget removed from each store; holds no content.
        rows_rewritten (int): Rows that stay with the forgotten turns taken out (a source's turn list).
        turns (int): Turns deleted.
        version (int): The new version that records the forget.
        versions_rewritten (int): Earlier versions rewritten without them.
    """

    beliefs: int
    cached_extractions: int
    derived_rows: int
    payloads_scrubbed: int
    receipt: ReceiptOut
    rows_rewritten: int
    turns: int
    version: int
    versions_rewritten: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        beliefs = self.beliefs

        cached_extractions = self.cached_extractions

        derived_rows = self.derived_rows

        payloads_scrubbed = self.payloads_scrubbed

        receipt = self.receipt.to_dict()

        rows_rewritten = self.rows_rewritten

        turns = self.turns

        version = self.version

        versions_rewritten = self.versions_rewritten

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "beliefs": beliefs,
                "cached_extractions": cached_extractions,
                "derived_rows": derived_rows,
                "payloads_scrubbed": payloads_scrubbed,
                "receipt": receipt,
                "rows_rewritten": rows_rewritten,
                "turns": turns,
                "version": version,
                "versions_rewritten": versions_rewritten,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.receipt_out import ReceiptOut  # noqa: PLC0415

        d = dict(src_dict)
        beliefs = d.pop("beliefs")

        cached_extractions = d.pop("cached_extractions")

        derived_rows = d.pop("derived_rows")

        payloads_scrubbed = d.pop("payloads_scrubbed")

        receipt = ReceiptOut.from_dict(d.pop("receipt"))

        rows_rewritten = d.pop("rows_rewritten")

        turns = d.pop("turns")

        version = d.pop("version")

        versions_rewritten = d.pop("versions_rewritten")

        forgotten_out = cls(
            beliefs=beliefs,
            cached_extractions=cached_extractions,
            derived_rows=derived_rows,
            payloads_scrubbed=payloads_scrubbed,
            receipt=receipt,
            rows_rewritten=rows_rewritten,
            turns=turns,
            version=version,
            versions_rewritten=versions_rewritten,
        )

        forgotten_out.additional_properties = d
        return forgotten_out

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
