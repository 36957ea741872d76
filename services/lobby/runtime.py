"""Wiring of one lobby process: Redis, SQL, the authority client, the servicer and the director."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import redis.asyncio as aioredis

from services.common.db import make_engine
from services.common.settings import Settings
from services.lobby.config import LobbySettings
from services.lobby.director import Director
from services.lobby.games import GameClient, GameCreator
from services.lobby.queue import TicketQueue
from services.lobby.service import LobbyServicer
from services.lobby.store import LobbyStore


def lobby_prefix(settings: Settings) -> str:
    """The Redis key prefix of the lobby's live queues."""
    return f"{settings.redis_prefix}lobby:"


@dataclass
class Lobby:
    """Everything one lobby process uses."""

    settings: Settings
    lobby: LobbySettings
    redis: aioredis.Redis
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


def build(
    settings: Settings,
    lobby: LobbySettings | None = None,
    games: GameCreator | None = None,
    store: LobbyStore | None = None,
) -> Lobby:
    """A lobby wired from settings (tests pass their own authority client or store)."""
    lobby = lobby or LobbySettings()
    client = aioredis.Redis.from_url(settings.redis_url)
    store = store or LobbyStore(make_engine(settings.database_url, settings.db_schema))
    queue = TicketQueue(client, lobby_prefix(settings), lobby.ticket_keep_s)
    games = games or GameClient(settings)
    servicer = LobbyServicer(settings, lobby, store, queue, games)
    director = Director(queue, store, games, lobby, settings.game_endpoint)
    return Lobby(settings, lobby, client, store, queue, games, servicer, director)
