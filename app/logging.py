"""Structured logs: one JSON object per line, ours and the libraries' (uvicorn, arq, ...)."""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TextIO, cast

import orjson
import structlog
from structlog.typing import EventDict, Processor

from app.settings import Settings

# Libraries whose verbose levels would write SQL parameters (passport content) or full request
# URLs (provider keys in query strings): capped at WARNING whatever TESSERA_LOG_LEVEL says.
_CAPPED = ("sqlalchemy", "httpx", "httpcore", "asyncpg")


class UtcTimestamp:
    """What structlog's ``TimeStamper(fmt="iso", utc=True)`` writes, at a third of its cost.

    The date and time to the second are formatted once per second; a line adds its microseconds.
    """

    def __init__(self, clock: Callable[[], int] = time.time_ns) -> None:
        self._clock = clock
        self._second: tuple[int, str] = (-1, "")  # replaced whole: threads share it

    def __call__(self, logger: object, method: str, event_dict: EventDict) -> EventDict:
        """Add ``timestamp``, e.g. 2026-11-30T02:12:24.880180Z."""
        second, nanos = divmod(self._clock(), 1_000_000_000)
        known, prefix = self._second
        if known != second:
            prefix = datetime.fromtimestamp(second, UTC).strftime("%Y-%m-%dT%H:%M:%S")
            self._second = (second, prefix)
        micros = nanos // 1000
        # As datetime.isoformat: no fraction at all when it is zero.
        event_dict["timestamp"] = f"{prefix}.{micros:06d}Z" if micros else f"{prefix}Z"
        return event_dict


# What every line gets, whoever wrote it: structlog, the stdlib, or a HotLogger.
_SHARED: tuple[Processor, ...] = (
    # Request and job ids bound with structlog.contextvars reach every line, stdlib ones too.
    structlog.contextvars.merge_contextvars,
    structlog.stdlib.add_log_level,
    structlog.stdlib.add_logger_name,
    UtcTimestamp(),
)


def _json_line(event: object, **_: object) -> str:
    # orjson: a third of the json module's cost on the per-request access line; anything it
    # cannot encode is written as its str(), as structlog's default serializer does.
    return orjson.dumps(event, default=str, option=orjson.OPT_NON_STR_KEYS).decode()


def configure_logging(settings: Settings, stream: TextIO | None = None) -> None:
    """Route structlog and stdlib logging to ``stream`` (stderr) as JSON lines; call at start-up."""
    level = logging.getLevelNamesMapping().get(settings.log_level.upper(), logging.INFO)
    shared = list(_SHARED)
    structlog.configure(
        processors=[
            structlog.stdlib.filter_by_level,
            *shared,
            structlog.stdlib.PositionalArgumentsFormatter(),
            structlog.processors.StackInfoRenderer(),
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        # Not cached: a logger used before this call would keep structlog's default config.
        cache_logger_on_first_use=False,
    )
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=shared,
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            # A plain traceback string: structlog's dict tracebacks can show local variables,
            # which may hold keys or passport content.
            structlog.processors.format_exc_info,
            structlog.processors.JSONRenderer(serializer=_json_line),
        ],
    )
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.setFormatter(formatter)
    global _handler
    _handler = handler
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    for name in _CAPPED:
        logging.getLogger(name).setLevel(max(level, logging.WARNING))
    logging.captureWarnings(True)


class HotLogger:
    """Info lines on a per-request path: the same JSON as structlog's, at a third of the cost."""

    def __init__(self, name: str) -> None:
        self._logger = logging.getLogger(name)

    def info(self, event: str, **fields: object) -> None:
        """Log ``event`` with ``fields`` (and the bound context vars) at INFO."""
        logger = self._logger
        if not logger.isEnabledFor(logging.INFO):
            return
        # The shared processors, then the record structlog's wrap_for_formatter would make, so
        # the handlers' ProcessorFormatter renders it like any line; skipped: the bound-logger
        # chain and the caller lookup, which is most of a structlog line's cost.
        event_dict: EventDict = {**fields, "event": event}  # the order structlog writes
        for processor in _SHARED:
            event_dict = cast(EventDict, processor(logger, "info", event_dict))  # all return dicts
        handler = _only_handler(logger)
        if handler is not None:
            # Straight to the stream the formatter would write to: what ProcessorFormatter's
            # chain does to an info line without exc_info is the JSON rendering alone.
            line = _json_line(event_dict) + "\n"
            handler.acquire()
            try:
                handler.stream.write(line)
                handler.flush()
            except Exception:  # as logging does: report it, never break the request
                handler.handleError(self._record(logger, event_dict))
            finally:
                handler.release()
            return
        logger.handle(self._record(logger, event_dict))

    @staticmethod
    def _record(logger: logging.Logger, event_dict: EventDict) -> logging.LogRecord:
        # The record structlog's wrap_for_formatter makes, for the handlers' ProcessorFormatter.
        record = logging.LogRecord(logger.name, logging.INFO, "", 0, event_dict, None, None)
        record._logger = logger
        record._name = "info"
        return record


# The handler configure_logging installed: the only one whose output HotLogger may write itself.
_handler: logging.StreamHandler[TextIO] | None = None


def _only_handler(logger: logging.Logger) -> logging.StreamHandler[TextIO] | None:
    """Our handler, if it is the only one an INFO record of ``logger`` reaches, unfiltered."""
    found = None
    current: logging.Logger | None = logger
    while current is not None:
        if current.filters:
            return None
        for handler in current.handlers:
            if found is not None or handler is not _handler or handler.filters:
                return None
            found = handler
        if not current.propagate:
            break
        current = current.parent
    if found is None or found.level > logging.INFO:
        return None
    return found
