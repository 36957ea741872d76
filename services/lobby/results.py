"""Settling finished games: read each started table's result from the authority and rate it."""

from __future__ import annotations

import asyncio

from google.protobuf import json_format

from services.common.logging import get_logger
from services.lobby.games import GameCreator
from services.lobby.queue import TicketQueue
from services.lobby.store import LobbyStore

log = get_logger("lobby.results")


async def settle_finished(
    store: LobbyStore, games: GameCreator, limit: int = 200, queue: TicketQueue | None = None
) -> int:
    """Rate every started lobby game that has finished; returns how many were rated (and
    refreshes the raters' cached ratings in `queue`)."""
    tables = await asyncio.to_thread(store.started_tables, limit)
    settled = 0
    for table in tables:
        token = next((s.seat_token for s in table.seats if s.seat_token), None)
        if not table.game_id or token is None:
            continue
        try:
            view = await games.view(table.game_id, token)
        except Exception as exc:
            log.warning("cannot read game", game_id=table.game_id, error=str(exc))
            continue
        if not view.HasField("result") or not view.result.seats:
            continue
        ranks = {s.seat: s.rank for s in view.result.seats}
        result = json_format.MessageToDict(view.result, preserving_proto_field_name=True)
        means = await asyncio.to_thread(store.settle, table.game_id, ranks, result)
        if means is not None:
            settled += 1
            if queue is not None:
                await queue.forget_means(table.game, list(means))
            log.info("game rated", game_id=table.game_id, table_id=table.id)
    return settled
