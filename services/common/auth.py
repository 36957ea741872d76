"""Service credentials: the bearer credential internal callers present, and bot seat tokens.

Internal RPCs (GameService.CreateGame, ListGames, ...) require the metadata
`authorization: Bearer <service secret>`. Bot seat tokens are derived, not
stored: HMAC-SHA256(service secret, f"{game_id}:{seat}"), so a bot worker
holding the service secret can act for a bot seat without a token hand-off.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable
from typing import Any

from services.common.settings import Settings

AUTHORIZATION = "authorization"


def service_metadata(settings: Settings) -> tuple[tuple[str, str], ...]:
    """Call metadata carrying this process's service credential."""
    return ((AUTHORIZATION, f"Bearer {settings.service_secret.get_secret_value()}"),)


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
    """Whether call metadata carries the service credential (constant-time check)."""
    credential = bearer(metadata)
    if credential is None:
        return False
    return hmac.compare_digest(credential.encode(), settings.secret())


def bot_seat_token(secret: bytes, game_id: str, seat: int) -> str:
    """The derived seat token of a bot seat (what a bot worker passes to GameService)."""
    digest = hmac.new(secret, f"{game_id}:{seat}".encode(), hashlib.sha256).hexdigest()
    return f"bot.{digest}"


def token_digest(token: str) -> str:
    """The stored digest of a token (tokens themselves are never stored)."""
    return hashlib.sha256(token.encode()).hexdigest()
