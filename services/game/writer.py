"""The write fence of a command: lock → (apply, commit) → publish.

`hold` takes the replica's per-game lock, then the Redis fenced lock (with the caller's
rate limit in the same round trip of latency), and catches the game up from SQL. The SQL
compare-and-set of the commit is the real fence; `publish` sets the Redis version,
announces the update and drops the lock in one script call. A command that does not
publish has its lock dropped on the way out.

A replica that follows a game (its pub/sub subscription to the game's channel is confirmed)
keeps the Redis lock after its write as an idle lease: its next write of the game takes no
lock round trip. Another replica's write takes the lease over at once, and the takeover is
announced on the channel, so the holder stops writing on it (`fanout`); a write racing that
announcement is still fenced by the SQL compare-and-set, and `commands` answers it again
under the lock. A lone write on the lease sends its version and the lease's renewal beside
its commit instead of after it (`stake`); the answer still waits for both.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from services.common.logging import get_logger
from services.game import errors
from services.game.cache import GameCache, in_flight_wait_s
from services.game.core import Core
from services.game.hot import LockTimeout
from services.game.live import Frame, Lease, LiveGame

log = get_logger("game.writer")


@dataclass
class Held:
    """A writer's hold on one game: its fence, whether it is this replica's lease (no lock
    round trip was taken), whether the new version was published, and the stake sent while
    its commit runs (`Writer.stake`: the Redis round trip and when it was sent)."""

    fence: str
    leased: bool = False
    published: bool = False
    staked: asyncio.Future[int] | None = None
    staked_at: float = 0.0
    staked_version: int = 0


class Writer:
    """Takes and releases the per-game write fence."""

    def __init__(self, core: Core, cache: GameCache) -> None:
        self.core = core
        self.cache = cache

    @contextlib.asynccontextmanager
    async def hold(self, live: LiveGame, token: str | None = None) -> AsyncIterator[Held]:
        """Hold the game for one write (the token's rate limit is taken beside the lock)."""
        async with live.lock:
            admitted = token is None or self.core.limiter.take_leased(token)
            if not admitted and self._lease(live) is not None:
                await self.core.limit(token or "")  # RESOURCE_EXHAUSTED over the limit
                admitted = True
            lease = self._lease(live)  # (a takeover may have been heard meanwhile)
            if lease is not None:
                held = Held(lease.fence, leased=True)
            else:
                held = await self._acquire(live, None if admitted else token)
            try:
                yield held
            finally:
                if held.staked is not None:  # a write that failed after its stake was sent
                    live.stake_failed = held.staked_version
                    with contextlib.suppress(Exception):
                        await self.settle(live, held)
                if not (held.published or held.leased):
                    await self.core.hot.unlock(live.id, held.fence)

    async def _acquire(self, live: LiveGame, token: str | None) -> Held:
        """The Redis lock (with `token`'s rate limit), and the game caught up to what Redis
        says of it."""
        fence, version, epoch = await self._take(live.id, token)
        try:
            await self.cache.refresh(live, version, epoch)
        except BaseException:
            await self.core.hot.unlock(live.id, fence)
            raise
        return Held(fence)

    def _lease(self, live: LiveGame) -> Lease | None:
        """This replica's lease of the game while it may write on it: before its time is up,
        and while the game's channel is heard here (so a takeover would be)."""
        lease = live.lease
        if lease is None or lease.until <= time.monotonic():
            return None
        if live.id not in self.core.hot.heard:
            live.lease = None
            return None
        return lease

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

    def stake(self, live: LiveGame, held: Held, frame: Frame) -> None:
        """On this replica's lease, while the write goes on: send its new version to Redis and
        renew the lease now, so that the round trip runs beside the commit instead of after
        it. The answer still waits for both (`publish`): it follows the commit, and a read on
        any replica after it finds the version in Redis. A version Redis holds before SQL does
        is a commit in flight, which a reader elsewhere waits for (`GameCache._catch_up`).

        Only for a lone write (no other commit queued or running): under load the releases
        that follow a group commit share one round trip, which costs less CPU than one each.
        Not for a write that ends the game: its release after the commit drops the lock. Nor
        for the next attempt at a version whose staked commit failed here: replicas that
        stopped waiting for that version wait no more, so its announcement must follow the
        commit's own check for listeners."""
        if not held.leased or frame.result is not None or live.id not in self.core.hot.heard:
            return
        if not self.core.committer.idle or frame.version == live.stake_failed:
            return
        if self._lease(live) is None:  # a takeover heard since the hold: the commit will lose
            return
        held.staked_at = time.monotonic()
        held.staked_version = frame.version
        held.staked = self.core.hot.stake(
            live.id, held.fence, frame.version, self.core.settings.game_lease_ms
        )

    async def settle(self, live: LiveGame, held: Held) -> bool:
        """Wait for the stake sent while committing; the lease as Redis now holds it. Returns
        whether another subscriber than this replica listens to the game's channel."""
        staked, held.staked = held.staked, None
        if staked is None:
            return False
        try:
            flags = await asyncio.shield(staked)  # (a cancelled caller leaves it to its callbacks)
        except BaseException:
            live.lease = None
            raise
        held.published = True
        # kept only if no takeover was heard meanwhile (which cleared the lease)
        keep = flags & 1 and live.lease is not None
        lease_ms = self.core.settings.game_lease_ms
        live.lease = Lease(held.fence, held.staked_at + lease_ms / 2000) if keep else None
        return bool(flags & 2)

    async def publish(
        self, live: LiveGame, held: Held, version: int, message: dict[str, Any]
    ) -> None:
        """Set the Redis version, announce the update, and drop the lock or keep it as this
        replica's lease (after the commit). After a stake, only the announcement is left to
        send: when the stake found another subscriber, or when the commit took so long that a
        replica that subscribed after the stake may have stopped waiting for it
        (`GameCache._catch_up`). It is queued once the stake lands, even if the caller is gone.
        """
        staked = held.staked
        if staked is not None:
            late = time.monotonic() - held.staked_at > in_flight_wait_s() / 2
            staked.add_done_callback(functools.partial(self._announce, live.id, message, late))
            await self.settle(live, held)
            return
        lease_ms = self._lease_ms(live)
        sent = time.monotonic()
        leased = await self.core.hot.release(live.id, held.fence, version, message, lease_ms)
        held.published = True
        live.lease = Lease(held.fence, sent + lease_ms / 2000) if leased else None

    def _announce(
        self, game_id: str, message: dict[str, Any], late: bool, staked: asyncio.Future[int]
    ) -> None:
        """Queue a staked write's announcement (see `publish`)."""
        if staked.cancelled() or staked.exception() is not None:
            return
        if staked.result() & 2 or late:
            sent = self.core.hot.announce_soon(game_id, message)
            sent.add_done_callback(_log_failure)

    def _lease_ms(self, live: LiveGame) -> int:
        """How long to keep the lock as a lease after this write (0: drop it): only while the
        game goes on and this replica hears its channel."""
        if live.result is not None or live.id not in self.core.hot.heard:
            return 0
        return self.core.settings.game_lease_ms


def _log_failure(sent: asyncio.Future[int]) -> None:
    """An announcement nobody awaits: its failure is logged (watchers elsewhere find the
    version at their next 5-second check)."""
    if not sent.cancelled() and sent.exception() is not None:
        log.warning("announcement failed", error=repr(sent.exception()))
