"""A cached extraction names the job that paid for it, and goes when that job goes.

A job extracts with no transaction open and stores each extraction right after the call. Had
its user been deleted meanwhile (and perhaps created again under the same key), the row stayed,
holding what was extracted from a user who asked to be deleted. The row now refers to its job:
the insert fails once the job is gone, and waits for a delete that is under way.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-03 20:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("extraction_cache", sa.Column("job_id", postgresql.UUID(as_uuid=True)))
    op.create_index(
        op.f("ix_extraction_cache_tenant_id_job_id"),
        "extraction_cache",
        ["tenant_id", "job_id"],
        postgresql_where=sa.text("job_id IS NOT NULL"),
    )
    op.create_foreign_key(
        op.f("fk_extraction_cache_tenant_id_job_id_ingest_job"),
        "extraction_cache",
        "ingest_job",
        ["tenant_id", "job_id"],
        ["tenant_id", "id"],
        ondelete="CASCADE",
    )


def downgrade() -> None:
    op.drop_constraint(
        op.f("fk_extraction_cache_tenant_id_job_id_ingest_job"),
        "extraction_cache",
        type_="foreignkey",
    )
    op.drop_index(op.f("ix_extraction_cache_tenant_id_job_id"), table_name="extraction_cache")
    op.drop_column("extraction_cache", "job_id")
