"""Celery tasks of the lobby (queue `lobby`): the matchmaker cycle and result settlement.

Beat runs `warroom.lobby.match_cycle` every second and `warroom.lobby.settle_results`
every five; any number of workers may run them at once, since each pool's matcher holds
a fenced Redis lock and every ticket transition is an atomic Lua script.
"""

from __future__ import annotations

import asyncio
from typing import Any

from services.common.celery_app import app
from services.common.settings import get_settings
from services.lobby.config import LobbySettings
from services.lobby.results import settle_finished
from services.lobby.runtime import build, lobby_prefix

app.conf.beat_schedule = {
    **(app.conf.beat_schedule or {}),
    "lobby-match-cycle": {"task": "warroom.lobby.match_cycle", "schedule": 1.0},
    "lobby-settle-results": {"task": "warroom.lobby.settle_results", "schedule": 5.0},
}


async def _pools(lobby: Any) -> list[tuple[str, str]]:
    prefix = lobby_prefix(lobby.settings) + "pooldata:"
    pools = []
    async for key in lobby.redis.scan_iter(match=prefix + "*", count=500):
        name = key.decode() if isinstance(key, bytes) else key
        game, _, queue = name.removeprefix(prefix).rpartition(":")
        pools.append((game, queue))
    return pools


async def _match_cycle() -> dict[str, Any]:
    lobby = build(get_settings(), LobbySettings())
    try:
        # lapsed claims and expired tickets are handled even when no pool has waiting tickets
        done: dict[str, Any] = {
            "released": await lobby.queue.reap(),
            "expired": await lobby.queue.expire_due(),
        }
        for game, queue in await _pools(lobby):
            report = await lobby.director.cycle(game, queue)
            done[f"{game}:{queue}"] = {
                "pool": report.pool_size,
                "started": report.started,
                "skipped": report.skipped,
            }
        return done
    finally:
        await lobby.close()


async def _settle() -> int:
    lobby = build(get_settings(), LobbySettings())
    try:
        return await settle_finished(
            lobby.store, lobby.games, lobby.settings.bot_token_key(), queue=lobby.queue
        )
    finally:
        await lobby.close()


@app.task(name="warroom.lobby.match_cycle", ignore_result=True)
def match_cycle() -> dict[str, Any]:
    """One matchmaker cycle over every pool that has tickets."""
    return asyncio.run(_match_cycle())


@app.task(name="warroom.lobby.settle_results", ignore_result=True)
def settle_results() -> int:
    """Rate the lobby's games that finished since the last run."""
    return asyncio.run(_settle())
