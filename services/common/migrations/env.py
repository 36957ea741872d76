"""Alembic environment shared by every service.

Target metadata is `services.common.db.Base.metadata` after importing every
`services.<name>.models` module that exists. A caller may pass an open
connection in `config.attributes["connection"]` (tests, `db.migrate`);
otherwise the URL and schema come from the settings.
"""

from __future__ import annotations

import importlib
import pkgutil
from logging.config import fileConfig

from alembic import context
from sqlalchemy.engine import Connection

import services
from services.common.db import Base, make_engine
from services.common.settings import get_settings

config = context.config
if config.config_file_name is not None and config.attributes.get("connection") is None:
    fileConfig(config.config_file_name, disable_existing_loggers=False)

for module in pkgutil.iter_modules(services.__path__):
    if module.ispkg and module.name != "common":
        try:
            importlib.import_module(f"services.{module.name}.models")
        except ModuleNotFoundError as exc:
            if exc.name != f"services.{module.name}.models":
                raise

target_metadata = Base.metadata


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_offline() -> None:
    """Emit SQL without a database."""
    context.configure(
        url=get_settings().database_url,
        target_metadata=target_metadata,
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
    )
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    """Migrate a live database (a passed connection, or the settings' database)."""
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    settings = get_settings()
    engine = make_engine(settings.database_url, settings.db_schema)
    with engine.begin() as conn:
        _run(conn)
    engine.dispose()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
