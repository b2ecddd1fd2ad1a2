"""The access line's cheap path writes the same JSON as structlog does."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest
import structlog

from app.logging import HotLogger, configure_logging
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


def test_hot_lines_equal_structlog_lines_but_the_time(lines):
    structlog.contextvars.bind_contextvars(request_id="r-1", tenant_id="t-1")
    fields = {"method": "GET", "route": "/users/{key}/context", "status": 200, "duration_ms": 1.5}
    structlog.stdlib.get_logger("tessera.access").info("request", **fields)
    HotLogger("tessera.access").info("request", **fields)
    usual, hot = (json.loads(line) for line in lines.getvalue().splitlines())
    assert usual.pop("timestamp").endswith("Z") and hot.pop("timestamp").endswith("Z")
    assert list(hot.items()) == list(usual.items())  # same keys, values and order
    assert hot["request_id"] == "r-1" and hot["level"] == "info"


def test_hot_lines_respect_the_level(lines):
    logging.getLogger("tessera.quiet").setLevel(logging.WARNING)
    try:
        HotLogger("tessera.quiet").info("request", status=200)
    finally:
        logging.getLogger("tessera.quiet").setLevel(logging.NOTSET)
    assert lines.getvalue() == ""


def test_hot_lines_reach_every_handler_when_ours_is_not_alone(lines):
    # The direct write is only taken when our handler is the one output; others still get it.
    extra = io.StringIO()
    handler = logging.StreamHandler(extra)
    logging.getLogger("tessera").addHandler(handler)
    try:
        HotLogger("tessera.access").info("request", status=201)
    finally:
        logging.getLogger("tessera").removeHandler(handler)
    assert json.loads(lines.getvalue())["status"] == 201
    assert extra.getvalue().strip()
    HotLogger("tessera.access").info("request", status=202)
    assert json.loads(lines.getvalue().splitlines()[-1])["status"] == 202


def test_timestamps_are_structlogs_iso_utc() -> None:
    import datetime as dt
    from unittest import mock

    from app.logging import UtcTimestamp

    for ns in (1_764_469_944_880_180_123, 1_764_469_944_000_000_000, 1_764_469_945_000_999_999):
        ours = UtcTimestamp(clock=lambda ns=ns: ns)(None, "info", {})["timestamp"]
        instant = dt.datetime.fromtimestamp(ns // 1000 / 1e6, dt.UTC).replace(
            microsecond=ns // 1000 % 1_000_000
        )
        with mock.patch("structlog.processors.datetime.datetime") as clock:
            clock.now.return_value = instant
            theirs = structlog.processors.TimeStamper(fmt="iso", utc=True)(None, "info", {})
        assert ours == theirs["timestamp"]
    stamp = UtcTimestamp()
    first = stamp(None, "info", {})["timestamp"]
    assert first.endswith("Z") and first[:4].isdigit()
