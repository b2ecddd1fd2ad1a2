"""Engine and session factory, built from Settings at start-up (never at import)."""

from __future__ import annotations

from pathlib import Path

from alembic.config import Config
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)

import migrations

# What callers outside app/db catch for "the database said no" (missing schema, lost server).
DatabaseError = DBAPIError


def database_error_types() -> tuple[type[Exception], ...]:
    """The exception types that may mean an unreachable database (see database_unreachable)."""
    return (DBAPIError, OSError, PoolTimeout)


def database_unreachable(exc: BaseException) -> bool:
    """Whether an error means the database cannot be reached now (retry later), not a bug."""
    if database_busy(exc):
        return True
    if isinstance(exc, DBAPIError):
        return exc.connection_invalidated or isinstance(exc, (OperationalError, InterfaceError))
    # asyncpg raises plain OSErrors (connection refused, reset) when it cannot connect.
    return isinstance(exc, OSError)


def database_busy(exc: BaseException) -> bool:
    """Whether every connection of the pool stayed busy past its wait (retry later)."""
    return isinstance(exc, PoolTimeout)


def async_url(url: str) -> str:
    """The URL with the asyncpg driver, whatever driver the user wrote."""
    return make_url(url).set(drivername="postgresql+asyncpg").render_as_string(hide_password=False)


def sync_url(url: str) -> str:
    """The URL with the psycopg (v3) driver, for Alembic and admin scripts."""
    return make_url(url).set(drivername="postgresql+psycopg").render_as_string(hide_password=False)


def listen_dsn(url: str) -> str:
    """The libpq-style DSN asyncpg takes (for the job signals' listening connection)."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


# The engine type, named here so the runtime can hold one without importing SQLAlchemy.
Engine = AsyncEngine


def create_engine(
    url: str, *, pool_size: int = 10, max_overflow: int | None = None, name: str = "tessera"
) -> AsyncEngine:
    """An asyncpg engine (overflow: ``pool_size`` more unless given); JSON by orjson.

    ``name`` is the connections' application_name: ``pg_stat_activity`` tells which process
    (API, worker, command line) holds which connection.
    """
    import orjson

    return create_async_engine(
        async_url(url),
        connect_args={"server_settings": {"application_name": name}},
        pool_size=pool_size,
        max_overflow=pool_size if max_overflow is None else max_overflow,
        # No pre-ping: it costs a round trip on every checkout, the bulk of a warm read's
        # database time. A connection found dead raises once and the pool is invalidated
        # (SQLAlchemy's disconnect handling); recycling bounds how stale a connection gets.
        pool_recycle=300,
        # Errors must not quote statement parameters (passport content) into logs.
        hide_parameters=True,
        json_serializer=lambda v: orjson.dumps(v).decode(),
        json_deserializer=orjson.loads,
    )


def read_session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    """Sessions for single-statement reads: autocommit, so no BEGIN/ROLLBACK round trips."""
    return async_sessionmaker(
        engine.execution_options(isolation_level="AUTOCOMMIT"), expire_on_commit=False
    )


def session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    """Sessions that do not expire objects on commit (we read them after)."""
    return async_sessionmaker(engine, expire_on_commit=False)


def migrations_dir() -> Path:
    """Where the Alembic scripts live, installed or in a checkout."""
    # __path__ works for a regular package and for an editable install's namespace mapping.
    return Path(next(iter(migrations.__path__)))


def alembic_config(url: str) -> Config:
    """An Alembic Config pointing at our scripts and the given database."""
    cfg = Config()
    cfg.set_main_option("script_location", str(migrations_dir()))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def upgrade(url: str, revision: str = "head") -> None:
    """Run Alembic migrations up to revision."""
    from alembic import command

    command.upgrade(alembic_config(url), revision)


def downgrade(url: str, revision: str = "base") -> None:
    """Run Alembic migrations down to revision."""
    from alembic import command

    command.downgrade(alembic_config(url), revision)


async def ping(engine: AsyncEngine) -> None:
    """Raise unless the database answers a trivial query."""
    from sqlalchemy import text

    async with engine.connect() as conn:
        await conn.execute(text("SELECT 1"))
