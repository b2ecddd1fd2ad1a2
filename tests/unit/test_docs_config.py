"""Every setting is documented in docs/configuration.md and .env.example, with its real default."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from app.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
CONFIG_DOC = ROOT / "docs" / "configuration.md"
ENV_EXAMPLE = ROOT / ".env.example"
FIELDS = sorted(Settings.model_fields)


def env_name(field: str) -> str:
    """The environment variable of a settings field."""
    return f"TESSERA_{field.upper()}"


def shown(default: Any) -> str | None:
    """A default as the docs write it; None for settings that are unset by default."""
    if default is None:
        return None
    if isinstance(default, SecretStr):
        return default.get_secret_value()
    return str(default)


def table_row(text: str, name: str) -> str | None:
    """The docs table row of one variable."""
    for line in text.splitlines():
        if line.startswith(f"| `{name}` |"):
            return line
    return None


def test_settings_use_the_documented_prefix() -> None:
    assert Settings.model_config.get("env_prefix") == "TESSERA_"


@pytest.mark.parametrize("field", FIELDS)
def test_every_setting_is_in_the_configuration_doc(field: str) -> None:
    name = env_name(field)
    text = CONFIG_DOC.read_text(encoding="utf-8")
    assert name in text, f"{name} is missing from docs/configuration.md"
    row = table_row(text, name)
    assert row is not None, f"docs/configuration.md has no table row for {name}"
    default = shown(Settings.model_fields[field].default)
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    expected = "unset" if default is None else f"`{default}`"
    assert cells[1] == expected, f"{name}: the docs say {cells[1]}, the code says {expected}"


@pytest.mark.parametrize("field", FIELDS)
def test_every_setting_is_in_the_env_example(field: str) -> None:
    name = env_name(field)
    text = ENV_EXAMPLE.read_text(encoding="utf-8")
    assert name in text, f"{name} is missing from .env.example"
    default = shown(Settings.model_fields[field].default)
    if default is not None:
        lines = re.findall(rf"^#?\s*{name}=(.*)$", text, flags=re.MULTILINE)
        assert lines == [default], f".env.example shows {name}={lines}, the default is {default}"


def test_the_docs_name_no_setting_that_does_not_exist() -> None:
    known = {env_name(field) for field in FIELDS}
    for path in (CONFIG_DOC, ENV_EXAMPLE):
        named = set(re.findall(r"\bTESSERA_[A-Z0-9_]+\b", path.read_text(encoding="utf-8")))
        # TESSERA_TEST_* configure the test suite, not the service.
        stray = {n for n in named - known if not n.startswith("TESSERA_TEST_")}
        assert not stray, f"{path.name} names settings that do not exist: {sorted(stray)}"
