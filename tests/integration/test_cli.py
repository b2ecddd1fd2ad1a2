"""The tessera CLI's tenant and key commands on the real database."""

from __future__ import annotations

import json

import pytest

from app.cli.main import main

pytestmark = pytest.mark.integration


@pytest.fixture
def cli_env(monkeypatch, settings):
    monkeypatch.setenv("TESSERA_DATABASE_URL", settings.database_url)
    monkeypatch.setenv("TESSERA_REDIS_URL", settings.redis_url)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_tenants_and_keys(cli_env, capsys):
    code, out, _ = run(capsys, "tenants", "create", "cli-tenant")
    assert code == 0
    first_key = out.strip()
    assert first_key.startswith("tsr_")
    code, out, _ = run(capsys, "tenants", "list")
    assert "cli-tenant" in out
    code, out, _ = run(capsys, "keys", "create", "cli-tenant", "--name", "second")
    assert code == 0 and out.strip().startswith("tsr_") and out.strip() != first_key
    prefix = first_key.split("_")[1]
    assert run(capsys, "keys", "revoke", prefix)[0] == 0
    code, _, err = run(capsys, "keys", "revoke", prefix)
    assert code == 1 and "no live key" in err
    code, _, err = run(capsys, "keys", "create", "no-such-tenant")
    assert code == 1 and "no tenant" in err


def test_openapi_prints_the_spec(capsys):
    code, out, _ = run(capsys, "openapi")
    assert code == 0
    assert "/users/{key}/passport" in json.loads(out)["paths"]
