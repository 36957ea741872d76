"""Sweeps of owed work: bot turns left unanswered are sent again.

A bot turn task can be lost (a worker died, the broker lost it). Answered turns leave
the Redis waiting set when the bot's action commits; what is left and old is sent again
(the bot task is idempotent by seat and version), and entries whose seat owes nothing any
more are dropped.
"""

from __future__ import annotations

import time

from services.common.logging import get_logger
from services.game import errors
from services.game.cache import GameCache
from services.game.core import Core
from services.game.live import BOT
from services.game.owed import Owed, Plan

log = get_logger("game.sweep")


class Sweeper:
    """Finds owed work that nobody is doing and sends it again."""

    def __init__(self, core: Core, cache: GameCache, owed: Owed) -> None:
        self.core = core
        self.cache = cache
        self.owed = owed

    async def resend_bot_turns(self, older_than: float, limit: int = 1000) -> int:
        """Re-send the bot turns sent more than `older_than` seconds ago and still owed.

        Returns how many turns were sent again.
        """
        hot = self.core.hot
        resent = 0
        for game_id, seat in await hot.bot_turns_waiting(time.time() - older_than, limit):
            fresh = game_id not in self.cache.games
            try:
                live = await self.cache.get(game_id)
                if not fresh:
                    await self.cache.sync(live)
            except errors.GameError:
                await hot.bot_turn_done(game_id, seat)
                continue
            owed = (
                live.pending_for(seat) is not None
                and seat < len(live.seats)
                and live.seats[seat].controller == BOT
            )
            if not owed:
                await hot.bot_turn_done(game_id, seat)
                continue
            if not fresh:  # a fresh load re-sent what the decision owes already
                await self.owed.dispatch(live, Plan(bots=[seat]))
            log.info("bot turn sent again", game_id=game_id, seat=seat, version=live.version)
            resent += 1
        return resent
