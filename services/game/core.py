"""What every part of the authority shares: settings, SQL store, Redis hot state, scheduler.

One `Core` per replica. It runs blocking SQL calls in a thread pool (`db`), applies the
per-token rate limit (`limit`) and holds the group-commit batchers of log rows and games.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from functools import partial
from typing import Any, TypeVar

import redis.asyncio as aioredis
from sqlalchemy.engine import Engine

from services.common.settings import Settings
from services.game import errors, metrics
from services.game.batch import Batcher
from services.game.hot import Hot
from services.game.models import GameRow, GameSeatRow
from services.game.ratelimit import SharedRateLimiter
from services.game.scheduler import NullScheduler, Scheduler
from services.game.store import Append, Store

T = TypeVar("T")


class Core:
    """Shared plumbing of one replica's authority."""

    def __init__(
        self,
        settings: Settings,
        engine: Engine,
        client: aioredis.Redis,
        scheduler: Scheduler | None = None,
    ) -> None:
        self.settings = settings
        self.store = Store(engine)
        self.hot = Hot(client, settings.redis_prefix, settings.game_lock_ms)
        self.redis = client
        self.scheduler: Scheduler = scheduler or NullScheduler()
        self.pool = ThreadPoolExecutor(max(2, settings.db_pool_size), thread_name_prefix="game-db")
        self.limiter = SharedRateLimiter(
            client,
            settings.redis_prefix,
            settings.game_rate_per_second,
            settings.game_rate_burst,
            settings.game_rate_lease,
        )
        self.committer: Batcher[tuple[str, int, Append], datetime] = Batcher(
            self._commit_many,
            settings.game_commit_parallel,
            limit=128,
            on_batch=metrics.BATCH.labels("commit").observe,
        )
        # One creation batch in flight: the creations that arrive meanwhile share the next
        # transaction (measured through gRPC, 16 concurrent calls: batches of ~6 instead of ~3
        # and ~20% less authority CPU per game than with two in flight).
        self.creator: Batcher[tuple[GameRow, list[GameSeatRow]], GameRow] = Batcher(
            self._create_many, 1, limit=128, on_batch=metrics.BATCH.labels("create").observe
        )

    async def db(self, fn: Callable[..., T], *args: Any) -> T:
        """Run a blocking SQL call in the pool."""
        return await asyncio.get_running_loop().run_in_executor(self.pool, partial(fn, *args))

    async def _commit_many(
        self, items: list[tuple[str, int, Append]]
    ) -> list[Exception | datetime]:
        """Group commit: the queued appends of different games in one SQL transaction."""
        return await self.db(self.store.append_many, items)

    async def _create_many(
        self, items: list[tuple[GameRow, list[GameSeatRow]]]
    ) -> list[GameRow | Exception]:
        """Group commit: the queued new games in one SQL transaction."""
        return await self.db(self.store.create_many, items)

    async def limit(self, token: str) -> None:
        """Apply the per-token rate limit (shared by every replica)."""
        wait = await self.limiter.take(token)
        if wait > 0:
            raise errors.exhausted(
                f"too many requests for this token: retry in {wait * 1000:.0f} ms", wait
            )

    def close(self) -> None:
        """Stop the SQL thread pool; close the commit connections."""
        self.pool.shutdown(wait=False)
        self.store.direct.close()
