"""Redis clients built from settings, with retries and health checks.

Every client retries a command that failed on a broken connection or a timeout
(`redis_retries` times, exponential backoff with jitter capped at `redis_retry_cap_seconds`),
checks a connection idle for `redis_health_check_seconds` with a PING before using it (a
pooled connection that died with a Redis restart is replaced instead of failing the first
call), and uses TCP keepalive. What still fails reaches the caller as a
`redis.exceptions.ConnectionError`, which every gRPC server reports as UNAVAILABLE
(services.common.unavailable).
"""

from __future__ import annotations

from typing import Any

import redis
import redis.asyncio as aioredis
from redis.asyncio.retry import Retry as AsyncRetry
from redis.backoff import ExponentialWithJitterBackoff  # type: ignore[attr-defined]  # old stubs
from redis.exceptions import BusyLoadingError, ConnectionError, TimeoutError
from redis.retry import Retry

from services.common.settings import Settings

RETRIED = (ConnectionError, TimeoutError, BusyLoadingError)


def _backoff(settings: Settings) -> ExponentialWithJitterBackoff:
    return ExponentialWithJitterBackoff(base=0.05, cap=settings.redis_retry_cap_seconds)


def client_options(settings: Settings) -> dict[str, Any]:
    """The connection options of every asyncio client and pool (retries, health checks)."""
    return {
        "retry": AsyncRetry(_backoff(settings), settings.redis_retries, supported_errors=RETRIED),
        "retry_on_error": list(RETRIED),
        "health_check_interval": settings.redis_health_check_seconds,
        "socket_connect_timeout": settings.redis_connect_timeout_seconds,
        "socket_keepalive": True,
    }


def async_redis(settings: Settings, max_connections: int | None = None) -> aioredis.Redis:
    """An asyncio Redis client with a pool of up to `redis_max_connections` connections.

    The plain (non-blocking) pool costs less CPU per command than the blocking one; size it
    above the number of commands a process may have in flight at once.
    """
    return aioredis.Redis.from_url(
        settings.redis_url,
        max_connections=max_connections or settings.redis_max_connections,
        **client_options(settings),
    )


def sync_redis(settings: Settings) -> redis.Redis:
    """A synchronous client (Celery tasks) with the same retries and health checks."""
    options = client_options(settings)
    options["retry"] = Retry(_backoff(settings), settings.redis_retries, supported_errors=RETRIED)
    return redis.Redis.from_url(settings.redis_url, **options)
