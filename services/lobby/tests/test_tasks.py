"""The Celery task module: the matchmaker cycle task over every pool, and result settlement."""

from __future__ import annotations

import asyncio

import pytest

from services.common.settings import Settings, get_settings
from services.lobby import tasks
from services.lobby.tests.harness import Harness
from warroom.v1 import game_pb2, lobby_pb2


async def test_match_cycle_task_matches_every_pool(
    harness: Harness, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    h = harness
    port = h.authority.address.rsplit(":", 1)[1]
    for key, value in {
        "REDIS_URL": settings.redis_url,
        "DATABASE_URL": settings.database_url,
        "WARROOM_DB_SCHEMA": settings.db_schema or "",
        "WARROOM_REDIS_PREFIX": settings.redis_prefix,
        "WARROOM_SERVICE_SECRET": settings.service_secret.get_secret_value(),
        "WARROOM_GAME_PORT": port,
    }.items():
        monkeypatch.setenv(key, value)
    get_settings.cache_clear()
    try:
        a, b = await h.login(), await h.login()
        tickets = []
        for p in (a, b):
            response = await h.stub.EnqueueTicket(
                lobby_pb2.EnqueueTicketRequest(rules_id="toy"), metadata=p.md
            )
            tickets.append(response.ticket.ticket_id)
        # a director died after claiming: the pool is empty, yet the task returns the tickets
        queue = h.node.lobby.queue
        lock = await queue.acquire("toy", "default", 5000)
        assert lock is not None
        assert await queue.claim(lock, "toy", "default", [("dead", tickets)], 0.1) == [True]
        await queue.unlock(lock)
        await asyncio.sleep(0.2)
        done = await asyncio.to_thread(tasks.match_cycle)
        assert done["released"] == 2
        assert done["toy:default"]["started"] == 1
        assignment = (await h.status(a, tickets[0])).assignment
        assert assignment.game_id
        await h.authority.stub.Resign(
            game_pb2.ResignRequest(game_id=assignment.game_id, token=assignment.seat_token)
        )
        await asyncio.to_thread(tasks.settle_results)
        table = h.node.lobby.store.table_by_game(assignment.game_id)
        assert table is not None and table.status == "finished"
    finally:
        get_settings.cache_clear()
