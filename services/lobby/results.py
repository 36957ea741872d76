"""Settling finished games: read each started table's result from the authority and rate it.

The result is read with a token that has no side effect on the game: the spectator token the
lobby keeps for every game it creates (never handed out unless the table allows spectators),
else the derived token of a bot seat. A human seat token is never used: the authority takes
a call with it as the human returning to a seat a bot had taken over.

`settle_finished` walks every started table, a batch per run, resuming after the last table
of the previous run (a cursor in Redis), so long games never starve newer ones.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import datetime

from google.protobuf import json_format

from services.common.auth import bot_seat_token
from services.common.logging import get_logger
from services.lobby.games import GameCreator
from services.lobby.models import TableRow
from services.lobby.queue import TicketQueue
from services.lobby.store import LobbyStore

log = get_logger("lobby.results")


def reading_token(table: TableRow, secret: bytes) -> str | None:
    """A token that reads the table's game without side effects, if the lobby has one."""
    if table.spectator_token:
        return table.spectator_token
    if table.game_id and secret:
        for seat in table.seats:
            if seat.bot_kind and not seat.player_id:
                return bot_seat_token(secret, table.game_id, seat.index)
    return None


async def settle_tables(
    store: LobbyStore,
    games: GameCreator,
    tables: Sequence[TableRow],
    secret: bytes,
    queue: TicketQueue | None = None,
) -> int:
    """Rate those of `tables` whose game has finished; returns how many were rated (and
    drops the raters' cached means in `queue`)."""
    settled = 0
    for table in tables:
        token = reading_token(table, secret)
        if not table.game_id or token is None:
            log.warning("no side-effect-free token to read the game", table_id=table.id)
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


async def settle_finished(
    store: LobbyStore,
    games: GameCreator,
    secret: bytes,
    queue: TicketQueue | None = None,
    batch: int = 200,
) -> int:
    """One settlement run over the next `batch` started tables (from the start without a
    queue to keep the cursor in); returns how many games were rated."""
    after: tuple[datetime, str] | None = None
    cursor_key = f"{queue.prefix}settle:cursor" if queue is not None else None
    if queue is not None and cursor_key is not None:
        raw = await queue.redis.get(cursor_key)
        if raw:
            stamp, _, table_id = (raw.decode() if isinstance(raw, bytes) else raw).partition("|")
            after = (datetime.fromisoformat(stamp), table_id)
    tables = await asyncio.to_thread(store.started_tables, batch, after)
    if queue is not None and cursor_key is not None:
        if len(tables) < batch:
            await queue.redis.delete(cursor_key)
        else:
            last = tables[-1]
            if last.started_at is not None:
                await queue.redis.set(cursor_key, f"{last.started_at.isoformat()}|{last.id}")
    return await settle_tables(store, games, tables, secret, queue)
