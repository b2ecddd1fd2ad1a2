"""History you can prove: a hash chain over every user's versions, and erasure receipts.

- ``passport_version.hash``, ``.chain``, ``.redactions``: each version's hash, what it was taken
  over, and what later forgets did to the version (``app.domain.integrity.chain``);
  ``passport.root``: the newest hash. Histories stored before are chained here as they stand
  now, with no actor (what earlier forgets removed is gone and is not part of it).
- ``ingest_job.actor``: the prefix of the API key that sent the job.
- ``erasure_receipt``: the signed receipts of forgets, kept per tenant (a deleted user's too).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-04 06:00:00.000000
"""

import json
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB, UUID

from app.domain.integrity.canonical import GENESIS, row_hash
from app.domain.integrity.chain import Link, link_hash

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Versions chained per statement batch while the existing histories are chained.
BATCH = 500


def upgrade() -> None:
    op.add_column("passport", sa.Column("root", sa.String(64)))
    op.add_column("passport_version", sa.Column("hash", sa.String(64)))
    op.add_column("passport_version", sa.Column("chain", JSONB))
    op.add_column(
        "passport_version",
        sa.Column("redactions", JSONB, nullable=False, server_default="{}"),
    )
    op.add_column("ingest_job", sa.Column("actor", sa.String(32)))
    op.create_table(
        "erasure_receipt",
        sa.Column("tenant_id", UUID(as_uuid=True), nullable=False),
        sa.Column("id", UUID(as_uuid=True), nullable=False),
        sa.Column("user_key", sa.String(256), nullable=False),
        sa.Column("receipt", JSONB, nullable=False),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()
        ),
        sa.ForeignKeyConstraint(
            ["tenant_id"],
            ["tenant.id"],
            name="fk_erasure_receipt_tenant_id_tenant",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("tenant_id", "id", name="pk_erasure_receipt"),
    )
    op.create_index(
        "ix_erasure_receipt_tenant_id_user_key_created_at",
        "erasure_receipt",
        ["tenant_id", "user_key", "created_at"],
    )
    bind = op.get_bind()
    users = bind.execute(sa.text("SELECT tenant_id, user_key FROM passport")).all()
    for tenant_id, user_key in users:
        _chain_user(bind, tenant_id, user_key)
    op.alter_column("passport", "root", nullable=False)
    op.alter_column("passport_version", "hash", nullable=False)
    op.alter_column("passport_version", "chain", nullable=False)


def _chain_user(bind: Any, tenant_id: Any, user_key: str) -> None:
    """Chain one user's stored versions as they stand, oldest first: one read of its log, in
    version order, remembering the rows a later version takes out."""
    who = {"t": tenant_id, "u": user_key}
    prev, after = GENESIS, -1
    removals: dict[int, list[str]] = {}
    while True:
        versions = bind.execute(
            sa.text(
                "SELECT version, cause, delta, snapshot FROM passport_version "
                "WHERE tenant_id = :t AND user_key = :u AND version > :after "
                "ORDER BY version LIMIT :n"
            ),
            {**who, "after": after, "n": BATCH},
        ).all()
        if not versions:
            break
        low, high = versions[0][0], versions[-1][0]
        added: dict[int, list[str]] = {}
        rows = bind.execute(
            sa.text(
                "SELECT version_added, version_removed, kind, item FROM memory "
                "WHERE tenant_id = :t AND user_key = :u AND version_added BETWEEN :low AND :high"
            ),
            {**who, "low": low, "high": high},
        ).all()
        for version_added, version_removed, kind, item in rows:
            hashed = row_hash(kind, item)
            added.setdefault(version_added, []).append(hashed)
            if version_removed is not None:
                removals.setdefault(version_removed, []).append(hashed)
        for version, cause, delta, snapshot in versions:
            link = Link.of([delta, snapshot], added.get(version, []), removals.pop(version, []))
            prev = link_hash(prev, version, cause, link)
            bind.execute(
                sa.text(
                    "UPDATE passport_version SET hash = :h, chain = CAST(:c AS jsonb) "
                    "WHERE tenant_id = :t AND user_key = :u AND version = :v"
                ),
                {**who, "v": version, "h": prev, "c": json.dumps(link.to_json())},
            )
        after = high
    bind.execute(
        sa.text("UPDATE passport SET root = :h WHERE tenant_id = :t AND user_key = :u"),
        {**who, "h": prev},
    )


def downgrade() -> None:
    op.drop_index("ix_erasure_receipt_tenant_id_user_key_created_at", table_name="erasure_receipt")
    op.drop_table("erasure_receipt")
    op.drop_column("ingest_job", "actor")
    op.drop_column("passport_version", "redactions")
    op.drop_column("passport_version", "chain")
    op.drop_column("passport_version", "hash")
    op.drop_column("passport", "root")
