"""Two matchmaker replicas on one pool never double-assign (hypothesis, real Redis/authority)."""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any, cast

import redis.asyncio as aioredis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from services.common.db import make_engine
from services.lobby.config import LobbySettings
from services.lobby.director import Director
from services.lobby.games import GameClient
from services.lobby.models import SeatRow, TableRow
from services.lobby.queue import TicketQueue
from services.lobby.runtime import lobby_prefix
from services.lobby.store import LobbyStore
from services.lobby.tests.harness import Harness
from warroom.matchmaking import Ticket


class SlowQueue(TicketQueue):
    """A queue whose pool reads stall, so a short matcher lock lapses mid-cycle and the other
    replica matches the same pool at the same time (the paused-matcher case fencing guards)."""

    async def load_pool(self, game: str, queue: str) -> list[Ticket]:
        tickets = await super().load_pool(game, queue)
        await asyncio.sleep(0.01)
        return tickets


TICKETS = st.lists(
    st.tuples(
        st.floats(10, 40),  # rating
        st.floats(0, 60),  # seconds waited
        st.booleans(),  # allow bots
        st.booleans(),  # cancelled during the cycles
    ),
    min_size=1,
    max_size=80,
)


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(specs=TICKETS, lock_ms=st.sampled_from([5, 10_000]))
async def test_two_replicas_never_double_assign(
    harness: Harness, specs: list[tuple[float, float, bool, bool]], lock_ms: int
) -> None:
    h = harness
    queue_name = f"q{uuid.uuid4().hex[:8]}"
    lobby = LobbySettings(lock_ms=lock_ms, queue=queue_name)
    first = h.node.lobby
    clients = [aioredis.Redis.from_url(h.settings.redis_url) for _ in range(2)]
    engine = make_engine(h.settings.database_url, h.settings.db_schema)
    games = GameClient(h.settings, target=h.authority.address)
    replicas = [
        Director(
            SlowQueue(clients[0], lobby_prefix(h.settings)), first.store, first.games, lobby, "g"
        ),
        Director(
            SlowQueue(clients[1], lobby_prefix(h.settings)), LobbyStore(engine), games, lobby, "g"
        ),
    ]
    queue = first.queue
    import time

    now = time.time()
    tickets = []
    for i, (rating, waited, bots, _cancel) in enumerate(specs):
        ticket = Ticket(
            f"tk-{queue_name}-{i}",
            (f"pl-{queue_name}-{i}",),
            (rating,),
            now - waited,
            ("duel",),
            allow_bots=bots,
            bot_fill_after_s=30,
        )
        await queue.enqueue(ticket, "toy", queue_name, now + 600, 600)
        tickets.append(ticket)
    try:

        async def cancel_soon(ticket: Ticket, delay: float) -> None:
            await asyncio.sleep(delay)
            await queue.cancel(ticket.ticket_id, ticket.player_ids[0])

        jobs: list[Any] = [
            cancel_soon(t, 0.002 * i)
            for i, (t, spec) in enumerate(zip(tickets, specs, strict=True))
            if spec[3]
        ]
        for _ in range(3):
            jobs += [r.cycle("toy", queue_name) for r in replicas]
        await asyncio.gather(*jobs)
        for _ in range(2):
            await asyncio.gather(*(r.cycle("toy", queue_name) for r in replicas))

        matched_games: dict[str, str] = {}
        for ticket in tickets:
            fields = await queue.get(ticket.ticket_id)
            assert fields is not None
            assert fields["status"] in ("searching", "matched", "cancelled"), fields
            if fields["status"] == "matched":
                assign = json.loads(fields["assign"])
                assert set(assign) == set(ticket.player_ids)
                matched_games[ticket.player_ids[0]] = fields["game_id"]
            else:
                assert "assign" not in fields
        players = [t.player_ids[0] for t in tickets]
        with first.store.sessions() as session:
            rows = session.execute(
                select(SeatRow.player_id, TableRow.game_id, TableRow.status)
                .join(TableRow, SeatRow.table_id == TableRow.id)
                .where(SeatRow.player_id.in_(players), TableRow.status == "started")
            ).all()
        seen: dict[str, str] = {}
        for player, game_id, _status in rows:
            assert player is not None and game_id is not None
            assert player not in seen, f"{player} sits in two started games"
            seen[player] = game_id
        assert seen == matched_games
        # every game has its two seats filled by distinct matched players or a bot
        by_game: dict[str, list[str]] = {}
        for player, game_id in matched_games.items():
            by_game.setdefault(game_id, []).append(player)
        assert all(1 <= len(v) <= 2 for v in by_game.values())
    finally:
        for client in clients:
            await cast(Any, client).aclose()
        await games.close()
        engine.dispose()
