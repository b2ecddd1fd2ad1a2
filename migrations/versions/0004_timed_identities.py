"""Row identities lead with the row's time: ``20230507T141500:<sha-256 hex>``.

A user's identities are indexed together. As bare hashes, a write's new entries landed on pages
all over the user's history, and the first write to each page after a checkpoint logs that page
whole: a long history made every write log a few index pages more. Led by the time the row was
said (a turn's ``ts``; a source or episode whose id leads with a time), they land together at the
end of the user's range.

Existing turns are keyed again here from their stored ``ts`` (the same time the application
reads from the item). Sources stored before segment ids carried a time keep their keys; the
application looks a source up under both forms. The column grows to 80 characters, which
Postgres does without rewriting the table; the update rewrites each turn row once.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-03 11:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Python's datetime (which made every key the application compares) spans years 1 to 9999 in UTC.
IN_RANGE = "ts >= '0001-01-01 00:00:00+00' AND ts < '10000-01-01 00:00:00+00'"
TIME_KEY = """to_char(ts AT TIME ZONE 'UTC', 'YYYYMMDD"T"HH24MISS')"""
TIME_IN_ID = "substring(item->>'id' from '^[a-z]+_([0-9]{8}T[0-9]{6})_')"
KEYED = "position(':' in hash) > 0"


def upgrade() -> None:
    op.alter_column(
        "memory", "hash", type_=sa.String(length=80), existing_type=sa.String(length=64)
    )
    op.execute(
        f"UPDATE memory SET hash = {TIME_KEY} || ':' || hash "
        f"WHERE kind = 'turn' AND {IN_RANGE} AND NOT {KEYED}"
    )
    op.execute(
        f"UPDATE memory SET hash = {TIME_IN_ID} || ':' || hash "
        f"WHERE kind IN ('source', 'episode') AND {TIME_IN_ID} IS NOT NULL AND NOT {KEYED}"
    )


def downgrade() -> None:
    op.execute(
        f"UPDATE memory SET hash = substring(hash from position(':' in hash) + 1) WHERE {KEYED}"
    )
    op.alter_column(
        "memory", "hash", type_=sa.String(length=64), existing_type=sa.String(length=80)
    )
