"""A session's newest turns are read by an index, not a scan of the user's log.

``GET /users/{key}/turns?session=`` (an agent's working memory) walks the index backwards from
the newest row of that session.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-06 11:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index(
        "ix_memory_session",
        "memory",
        ["tenant_id", "user_key", "session", "id"],
        postgresql_where=sa.text("session IS NOT NULL"),
    )


def downgrade() -> None:
    op.drop_index("ix_memory_session", table_name="memory")
