"""Idle games leave a replica's memory (finished ones sooner) and load again on the next read."""

from __future__ import annotations

import time

from services.game.tests.helpers import Replica, create
from warroom.v1 import game_pb2


async def test_finished_games_leave_memory_sooner_and_load_again(replica: Replica) -> None:
    authority = replica.authority
    authority.settings = authority.settings.model_copy(
        update={"game_cache_seconds": 3600, "game_finished_cache_seconds": 0}
    )
    running = await create(replica.stub, replica.settings, seed=1)
    over = await create(replica.stub, replica.settings, seed=2)
    await replica.stub.Resign(
        game_pb2.ResignRequest(game_id=over.game_id, token=over.seat_tokens[0])
    )
    for live in authority.games.values():
        live.touched = time.monotonic() - 1
    assert authority.evict_idle() == 1
    assert running.game_id in authority.games and over.game_id not in authority.games
    view = (
        await replica.stub.GetView(
            game_pb2.GetViewRequest(game_id=over.game_id, token=over.seat_tokens[1])
        )
    ).view
    assert view.HasField("result") and view.version == 1
    assert over.game_id in authority.games
