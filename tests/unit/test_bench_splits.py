"""The benchmarks keep the chats of one half of the development sets' split."""

from __future__ import annotations

import json
from pathlib import Path

from bench.splits import names_in, of_half


def _splits(tmp_path: Path) -> Path:
    path = tmp_path / "splits.json"
    doc = {
        "beam500k": {"tune": [1, 3], "accept": [2]},
        "realtalk": {"tune": ["Chat_1_A_B.json"], "accept": ["Chat_2_C_D.json"]},
    }
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_a_half_keeps_its_chats_in_their_order(tmp_path: Path) -> None:
    splits = _splits(tmp_path)
    chats = ["3", "2", "1"]
    assert of_half(chats, str, "beam500k", "tune", splits) == ["3", "1"]
    assert of_half(chats, str, "beam500k", "accept", splits) == ["2"]
    assert of_half(chats, str, "beam500k", "all", splits) == chats


def test_file_names_match_the_names_a_benchmark_gives(tmp_path: Path) -> None:
    assert names_in("realtalk", "accept", _splits(tmp_path)) == {"Chat_2_C_D"}
