"""Wiring of one lobby process: Redis, SQL, the authority client, the servicer and the director."""

from __future__ import annotations

import gc
from dataclasses import dataclass
from functools import cache
from typing import Any, cast

import redis.asyncio as aioredis

from services.common.db import make_engine
from services.common.logging import get_logger
from services.common.redisio import async_redis, client_options
from services.common.settings import Settings
from services.lobby.config import LobbySettings
from services.lobby.director import Director
from services.lobby.games import GameClient, GameCreator
from services.lobby.queue import TicketQueue
from services.lobby.service import LobbyServicer
from services.lobby.store import LobbyStore

log = get_logger("lobby.runtime")
# Young-generation collections every this many allocations instead of CPython's 700: a
# matchmaking cycle over a big pool allocates a few objects per ticket, and collecting
# that often (with full collections scanning every layout and module) was about a
# quarter of a 10,000-ticket cycle's CPU.
GC_YOUNG_THRESHOLD = 20_000


def lobby_prefix(settings: Settings) -> str:
    """The Redis key prefix of the lobby's live queues."""
    return f"{settings.redis_prefix}lobby:"


@dataclass
class Lobby:
    """Everything one lobby process uses."""

    settings: Settings
    lobby: LobbySettings
    redis: aioredis.Redis
    watch_redis: aioredis.Redis
    store: LobbyStore
    queue: TicketQueue
    games: GameCreator
    servicer: LobbyServicer
    director: Director

    async def close(self) -> None:
        close = getattr(self.games, "close", None)
        if close is not None:
            await close()
        await cast(Any, self.redis).aclose()
        await cast(Any, self.watch_redis).aclose()


@cache
def shared_store(database_url: str, schema: str | None) -> LobbyStore:
    """One SQL store (engine and pool) per process and database (Celery tasks reuse it)."""
    return LobbyStore(make_engine(database_url, schema))


def warm_layouts() -> None:
    """Read every registered game's seat layouts once (New Cold War takes seconds cold)."""
    from warroom.engine.registry import game_ids
    from warroom.matchmaking import layouts_for

    for game in game_ids():
        try:
            layouts_for(game)
        except Exception:
            log.warning("game not available for matchmaking", game=game)


def tune_gc() -> None:
    """Collect rarely, and never scan what exists once warm (modules, seat layouts, the
    engine): called once the layouts are read."""
    gc.collect()
    gc.freeze()
    _young, middle, old = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, middle, old)


def build(
    settings: Settings,
    lobby: LobbySettings | None = None,
    games: GameCreator | None = None,
    store: LobbyStore | None = None,
) -> Lobby:
    """A lobby wired from settings (tests pass their own authority client or store)."""
    lobby = lobby or LobbySettings()
    # commands share a bounded pool (a burst of calls waits for a connection instead of
    # failing); WatchTicket subscriptions, which hold theirs, have their own
    pool: aioredis.BlockingConnectionPool = aioredis.BlockingConnectionPool.from_url(
        settings.redis_url,
        max_connections=lobby.redis_connections,
        timeout=30,
        **client_options(settings),
    )
    client: aioredis.Redis = cast(Any, aioredis.Redis).from_pool(pool)
    watch = async_redis(settings, max_connections=lobby.watch_connections)
    store = store or shared_store(settings.database_url, settings.db_schema)
    queue = TicketQueue(client, lobby_prefix(settings), lobby.ticket_keep_s, watch_client=watch)
    games = games or GameClient(settings)
    servicer = LobbyServicer(settings, lobby, store, queue, games)
    director = Director(
        queue, store, games, lobby, settings.game_endpoint, concurrency=lobby.create_concurrency
    )
    return Lobby(settings, lobby, client, watch, store, queue, games, servicer, director)
