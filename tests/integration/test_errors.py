"""Bad input gets a clear problem+json 4xx, never a 500."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.integration

PROBLEM = "application/problem+json"


async def test_malformed_json_is_400(client, tenant):
    resp = await client.put(
        "/users/u/passport",
        content=b'{"version": "2.1", ',
        headers={**tenant.headers, "Content-Type": "application/json"},
    )
    assert resp.status_code == 400
    assert resp.headers["content-type"] == PROBLEM
    assert "not valid JSON" in resp.json()["detail"]


async def test_wrong_types_are_422(client, tenant):
    resp = await client.put(
        "/users/u/passport", json={"version": "2.1", "facts": "nope"}, headers=tenant.headers
    )
    assert resp.status_code == 422
    assert "facts" in resp.json()["detail"]
    resp = await client.put("/users/u/passport", json=[1, 2], headers=tenant.headers)
    assert resp.status_code == 422


async def test_unsupported_format_version_is_422(client, tenant):
    resp = await client.put("/users/u/passport", json={"version": "9.0"}, headers=tenant.headers)
    assert resp.status_code == 422
    assert "format" in resp.json()["detail"]


async def test_nul_is_dropped_and_lone_surrogates_are_422(client, tenant):
    resp = await client.put(
        "/users/nul/passport",
        content=b'{"version":"2.1","facts":[{"key":"a","value":"x\\u0000y"}],"n":1e2,'
        b'"big":123456789012345678901234567890}',
        headers={**tenant.headers, "Content-Type": "application/json"},
    )
    assert resp.status_code in (200, 201), resp.text
    doc = (await client.get("/users/nul/passport", headers=tenant.headers)).json()
    assert doc["facts"][0]["value"] == "xy"
    assert doc["big"] == 1.2345678901234568e29  # past 64 bits: kept as a JSON float
    resp = await client.put(
        "/users/u/passport",
        content=b'{"version":"2.1","facts":[{"key":"a","value":"\\ud800"}]}',
        headers={**tenant.headers, "Content-Type": "application/json"},
    )
    assert resp.status_code == 422, resp.text
    assert resp.headers["content-type"] == PROBLEM


async def test_user_key_limits(client, tenant):
    long_key = "k" * 257
    resp = await client.get(f"/users/{long_key}/passport", headers=tenant.headers)
    assert resp.status_code == 422
    assert resp.headers["content-type"] == PROBLEM
    resp = await client.get("/users/bad%01key/passport", headers=tenant.headers)
    assert resp.status_code == 422
    ok = await client.get("/users/" + "k" * 256 + "/passport", headers=tenant.headers)
    assert ok.status_code == 404


async def test_body_over_limit_is_413_before_reading(client, tenant, settings):
    big = b'{"text":"' + b"a" * (settings.max_body_bytes + 10) + b'"}'
    resp = await client.post(
        "/users/u/ingest",
        content=big,
        headers={**tenant.headers, "Content-Type": "application/json"},
    )
    assert resp.status_code == 413
    assert resp.headers["content-type"] == PROBLEM
    assert str(settings.max_body_bytes) in resp.json()["detail"]

    async def chunks(size: int):  # no Content-Length: the limit applies while streaming
        for _ in range(size // 65536 + 2):
            yield b"a" * 65536

    resp = await client.post(
        "/users/u/ingest",
        content=chunks(settings.max_body_bytes),
        headers={**tenant.headers, "Content-Type": "application/json"},
    )
    assert resp.status_code == 413
    # An import is a whole document: it has a limit of its own, and so is refused past that.
    resp = await client.put(
        "/users/u/passport",
        content=chunks(settings.max_import_bytes),
        headers={**tenant.headers, "Content-Type": "application/json"},
    )
    assert resp.status_code == 413
    assert str(settings.max_import_bytes) in resp.json()["detail"]


async def test_missing_and_malformed_keys_are_401(client, tenant):
    for headers in (
        {},
        {"Authorization": "Basic abc"},
        {"Authorization": "Bearer"},
        {"Authorization": "Bearer    "},
        {"Authorization": f"Basic {tenant.key}"},
        {"Authorization": "Bearer tsr_nope"},
        {"Authorization": "Bearer tsr_abcdefgh_" + "x" * 40},
    ):
        for path in ("/users", "/users/u/context"):
            resp = await client.get(path, headers=headers)
            assert resp.status_code == 401, (path, headers)
            assert resp.headers["content-type"] == PROBLEM
            assert resp.headers["www-authenticate"] == "Bearer"
    # The scheme is case-insensitive, and spaces around the key do not matter.
    for value in (f"bearer {tenant.key}", f"BEARER  {tenant.key} "):
        resp = await client.get("/users", headers={"Authorization": value})
        assert resp.status_code == 200, value


async def test_every_error_response_is_declared_in_openapi(app):
    spec = app.openapi()
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            codes = set(op["responses"])
            if path.startswith(("/users", "/jobs", "/admin")):
                assert {"401", "422", "500"} <= codes, (method, path)
                for code in codes - {"200", "201", "202", "204", "304"}:
                    assert "application/problem+json" in op["responses"][code].get("content", {}), (
                        method,
                        path,
                        code,
                    )
            assert op["operationId"].count("-") == 1
