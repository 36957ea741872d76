"""Redis clients built from settings."""

from __future__ import annotations

import redis.asyncio as aioredis

from services.common.settings import Settings


def async_redis(settings: Settings) -> aioredis.Redis:
    """An asyncio Redis client with a pool of up to `redis_max_connections` connections.

    The plain (non-blocking) pool costs less CPU per command than the blocking one; size it
    above the number of commands a process may have in flight at once.
    """
    return aioredis.Redis.from_url(
        settings.redis_url, max_connections=settings.redis_max_connections
    )
