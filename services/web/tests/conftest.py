"""Fixtures of the gateway tests: the real authority, lobby and bot service in-process, and the
gateway in front of them, on the run's Redis and PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from sqlalchemy.engine import Engine

from services.bots.server import serve as serve_bots
from services.bots.settings import BotSettings
from services.catalog import service as catalog_service
from services.common.db import migrate
from services.common.server import RunningServer, start_server
from services.game.tests.helpers import Replica, start_replica
from services.lobby.config import LobbySettings
from services.lobby.tests.harness import LobbyNode, start_lobby
from services.web.server import RunningGateway, start_gateway
from services.web.settings import WebSettings


async def streams_back_to(gauge: Any, value: float) -> None:
    """Assert the open-streams gauge returns to `value` (a closed stream is counted out soon
    after its client closes it, within about 5 s)."""
    for _ in range(100):
        if gauge._value.get() == value:
            break
        await asyncio.sleep(0.05)
    assert gauge._value.get() == value


TOY = "toy=tests.engine.toy_game:ToyRules"
SECRET = "web-gateway-test-service-secret"


@dataclass
class Stack:
    """The backends and the gateway in front of them."""

    settings: WebSettings
    authority: Replica
    lobby: LobbyNode
    bots: RunningServer
    catalog: RunningServer
    gateway: RunningGateway

    @property
    def url(self) -> str:
        return self.gateway.url


@pytest.fixture(scope="session")
def web_migrated(db_engine: Engine) -> Engine:
    """The run's schema with every migration applied."""
    migrate(db_engine)
    return db_engine


@pytest.fixture
def dist(tmp_path: Path) -> Path:
    """A built-app directory like vite's output."""
    root = tmp_path / "dist"
    (root / "assets").mkdir(parents=True)
    (root / "index.html").write_text(
        '<!doctype html><html><head><script type="module" src="/assets/app-3f2a1b.js"></script>'
        "</head><body><div id=app></div></body></html>"
    )
    (root / "assets" / "app-3f2a1b.js").write_text("console.log('warroom');\n" * 200)
    (root / "favicon.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
    return root


@pytest.fixture
def web_settings(
    redis_url: str,
    redis_prefix: str,
    database_url: str,
    db_schema: str,
    web_migrated: Engine,
    dist: Path,
) -> WebSettings:
    """Settings for one test: its own Redis prefix, the run's schema, the test dist."""
    settings = WebSettings(
        redis_url=redis_url,
        redis_prefix=redis_prefix,
        database_url=database_url,
        db_schema=db_schema,
        service_secret=SECRET,
        extra_games=TOY,
        game_rate_per_second=10000.0,
        game_rate_burst=10000,
        web_dist_dir=dist,
    )
    settings.register_extra_games()
    return settings


@pytest_asyncio.fixture
async def stack(web_settings: WebSettings) -> AsyncIterator[Stack]:
    """Authority, lobby, bot service and a gateway forwarding to them (all on free ports)."""
    authority = await start_replica(web_settings)
    lobby = await start_lobby(
        web_settings, LobbySettings(watch_interval_s=0.2, claim_lease_s=30.0), authority
    )
    bot_settings = BotSettings(**web_settings.model_dump(exclude={"web_upstreams"}))
    bots, bot_servicer = await serve_bots(bot_settings, port=0)
    # The lobby process serves the catalogue in production; here it has its own server.
    catalog = await start_server(
        web_settings,
        port=0,
        service_names=[catalog_service.SERVICE_NAME],
        register=[catalog_service.register()],
    )
    settings = web_settings.model_copy(
        update={
            "web_lobby_endpoint": f"127.0.0.1:{lobby.server.port}",
            "web_game_endpoint": authority.address,
            "web_bots_endpoint": f"127.0.0.1:{bots.port}",
            "web_catalog_endpoint": f"127.0.0.1:{catalog.port}",
        }
    )
    gateway = await start_gateway(settings, port=0, metrics_port=-1)
    try:
        yield Stack(settings, authority, lobby, bots, catalog, gateway)
    finally:
        await gateway.stop()
        await catalog.stop(0)
        await bots.stop(0)
        await bot_servicer.close()
        await lobby.stop()
        await authority.stop()
