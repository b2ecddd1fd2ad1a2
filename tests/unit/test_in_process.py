"""Which jobs a worker runs in its own process: small first tries of an ingest, nothing else."""

from __future__ import annotations

import uuid
from typing import Any

from app.db.models import IngestJob
from app.services.claimed import in_process
from app.settings import Settings


def job(tokens: int, *, kind: str = "ingest", attempts: int = 1, segments: int = 1) -> IngestJob:
    """A claimed job whose plan says it holds ``tokens`` tokens of text in ``segments``."""
    plan: dict[str, Any] = {"segments": segments, "mean_segment_tokens": tokens / segments}
    return IngestJob(
        id=uuid.uuid4(), user_key="u", kind=kind, attempts=attempts, result={"plan": plan}
    )


SETTINGS = Settings(cpu_inline_tokens=4000)


def test_a_short_exchange_runs_in_the_workers_own_process() -> None:
    assert in_process([job(900)], SETTINGS)


def test_a_batch_runs_here_only_while_its_text_together_is_small() -> None:
    assert in_process([job(1000)] * 4, SETTINGS)
    assert not in_process([job(1000)] * 5, SETTINGS)


def test_a_long_job_goes_to_the_pool() -> None:
    assert not in_process([job(40_000, segments=30)], SETTINGS)


def test_a_retry_goes_to_the_pool_where_a_time_limit_holds() -> None:
    # A job that raised once may hold what makes the rules slow: it runs where it can be stopped.
    assert not in_process([job(100, attempts=2)], SETTINGS)


def test_other_kinds_of_job_go_to_the_pool() -> None:
    assert not in_process([job(100, kind="reprocess")], SETTINGS)
    assert not in_process([job(100, kind="compact")], SETTINGS)


def test_zero_sends_everything_to_the_pool() -> None:
    assert not in_process([job(1)], Settings(cpu_inline_tokens=0))
    assert not in_process([], SETTINGS)
