"""Celery tasks of the game authority (queue `game`).

`warroom.game.clock_expired` checks a seat's clock at its ETA; `warroom.game.resend_bot_turns`
runs from Celery beat every `game_bot_sweep_seconds` and sends again the bot turns left
unanswered longer than `game_bot_resend_seconds` (a lost task); `warroom.game.sweep_owed`
(beat, same period; every authority replica also runs it every `game_owed_sweep_seconds`)
does the same from SQL alone and expires overdue clocks. Any number of workers may run them
at once, since a duplicate bot turn or clock check is harmless.
"""

from __future__ import annotations

import asyncio

from services.common.celery_app import app
from services.common.db import make_engine
from services.common.redisio import async_redis
from services.common.settings import Settings, get_settings
from services.game.scheduler import (
    CLOCK_TASK,
    RESEND_TASK,
    SWEEP_TASK,
    CeleryScheduler,
    Scheduler,
)

app.conf.beat_schedule = {
    **(app.conf.beat_schedule or {}),
    "game-resend-bot-turns": {
        "task": RESEND_TASK,
        "schedule": float(get_settings().game_bot_sweep_seconds),
    },
    "game-sweep-owed": {
        "task": SWEEP_TASK,
        "schedule": float(get_settings().game_bot_sweep_seconds),
    },
}


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


async def resend(settings: Settings, scheduler: Scheduler | None = None) -> int:
    """Send again the bot turns unanswered for longer than the bound (worker side)."""
    from celery import current_app

    from services.game.authority import Authority

    engine = make_engine(settings.database_url, settings.db_schema)
    client = async_redis(settings)
    authority = Authority(settings, engine, client, scheduler or CeleryScheduler(current_app))
    try:
        return await authority.resend_bot_turns(settings.game_bot_resend_seconds)
    finally:
        await authority.close()
        await client.aclose()  # type: ignore[attr-defined]
        engine.dispose()


async def sweep(settings: Settings, scheduler: Scheduler | None = None) -> int:
    """Send again, from SQL alone, owed work nobody is doing (worker side)."""
    from celery import current_app

    from services.game.authority import Authority

    engine = make_engine(settings.database_url, settings.db_schema)
    client = async_redis(settings)
    authority = Authority(settings, engine, client, scheduler or CeleryScheduler(current_app))
    try:
        return await authority.sweep_owed()
    finally:
        await authority.close()
        await client.aclose()  # type: ignore[attr-defined]
        engine.dispose()


@app.task(name=CLOCK_TASK, ignore_result=True, shared=False)
def clock_expired(game_id: str, seat: int, decision_id: str, version: int) -> str:
    """A seat's clock may have run out: hand it to a bot or forfeit (stale timers do nothing)."""
    return asyncio.run(expire(get_settings(), game_id, seat, decision_id, version))


@app.task(name=RESEND_TASK, ignore_result=True, shared=False)
def resend_bot_turns() -> int:
    """Beat: send again the bot turns left unanswered too long."""
    return asyncio.run(resend(get_settings()))


@app.task(name=SWEEP_TASK, ignore_result=True, shared=False)
def sweep_owed() -> int:
    """Beat: owed bot turns of idle games and overdue clocks, from SQL alone."""
    return asyncio.run(sweep(get_settings()))
