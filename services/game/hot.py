"""Redis hot state: the per-game version, the fenced writer lock, and update fan-out.

Keys (under the settings' prefix): `game:{id}:v` (version), `game:{id}:lock`
(writer lock, value = a random fence), channel `game:{id}` (pub/sub updates).
Redis is a cache and a coordinator only: SQL is the truth, and losing Redis
loses no game (the version is re-read from SQL, the lock re-created).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import secrets
import time
from typing import Any

import redis.asyncio as aioredis

_ACQUIRE = """
if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return {1, redis.call('get', KEYS[2]) or '', redis.call('get', KEYS[3]) or ''}
end
return {0, '', ''}
"""

_RELEASE = """
local current = tonumber(redis.call('get', KEYS[2]) or '-1')
if tonumber(ARGV[2]) > current then redis.call('set', KEYS[2], ARGV[2]) end
if redis.call('get', KEYS[1]) == ARGV[1] then redis.call('del', KEYS[1]) end
if ARGV[3] ~= '' then redis.call('publish', KEYS[3], ARGV[3]) end
return 1
"""

_UNLOCK = """
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end
return 0
"""


_FENCE_PREFIX = secrets.token_hex(6) + ":"
_FENCES = itertools.count(1)


class LockTimeout(Exception):
    """The per-game writer lock could not be had in time."""


class Hot:
    """Redis access of the authority."""

    def __init__(self, client: aioredis.Redis, prefix: str, lock_ms: int) -> None:
        self.client = client
        self.prefix = prefix
        self.lock_ms = lock_ms
        self._acquire = client.register_script(_ACQUIRE)
        self._release = client.register_script(_RELEASE)
        self._unlock = client.register_script(_UNLOCK)

    def key(self, game_id: str, suffix: str) -> str:
        """A prefixed key of a game."""
        return f"{self.prefix}game:{game_id}:{suffix}"

    def channel(self, game_id: str) -> str:
        """The pub/sub channel of a game."""
        return f"{self.prefix}game:{game_id}"

    async def state(self, game_id: str) -> tuple[int | None, int | None]:
        """The cached (version, seat epoch); None where Redis does not know them."""
        raw_version, raw_epoch = await self.client.mget(
            [self.key(game_id, "v"), self.key(game_id, "s")]
        )
        return _int(raw_version), _int(raw_epoch)

    async def bump_epoch(self, game_id: str) -> int:
        """Mark a seat control change (replicas reload seats when the epoch moves)."""
        return int(await self.client.incr(self.key(game_id, "s")))

    async def set_epoch(self, game_id: str, epoch: int) -> None:
        """Initialise the seat epoch when Redis lost it."""
        await self.client.set(self.key(game_id, "s"), epoch, nx=True)

    async def set_version(self, game_id: str, version: int) -> None:
        """Cache a version read from SQL (never lowers it)."""
        await self._release(
            keys=[self.key(game_id, "lock"), self.key(game_id, "v"), self.channel(game_id)],
            args=["", version, ""],
        )

    async def acquire(self, game_id: str, wait_s: float) -> tuple[str, int | None, int | None]:
        """Take the writer lock: returns (fence, cached version, seat epoch); raises LockTimeout."""
        fence = f"{_FENCE_PREFIX}{next(_FENCES)}"
        deadline = time.monotonic() + wait_s
        delay = 0.001
        keys = [self.key(game_id, "lock"), self.key(game_id, "v"), self.key(game_id, "s")]
        while True:
            got, raw_version, raw_epoch = await self._acquire(keys=keys, args=[fence, self.lock_ms])
            if int(got) == 1:
                return fence, _int(raw_version), _int(raw_epoch)
            if time.monotonic() >= deadline:
                raise LockTimeout(f"game {game_id} is busy")
            await asyncio.sleep(delay)
            delay = min(delay * 2, 0.02)

    async def release(
        self, game_id: str, fence: str, version: int, update: dict[str, Any] | None
    ) -> None:
        """Publish the new version (and an update message), then drop the lock if still ours."""
        await self._release(
            keys=[self.key(game_id, "lock"), self.key(game_id, "v"), self.channel(game_id)],
            args=[fence, version, json.dumps(update) if update is not None else ""],
        )

    async def unlock(self, game_id: str, fence: str) -> None:
        """Drop the lock without a new version."""
        await self._unlock(keys=[self.key(game_id, "lock")], args=[fence])

    async def publish(self, game_id: str, update: dict[str, Any]) -> None:
        """Publish an update message (seat control changes, no new version)."""
        await self.client.publish(self.channel(game_id), json.dumps(update))


def _int(raw: Any) -> int | None:
    if raw is None:
        return None
    text = raw.decode() if isinstance(raw, bytes) else str(raw)
    return int(text) if text else None
