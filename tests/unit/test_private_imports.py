"""No code in app/, workers/ or the SDK reaches a private name of a library (FastAPI, ...)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("app", "workers", "sdk/python/tessera")
# Frameworks whose private attributes (``fastapi.routing._x``) are caught even without an import.
FRAMEWORKS = frozenset(
    {
        "fastapi",
        "starlette",
        "sqlalchemy",
        "arq",
        "redis",
        "pydantic",
        "httpx",
        "langgraph",
        "agents",
    }
)
# Our own packages: a private name shared between their modules is a style matter, not a bet on
# a library's internals staying as they are.
OURS = frozenset({"app", "workers", "migrations", "tessera", "tessera_client"})


def _private(name: str) -> bool:
    # Dunders (__version__, __path__) are public; ``_x`` and ``__x`` are not.
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _dotted(node: ast.expr) -> list[str] | None:
    """``a.b.c`` as ["a", "b", "c"]; None for anything that is not a plain name chain."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return parts[::-1]


def private_uses(source: str) -> list[str]:
    """Each private name of a library the source imports or reaches, as written."""
    tree = ast.parse(source)
    found: list[str] = []
    # Local names bound to a framework module or something imported from one.
    framework_names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                ours = alias.name.split(".")[0] in OURS
                if not ours and any(_private(part) for part in alias.name.split(".")):
                    found.append(f"import {alias.name}")
                if alias.name.split(".")[0] in FRAMEWORKS:
                    framework_names.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level or module.split(".")[0] in OURS:
                continue
            if any(_private(part) for part in module.split(".")):
                found.append(f"from {module} import ...")
            for alias in node.names:
                if _private(alias.name):
                    found.append(f"from {module} import {alias.name}")
                if module.split(".")[0] in FRAMEWORKS:
                    framework_names.add(alias.asname or alias.name)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            chain = _dotted(node)
            if chain and chain[0] in framework_names and any(_private(p) for p in chain[1:]):
                found.append(".".join(chain))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            # getattr(fastapi_thing, "_x"): the same reach, spelled as a string; ``app`` is
            # what the code calls its FastAPI application.
            args = node.args
            if (
                node.func.id in {"getattr", "hasattr", "setattr"}
                and len(args) >= 2
                and isinstance(args[0], ast.expr)
                and (chain := _dotted(args[0])) is not None
                and chain[0] in framework_names | {"app"}
                and isinstance(args[1], ast.Constant)
                and isinstance(args[1].value, str)
                and _private(args[1].value)
            ):
                found.append(f"{node.func.id}({'.'.join(chain)}, {args[1].value!r})")
    return found


def _sources() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))


def test_there_is_code_to_check() -> None:
    assert len(_sources()) > 20


@pytest.mark.parametrize(
    ("source", "caught"),
    [
        ("from fastapi._compat import ModelField", True),
        ("from starlette._utils import is_async_callable", True),
        ("import fastapi._compat", True),
        ("import fastapi._compat as compat", True),
        ("from fastapi.dependencies.utils import _helper", True),
        ("from app.api.request_id import _new_id", False),
        ("from typing import _GenericAlias", True),
        ("import redis._parsers", True),
        ("import fastapi\nfastapi.routing._x", True),
        ("from fastapi import routing\nrouting._private()", True),
        ("import sqlalchemy as sa\nsa.orm._state", True),
        ("t = getattr(app, '_native_telemetry', None)", True),
        ("from fastapi import FastAPI\nFastAPI._secret", True),
        ("import fastapi\nfastapi.__version__", False),
        ("from fastapi import FastAPI, Request", False),
        ("from __future__ import annotations", False),
        ("self._cache.get(1)", False),  # our own object's private attribute
    ],
)
def test_the_check_catches_private_names(source: str, caught: bool) -> None:
    assert bool(private_uses(source)) is caught, private_uses(source)


@pytest.mark.parametrize("path", _sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_private_names_are_imported(path: Path) -> None:
    assert private_uses(path.read_text()) == []
