"""A database that is busy or gone is a 503 the client retries, never a 500 with a trace."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy.exc import TimeoutError as PoolTimeout

from app.api.problems import install_handlers


def _app_raising(error: Exception) -> TestClient:
    app = FastAPI()
    install_handlers(app)

    @app.get("/busy")
    async def busy() -> None:
        raise error

    return TestClient(app, raise_server_exceptions=False)


def test_a_connection_pool_that_stays_busy_is_a_503_with_retry_after() -> None:
    reply = _app_raising(PoolTimeout("QueuePool limit of size 1 reached")).get("/busy")
    assert reply.status_code == 503
    assert reply.headers["content-type"] == "application/problem+json"
    assert reply.headers["retry-after"] == "1"
    assert "busy" in reply.json()["detail"]
    assert "QueuePool" not in reply.text


def test_any_other_error_is_still_a_500_without_its_trace() -> None:
    reply = _app_raising(RuntimeError("secret detail")).get("/busy")
    assert reply.status_code == 500
    assert "secret detail" not in reply.text
