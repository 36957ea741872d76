"""The write fence of a command: lock → (apply, commit) → publish.

`hold` takes the replica's per-game lock, then the Redis fenced lock (with the caller's
rate limit in the same round trip of latency), and catches the game up from SQL. The SQL
compare-and-set of the commit is the real fence; `publish` sets the Redis version,
announces the update and drops the lock in one script call. A command that does not
publish has its lock dropped on the way out.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from services.game import errors
from services.game.cache import GameCache
from services.game.core import Core
from services.game.hot import LockTimeout
from services.game.live import LiveGame


@dataclass
class Held:
    """A writer's hold on one game: its fence, and whether the new version was published."""

    fence: str
    published: bool = False


class Writer:
    """Takes and releases the per-game write fence."""

    def __init__(self, core: Core, cache: GameCache) -> None:
        self.core = core
        self.cache = cache

    @contextlib.asynccontextmanager
    async def hold(self, live: LiveGame, token: str | None = None) -> AsyncIterator[Held]:
        """Hold the game for one write (the token's rate limit is taken beside the lock)."""
        async with live.lock:
            fence, version, epoch = await self._take(live.id, token)
            held = Held(fence)
            try:
                await self.cache.refresh(live, version, epoch)
                yield held
            finally:
                if not held.published:
                    await self.core.hot.unlock(live.id, fence)

    async def _take(self, game_id: str, token: str | None) -> tuple[str, int | None, int | None]:
        """The Redis lock (fence, cached version, seat epoch); ABORTED GAME_BUSY on timeout."""
        core = self.core
        wait_s = core.settings.game_lock_ms / 1000
        limited: BaseException | None = None
        acquired: tuple[str, int | None, int | None] | BaseException
        if token is None or core.limiter.take_leased(token):
            try:
                acquired = await core.hot.acquire(game_id, wait_s)
            except LockTimeout as exc:
                acquired = exc
        else:
            limited, acquired = await asyncio.gather(
                core.limit(token), core.hot.acquire(game_id, wait_s), return_exceptions=True
            )
        if isinstance(acquired, BaseException):
            if isinstance(limited, BaseException):
                raise limited
            if isinstance(acquired, LockTimeout):
                raise errors.aborted("GAME_BUSY", f"{acquired}; retry") from acquired
            raise acquired
        if isinstance(limited, BaseException):
            await core.hot.unlock(game_id, acquired[0])
            raise limited
        return acquired

    async def publish(
        self, live: LiveGame, held: Held, version: int, message: dict[str, Any]
    ) -> None:
        """Set the Redis version, announce the update, drop the lock (after the commit)."""
        await self.core.hot.release(live.id, held.fence, version, message)
        held.published = True
