"""The worker's Prometheus metrics and the HTTP server that serves them."""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Mapping
from typing import cast
from wsgiref.simple_server import WSGIServer

import redis
from prometheus_client import Counter, Gauge, Histogram, start_http_server

log = logging.getLogger("tessera.worker")

OUTCOMES = ("done", "failed", "skipped", "retried")

JOBS = Counter("tessera_jobs", "Ingest jobs run by this worker, by outcome.", ["outcome"])
JOB_DURATION = Histogram(
    "tessera_job_duration_seconds",
    "Time one ingest job run took, by outcome.",
    ["outcome"],
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600),
)
QUEUE_DEPTH = Gauge(
    "tessera_queue_depth", "Jobs waiting in the arq queue (read from Redis when scraped)."
)
EXTRACTION_CALLS = Counter("tessera_extraction_calls", "Extraction (model) calls made by jobs.")
EXTRACTION_TOKENS = Counter(
    "tessera_extraction_tokens", "Tokens of extraction calls, input or output.", ["type"]
)
# Incremented from the "cache_hits" a job's usage reports, once the LLM cache reports them.
EXTRACTION_CACHE_HITS = Counter(
    "tessera_extraction_cache_hits", "Extraction calls answered from the cache."
)

# Every series exists from the start at 0, so rate() and alerts see the first event.
for _outcome in OUTCOMES:
    JOBS.labels(_outcome)
    JOB_DURATION.labels(_outcome)
for _type in ("input", "output"):
    EXTRACTION_TOKENS.labels(_type)


def record_job(
    outcome: str, seconds: float, usage: Mapping[str, int] | None = None, jobs: int = 1
) -> None:
    """Count a run of ``jobs`` jobs (more when run together): the lead's outcome, the run's
    duration and the extraction usage it reported."""
    JOBS.labels(outcome).inc(jobs)
    JOB_DURATION.labels(outcome).observe(seconds)
    if usage:
        EXTRACTION_CALLS.inc(usage.get("calls", 0))
        EXTRACTION_TOKENS.labels("input").inc(usage.get("input_tokens", 0))
        EXTRACTION_TOKENS.labels("output").inc(usage.get("output_tokens", 0))
        EXTRACTION_CACHE_HITS.inc(usage.get("cache_hits", 0))


def _queue_depth(client: redis.Redis, queue_name: str) -> float:
    try:
        depth = client.zcard(queue_name)
    except (redis.RedisError, OSError):
        return math.nan  # unknown, rather than a misleading 0
    return float(cast(int, depth))  # a sync client: never an awaitable


class MetricsServer:
    """The running /metrics server of this process; ``close`` stops it."""

    def __init__(self, server: WSGIServer, thread: threading.Thread, client: redis.Redis) -> None:
        self.server = server
        self.thread = thread
        self.client = client

    @property
    def port(self) -> int:
        """The port it listens on."""
        return int(self.server.server_address[1])

    def close(self) -> None:
        """Stop serving and close the Redis connection."""
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)
        self.client.close()


def serve_metrics(port: int, redis_url: str, queue_name: str) -> MetricsServer | None:
    """Serve /metrics on ``port`` (all interfaces); None when port is 0 or already taken."""
    if port == 0:
        return None
    try:
        server, thread = start_http_server(port)
    except OSError as exc:
        # Another worker on this host has the port; jobs matter more than this one's metrics.
        log.warning("worker metrics not served: port %d: %s", port, exc)
        return None
    # Read at scrape time, so every worker reports the queue as it is now; the sweeper runs on
    # one worker per tick and would leave the others' value stale.
    client = redis.Redis.from_url(redis_url, socket_timeout=2, socket_connect_timeout=2)
    QUEUE_DEPTH.set_function(lambda: _queue_depth(client, queue_name))
    return MetricsServer(server, thread, client)
