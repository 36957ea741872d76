"""Sweeps of owed work nobody is doing: lost bot turns and clocks past their deadline.

Two sources. The Redis waiting set (`resend_bot_turns`, Celery beat): answered turns leave
it when the bot's action commits; what is left and old is sent again (the bot task is
idempotent by seat and version), entries whose seat owes nothing any more are dropped.
And SQL alone (`sweep_owed`, every replica every `game_owed_sweep_seconds`, and Celery
beat): bot seats owing a turn (`seats.turn_version`) in games idle longer than
`game_bot_resend_seconds`, and clocks past `seats.clock_deadline`. So a Redis flush or
restart (queued tasks and waiting set gone), a replica killed between its SQL commit and
sending the next bot turn, or a worker dying with a clock timer loses no game.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine
from datetime import timedelta
from typing import Any

from services.common.logging import get_logger
from services.game import errors
from services.game.cache import GameCache
from services.game.commands import Commands
from services.game.core import Core
from services.game.live import BOT, LiveGame
from services.game.owed import Owed, Plan
from services.game.store import now

log = get_logger("game.sweep")
# A clock is taken over by the sweep this long after its deadline (its Celery timer, when
# alive, fires at the deadline itself).
CLOCK_GRACE_SECONDS = 1.0
EVICT_EVERY_SECONDS = 10.0
QUARANTINE_SECONDS = 60.0


def _bot_owes(live: LiveGame, seat: int) -> bool:
    return (
        live.pending_for(seat) is not None
        and seat < len(live.seats)
        and live.seats[seat].controller == BOT
    )


class Sweeper:
    """Finds owed work that nobody is doing and sends it again."""

    def __init__(self, core: Core, cache: GameCache, owed: Owed, commands: Commands) -> None:
        self.core = core
        self.cache = cache
        self.owed = owed
        self.commands = commands
        self._quarantine: dict[str, float] = {}

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
            if not _bot_owes(live, seat):
                await hot.bot_turn_done(game_id, seat)
                continue
            if not fresh:  # a fresh load re-sent what the decision owes already
                await self.owed.dispatch(live, Plan(bots=[seat]))
            log.info("bot turn sent again", game_id=game_id, seat=seat, version=live.version)
            resent += 1
        return resent

    async def sweep_owed(self, limit: int = 200) -> int:
        """Send again, from SQL alone, the bot turns of idle games and expire overdue clocks.

        A bot turn is sent again only when Redis does not say it was sent within
        `game_bot_resend_seconds`. Returns how many bot turns and clocks it handled.
        """
        core = self.core
        resend = core.settings.game_bot_resend_seconds
        stamp = now()
        bots, clocks = await core.db(
            core.store.owed_work,
            stamp - timedelta(seconds=resend),
            stamp - timedelta(seconds=CLOCK_GRACE_SECONDS),
            limit,
        )
        done = 0
        for game_id, seat, version in clocks:  # first: a deadline is a promise to players
            done += await self._guarded(self._clock(game_id, seat, version), game_id)
        for game_id, seat in bots:
            done += await self._guarded(
                self._bot_turn(game_id, seat, time.time() - resend), game_id
            )
        return done

    async def _guarded(self, work: Coroutine[Any, Any, int], game_id: str) -> int:
        """One game's owed work; a game that cannot be handled now does not stop the sweep,
        and one that fails is left alone for `QUARANTINE_SECONDS` (it stays owed in SQL)."""
        if self._quarantine.get(game_id, 0.0) > time.monotonic():
            work.close()
            return 0
        try:
            return await work
        except errors.GameError as error:
            log.warning("owed work refused", game_id=game_id, reason=error.reason)
        except Exception as exc:
            log.warning("owed work failed", game_id=game_id, error=repr(exc)[:300])
        self._quarantine[game_id] = time.monotonic() + QUARANTINE_SECONDS
        if len(self._quarantine) > 10_000:
            self._quarantine.clear()
        return 0

    async def _current(self, game_id: str) -> tuple[LiveGame, bool]:
        """The game as SQL has it, and whether it was just loaded (a load re-sends what the
        decision owes)."""
        fresh = game_id not in self.cache.games
        live = await self.cache.get(game_id)
        if not fresh:
            await self.cache.catch_up(live)
        return live, fresh

    async def _recently_sent(self, game_id: str, seat: int, since: float) -> bool:
        sent = await self.core.hot.bot_turn_sent_at(game_id, seat)
        return sent is not None and sent > since

    async def _bot_turn(self, game_id: str, seat: int, since: float) -> int:
        if await self._recently_sent(game_id, seat, since):
            return 0
        live, fresh = await self._current(game_id)
        if not _bot_owes(live, seat):
            return 0
        if not fresh and not await self._recently_sent(game_id, seat, since):
            await self.owed.dispatch(live, Plan(bots=[seat]))
        log.info("owed bot turn sent from SQL", game_id=game_id, seat=seat, version=live.version)
        return 1

    async def _clock(self, game_id: str, seat: int, version: int) -> int:
        live, _fresh = await self._current(game_id)
        pending = live.pending_for(seat)
        decision_id = "" if pending is None else pending.id
        outcome = await self.commands.expire_clock(game_id, seat, decision_id, version)
        return int(outcome in ("forfeit", "bot"))

    async def maintain(self) -> None:
        """Run forever in a replica: the SQL sweep of owed work, and idle-game eviction."""
        last_evict = time.monotonic()
        while True:
            await asyncio.sleep(self.core.settings.game_owed_sweep_seconds)
            try:
                await self.sweep_owed()
            except Exception:
                log.exception("the owed-work sweep failed; retrying at the next interval")
            if time.monotonic() - last_evict >= EVICT_EVERY_SECONDS:
                self.cache.evict_idle()
                last_evict = time.monotonic()
