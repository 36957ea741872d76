"""Redis clients built from settings (a blocking pool: callers wait for a free connection)."""

from __future__ import annotations

import redis.asyncio as aioredis

from services.common.settings import Settings


def async_redis(settings: Settings) -> aioredis.Redis:
    """An asyncio Redis client whose pool waits (up to 10 s) instead of failing when full."""
    pool: aioredis.BlockingConnectionPool = aioredis.BlockingConnectionPool.from_url(
        settings.redis_url, max_connections=settings.redis_max_connections, timeout=10
    )
    return aioredis.Redis(connection_pool=pool)
