"""The hash chain over versions: canonical JSON, the check, redactions, seals and receipts."""

from __future__ import annotations

import copy
import hashlib
import json
import unicodedata
from dataclasses import dataclass, field, replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.domain.integrity.canonical import GENESIS, chain_bytes, digest, row_hash
from app.domain.integrity.chain import Erased, Link, Redactions, link_hash
from app.domain.integrity.check import ChainCheck, Flaw, StoredVersion
from app.domain.integrity.receipts import signed, verify
from app.domain.integrity.seal import INTEGRITY, SealBroken, SectionDigest, unsealed
from app.domain.memory import delta


def outside_canonical(value: Any) -> bytes:
    """Canonical JSON as docs/memory.md tells an outside tool to compute it (stdlib only)."""

    def nfc(v: Any) -> Any:
        if isinstance(v, str):
            return unicodedata.normalize("NFC", v)
        if isinstance(v, dict):
            return {nfc(k): nfc(x) for k, x in v.items()}
        if isinstance(v, list):
            return [nfc(x) for x in v]
        return v

    text = json.dumps(nfc(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text.encode("utf-8")


def test_canonical_json_is_what_an_outside_tool_computes() -> None:
    value = {"b": [1, "Cafe\u0301", {"z": None, "a": True}], "a": "naïve 東京", "n": -3}
    assert chain_bytes(value) == outside_canonical(value)
    assert digest(value) == hashlib.sha256(outside_canonical(value)).hexdigest()


def test_key_order_and_unicode_form_do_not_change_a_rows_hash() -> None:
    one = {"text": "Café", "speaker": "Ana"}
    other = {"speaker": "Ana", "text": "Cafe\u0301"}
    assert row_hash("turn", one) == row_hash("turn", other)
    assert row_hash("turn", one) != row_hash("observation", one)
    assert row_hash("turn", one) != row_hash("turn", {**one, "text": "Cafe"})


@dataclass
class History:
    """A user's versions as the service writes them, kept in memory for the check."""

    versions: list[StoredVersion] = field(default_factory=list)
    rows: list[dict[str, Any]] = field(default_factory=list)  # kind, item, added, removed
    head: dict[str, Any] = field(default_factory=dict)
    root: str = GENESIS

    def write(
        self,
        new_head: dict[str, Any],
        added: list[tuple[str, dict[str, Any]]] = (),  # type: ignore[assignment]
        removed: list[int] = (),  # type: ignore[assignment]
        cause: str = "ingest",
        erased: Erased | None = None,
    ) -> int:
        number = len(self.versions)
        if number == 0:
            change, snapshot = None, new_head
        else:
            change, snapshot = delta.diff(self.head, new_head), None
        for index in removed:
            self.rows[index]["removed"] = number
        link = Link.of(
            [change, snapshot],
            [row_hash(k, i) for k, i in added],
            [row_hash(self.rows[i]["kind"], self.rows[i]["item"]) for i in removed],
            "key1",
            erased,
        )
        self.root = link_hash(self.root, number, cause, link)
        self.versions.append(
            StoredVersion(number, cause, self.root, link.to_json(), {}, change, snapshot)
        )
        for kind, item in added:
            self.rows.append({"kind": kind, "item": item, "added": number, "removed": None})
        self.head = copy.deepcopy(new_head)
        return number

    def check(self, doc: dict[str, Any] | None = None) -> Flaw | None:
        state = ChainCheck(GENESIS, None)
        for stored in self.versions:
            added = [
                (r["kind"], r["item"], r["removed"])
                for r in self.rows
                if r["added"] == stored.version
            ]
            flaw = state.feed(stored, added)
            if flaw is not None:
                return flaw
        return state.finish(len(self.versions) - 1, self.root, self.head if doc is None else doc)


def turn(text: str) -> tuple[str, dict[str, Any]]:
    return ("turn", {"speaker": "Ana", "text": text})


def three_versions() -> History:
    history = History()
    history.write({"facts": []}, cause="create")
    history.write({"facts": [{"key": "city", "value": "Lyon"}]}, [turn("I live in Lyon")])
    history.write(
        {"facts": [{"key": "city", "value": "Oslo"}]},
        [turn("I moved to Oslo"), ("observation", {"text": "moved"})],
        removed=[],
    )
    return history


def test_an_untouched_history_verifies() -> None:
    assert three_versions().check() is None


def test_a_changed_turn_is_reported_at_the_version_that_added_it() -> None:
    history = three_versions()
    history.rows[0]["item"]["text"] = "I live in Paris"
    assert history.check() == Flaw(1, "a row it added was changed, deleted or slipped in")


def test_a_deleted_or_added_row_is_reported() -> None:
    history = three_versions()
    del history.rows[2]
    assert history.check() is not None and history.check().version == 2  # type: ignore[union-attr]
    history = three_versions()
    history.rows.append({"kind": "turn", "item": {"text": "x"}, "added": 1, "removed": None})
    assert history.check().version == 1  # type: ignore[union-attr]


def test_a_changed_head_delta_is_reported_at_its_version() -> None:
    history = three_versions()
    stored = history.versions[2]
    tampered = copy.deepcopy(stored.delta)
    tampered["d"]["facts"] = {"r": [{"key": "city", "value": "Rome"}]}
    history.versions[2] = replace(stored, delta=tampered)
    assert history.check() == Flaw(2, "its head delta was changed")


def test_a_changed_version_row_breaks_the_hash() -> None:
    history = three_versions()
    history.versions[1] = replace(history.versions[1], cause="import")
    assert history.check() == Flaw(1, "its hash does not match its content and the previous hash")


def test_a_missing_version_and_a_changed_head_are_reported() -> None:
    history = three_versions()
    del history.versions[1]
    assert history.check() == Flaw(1, "version 1 is missing")
    history = three_versions()
    flaw = history.check({"facts": [{"key": "city", "value": "Rome"}]})
    assert flaw == Flaw(2, "the passport's head differs from what its versions' deltas build")


def test_a_root_from_elsewhere_is_not_this_histories_root() -> None:
    history = three_versions()
    state = ChainCheck(GENESIS, None)
    for stored in history.versions:
        added = [(r["kind"], r["item"], None) for r in history.rows if r["added"] == stored.version]
        assert state.feed(stored, added) is None
    assert state.finish(2, "f" * 64, history.head) is not None


def forget_turn(history: History, index: int) -> None:
    """What the forget service does: delete the row, mark it on its version, record a forget."""
    row = history.rows.pop(index)
    written = row_hash(row["kind"], row["item"])
    number = len(history.versions)
    stored = history.versions[row["added"]]
    red = Redactions.from_json(stored.redactions)
    red.added.append((written, number))
    history.versions[row["added"]] = replace(stored, redactions=red.to_json())
    history.write(history.head, cause="forget", erased=Erased(redacted=(written,)))


def test_a_forget_keeps_the_chain_whole_without_the_text() -> None:
    history = three_versions()
    forget_turn(history, 0)
    assert history.check() is None
    assert all("Lyon" not in json.dumps(r) for r in history.rows)


def test_a_redaction_no_forget_records_is_reported() -> None:
    history = three_versions()
    forget_turn(history, 0)
    # Someone deletes another row and marks it redacted, naming the same forget.
    row = history.rows.pop(0)
    stored = history.versions[row["added"]]
    red = Redactions.from_json(stored.redactions)
    red.added.append((row_hash(row["kind"], row["item"]), 3))
    history.versions[row["added"]] = replace(stored, redactions=red.to_json())
    assert history.check() == Flaw(2, "a redaction it records is not in forget version 3")


def test_a_rewritten_row_verifies_only_with_its_forgets_record() -> None:
    history = three_versions()
    row = history.rows[2]
    before = row_hash(row["kind"], row["item"])
    row["item"] = {"text": "moved", "turn_ids": []}
    now = row_hash(row["kind"], row["item"])
    stored = history.versions[2]
    red = Redactions()
    red.rewrite_row(before, now, 3)
    history.versions[2] = replace(stored, redactions=red.to_json())
    history.write(history.head, cause="forget", erased=Erased(rows=((before, now),)))
    assert history.check() is None
    row["item"] = {"text": "edited again"}
    assert history.check() == Flaw(2, "a row it added was changed, deleted or slipped in")


def test_unreadable_chain_records_are_a_flaw_not_an_error() -> None:
    history = three_versions()
    history.versions[1] = replace(history.versions[1], chain={"delta": 5})
    assert history.check() == Flaw(1, "its chain record is unreadable")
    history = three_versions()
    history.versions[1] = replace(history.versions[1], redactions={"rows": [1, 2, 3]})
    assert history.check() == Flaw(1, "its chain record is unreadable")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(json_values)
def test_property_canonical_form_matches_the_documented_one(value: Any) -> None:
    assert chain_bytes(value) == outside_canonical(value)


# Text in decomposed forms too: a key that composes may sort elsewhere once normalised.
decomposable = st.text(alphabet="aceCE\u0301\u0308\u00e9\u00c9 ", max_size=8)
mixed_values = st.recursive(
    st.none() | st.integers(-5, 5) | decomposable,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(decomposable, inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(json_values | mixed_values)
def test_property_a_digest_is_the_hash_of_the_documented_form(value: Any) -> None:
    assert digest(value) == hashlib.sha256(outside_canonical(value)).hexdigest()


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.sampled_from(["chain", "redactions", "hash", "delta"]), json_values))
def test_property_any_stored_junk_is_reported_as_a_flaw(junk: dict[str, Any]) -> None:
    history = three_versions()
    history.versions[1] = replace(history.versions[1], **junk)
    flaw = history.check()
    assert flaw is None or flaw.version <= 2


def test_a_seal_accepts_the_export_and_names_the_edited_section() -> None:
    doc = {"facts": [{"key": "a", "value": 1}], "turns": [{"text": "hi"}], "version": "2.1"}
    digests = {}
    for key, value in doc.items():
        if isinstance(value, list):
            section = SectionDigest()
            for item in value:
                section.add(item, chain_bytes(item))
            digests[key] = section.hexdigest()
            assert digests[key] == digest(value)
        else:
            digests[key] = digest(value)
    sealed = {**doc, INTEGRITY: {"root": "r", "version": 3, "digests": digests}}
    assert unsealed(sealed) == doc
    with pytest.raises(SealBroken, match="turns: not as exported"):
        unsealed({**sealed, "turns": [{"text": "hello"}]})
    with pytest.raises(SealBroken, match="prefs: a section the export did not hold"):
        unsealed({**sealed, "prefs": []})
    with pytest.raises(SealBroken, match="facts: a section of the export is missing"):
        unsealed({k: v for k, v in sealed.items() if k != "facts"})
    assert unsealed(doc) == doc


def test_a_receipt_verifies_with_its_secret_and_not_once_changed() -> None:
    receipt = signed({"id": "r1", "removed": {"turns": 1}, "redacted": ["ab"]}, b"s3cret")
    assert receipt["algorithm"] == "HMAC-SHA256"
    assert verify(receipt, b"s3cret")
    assert not verify(receipt, b"other")
    assert not verify({**receipt, "removed": {"turns": 0}}, b"s3cret")
    unsigned = signed({"id": "r2"}, None)
    assert unsigned["signature"] is None and not verify(unsigned, b"s3cret")


def test_a_row_taken_out_verifies_and_a_changed_removal_is_reported() -> None:
    history = three_versions()
    number = history.write(history.head, [turn("I take that back")], removed=[1])
    assert history.check() is None
    history.rows[1]["removed"] = None  # put back in the passport behind the API's back
    assert history.check() == Flaw(number, "a row it removed was changed, deleted or slipped in")
    history.rows[1]["removed"] = 9  # taken out by a version that never was, instead
    assert history.check() == Flaw(number, "a row it removed was changed, deleted or slipped in")
    history = three_versions()
    history.rows[0]["removed"] = 9  # taken out of the passport, and no version says so
    flaw = history.check()
    assert flaw is not None and "never written" in flaw.reason


def test_the_documented_receipt_check_verifies_a_receipt() -> None:
    """The snippet docs/memory.md gives for checking a receipt agrees with the service."""
    from pathlib import Path

    doc = (Path(__file__).parents[2] / "docs" / "memory.md").read_text()
    snippet = doc.split("To check one:\n\n```python\n", 1)[1].split("```", 1)[0]
    receipt = signed({"id": "r", "user_key": "Zoë", "removed": {"turns": 1}}, b"k3y")
    for shown, expected in ((receipt, True), ({**receipt, "user_key": "Zoe"}, False)):
        scope: dict[str, Any] = {"receipt": shown, "secret": b"k3y"}
        exec(snippet, scope)
        assert scope["good"] is expected
