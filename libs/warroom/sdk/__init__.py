"""Python SDK for Warroom: typed async wrappers over the public gRPC API.

Start with :class:`Client` (lobby calls: login, tables, tickets, ratings) and the
:class:`GameSession` it hands out for an assignment (views, watch with auto-resume,
submit with idempotency keys and retries). :class:`CatalogClient` fetches and caches
the game catalogue (card, space and objective names for the ids of a view).
"""

from warroom.sdk.catalog import CatalogClient
from warroom.sdk.client import (
    DEFAULT_BOTS,
    DEFAULT_GAME,
    DEFAULT_LOBBY,
    BotsClient,
    Client,
    GameSession,
    RetryPolicy,
    WarroomError,
    game_kind_of,
    game_name_of,
)

__all__ = [
    "DEFAULT_BOTS",
    "DEFAULT_GAME",
    "DEFAULT_LOBBY",
    "BotsClient",
    "CatalogClient",
    "Client",
    "GameSession",
    "RetryPolicy",
    "WarroomError",
    "game_kind_of",
    "game_name_of",
]
