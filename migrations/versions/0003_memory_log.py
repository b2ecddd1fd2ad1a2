"""The memory log: turns, observations, episodes and sources become rows of ``memory``.

The passport row keeps only the head (facts, preferences, entities, open loops, contradictions,
meta). Existing passports are moved over in place: their observations, episodes, sources (and
any ``turns`` an import kept) become rows added at the current version, the document becomes the
head, and the current version's row gets the head as its snapshot. Earlier versions are still
rebuilt from their stored deltas of the whole document, so every version reads as it did.

This file keeps its own copy of the row identity rules (``_row_hash``): a migration must keep
meaning what it meant when it ran, whatever the application code becomes.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-02 21:00:00.000000
"""

import hashlib
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

KINDS = "kind IN ('turn', 'observation', 'episode', 'source', 'contradiction', 'open_loop')"
LOG_SECTIONS = {
    "turns": "turn",
    "observations": "observation",
    "episodes": "episode",
    "sources": "source",
}
ALL_SECTIONS = {**LOG_SECTIONS, "contradictions": "contradiction", "open_loops": "open_loop"}
BATCH = 200


def upgrade() -> None:
    op.create_table(
        "memory",
        sa.Column("tenant_id", sa.UUID(), nullable=False),
        sa.Column("user_key", sa.String(length=256), nullable=False),
        sa.Column("id", sa.BigInteger(), sa.Identity(always=False), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("hash", sa.String(length=64), nullable=False),
        sa.Column("ts", sa.DateTime(timezone=True), nullable=True),
        sa.Column("session", sa.String(length=200), nullable=True),
        sa.Column("source", sa.String(length=64), nullable=True),
        sa.Column("turn_id", sa.String(length=200), nullable=True),
        sa.Column("job_id", sa.UUID(), nullable=True),
        sa.Column("version_added", sa.Integer(), nullable=False),
        sa.Column("version_removed", sa.Integer(), nullable=True),
        sa.Column("item", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.CheckConstraint(KINDS, name=op.f("ck_memory_kind_known")),
        sa.ForeignKeyConstraint(
            ["tenant_id", "user_key"],
            ["passport.tenant_id", "passport.user_key"],
            name=op.f("fk_memory_tenant_id_user_key_passport"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("tenant_id", "user_key", "id", name=op.f("pk_memory")),
    )
    op.create_index(
        op.f("ix_memory_tenant_id_user_key_hash"), "memory", ["tenant_id", "user_key", "hash"]
    )
    op.create_index(
        op.f("ix_memory_tenant_id_user_key_version_added"),
        "memory",
        ["tenant_id", "user_key", "version_added"],
    )
    op.create_index(
        "ix_memory_turn_id",
        "memory",
        ["tenant_id", "user_key", "turn_id"],
        postgresql_where="turn_id IS NOT NULL",
    )
    op.create_index(
        "ix_memory_source",
        "memory",
        ["tenant_id", "user_key", "source"],
        postgresql_where="source IS NOT NULL",
    )
    op.create_index(
        op.f("ix_memory_tenant_id_user_key_ts"), "memory", ["tenant_id", "user_key", "ts"]
    )
    op.add_column(
        "passport", sa.Column("log_epoch", sa.Integer(), server_default="0", nullable=False)
    )
    op.add_column("passport_version", sa.Column("rows_added", postgresql.ARRAY(sa.BigInteger())))
    op.add_column("passport_version", sa.Column("rows_removed", postgresql.ARRAY(sa.BigInteger())))
    op.add_column("extraction_cache", sa.Column("segment", sa.String(length=64)))
    _move_to_log(op.get_bind())


def downgrade() -> None:
    _fold_into_documents(op.get_bind())
    op.drop_column("extraction_cache", "segment")
    op.drop_column("passport_version", "rows_removed")
    op.drop_column("passport_version", "rows_added")
    op.drop_column("passport", "log_epoch")
    op.drop_index(op.f("ix_memory_tenant_id_user_key_ts"), table_name="memory")
    op.drop_index("ix_memory_source", table_name="memory", postgresql_where="source IS NOT NULL")
    op.drop_index("ix_memory_turn_id", table_name="memory", postgresql_where="turn_id IS NOT NULL")
    op.drop_index(op.f("ix_memory_tenant_id_user_key_version_added"), table_name="memory")
    op.drop_index(op.f("ix_memory_tenant_id_user_key_hash"), table_name="memory")
    op.drop_table("memory")


# --- data -------------------------------------------------------------------------------------


def _sha(value: Any) -> str:
    data = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(data.encode("utf-8")).hexdigest()


def _norm(text: Any) -> str:
    return " ".join(str(text).split()).casefold()


def _row_hash(kind: str, item: dict[str, Any], nth: int) -> str:
    if kind == "turn":
        fields = [item.get(k) for k in ("speaker", "text", "ts", "id", "session")]
        return _sha(["turn", str(fields[0] or ""), str(fields[1] or ""), *fields[2:], nth])
    if kind == "observation":
        return _sha(["observation", _norm(item.get("text", "")), _norm(item.get("when") or "")])
    if kind == "episode":
        return _sha(["episode", item.get("id")])
    return _sha(["source", item.get("hash") or item.get("id")])


def _ts(value: Any) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _text(value: Any, limit: int) -> str | None:
    return value[:limit] if isinstance(value, str) else None


def _move_to_log(bind: sa.Connection) -> None:
    """Every passport's log sections become rows at its current version; its doc the head."""
    after: tuple[Any, ...] = ()
    while True:
        where = "WHERE (tenant_id, user_key) > (:t, :u)" if after else ""
        params = {"t": after[0], "u": after[1]} if after else {}
        rows = bind.execute(
            sa.text(
                f"SELECT tenant_id, user_key, doc, version FROM passport {where} "
                f"ORDER BY tenant_id, user_key LIMIT {BATCH}"
            ),
            params,
        ).all()
        if not rows:
            return
        for tenant_id, user_key, doc, version in rows:
            _move_one(bind, tenant_id, user_key, doc, version)
        after = (rows[-1][0], rows[-1][1])


def _move_one(bind: sa.Connection, tenant_id: Any, user_key: str, doc: Any, version: int) -> None:
    if not isinstance(doc, dict):
        return
    # The head keeps each log section's key (empty): the document goes out as it came in.
    head = {k: ([] if k in LOG_SECTIONS else v) for k, v in doc.items()}
    values = []
    for section, kind in LOG_SECTIONS.items():
        seen: dict[str, int] = {}
        for item in doc.get(section) or []:
            if not isinstance(item, dict):
                continue
            first = _row_hash(kind, item, 0)
            nth = seen.get(first, 0)
            seen[first] = nth + 1
            own = item.get("id") if kind in ("turn", "source") else item.get("source")
            values.append(
                {
                    "tenant_id": tenant_id,
                    "user_key": user_key,
                    "kind": kind,
                    "hash": _row_hash(kind, item, nth) if nth else first,
                    "ts": _ts(item.get("ts")),
                    "session": _text(item.get("session"), 200),
                    "source": _text(own, 64),
                    "turn_id": _text(item.get("id"), 200) if kind == "turn" else None,
                    "version_added": version,
                    "item": json.dumps(item, ensure_ascii=False),
                }
            )
    if values:
        bind.execute(
            sa.text(
                "INSERT INTO memory (tenant_id, user_key, kind, hash, ts, session, source, "
                "turn_id, version_added, item) VALUES (:tenant_id, :user_key, :kind, :hash, :ts, "
                ":session, :source, :turn_id, :version_added, CAST(:item AS jsonb))"
            ),
            values,
        )
    head_json = json.dumps(head, ensure_ascii=False)
    bind.execute(
        sa.text(
            "UPDATE passport SET doc = CAST(:doc AS jsonb) WHERE tenant_id = :t AND user_key = :u"
        ),
        {"doc": head_json, "t": tenant_id, "u": user_key},
    )
    # The current version is rebuilt from the head and the rows; earlier ones from their deltas.
    bind.execute(
        sa.text(
            "UPDATE passport_version SET snapshot = CAST(:doc AS jsonb) "
            "WHERE tenant_id = :t AND user_key = :u AND version = :v"
        ),
        {"doc": head_json, "t": tenant_id, "u": user_key, "v": version},
    )


def _fold_into_documents(bind: sa.Connection) -> None:
    """Each passport's live rows go back into its document (the current version's snapshot)."""
    passports = bind.execute(
        sa.text("SELECT tenant_id, user_key, doc, version FROM passport")
    ).all()
    for tenant_id, user_key, doc, version in passports:
        rows = bind.execute(
            sa.text(
                "SELECT kind, item FROM memory WHERE tenant_id = :t AND user_key = :u "
                "AND version_removed IS NULL ORDER BY id"
            ),
            {"t": tenant_id, "u": user_key},
        ).all()
        full = dict(doc)
        # Spilled head items (old open loops, contradictions) come before the head's own.
        sections = {kind: section for section, kind in ALL_SECTIONS.items()}
        by_section: dict[str, list[Any]] = {s: [] for s in LOG_SECTIONS if s in full}
        for kind, item in rows:
            by_section.setdefault(sections[kind], []).append(item)
        for section, items in by_section.items():
            held = full.get(section)
            full[section] = items + (list(held) if isinstance(held, list) else [])
        full_json = json.dumps(full, ensure_ascii=False)
        bind.execute(
            sa.text(
                "UPDATE passport SET doc = CAST(:doc AS jsonb) "
                "WHERE tenant_id = :t AND user_key = :u"
            ),
            {"doc": full_json, "t": tenant_id, "u": user_key},
        )
        bind.execute(
            sa.text(
                "UPDATE passport_version SET snapshot = CAST(:doc AS jsonb) "
                "WHERE tenant_id = :t AND user_key = :u AND version = :v"
            ),
            {"doc": full_json, "t": tenant_id, "u": user_key, "v": version},
        )
