"""Seat tokens and callers: minting a game's tokens and telling who presented one.

Seat token = `wr.<game>.<seat>.<HMAC(secret, seat:<game>:<seat>:<salt>)>`, the spectator
token likewise; only their sha256 digests are stored. A bot seat's token is derived from
the game id and seat alone (`services.common.auth.bot_seat_token`) and is accepted only
while a bot controls the seat.
"""

from __future__ import annotations

import hmac

from services.common.auth import bot_seat_tokens, token_digest
from services.common.settings import Settings
from services.game import errors, metrics
from services.game.core import Core
from services.game.live import BOT, Caller, LiveGame
from services.game.models import GameSeatRow


def mint_tokens(secret: bytes, game_id: str, salt: str, count: int) -> tuple[list[str], str]:
    """The seat tokens and the spectator token of a game (same salt, same tokens)."""
    seats = [
        f"wr.{game_id}.{i}."
        + hmac.new(secret, f"seat:{game_id}:{i}:{salt}".encode(), "sha256").hexdigest()[:40]
        for i in range(count)
    ]
    spectator = (
        f"wr.{game_id}.s."
        + hmac.new(secret, f"spectator:{game_id}:{salt}".encode(), "sha256").hexdigest()[:40]
    )
    return seats, spectator


def bot_tokens(settings: Settings, game_id: str, seats: list[GameSeatRow]) -> dict[str, int]:
    """The bot token of every seat of a game -> its seat (every key of the bot-token ring)."""
    return {token: s.seat for s in seats for token in bot_seat_tokens(settings, game_id, s.seat)}


def _refusal(live: LiveGame, token: str) -> errors.GameError:
    """Why a token was refused, as precisely as the token's shape tells."""
    parts = token.split(".")
    if len(parts) == 4 and parts[0] == "wr" and parts[1] != live.id:
        return errors.denied(
            "FOREIGN_TOKEN",
            f"this token belongs to game {parts[1][:32]}, not to game {live.id}",
            game_id=live.id,
        )
    if token.startswith("bot.") and token in live.bot_tokens:
        seat = live.bot_tokens[token]
        return errors.denied(
            "SEAT_NOT_BOT",
            f"seat {seat} of game {live.id} is not played by a bot now",
            game_id=live.id,
        )
    return errors.denied(
        "BAD_TOKEN" if token else "MISSING_TOKEN",
        f"the token is not valid for game {live.id}" if token else "a token is required",
        game_id=live.id,
    )


def match_token(live: LiveGame, token: str) -> Caller | None:
    """The caller a token stands for in this game, if any (seat digests compared in constant
    time; a match is remembered)."""
    if not token:
        return None
    if token.startswith("bot."):
        seat = live.bot_tokens.get(token)
        if seat is not None and live.seats[seat].controller == BOT:
            return Caller(seat, bot=True)
        return None
    known = live.callers.get(token)
    if known is not None:
        return known
    digest = token_digest(token)
    found: Caller | None = None
    for row in live.seats:
        if hmac.compare_digest(digest, row.token_digest):
            found = Caller(row.seat)
    spectator = live.row.spectator_token_digest
    if spectator and live.row.allow_spectators and hmac.compare_digest(digest, spectator):
        found = Caller(None)
    if found is not None:
        live.callers[token] = found
    return found


class Callers:
    """Authenticates tokens against a live game."""

    def __init__(self, core: Core) -> None:
        self.core = core

    async def authenticate(self, live: LiveGame, token: str) -> Caller:
        """The caller of a token; raises PERMISSION_DENIED.

        A human presenting the token of a seat a bot took over (clock expiry) marks the
        seat for reclaim: it returns to them at its next decision.
        """
        caller = match_token(live, token)
        if caller is None and token.startswith("bot."):
            live.seats = await self.core.db(self.core.store.seats, live.id)
            caller = match_token(live, token)
        if caller is None:
            metrics.REJECTS.labels("PERMISSION_DENIED").inc()
            raise _refusal(live, token)
        if caller.seat is not None and not caller.bot:
            row = live.seats[caller.seat]
            if row.controller == BOT and row.bot is None and not row.reclaim:
                await self._mark_reclaim(live, caller.seat)
        return caller

    async def actor(self, live: LiveGame, token: str, what: str) -> tuple[int, bool]:
        """The seat of a token that may act and whether as its bot (a spectator is refused,
        after the rate limit)."""
        caller = await self.authenticate(live, token)
        if caller.seat is None:
            await self.core.limit(token)
            raise errors.denied("SPECTATOR", f"a spectator cannot {what}", game_id=live.id)
        return caller.seat, caller.bot

    async def _mark_reclaim(self, live: LiveGame, seat: int) -> None:
        core = self.core
        await core.db(core.store.update_seats, live.id, {seat: {"reclaim": True}})
        live.seats[seat].reclaim = True
        live.epoch = await core.hot.bump_epoch(live.id)
        await core.hot.publish(live.id, {"s": live.epoch})
