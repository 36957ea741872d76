"""Run the game authority: `python -m services.game` (settings from WARROOM_* / REDIS_URL / DATABASE_URL)."""

from __future__ import annotations

import asyncio
import gc
import threading

from services.common import eventloop
from services.common.celery_app import make_celery
from services.common.db import make_engine, migrate
from services.common.logging import configure_logging
from services.common.redisio import async_redis
from services.common.server import RunningServer, serve_until_signal, start_server
from services.common.settings import Settings, get_settings
from services.game.authority import Authority
from services.game.scheduler import CeleryScheduler
from services.game.service import SERVICE_NAME, GameServicer, register
from warroom import catalog


async def start(
    settings: Settings, port: int | None = None, metrics_port: int | None = None
) -> tuple[RunningServer, Authority]:
    """Start one replica (migrating the database first)."""
    settings.register_extra_games()
    engine = make_engine(
        settings.database_url,
        settings.db_schema,
        **(
            {}
            if settings.database_url.startswith("sqlite")
            else {"pool_size": settings.db_pool_size, "pool_pre_ping": False, "max_overflow": 5}
        ),
    )
    # every view carries its game's catalogue version: build the catalogues in a thread
    # meanwhile (a view that needs one before then waits for that build)
    threading.Thread(target=catalog.warm, name="catalog-warm", daemon=True).start()
    await asyncio.to_thread(migrate, engine)
    client = async_redis(settings)
    authority = Authority(settings, engine, client, CeleryScheduler(make_celery(settings)))
    running = await start_server(
        settings,
        port=settings.game_port if port is None else port,
        service_names=[SERVICE_NAME],
        register=[register(GameServicer(authority, settings))],
        metrics_port=settings.game_metrics_port if metrics_port is None else metrics_port,
    )
    return running, authority


def tune_gc() -> None:
    """Keep the cyclic GC's pauses off the tail latency.

    What exists after start-up (imported modules, the engine, settings: most of the heap's
    container objects) is frozen out of every collection, and young collections run after
    20 000 allocations instead of 700, so full collections are rarer and scan only what the
    games hold.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)


async def main(settings: Settings) -> None:
    """Serve until SIGTERM/SIGINT."""
    configure_logging(settings.log_level, settings.log_json)
    running, authority = await start(settings)
    tune_gc()

    # the SQL sweep of owed work (lost bot turns, overdue clocks) and idle-game eviction
    sweeper = asyncio.create_task(authority.maintain())
    try:
        await serve_until_signal(running)
    finally:
        sweeper.cancel()
        await authority.close()


if __name__ == "__main__":
    settings = get_settings()
    eventloop.run(main(settings), settings)
