"""Redis hot state: the per-game version, the fenced writer lock, and update fan-out.

Keys (under the settings' prefix): `game:{id}:v` (version), `game:{id}:lock`
(writer lock, value = a random fence while a write holds it, `idle:` and the fence while its
replica keeps it as a lease between writes), channel `game:{id}` (pub/sub updates).
Redis is a cache and a coordinator only: SQL is the truth, and losing Redis
loses no game (the version is re-read from SQL, the lock re-created).

Version reads, lock takes and releases of concurrent requests (different games) are
coalesced: one MGET / one script call serves every request queued at that moment.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import secrets
import time
from typing import Any

import redis.asyncio as aioredis

from services.game.batch import Batcher
from services.game.metrics import BATCH

# Many games in one round trip (concurrent writers of a replica are coalesced by a Batcher).
# KEYS per game: lock, version, seat epoch, channel. ARGV: lock ms, then one fence per game.
# A lock another replica holds as an idle lease ('idle:' .. its fence) is taken over at once,
# and the takeover is announced on the game's channel ({"r": the lease's fence}), when anyone
# subscribes to it, so that replica stops writing on its lease (it writes on a lease only
# while it subscribes).
_ACQUIRE = """
local out = {}
for i = 1, #ARGV - 1 do
  local k = (i - 1) * 4
  local got = redis.call('set', KEYS[k + 1], ARGV[i + 1], 'NX', 'PX', ARGV[1])
  if not got then
    local held = redis.call('get', KEYS[k + 1])
    if held and string.sub(held, 1, 5) == 'idle:' then
      redis.call('set', KEYS[k + 1], ARGV[i + 1], 'PX', ARGV[1])
      if redis.call('pubsub', 'numsub', KEYS[k + 4])[2] > 0 then
        redis.call('publish', KEYS[k + 4], '{"r": "' .. string.sub(held, 6) .. '"}')
      end
      got = true
    end
  end
  if got then
    out[i] = {1, redis.call('get', KEYS[k + 2]) or '', redis.call('get', KEYS[k + 3]) or ''}
  else
    out[i] = {0, '', ''}
  end
end
return out
"""

# KEYS per game: lock, version, channel. ARGV per game: fence ('' = none), version (-1 =
# unchanged), update message ('' = none), how many of the channel's subscribers are this
# replica's own (0 or 1: its subscription is confirmed), and the lease in ms (0 = none). The
# version never goes down; while the lock holds this writer's fence (busy, or idle on its
# lease) it is dropped, or kept as the writer's idle lease ('idle:' .. fence) for the lease's
# ms; the message is published only when someone other than the writer itself listens (its
# own watchers were woken already). Returns, per game, 1 when the writer holds the lease,
# plus 2 when someone other than the writer listens to the channel.
_RELEASE = """
local out = {}
for i = 1, #KEYS / 3 do
  local k = (i - 1) * 3
  local a = (i - 1) * 5
  local version = tonumber(ARGV[a + 2])
  if version >= 0 and version > tonumber(redis.call('get', KEYS[k + 2]) or '-1') then
    redis.call('set', KEYS[k + 2], ARGV[a + 2])
  end
  out[i] = 0
  if ARGV[a + 1] ~= '' then
    local held = redis.call('get', KEYS[k + 1])
    if held == ARGV[a + 1] or held == 'idle:' .. ARGV[a + 1] then
      if tonumber(ARGV[a + 5]) > 0 then
        redis.call('set', KEYS[k + 1], 'idle:' .. ARGV[a + 1], 'PX', ARGV[a + 5])
        out[i] = 1
      else
        redis.call('del', KEYS[k + 1])
      end
    end
  end
  if redis.call('pubsub', 'numsub', KEYS[k + 3])[2] > tonumber(ARGV[a + 4]) then
    out[i] = out[i] + 2
    if ARGV[a + 3] ~= '' then
      redis.call('publish', KEYS[k + 3], ARGV[a + 3])
    end
  end
