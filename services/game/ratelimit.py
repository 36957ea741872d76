"""Per-token rate limit shared by every replica: a token bucket in Redis, spent through leases.

The bucket of a token lives in Redis (hash `ratelimit:{digest}`: level and last refill,
refilled at `rate` per second up to `burst`, with Redis's clock), so a client spreading
its calls over several replicas gets one budget. To keep a Redis round trip off most
requests, a replica takes up to `lease` tokens from the bucket at once and spends them
locally for at most `lease_seconds`; a lease left unspent then lapses. Every admitted
request was paid for in the shared bucket, so all replicas together admit at most what
the bucket allows (lapsed leases only make the limit stricter). Takes of concurrent
requests share one script call.
"""

from __future__ import annotations

import math
import time

import redis.asyncio as aioredis

from services.common.auth import token_digest
from services.game.batch import Batcher

# KEYS: one bucket per token. ARGV: rate, burst, ttl ms, then the tokens wanted per key.
# Returns per key {granted, seconds to wait for the next token (as text)}.
_TAKE = """
local t = redis.call('time')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2])
local out = {}
for i = 1, #KEYS do
  local level = tonumber(redis.call('hget', KEYS[i], 'l') or burst)
  local last = tonumber(redis.call('hget', KEYS[i], 't') or now)
  level = math.min(burst, level + math.max(0, now - last) * rate)
  local got = math.min(tonumber(ARGV[i + 3]), math.floor(level))
  level = level - got
  redis.call('hset', KEYS[i], 'l', tostring(level), 't', tostring(now))
  redis.call('pexpire', KEYS[i], ARGV[3])
  if got > 0 then
    out[i] = {got, '0'}
  else
    out[i] = {0, tostring((1 - level) / rate)}
  end
end
return out
"""


class SharedRateLimiter:
    """Token buckets in Redis, one per token, spent through short local leases."""

    def __init__(
        self,
        client: aioredis.Redis,
        prefix: str,
        rate: float,
        burst: int,
        lease: int,
        lease_seconds: float = 2.0,
    ) -> None:
        self.prefix = prefix
        self.rate = max(rate, 1e-9)
        self.burst = max(1, burst)
        self.lease = max(1, min(lease, self.burst // 10))
        self.lease_seconds = lease_seconds
        self.ttl_ms = min(math.ceil(self.burst / self.rate * 1000) + 1000, 86_400_000)
        self.leases: dict[str, tuple[int, float]] = {}
        self._script = client.register_script(_TAKE)
        self._takes: Batcher[tuple[str, int], tuple[int, float]] = Batcher(self._take_many)

    def key(self, token: str) -> str:
        """The bucket key of a token (a digest: tokens never reach Redis)."""
        return f"{self.prefix}ratelimit:{token_digest(token)[:32]}"

    async def _take_many(self, items: list[tuple[str, int]]) -> list[tuple[int, float]]:
        raw = await self._script(
            keys=[self.key(token) for token, _n in items],
            args=[repr(self.rate), self.burst, self.ttl_ms, *(n for _t, n in items)],
        )
        return [(int(got), float(wait)) for got, wait in raw]

    def take_leased(self, token: str) -> bool:
        """Admit one request from this replica's lease, if it holds one (no round trip)."""
        left, until = self.leases.get(token, (0, 0.0))
        if left > 0 and until > time.monotonic():
            self.leases[token] = (left - 1, until)
            return True
        return False

    async def take(self, token: str) -> float:
        """Admit one request of `token`: 0 when allowed, else the seconds to wait."""
        if self.take_leased(token):
            return 0.0
        stamp = time.monotonic()
        got, wait = await self._takes((token, self.lease))
        if got <= 0:
            return max(wait, 0.001)
        left, until = self.leases.get(token, (0, 0.0))
        left = left if until > stamp else 0
        self.leases[token] = (left + got - 1, time.monotonic() + self.lease_seconds)
        if len(self.leases) > 100_000:
            self._forget(stamp)
        return 0.0

    def _forget(self, stamp: float) -> None:
        for token in [t for t, (_n, until) in self.leases.items() if until <= stamp]:
            del self.leases[token]
