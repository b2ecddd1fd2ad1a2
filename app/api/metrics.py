"""The API's Prometheus metrics: request latency by route template and status, at /metrics."""

from __future__ import annotations

from fastapi import FastAPI
from prometheus_client import Histogram
from prometheus_fastapi_instrumentator import Instrumentator
from prometheus_fastapi_instrumentator.routing import get_route_name
from starlette.requests import HTTPConnection
from starlette.types import Scope

# Defined once per process, so every app built in it (tests build several) records into it.
REQUEST_DURATION = Histogram(
    "tessera_http_request_duration_seconds",
    "Time to answer an HTTP request, by method, route template and status code.",
    ["method", "route", "status"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0),
)
METRICS_PATH = "/metrics"
# Unknown paths share one label, so the series stay bounded.
UNMATCHED = "none"
# The labelled children, so a request skips prometheus_client's label validation and lock.
_series: dict[tuple[str, str, str], Histogram] = {}
_MAX_SERIES = 2000  # methods come from clients: stop remembering past this


def route_label(scope: Scope) -> str:
    """The route template a request matched (fully or by path only), or ``none``."""
    # The router records the route it picked; that is the common case and costs nothing.
    path = getattr(scope.get("route"), "path", None)
    if isinstance(path, str):
        return path
    # Refused before routing (a 413) or matched nothing: match the routes as the router would.
    return get_route_name(HTTPConnection(scope), should_include_root_path=False) or UNMATCHED


def observe(method: str, route: str, status: int, seconds: float) -> None:
    """Record one answered request (``/metrics`` itself is not timed)."""
    if route == METRICS_PATH:
        return
    key = (method, route, str(int(status)))
    series = _series.get(key)
    if series is None:
        series = REQUEST_DURATION.labels(*key)
        if len(_series) < _MAX_SERIES:
            _series[key] = series
    series.observe(seconds)


def install_metrics(app: FastAPI) -> None:
    """Serve /metrics (RequestContext does the timing, once per request)."""
    Instrumentator().expose(app, endpoint=METRICS_PATH, include_in_schema=False, should_gzip=True)
