"""The authority of one replica: the parts wired together behind the servicer's interface.

gRPC-agnostic (the servicer in `service.py` maps `GameError` to statuses). SQL is the
truth and Redis coordinates replicas. Each part has one job (see docs/architecture.md):

* `core.Core`          settings, SQL store, Redis hot state, scheduler, rate limit, batchers
* `cache.GameCache`    the live-game cache and recovery from SQL
* `callers.Callers`    seat tokens and callers
* `creation.Creation`  CreateGame
* `commands.Commands`  submit, resign, a clock's expiry (validate → lock → apply → commit →
                       publish → dispatch; the fence is `writer.Writer`)
* `owed.Owed`          owed work: bot turns and clock checks; `sweep.Sweeper` re-sends it
* `fanout.Fanout`      WatchGame and pub/sub
* `queries.Queries`    GetView, GetReplay, GetReplayViews, ListGames
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime

import redis.asyncio as aioredis
from sqlalchemy.engine import Engine

from services.common.settings import Settings
from services.game.batch import Batcher
from services.game.cache import GameCache
from services.game.callers import Callers
from services.game.commands import Commands
from services.game.core import Core
from services.game.creation import Creation
from services.game.fanout import Fanout
from services.game.live import LiveGame
from services.game.models import GameRow, GameSeatRow
from services.game.owed import Owed
from services.game.queries import Queries
from services.game.ratelimit import SharedRateLimiter
from services.game.scheduler import NullScheduler, Scheduler
from services.game.store import Append
from services.game.sweep import Sweeper
from services.game.writer import Writer
from warroom.engine.model import Result
from warroom.v1 import game_pb2

__all__ = ["Authority", "NullScheduler", "Scheduler"]


class Authority:
    """The game-state authority of one replica."""

    def __init__(
        self,
        settings: Settings,
        engine: Engine,
        client: aioredis.Redis,
        scheduler: Scheduler | None = None,
    ) -> None:
        self.core = core = Core(settings, engine, client, scheduler)
        self.owed = Owed(core)
        self.cache = GameCache(core, self.owed)
        self.callers = Callers(core)
        writer = Writer(core, self.cache)
        self.creation = Creation(core, self.cache, self.owed)
        self.commands = Commands(core, self.cache, self.callers, self.owed, writer)
        self.fanout = Fanout(core, self.cache, self.callers)
        self.queries = Queries(core, self.cache, self.callers)
        self.sweeper = Sweeper(core, self.cache, self.owed, self.commands)

    # ------------------------------------------------------------------ shared state
    @property
    def settings(self) -> Settings:
        """The replica's settings."""
        return self.core.settings

    @settings.setter
    def settings(self, value: Settings) -> None:
        self.core.settings = value

    @property
    def games(self) -> dict[str, LiveGame]:
        """The games held in memory."""
        return self.cache.games

    @property
    def limiter(self) -> SharedRateLimiter:
        """The per-token rate limiter."""
        return self.core.limiter

    @property
    def committer(self) -> Batcher[tuple[str, int, Append], datetime]:
        """The group commit of log rows."""
        return self.core.committer

    @property
    def creator(self) -> Batcher[tuple[GameRow, list[GameSeatRow]], GameRow]:
        """The group commit of new games."""
        return self.core.creator

    # ------------------------------------------------------------------ the RPCs
    async def create(self, request: game_pb2.CreateGameRequest) -> game_pb2.CreateGameResponse:
        """CreateGame."""
        return await self.creation.create(request)

    async def view(self, game_id: str, token: str) -> game_pb2.SeatView:
        """GetView."""
        return await self.queries.view(game_id, token)

    async def submit(
        self,
        game_id: str,
        token: str,
        expected_version: int,
        decision_id: str,
        option_id: str,
        key: str,
        with_view: bool = True,
    ) -> tuple[int, game_pb2.SeatView | None]:
        """SubmitAction: returns (version, view; None without `with_view`)."""
        return await self.commands.submit(
            game_id, token, expected_version, decision_id, option_id, key, with_view
        )

    async def resign(self, game_id: str, token: str) -> tuple[int, Result]:
        """Resign."""
        return await self.commands.resign(game_id, token)

    def watch(
        self, game_id: str, token: str, from_version: int
    ) -> AsyncIterator[game_pb2.WatchGameResponse]:
        """WatchGame."""
        return self.fanout.watch(game_id, token, from_version)

    async def replay(self, game_id: str, token: str) -> game_pb2.GetReplayResponse:
        """GetReplay."""
        return await self.queries.replay(game_id, token)

    async def replay_views(
        self, request: game_pb2.GetReplayViewsRequest
    ) -> game_pb2.GetReplayViewsResponse:
        """GetReplayViews."""
        return await self.queries.replay_views(request)

    async def list_games(self, request: game_pb2.ListGamesRequest) -> game_pb2.ListGamesResponse:
        """ListGames."""
        return await self.queries.list_games(request)

    # ------------------------------------------------------------------ background work
    async def expire_clock(self, game_id: str, seat: int, decision_id: str, version: int) -> str:
        """A clock timer fired (the Celery task `warroom.game.clock_expired`)."""
        return await self.commands.expire_clock(game_id, seat, decision_id, version)

    async def resend_bot_turns(self, older_than: float, limit: int = 1000) -> int:
        """Re-send the bot turns unanswered for longer than `older_than` seconds."""
        return await self.sweeper.resend_bot_turns(older_than, limit)

    async def sweep_owed(self) -> int:
        """Send again, from SQL alone, owed bot turns of idle games; expire overdue clocks."""
        return await self.sweeper.sweep_owed()

    async def maintain(self) -> None:
        """Run forever: the periodic SQL sweep of owed work and idle-game eviction."""
        await self.sweeper.maintain()

    def evict_idle(self) -> int:
        """Forget idle games; returns how many."""
        return self.cache.evict_idle()

    async def close(self) -> None:
        """Stop background work."""
        await self.fanout.close()
        self.core.close()
