"""Service settings: one pydantic-settings object, built once at start-up and passed down."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


def _limit(default: int, what: str, *, off: str = "unlimited") -> Any:
    """A limit that cannot be negative and whose 0 lifts it; the description says so."""
    return Field(default=default, ge=0, description=f"{what}; 0: {off}.")


class Settings(BaseSettings):
    """Every knob of the service; each is documented in docs/configuration.md."""

    model_config = SettingsConfigDict(env_prefix="TESSERA_", env_file=None, extra="ignore")

    database_url: str | None = Field(
        default=None,
        description="postgresql+asyncpg:// URL. Unset: the embedded Postgres under data_dir.",
    )
    database_read_url: str | None = Field(
        default=None,
        description="A read replica: context, search and export reads go there (a read whose "
        "min_version it has not replayed yet goes to the primary). Unset: the primary.",
    )
    redis_url: str | None = Field(
        default=None, description="redis:// or unix:// URL. Unset: the embedded Redis."
    )
    data_dir: Path = Field(
        default=Path(".tessera"), description="Where the embedded servers keep their data."
    )
    admin_token: SecretStr | None = Field(
        default=None, description="Bearer token for /admin. Unset: the admin API is disabled."
    )
    receipt_secret: SecretStr | None = Field(
        default=None,
        description="The key erasure receipts are signed with (HMAC-SHA256). Unset: receipts "
        "are issued and kept unsigned.",
    )
    api_workers: int = Field(
        default=1,
        ge=0,
        description="API processes `tessera api` runs on its port (0: one per core).",
    )
    host: str = "127.0.0.1"
    port: int = 8000
    max_body_bytes: int = Field(default=5_000_000, description="Largest request body accepted.")
    max_import_bytes: int = Field(
        default=256_000_000,
        description="Largest passport import (PUT /passport): a whole document, however long "
        "its history; the API holds it in memory several times over while it is read.",
    )
    db_pool_size: int = 10
    log_level: str = "info"

    # observability
    worker_metrics_port: int = Field(
        default=9100, description="Port of the worker's Prometheus /metrics; 0 turns it off."
    )
    otel_enabled: bool = Field(
        default=False, description="Trace the API with OpenTelemetry (needs the otel extra)."
    )

    # ingestion
    segment_max_tokens: int = Field(default=1500, description="Token budget of one segment.")
    segment_max_gap_seconds: int = Field(
        default=3 * 3600, description="A longer silence between turns closes a segment."
    )
    max_items: int = Field(default=10_000, description="Most turns/rows/items in one ingest.")
    max_turn_chars: int = Field(default=200_000, description="Longest single turn or text.")
    ingest_wait_max_seconds: float = Field(default=60.0, description="Cap of ?wait=N.")
    min_version_wait_seconds: float = Field(
        default=5.0,
        description="How long a read with ?min_version=N waits for version N before a 409.",
    )
    job_stale_seconds: int = Field(
        default=120,
        description="A job queued or running this long without progress is re-enqueued.",
    )
    sweep_interval_seconds: int = Field(default=30, description="How often the sweeper runs.")
    worker_max_jobs: int = Field(default=8, description="Concurrent jobs per worker process.")
    cpu_processes: int = Field(
        default=0,
        ge=0,
        le=64,
        description="Processes each worker runs the rule extractor and payload preparation in, "
        "off its event loop; 0: one per core of the machine.",
    )
    cpu_seconds: float = Field(
        default=30.0,
        gt=0,
        le=3600,
        description="Longest one segment's rule extraction (or one payload's preparation) may "
        "run; past it the segment is recorded as failed and its turns are kept.",
    )
    cpu_inline_tokens: int = Field(
        default=6000,
        ge=0,
        le=100_000,
        description="A job (or a batch of a user's small jobs) of at most this many tokens of "
        "text is prepared and extracted by the rules in the worker's own process: handing so "
        "little to the pool costs more than the work; 0: always in the pool.",
    )
    worker_poll_seconds: float = Field(
        default=0.02,
        gt=0,
        le=5,
        description="How often an idle worker looks for new jobs in Redis: the wait before a "
        "queued job starts; each look is one cheap Redis call.",
    )
    job_slice_segments: int = Field(
        default=32,
        ge=1,
        le=100_000,
        description="Segments of one ingest a worker extracts and writes in one go; a larger "
        "job is written slice by slice, each a version of its own, and goes back in the queue "
        "between slices so other tenants' jobs run meanwhile.",
    )
    job_batch_max: int = Field(
        default=16,
        ge=1,
        le=1000,
        description="A worker that takes a user's small ingest job takes up to this many of "
        "that user's queued ones with it and writes them as one version; 1: each job alone.",
    )
    job_max_attempts: int = Field(
        default=5, description="A job that crashed this many times is marked failed."
    )
    version_snapshot_every: int = Field(
        default=50, description="Store a full passport snapshot every N versions."
    )
    queue_name: str = Field(default="tessera:queue", description="arq queue name in Redis.")

    # LLM extraction
    extractor: str = Field(
        default="rules",
        description="rules, openai:<model>, anthropic:<model> or ollama:<model>.",
    )
    llm_base_url: str | None = Field(
        default=None, description="Base URL of the provider (an OpenAI-compatible server)."
    )
    llm_timeout_seconds: float = Field(default=60.0, description="Timeout of one model call.")
    llm_max_retries: int = Field(
        default=3, description="Retries of a rate-limited or failed model call."
    )
    llm_max_concurrency: int = Field(
        default=4, ge=1, description="Model calls one worker process makes at once."
    )
    tenant_calls_per_minute: int = _limit(0, "Model calls per tenant per minute")
    tenant_tokens_per_minute: int = _limit(0, "Model tokens per tenant per minute")
    tenant_requests_per_second: int = _limit(
        1000, "API requests per tenant per second, across API processes (429 past it)"
    )
    tenant_ingest_bytes_per_day: int = _limit(
        1_000_000_000, "Ingest body bytes per tenant in any 24 hours (429 past it)"
    )
    tenant_heavy_requests: int = _limit(
        2,
        "Heavy requests (integrity checks, whole exports, imports, old versions) one tenant may "
        "have running at once in each API process; more are refused with 429",
    )
    user_max_turns: int = _limit(
        1_000_000, "Turns one user's memory holds, queued ones included (413 past it)"
    )
    payload_retention_days: int = _limit(30, "Days a finished job keeps its payload", off="forever")

    @field_validator("extractor")
    @classmethod
    def _known_extractor(cls, value: str) -> str:
        # A typo fails every process at start-up, not the first job an hour later.
        from app.llm.factory import parse_spec

        provider, model = parse_spec(value)
        return provider if provider == "rules" else f"{provider}:{model}"

    # semantic recall
    embeddings: str = Field(
        default="off",
        description="An embedding model beside BM25: off; local (static word vectors from the "
        "tessera[embeddings] extra, nothing downloaded); or openai:<model> (any OpenAI-compatible "
        "/v1/embeddings server: OpenAI, Ollama, vLLM, TEI).",
    )
    embeddings_base_url: str | None = Field(
        default=None,
        description="Base URL of the openai:<model> embeddings server, e.g. "
        "http://localhost:11434/v1 for Ollama (unset: OpenAI's).",
    )
    embeddings_api_key: SecretStr | None = Field(
        default=None,
        description="Key of the openai:<model> embeddings server (unset: OPENAI_API_KEY, or none).",
    )
    embeddings_timeout_seconds: float = Field(
        default=10.0,
        gt=0,
        description="Timeout of one call of the embeddings server; after a failure it is not "
        "asked for 30 seconds (reads rank without similarity meanwhile).",
    )

    @field_validator("embeddings")
    @classmethod
    def _known_embeddings(cls, value: str) -> str:
        from app.adapters.embeddings import parse_spec

        provider, model = parse_spec(value)
        return f"{provider}:{model}" if model else provider

    # reading
    auth_cache_seconds: float = Field(
        default=10.0,
        description="How long a verified API key is remembered per process (0: every request "
        "checks the database). A key revoked through another process stops working within this.",
    )
    context_cache_bytes: int = Field(
        default=256 * 1024 * 1024,
        description="Memory for parsed passports and their search index, per API process.",
    )

    def require_database_url(self) -> str:
        """The database URL, which the embedded-server launcher fills in when it was unset."""
        if not self.database_url:
            raise RuntimeError("TESSERA_DATABASE_URL is not set and no embedded Postgres runs")
        return self.database_url

    def require_redis_url(self) -> str:
        """The Redis URL, which the embedded-server launcher fills in when it was unset."""
        if not self.redis_url:
            raise RuntimeError("TESSERA_REDIS_URL is not set and no embedded Redis runs")
        return self.redis_url
