"""Celery tasks of the game authority: `warroom.game.clock_expired`."""

from __future__ import annotations

import asyncio

from services.common.celery_app import app
from services.common.db import make_engine
from services.common.redisio import async_redis
from services.common.settings import Settings, get_settings
from services.game.scheduler import CLOCK_TASK, CeleryScheduler


async def expire(
    settings: Settings, game_id: str, seat: int, decision_id: str, version: int
) -> str:
    """Run one clock check with a short-lived authority (worker side)."""
    from celery import current_app

    from services.game.authority import Authority

    engine = make_engine(settings.database_url, settings.db_schema)
    client = async_redis(settings)
    authority = Authority(settings, engine, client, CeleryScheduler(current_app))
    try:
        return await authority.expire_clock(game_id, seat, decision_id, version)
    finally:
        await authority.close()
        await client.aclose()  # type: ignore[attr-defined]
        engine.dispose()


@app.task(name=CLOCK_TASK, ignore_result=True, shared=False)
def clock_expired(game_id: str, seat: int, decision_id: str, version: int) -> str:
    """A seat's clock may have run out: hand it to a bot or forfeit (stale timers do nothing)."""
    return asyncio.run(expire(get_settings(), game_id, seat, decision_id, version))
