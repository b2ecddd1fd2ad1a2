"""A stored index: segments of each user's index, so a first read needs no whole log.

``index_segment`` is UNLOGGED: it is derived from the log (a crash empties it, and reads build
the index from the log again), so writing it costs no WAL. Its bodies are stored uncompressed
(``STORAGE EXTERNAL``): a write does not compress them, a read does not decompress them.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-04 09:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import UUID

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "index_segment",
        sa.Column(
            "tenant_id",
            UUID(as_uuid=True),
            sa.ForeignKey(
                "tenant.id", ondelete="CASCADE", name="fk_index_segment_tenant_id_tenant"
            ),
            nullable=False,
        ),
        sa.Column("user_key", sa.String(256), nullable=False),
        sa.Column("to_version", sa.Integer, nullable=False),
        sa.Column("from_version", sa.Integer, nullable=False),
        sa.Column("epoch", sa.Integer, nullable=False),
        sa.Column("level", sa.SmallInteger, nullable=False),
        sa.Column("records", sa.Integer, nullable=False),
        sa.Column("body", sa.LargeBinary, nullable=False),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()
        ),
        sa.PrimaryKeyConstraint("tenant_id", "user_key", "to_version", name="pk_index_segment"),
        sa.ForeignKeyConstraint(
            ["tenant_id", "user_key"],
            ["passport.tenant_id", "passport.user_key"],
            ondelete="CASCADE",
            name="fk_index_segment_tenant_id_user_key_passport",
        ),
        prefixes=["UNLOGGED"],
    )
    op.execute("ALTER TABLE index_segment ALTER COLUMN body SET STORAGE EXTERNAL")


def downgrade() -> None:
    op.drop_table("index_segment")
