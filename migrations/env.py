"""Alembic environment: runs migrations synchronously over psycopg."""

from __future__ import annotations

import os

from alembic import context
from sqlalchemy import create_engine, pool

from app.db.engine import sync_url
from app.db.models import Base

config = context.config
url = config.get_main_option("sqlalchemy.url") or os.environ.get("TESSERA_DATABASE_URL")
if not url:
    raise RuntimeError("set TESSERA_DATABASE_URL (or run `tessera migrate`)")


def run_migrations_offline() -> None:
    context.configure(url=sync_url(url), target_metadata=Base.metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    engine = create_engine(sync_url(url), poolclass=pool.NullPool)
    with engine.connect() as connection:
        context.configure(connection=connection, target_metadata=Base.metadata)
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
