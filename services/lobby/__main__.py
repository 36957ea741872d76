"""Run the lobby: `python -m services.lobby [--matchmaker]` (gRPC LobbyService on lobby_port).

With `--matchmaker` the process also runs the matchmaker as a worker loop (instead of, or
beside, the Celery beat task); replicas may all run it.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys

from services.catalog import service as catalog_service
from services.common import eventloop
from services.common.db import migrate
from services.common.logging import configure_logging
from services.common.server import serve_until_signal, start_server
from services.common.settings import get_settings
from services.lobby.director import run_cycles
from services.lobby.runtime import build, tune_gc, warm_layouts
from services.lobby.service import SERVICE_NAME, register
from warroom.engine.registry import game_ids


async def main(matchmaker: bool) -> None:
    """Serve until a signal."""
    settings = get_settings()
    configure_logging(settings.log_level, settings.log_json)
    lobby = build(settings)
    await asyncio.to_thread(migrate, lobby.store.engine)
    running = await start_server(
        settings,
        port=settings.lobby_port,
        service_names=[SERVICE_NAME, catalog_service.SERVICE_NAME],
        register=[register(lobby.servicer), catalog_service.register()],
        metrics_port=settings.lobby_metrics_port,
    )
    # read the games' seat layouts in the background: health answers at once
    warming = asyncio.ensure_future(asyncio.to_thread(warm_layouts))
    warming.add_done_callback(lambda _: tune_gc())
    catalogs = asyncio.ensure_future(asyncio.to_thread(catalog_service.warm))
    stop = asyncio.Event()
    loop_task = (
        asyncio.create_task(run_cycles(lobby.director, game_ids(), stop)) if matchmaker else None
    )
    try:
        await serve_until_signal(running)
    finally:
        stop.set()
        warming.cancel()
        catalogs.cancel()
        if loop_task is not None:
            with contextlib.suppress(Exception):
                await loop_task
        await lobby.close()


if __name__ == "__main__":
    eventloop.run(main("--matchmaker" in sys.argv[1:]), get_settings())
