"""SQLAlchemy 2: the declarative `Base` of every service's tables, engines, sessions, migrations.

PostgreSQL in production, a SQLite file as the embedded default. A PostgreSQL
schema (tests isolate each run in its own) is applied through the connection's
search_path, so models never name a schema.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import MetaData, create_engine, event, text
from sqlalchemy.engine import URL, Engine, make_url
from sqlalchemy.orm import DeclarativeBase, Session, sessionmaker

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

MIGRATIONS_DIR = Path(__file__).parent / "migrations"
ALEMBIC_INI = Path(__file__).parent / "alembic.ini"


class Base(DeclarativeBase):
    """Declarative base of every service's ORM models (one metadata, one migration history)."""

    metadata = MetaData(naming_convention=NAMING)


def normalize_url(url: str | URL) -> URL:
    """A SQLAlchemy URL with the psycopg 3 driver for PostgreSQL."""
    parsed = make_url(url)
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed


def make_engine(url: str | URL, schema: str | None = None, **kwargs: Any) -> Engine:
    """An engine for a URL; `schema` sets the PostgreSQL search_path of every connection.

    SQLite files get WAL mode, foreign keys and a busy timeout; their parent
    directory is created.
    """
    parsed = normalize_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(parsed, connect_args={"timeout": 30}, **kwargs)

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.close()

        return engine
    connect_args: dict[str, Any] = dict(kwargs.pop("connect_args", {}))
    if schema:
        connect_args["options"] = f"-csearch_path={schema}"
    kwargs.setdefault("pool_pre_ping", True)
    return create_engine(parsed, connect_args=connect_args, **kwargs)


def session_factory(engine: Engine) -> sessionmaker[Session]:
    """A session factory that keeps objects usable after commit."""
    return sessionmaker(engine, expire_on_commit=False)


@contextmanager
def session_scope(factory: sessionmaker[Session]) -> Iterator[Session]:
    """A session committed on success and rolled back on error."""
    session = factory()
    try:
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()


def migrate(engine: Engine, revision: str = "head") -> None:
    """Run the Alembic migrations of every service up to `revision` on an engine's database.

    On PostgreSQL a transaction-scoped advisory lock serializes concurrent callers.
    """
    from alembic import command
    from alembic.config import Config

    config = Config(str(ALEMBIC_INI))
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            # Services starting together (lobby, game, bots) migrate one after the other.
            connection.execute(text("SELECT pg_advisory_xact_lock(7305021)"))
        config.attributes["connection"] = connection
        command.upgrade(config, revision)
