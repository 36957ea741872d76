"""Service credentials: the bearer credential internal callers present, and bot seat tokens.

Internal RPCs (GameService.CreateGame, ListGames, ...) require the metadata
`authorization: Bearer <service credential>`; the current credential and every retired one
in `service_secret_previous` are accepted. Bot seat tokens are derived, not stored:
HMAC-SHA256(bot token key, f"{game_id}:{seat}"), so a bot worker holding that key can act
for a bot seat without a token hand-off; the authority accepts the tokens of every key of
the ring (`bot_seat_tokens`), so rotating the key does not strand a running game.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable
from typing import Any

from services.common.settings import Settings

AUTHORIZATION = "authorization"


def service_metadata(settings: Settings) -> tuple[tuple[str, str], ...]:
    """Call metadata carrying this process's (current) service credential."""
    return ((AUTHORIZATION, f"Bearer {settings.service_keys().current.decode()}"),)


def bearer(metadata: Iterable[Any] | None) -> str | None:
    """The bearer credential in call metadata, if any."""
    for item in metadata or ():
        key, value = (item.key, item.value) if hasattr(item, "key") else item
        if key.lower() == AUTHORIZATION and isinstance(value, str):
            scheme, _, credential = value.partition(" ")
            if scheme.lower() == "bearer" and credential:
                return credential.strip()
    return None


def is_service_call(metadata: Iterable[Any] | None, settings: Settings) -> bool:
    """Whether call metadata carries a current or retired service credential (constant time)."""
    credential = bearer(metadata)
    if credential is None:
        return False
    return settings.service_keys().matches(credential.encode())


def bot_seat_token(secret: bytes, game_id: str, seat: int) -> str:
    """The derived seat token of a bot seat (what a bot worker passes to GameService)."""
    digest = hmac.new(secret, f"{game_id}:{seat}".encode(), hashlib.sha256).hexdigest()
    return f"bot.{digest}"


def bot_seat_tokens(settings: Settings, game_id: str, seat: int) -> list[str]:
    """Every accepted token of a bot seat: the current key's first, then the retired keys'."""
    return [bot_seat_token(key, game_id, seat) for key in settings.bot_token_keys().all()]


def token_digest(token: str) -> str:
    """The stored digest of a token (tokens themselves are never stored)."""
    return hashlib.sha256(token.encode()).hexdigest()
