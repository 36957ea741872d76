"""The PostgreSQL fixtures: per-run schemas, schema-bound engines, loud failures."""

from __future__ import annotations

import re
import socket
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine, make_url

from tests.fixtures import (
    ServiceUnavailableError,
    check_database,
    new_schema_name,
    postgres_service,
    schema_engine,
    temporary_schema,
)

# Inner pytest sessions (pytester) run outside pyproject.toml: load the plugin explicitly.
INNER_ARGS = (
    "-p",
    "tests.fixtures.plugin",
    "-p",
    "no:cacheprovider",
    "-o",
    "asyncio_default_fixture_loop_scope=function",
)
SCHEMA_RE = re.compile(r"^wr_test_[0-9a-f]{8}$")


def _schema_exists(url: str, schema: str) -> bool:
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as conn:
            found = conn.execute(
                sa.text("SELECT 1 FROM pg_namespace WHERE nspname = :n"), {"n": schema}
            ).first()
        return found is not None
    finally:
        engine.dispose()


def test_database_url_uses_psycopg(database_url: str) -> None:
    assert make_url(database_url).drivername == "postgresql+psycopg"


def test_schema_names_are_distinct(db_schema: str) -> None:
    names = {new_schema_name() for _ in range(200)}
    assert len(names) == 200
    assert all(SCHEMA_RE.match(n) for n in names)
    assert SCHEMA_RE.match(db_schema)


def test_engine_uses_run_schema(db_engine: Engine, db_schema: str) -> None:
    with db_engine.connect() as conn:
        assert conn.execute(sa.text("SELECT current_schema()")).scalar_one() == db_schema
        assert conn.execute(sa.text("SHOW search_path")).scalar_one() == db_schema


def test_schema_isolation(database_url: str, db_engine: Engine, db_schema: str) -> None:
    """A table made in one run's schema is invisible from another run's schema."""
    with db_engine.begin() as conn:
        conn.execute(sa.text("CREATE TABLE isolation_probe (v text)"))
        conn.execute(sa.text("INSERT INTO isolation_probe VALUES ('first run')"))
    try:
        with temporary_schema(database_url) as other:
            assert other != db_schema
            other_engine = schema_engine(database_url, other)
            try:
                with other_engine.begin() as conn:
                    assert (
                        conn.execute(sa.text("SELECT to_regclass('isolation_probe')")).scalar()
                        is None
                    )
                    # The same name can be used independently in the other schema.
                    conn.execute(sa.text("CREATE TABLE isolation_probe (v text)"))
                    conn.execute(sa.text("INSERT INTO isolation_probe VALUES ('second run')"))
                    rows = conn.execute(sa.text("SELECT v FROM isolation_probe")).scalars().all()
                    assert rows == ["second run"]
            finally:
                other_engine.dispose()
            assert _schema_exists(database_url, other)
        assert not _schema_exists(database_url, other)
        with db_engine.connect() as conn:
            rows = conn.execute(sa.text("SELECT v FROM isolation_probe")).scalars().all()
            assert rows == ["first run"]
    finally:
        with db_engine.begin() as conn:
            conn.execute(sa.text("DROP TABLE IF EXISTS isolation_probe"))


def test_fixture_teardown_drops_schema(
    pytester: pytest.Pytester, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run a real inner session: its schema exists during the run and is dropped after."""
    monkeypatch.setenv("DATABASE_URL", database_url)
    record = pytester.path / "schema.txt"
    pytester.makepyfile(
        test_inner=f"""
        import pathlib
        import sqlalchemy as sa

        def test_uses_schema(db_engine, db_schema):
            pathlib.Path({str(record)!r}).write_text(db_schema)
            with db_engine.begin() as conn:
                conn.execute(sa.text("CREATE TABLE t (id int)"))
                assert conn.execute(sa.text("SELECT current_schema()")).scalar_one() == db_schema
        """
    )
    result = pytester.runpytest_inprocess(*INNER_ARGS)
    result.assert_outcomes(passed=1)
    schema = Path(record).read_text()
    assert SCHEMA_RE.match(schema)
    assert not _schema_exists(database_url, schema)


def test_bad_database_url_raises_clear_error() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"postgresql+psycopg://postgres@127.0.0.1:{port}/test"
    with (
        pytest.raises(ServiceUnavailableError) as excinfo,
        postgres_service({"DATABASE_URL": url}, wait_seconds=0.5),
    ):
        pytest.fail("postgres_service yielded for an unreachable DATABASE_URL")
    assert "DATABASE_URL" in str(excinfo.value)
    assert url in str(excinfo.value)


def test_malformed_database_url_raises_clear_error() -> None:
    with pytest.raises(ServiceUnavailableError, match="not a usable database URL"):
        check_database("::not a url::", wait_seconds=0)
