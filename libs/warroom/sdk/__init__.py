"""Python SDK for Warroom: typed async wrappers over the public gRPC API.

Start with :class:`Client` (lobby calls: login, tables, tickets, ratings) and the
:class:`GameSession` it hands out for an assignment (views, watch with auto-resume,
submit with idempotency keys and retries).
"""

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
    "Client",
    "GameSession",
    "RetryPolicy",
    "WarroomError",
    "game_kind_of",
    "game_name_of",
]
