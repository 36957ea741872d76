"""Fixtures of the game-authority tests: migrated PostgreSQL schema, settings, in-process replicas."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from sqlalchemy.engine import Engine

from services.common.db import migrate
from services.common.settings import Settings
from services.game.tests.helpers import Replica, start_replica
from warroom.engine.registry import register

TOY = "toy=tests.engine.toy_game:ToyRules"


@pytest.fixture(scope="session")
def migrated(db_engine: Engine) -> Engine:
    """The run's schema with every migration applied."""
    migrate(db_engine)
    return db_engine


@pytest.fixture
def settings(
    redis_url: str, redis_prefix: str, database_url: str, db_schema: str, migrated: Engine
) -> Settings:
    """Settings for one test: its own Redis prefix, the run's PostgreSQL schema."""
    register("toy", "tests.engine.toy_game:ToyRules")
    return Settings(
        redis_url=redis_url,
        redis_prefix=redis_prefix,
        database_url=database_url,
        db_schema=db_schema,
        service_secret="test-service-secret",
        extra_games=TOY,
        game_rate_per_second=1000.0,
        game_rate_burst=1000,
        game_snapshot_every=5,
        game_replay_spectator_delay_seconds=0,
    )


@pytest_asyncio.fixture
async def replica(settings: Settings) -> AsyncIterator[Replica]:
    """One in-process authority replica."""
    running = await start_replica(settings)
    try:
        yield running
    finally:
        await running.stop()


@pytest_asyncio.fixture
async def replicas(settings: Settings) -> AsyncIterator[tuple[Replica, Replica]]:
    """Two in-process authority replicas over the same Redis and database."""
    a = await start_replica(settings)
    try:
        b = await start_replica(settings)
        try:
            yield a, b
        finally:
            await b.stop()
    finally:
        await a.stop()
