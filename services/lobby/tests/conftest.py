"""Fixtures of the lobby tests: migrated schema, the real authority in-process, lobby replicas."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from sqlalchemy.engine import Engine

from services.common.db import migrate
from services.common.settings import Settings
from services.game.tests.helpers import start_replica
from services.lobby.config import LobbySettings
from services.lobby.tests.harness import Harness, start_lobby

TOY = "toy=tests.engine.toy_game:ToyRules"


@pytest.fixture(scope="session")
def lobby_migrated(db_engine: Engine) -> Engine:
    """The run's schema with every migration applied."""
    migrate(db_engine)
    return db_engine


@pytest.fixture
def settings(
    redis_url: str, redis_prefix: str, database_url: str, db_schema: str, lobby_migrated: Engine
) -> Settings:
    """Settings for one test: its own Redis prefix, the run's PostgreSQL schema."""
    settings = Settings(
        redis_url=redis_url,
        redis_prefix=redis_prefix,
        database_url=database_url,
        db_schema=db_schema,
        service_secret="lobby-test-service-secret",
        extra_games=TOY,
        game_rate_per_second=10000.0,
        game_rate_burst=10000,
    )
    settings.register_extra_games()
    return settings


@pytest.fixture
def lobby_settings() -> LobbySettings:
    """Lobby tunables for tests: short watch interval, default windows."""
    return LobbySettings(watch_interval_s=0.2, claim_lease_s=30.0)


@pytest_asyncio.fixture
async def harness(settings: Settings, lobby_settings: LobbySettings) -> AsyncIterator[Harness]:
    """The real authority plus one lobby replica."""
    authority = await start_replica(settings)
    h = Harness(settings, authority)
    try:
        h.nodes.append(await start_lobby(settings, lobby_settings, authority))
        yield h
    finally:
        for node in h.nodes:
            await node.stop()
        await authority.stop()
