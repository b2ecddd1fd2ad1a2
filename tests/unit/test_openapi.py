"""The committed OpenAPI spec is the app's spec (regenerate with `make openapi`)."""

from __future__ import annotations

import json
from pathlib import Path

from app.main import create_app
from app.settings import Settings

SPEC = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"


def test_committed_spec_is_current():
    current = create_app(Settings()).openapi()
    assert json.loads(SPEC.read_text()) == current, "run `make openapi` and commit the result"


def test_operation_ids_read_well():
    ops = [
        op["operationId"]
        for path in create_app(Settings()).openapi()["paths"].values()
        for op in path.values()
    ]
    assert len(ops) == len(set(ops))
    assert all(op.count("-") == 1 for op in ops)
