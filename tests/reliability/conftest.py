"""Fixtures of the fault tests: a migrated schema, a stack of real processes per test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine

from services.common.db import migrate
from tests.reliability.procs import Procs, Stack


@pytest.fixture(scope="session")
def reliability_migrated(db_engine: Engine) -> Engine:
    """The run's schema with every migration applied."""
    migrate(db_engine)
    return db_engine


@pytest.fixture
def stack(
    redis_url: str,
    redis_prefix: str,
    database_url: str,
    db_schema: str,
    reliability_migrated: Engine,
) -> Stack:
    """Stores, key prefix and fresh production keys for the processes of one test."""
    return Stack(redis_url, database_url, db_schema, redis_prefix)


@pytest.fixture
def procs(stack: Stack, tmp_path: Path) -> Iterator[Procs]:
    """Starts processes for a test; stops every one of them afterwards."""
    started = Procs(stack, tmp_path)
    try:
        yield started
    finally:
        started.close()
