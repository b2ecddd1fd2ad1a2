"""The API's Prometheus metrics: request latency by route template and status, at /metrics."""

from __future__ import annotations

from fastapi import FastAPI
from prometheus_client import Histogram
from prometheus_fastapi_instrumentator import Instrumentator
from prometheus_fastapi_instrumentator.metrics import Info

# Defined once per process, so every app built in it (tests build several) records into it.
REQUEST_DURATION = Histogram(
    "tessera_http_request_duration_seconds",
    "Time to answer an HTTP request, by method, route template and status code.",
    ["method", "route", "status"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0),
)


def _observe(info: Info) -> None:
    REQUEST_DURATION.labels(info.method, info.modified_handler, info.modified_status).observe(
        info.modified_duration
    )


def install_metrics(app: FastAPI) -> None:
    """Time every request (add after the body-size limit, so 413s count) and serve /metrics."""
    Instrumentator(
        should_group_status_codes=False,  # 404 and 422 say different things
        should_group_untemplated=True,  # unknown paths share route="none": bounded labels
        excluded_handlers=["^/metrics$"],
    ).add(_observe).instrument(app).expose(app, include_in_schema=False, should_gzip=True)
