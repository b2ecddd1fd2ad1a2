"""A job a worker claimed, and what the worker lends every job it runs."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass

from app.db.budget import TenantBudget
from app.db.models import IngestJob
from app.db.queue import EnqueueLater
from app.db.uow import UowFactory
from app.domain.extraction import Extractor
from app.llm.structured import StructuredClient
from app.settings import Settings


@dataclass
class WorkerResources:
    """What a worker process lends every job: built once at start-up, closed at shutdown."""

    extractor: Extractor
    slots: asyncio.Semaphore | None = None  # model calls at once, shared by all jobs
    budget: TenantBudget | None = None
    enqueue_later: EnqueueLater | None = None
    llm_client: StructuredClient | None = None  # for compaction; None with the rule extractor


@dataclass(frozen=True)
class ClaimedJob:
    """A job a worker claimed, with what every kind of job runs with."""

    uows: UowFactory
    tenant_id: uuid.UUID
    job: IngestJob
    settings: Settings
    resources: WorkerResources

    @property
    def user_key(self) -> str:
        """The user whose passport the job writes."""
        return self.job.user_key
