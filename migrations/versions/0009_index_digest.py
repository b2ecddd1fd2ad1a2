"""Each stored index segment carries a digest tying its bytes to the version chain.

The digest is SHA-256 over the root (hash) of the segment's newest version and the segment's
bytes (``app.domain.context.segment_checks``): a load checks it and builds the index from the log
on a mismatch, and ``/integrity`` reports one. Segments stored before have none: they are
dropped (derived data; reads build the index from the log again, and store it anew).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-06 07:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute("DELETE FROM index_segment")
    op.add_column("index_segment", sa.Column("digest", sa.String(64), nullable=False))


def downgrade() -> None:
    op.drop_column("index_segment", "digest")
