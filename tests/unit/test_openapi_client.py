"""The committed package sdk/python/tessera_client is exactly what the generator makes."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
GENERATE = ROOT / "openapi" / "generate.py"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("openapi_generate", GENERATE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_client_matches_the_generator(tmp_path: Path) -> None:
    fresh_dir = tmp_path / "tessera_client"
    run = subprocess.run(
        [sys.executable, str(GENERATE), "--output", str(fresh_dir)],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    generator = _generator()
    fresh = generator.files(fresh_dir)
    committed = generator.files(generator.OUTPUT)
    assert "client.py" in fresh
    missing = sorted(fresh.keys() - committed.keys())
    extra = sorted(committed.keys() - fresh.keys())
    changed = sorted(p for p in fresh.keys() & committed.keys() if fresh[p] != committed[p])
    assert (missing, extra, changed) == ([], [], []), (
        f"sdk/python/tessera_client is stale (missing {missing}, extra {extra}, "
        f"changed {changed}): run `make openapi` and commit the result"
    )
