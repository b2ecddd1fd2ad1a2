"""Logs are JSON lines, ours and the standard library's alike, with the bound request ids."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
import structlog

from app.logging import configure_logging
from app.settings import Settings


@pytest.fixture
def lines() -> Iterator[io.StringIO]:
    """configure_logging into a buffer; the root logger is put back after."""
    root = logging.getLogger()
    level, handlers = root.level, list(root.handlers)
    buffer = io.StringIO()
    configure_logging(Settings(log_level="info"), stream=buffer)
    try:
        yield buffer
    finally:
        structlog.contextvars.clear_contextvars()
        for handler in list(root.handlers):
            root.removeHandler(handler)
        for handler in handlers:
            root.addHandler(handler)
        root.setLevel(level)
        logging.captureWarnings(False)
        for name in ("sqlalchemy", "httpx", "httpcore", "asyncpg", "mcp"):
            logging.getLogger(name).setLevel(logging.NOTSET)


def _parsed(buffer: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in buffer.getvalue().splitlines()]


def test_structlog_and_stdlib_lines_are_the_same_json(lines: io.StringIO) -> None:
    structlog.contextvars.bind_contextvars(request_id="r-1", tenant_id="t-1")
    fields = {"method": "GET", "route": "/users/{key}/context", "status": 200, "duration_ms": 1.5}
    structlog.stdlib.get_logger("tessera.access").info("request", **fields)
    logging.getLogger("uvicorn.error").warning("shutting %s", "down")
    ours, theirs = _parsed(lines)
    assert {k: ours[k] for k in fields} == fields
    assert ours["event"] == "request" and ours["level"] == "info"
    assert ours["logger"] == "tessera.access"
    assert theirs["event"] == "shutting down" and theirs["level"] == "warning"
    for line in (ours, theirs):
        assert line["request_id"] == "r-1" and line["tenant_id"] == "t-1"
        stamp = str(line["timestamp"])
        assert stamp.endswith("Z")  # UTC, ISO 8601
        when = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
        assert abs(datetime.now(UTC) - when) < timedelta(minutes=1)


def test_levels_are_respected_and_sql_logs_are_capped(lines: io.StringIO) -> None:
    structlog.stdlib.get_logger("tessera.test").debug("hidden")
    # A verbose SQLAlchemy logger would write statement parameters: passport content.
    logging.getLogger("sqlalchemy.engine").info("SELECT ... secret parameters")
    logging.getLogger("sqlalchemy.engine").warning("pool overflow")
    assert [line["event"] for line in _parsed(lines)] == ["pool overflow"]


def test_exceptions_are_a_plain_traceback_string(lines: io.StringIO) -> None:
    try:
        raise ValueError("boom")
    except ValueError:
        structlog.stdlib.get_logger("tessera.test").exception("failed")
    (line,) = _parsed(lines)
    assert isinstance(line["exception"], str) and "ValueError: boom" in line["exception"]
