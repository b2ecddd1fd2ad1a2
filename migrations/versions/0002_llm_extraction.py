"""LLM extraction: job kinds, the extraction cache, per-tenant usage, payload retention index.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-06 10:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

PAYLOAD_KEPT = "payload IS NOT NULL AND finished_at IS NOT NULL"


def upgrade() -> None:
    op.add_column(
        "ingest_job",
        sa.Column("kind", sa.String(length=16), server_default="ingest", nullable=False),
    )
    op.create_check_constraint(
        op.f("ck_ingest_job_kind_known"),
        "ingest_job",
        "kind IN ('ingest', 'reprocess', 'compact')",
    )
    op.create_index(
        "ix_ingest_job_payload_kept",
        "ingest_job",
        ["finished_at"],
        unique=False,
        postgresql_where=PAYLOAD_KEPT,
    )
    op.create_table(
        "extraction_cache",
        sa.Column("tenant_id", sa.UUID(), nullable=False),
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("user_key", sa.String(length=256), nullable=False),
        sa.Column("extractor", sa.String(length=256), nullable=False),
        sa.Column("output", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("input_tokens", sa.Integer(), server_default="0", nullable=False),
        sa.Column("output_tokens", sa.Integer(), server_default="0", nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(
            ["tenant_id", "user_key"],
            ["passport.tenant_id", "passport.user_key"],
            name=op.f("fk_extraction_cache_tenant_id_user_key_passport"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("tenant_id", "key", name=op.f("pk_extraction_cache")),
    )
    op.create_index(
        op.f("ix_extraction_cache_tenant_id_user_key"),
        "extraction_cache",
        ["tenant_id", "user_key"],
        unique=False,
    )
    op.create_table(
        "tenant_usage",
        sa.Column("tenant_id", sa.UUID(), nullable=False),
        sa.Column("hour", sa.DateTime(timezone=True), nullable=False),
        sa.Column("jobs", sa.BigInteger(), server_default="0", nullable=False),
        sa.Column("calls", sa.BigInteger(), server_default="0", nullable=False),
        sa.Column("input_tokens", sa.BigInteger(), server_default="0", nullable=False),
        sa.Column("output_tokens", sa.BigInteger(), server_default="0", nullable=False),
        sa.Column("cache_hits", sa.BigInteger(), server_default="0", nullable=False),
        sa.ForeignKeyConstraint(
            ["tenant_id"],
            ["tenant.id"],
            name=op.f("fk_tenant_usage_tenant_id_tenant"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("tenant_id", "hour", name=op.f("pk_tenant_usage")),
    )


def downgrade() -> None:
    op.drop_table("tenant_usage")
    op.drop_index(op.f("ix_extraction_cache_tenant_id_user_key"), table_name="extraction_cache")
    op.drop_table("extraction_cache")
    op.drop_index(
        "ix_ingest_job_payload_kept",
        table_name="ingest_job",
        postgresql_where=PAYLOAD_KEPT,
    )
    op.drop_constraint(op.f("ck_ingest_job_kind_known"), "ingest_job", type_="check")
    op.drop_column("ingest_job", "kind")
