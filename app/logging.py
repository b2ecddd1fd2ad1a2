"""Structured logs: one JSON object per line, ours and the libraries' (uvicorn, arq, ...)."""

from __future__ import annotations

import logging
import sys
from typing import TextIO

import orjson
import structlog
from structlog.typing import Processor

from app.settings import Settings

# Libraries whose verbose levels would write SQL parameters (passport content), full request
# URLs (provider keys in query strings) or a refused MCP tool call's message (user keys):
# capped at WARNING whatever TESSERA_LOG_LEVEL says.
_CAPPED = ("sqlalchemy", "httpx", "httpcore", "asyncpg", "mcp")


# What every line gets, whoever wrote it: structlog or the stdlib.
_SHARED: tuple[Processor, ...] = (
    # Request and job ids bound with structlog.contextvars reach every line, stdlib ones too.
    structlog.contextvars.merge_contextvars,
    structlog.stdlib.add_log_level,
    structlog.stdlib.add_logger_name,
    structlog.processors.TimeStamper(fmt="iso", utc=True),
)


def _json_line(event: object, **_: object) -> str:
    # orjson for the per-request access line; anything it cannot encode is written as its
    # str(), as structlog's default serializer does.
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
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    for name in _CAPPED:
        logging.getLogger(name).setLevel(max(level, logging.WARNING))
    logging.captureWarnings(True)
