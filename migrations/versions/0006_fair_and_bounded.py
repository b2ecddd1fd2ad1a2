"""Fair and bounded: jobs taken fairly across tenants, a deferred job's time, quotas' counts.

- ``ingest_job.not_before``: a job deferred to its tenant's next budget window is not taken
  before then (it was a note in its result). ``ingest_job.queue``: the queue it was accepted on;
  a worker takes jobs of its own queue only (jobs stored before were all on the default one).
- Two partial indexes let a worker find, cheaply, the tenants with queued jobs, each one's oldest
  queued job, and how many jobs each has running; ``tenant.last_served_at`` says when a worker
  last took one of a tenant's jobs. The next job comes from the tenant with the fewest running,
  then the one served longest ago: one tenant's backlog does not hold up another's. A third
  finds a user's unfinished jobs, whose turns count towards the user's limit.
- ``tenant_usage.ingest_bytes``: the bytes of ingest bodies accepted, per hour, for the daily
  quota.
- ``passport.turn_count``: how many turns the user's log holds now, kept by every write, for
  the per-user limit (counted here once for the passports stored before).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-03 20:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("ingest_job", sa.Column("not_before", sa.DateTime(timezone=True)))
    op.execute(
        "UPDATE ingest_job SET not_before = (result->>'deferred_until')::timestamptz "
        "WHERE status = 'queued' AND result ? 'deferred_until'"
    )
    op.add_column(
        "ingest_job",
        sa.Column("queue", sa.String(200), nullable=False, server_default="tessera:queue"),
    )
    op.add_column("tenant", sa.Column("last_served_at", sa.DateTime(timezone=True)))
    op.create_index(
        "ix_ingest_job_queued",
        "ingest_job",
        ["queue", "tenant_id", "created_at"],
        postgresql_where=sa.text("status = 'queued'"),
    )
    op.create_index(
        "ix_ingest_job_running",
        "ingest_job",
        ["tenant_id"],
        postgresql_where=sa.text("status = 'running'"),
    )
    op.create_index(
        "ix_ingest_job_user_unfinished",
        "ingest_job",
        ["tenant_id", "user_key"],
        postgresql_where=sa.text("status IN ('queued', 'running')"),
    )
    op.add_column(
        "tenant_usage",
        sa.Column("ingest_bytes", sa.BigInteger(), nullable=False, server_default="0"),
    )
    op.add_column(
        "passport", sa.Column("turn_count", sa.Integer(), nullable=False, server_default="0")
    )
    op.execute(
        "UPDATE passport p SET turn_count = c.n FROM ("
        "SELECT tenant_id, user_key, count(*) AS n FROM memory "
        "WHERE kind = 'turn' AND version_removed IS NULL GROUP BY tenant_id, user_key"
        ") c WHERE c.tenant_id = p.tenant_id AND c.user_key = p.user_key"
    )


def downgrade() -> None:
    op.drop_column("passport", "turn_count")
    op.drop_column("tenant_usage", "ingest_bytes")
    op.drop_index("ix_ingest_job_user_unfinished", table_name="ingest_job")
    op.drop_index("ix_ingest_job_running", table_name="ingest_job")
    op.drop_index("ix_ingest_job_queued", table_name="ingest_job")
    op.drop_column("ingest_job", "queue")
    op.drop_column("ingest_job", "not_before")
    op.drop_column("tenant", "last_served_at")