end
return out
"""


# KEYS per game: version, seat epoch; ARGV per game: their first values (kept if set).
_INIT = """
for i = 1, #KEYS do redis.call('set', KEYS[i], ARGV[i], 'NX') end
return 1
"""


_FENCE_PREFIX = secrets.token_hex(6) + ":"
_FENCES = itertools.count(1)


class LockTimeout(Exception):
    """The per-game writer lock could not be had in time."""


class Hot:
    """Redis access of the authority; concurrent calls of a replica share round trips."""

    def __init__(self, client: aioredis.Redis, prefix: str, lock_ms: int) -> None:
        self.client = client
        self.prefix = prefix
        self.lock_ms = lock_ms
        self.heard: set[str] = set()
        """Games whose channel this replica's pub/sub subscription is confirmed on (kept by
        the fan-out): a release does not echo their messages back to this replica alone."""
        self._acquire_script = client.register_script(_ACQUIRE)
        self._release_script = client.register_script(_RELEASE)
        self._init_script = client.register_script(_INIT)
        self._states: Batcher[str, tuple[int | None, int | None]] = Batcher(
            self._state_many, on_batch=BATCH.labels("redis_state").observe
        )
        self._acquires: Batcher[tuple[str, str], tuple[bool, int | None, int | None]] = Batcher(
            self._acquire_many, on_batch=BATCH.labels("redis_acquire").observe
        )
        self._releases: Batcher[tuple[str, str, int, str, bool, int], int] = Batcher(
            self._release_many, on_batch=BATCH.labels("redis_release").observe
        )
        self._inits: Batcher[tuple[str, int, int], None] = Batcher(self._init_many)

    def key(self, game_id: str, suffix: str) -> str:
        """A prefixed key of a game."""
        return f"{self.prefix}game:{game_id}:{suffix}"

    def channel(self, game_id: str) -> str:
        """The pub/sub channel of a game."""
        return f"{self.prefix}game:{game_id}"

    # ---------------------------------------------------------------- batched round trips
    async def _state_many(self, game_ids: list[str]) -> list[tuple[int | None, int | None]]:
        keys = []
        for game_id in game_ids:
            keys += [self.key(game_id, "v"), self.key(game_id, "s")]
        raw = await self.client.mget(keys)
        return [(_int(raw[2 * i]), _int(raw[2 * i + 1])) for i in range(len(game_ids))]

    async def _acquire_many(
        self, items: list[tuple[str, str]]
    ) -> list[tuple[bool, int | None, int | None]]:
        keys = []
        for game_id, _fence in items:
            keys += [
                self.key(game_id, "lock"),
                self.key(game_id, "v"),
                self.key(game_id, "s"),
                self.channel(game_id),
            ]
        raw = await self._acquire_script(
            keys=keys, args=[self.lock_ms, *(fence for _g, fence in items)]
        )
        return [(int(got) == 1, _int(version), _int(epoch)) for got, version, epoch in raw]

    async def _release_many(self, items: list[tuple[str, str, int, str, bool, int]]) -> list[int]:
        keys: list[str] = []
        args: list[str | int] = []
        for game_id, fence, version, message, heard_here, lease_ms in items:
            keys += [self.key(game_id, "lock"), self.key(game_id, "v"), self.channel(game_id)]
            args += [fence, version, message, int(heard_here), lease_ms]
        flags = await self._release_script(keys=keys, args=args)
        return [int(flag) for flag in flags]

    # ---------------------------------------------------------------- per-game calls
    async def state(self, game_id: str) -> tuple[int | None, int | None]:
        """The cached (version, seat epoch); None where Redis does not know them."""
        return await self._states(game_id)

    async def _init_many(self, items: list[tuple[str, int, int]]) -> list[None]:
        keys: list[str] = []
        args: list[int] = []
        for game_id, version, epoch in items:
            keys += [self.key(game_id, "v"), self.key(game_id, "s")]
            args += [version, epoch]
        await self._init_script(keys=keys, args=args)
        return [None] * len(items)

    async def init(self, game_id: str, version: int, epoch: int) -> None:
        """Record a new game's version and seat epoch (kept if already set)."""
        await self._inits((game_id, version, epoch))

    async def bump_epoch(self, game_id: str) -> int:
        """Mark a seat control change (replicas reload seats when the epoch moves)."""
        return int(await self.client.incr(self.key(game_id, "s")))

    async def set_epoch(self, game_id: str, epoch: int) -> None:
        """Initialise the seat epoch when Redis lost it."""
        await self.client.set(self.key(game_id, "s"), epoch, nx=True)

    async def set_version(self, game_id: str, version: int) -> None:
        """Cache a version read from SQL (never lowers it)."""
        await self._releases((game_id, "", version, "", False, 0))

    async def acquire(self, game_id: str, wait_s: float) -> tuple[str, int | None, int | None]:
        """Take the writer lock: returns (fence, cached version, seat epoch); raises LockTimeout."""
        fence = f"{_FENCE_PREFIX}{next(_FENCES)}"
        deadline = time.monotonic() + wait_s
        delay = 0.001
        while True:
            got, version, epoch = await self._acquires((game_id, fence))
            if got:
                return fence, version, epoch
            if time.monotonic() >= deadline:
                raise LockTimeout(f"game {game_id} is busy")
            await asyncio.sleep(delay)
            delay = min(delay * 2, 0.02)

    async def release(
        self,
        game_id: str,
        fence: str,
        version: int,
        update: dict[str, Any] | None,
        lease_ms: int = 0,
    ) -> bool:
        """Publish the new version (and an update message), then drop the lock if still ours,
        or with `lease_ms` keep it as this writer's idle lease; True when the lease is held.

        While this replica's subscription to the game's channel is confirmed (`heard`), the
        message goes out only if another subscriber listens: the writer's own watchers were
        woken in process."""
        message = json.dumps(update) if update is not None else ""
        heard_here = game_id in self.heard
        flags = await self._releases((game_id, fence, version, message, heard_here, lease_ms))
        return bool(flags & 1)

    def stake(self, game_id: str, fence: str, version: int, lease_ms: int) -> asyncio.Future[int]:
        """Send a write's new version and renew the writer's lease now, before its commit
        lands (no announcement): the future's flags hold 1 when the lease is held, 2 when
        another subscriber than this replica listens (`announce_soon` after the commit)."""
        heard_here = game_id in self.heard
        return self._releases.enqueue((game_id, fence, version, "", heard_here, lease_ms))

    def announce_soon(self, game_id: str, update: dict[str, Any]) -> asyncio.Future[int]:
        """Queue a committed version's update message, published when another subscriber than
        this replica listens (in order with the releases queued before it)."""
        heard_here = game_id in self.heard
        return self._releases.enqueue((game_id, "", -1, json.dumps(update), heard_here, 0))

    async def unlock(self, game_id: str, fence: str) -> None:
        """Drop the lock without a new version."""
        await self._releases((game_id, fence, -1, "", False, 0))

    def bot_wait_key(self) -> str:
        """The sorted set of bot turns sent and not yet answered ("game:seat" -> time sent)."""
        return f"{self.prefix}game:botwait"

    async def bot_turns_sent(self, game_id: str, seats: list[int], at: float) -> None:
        """Record that bot turns were sent for these seats at `at` (epoch seconds)."""
        await self.client.zadd(self.bot_wait_key(), {f"{game_id}:{seat}": at for seat in seats})

    async def bot_turn_done(self, game_id: str, seat: int) -> None:
        """The bot seat answered (or owes nothing any more)."""
        await self.client.zrem(self.bot_wait_key(), f"{game_id}:{seat}")

    async def bot_turn_sent_at(self, game_id: str, seat: int) -> float | None:
        """When a bot turn of this seat was last sent (None: not waiting, or Redis forgot)."""
        score = await self.client.zscore(self.bot_wait_key(), f"{game_id}:{seat}")
        return None if score is None else float(score)

    async def bot_turns_waiting(self, sent_before: float, limit: int) -> list[tuple[str, int]]:
        """Bot turns sent before `sent_before` and not answered: (game id, seat), oldest first."""
        raw = await self.client.zrangebyscore(
            self.bot_wait_key(), "-inf", sent_before, start=0, num=limit
        )
        out = []
        for member in raw:
            text = member.decode() if isinstance(member, bytes) else str(member)
            game_id, _, seat = text.rpartition(":")
            out.append((game_id, int(seat)))
        return out

    async def publish(self, game_id: str, update: dict[str, Any]) -> None:
        """Publish an update message (seat control changes, no new version)."""
        await self.client.publish(self.channel(game_id), json.dumps(update))


def _int(raw: Any) -> int | None:
    if raw is None:
        return None
    text = raw.decode() if isinstance(raw, bytes) else str(raw)
    return int(text) if text else None
