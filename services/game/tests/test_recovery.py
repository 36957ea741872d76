"""Owed work is derivable from SQL and re-sent (issue 20, Recovery), against real Redis/SQL.

The test plays the bot worker itself (the contract of docs/architecture.md) from the turns
the authority sends to an `Inbox` scheduler; "losing" the inbox is losing the queued tasks.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import AsyncIterator, Awaitable
from datetime import datetime
from pathlib import Path

import grpc
import pytest
import redis

from services.common.auth import bot_seat_token
from services.common.db import make_engine, migrate
from services.common.settings import Settings
from services.game import tasks
from services.game.store import Store
from services.game.tests.helpers import Replica, create, start_replica, status_of
from warroom.v1 import common_pb2, game_pb2

BOTS = [game_pb2.SeatSpec(bot=common_pb2.BotSpec(kind="random")) for _ in range(2)]


class Inbox:
    """A scheduler that keeps what it is sent (bot turns; clock timers are dropped: a dead
    worker holding them)."""

    def __init__(self) -> None:
        self.turns: list[tuple[str, int, int]] = []
        self.sent = 0

    def bot_turn(self, game_id: str, seat: int, version: int) -> None:
        self.turns.append((game_id, seat, version))
        self.sent += 1

    def clock(self, game_id: str, seat: int, decision_id: str, version: int, eta: datetime) -> None:
        """Dropped."""


async def play_turns(replica: Replica, inbox: Inbox, limit: int = 1000) -> int:
    """Play the queued bot turns (at most `limit`) like the bot worker (random legal option);
    returns how many answers were accepted."""
    played = 0
    while inbox.turns and played < limit:
        game_id, seat, version = inbox.turns.pop(0)
        token = bot_seat_token(replica.settings.bot_token_key(), game_id, seat)
        request = game_pb2.GetViewRequest(game_id=game_id, token=token)
        try:
            view = (await replica.stub.GetView(request)).view
        except grpc.aio.AioRpcError:
            continue
        options = [o for o in view.decision.options if o.id != "undo"]
        if not options:
            continue
        try:
            await replica.stub.SubmitAction(
                game_pb2.SubmitActionRequest(
                    game_id=game_id,
                    token=token,
                    expected_version=version,
                    decision_id=view.decision.decision_id,
                    option_id=random.Random(version).choice(options).id,
                    idempotency_key=f"{game_id}:{seat}:{version}",
                )
            )
            played += 1
        except grpc.aio.AioRpcError as error:
            if error.code() not in (grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION):
                raise
    return played


def flush_prefix(client: redis.Redis, prefix: str) -> int:
    """Delete every Redis key of this test (a flush of the platform's keys)."""
    keys = list(client.scan_iter(match=f"{prefix}*", count=1000))
    return int(client.delete(*keys)) if keys else 0


async def head(replica: Replica, game_id: str) -> int:
    version = await asyncio.to_thread(Store(replica.engine).head, game_id)
    return version or 0


async def finished(replica: Replica, game_id: str) -> bool:
    row = await asyncio.to_thread(Store(replica.engine).result, game_id)
    return row is not None


@contextlib.asynccontextmanager
async def maintained(replica: Replica) -> AsyncIterator[None]:
    """The replica's periodic task (SQL sweep of owed work) running, as `python -m
    services.game` runs it."""
    task = asyncio.create_task(replica.authority.maintain())
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def play_until_over(replica: Replica, inbox: Inbox, game_id: str, seconds: float) -> float:
    """Play turns until the game is over; returns how long it took."""
    started = time.monotonic()
    while not await finished(replica, game_id):
        assert time.monotonic() - started < seconds, (
            f"the game stalled at version {await head(replica, game_id)}"
        )
        if not await play_turns(replica, inbox):
            await asyncio.sleep(0.05)
    return time.monotonic() - started


def quick(settings: Settings, resend: float = 0.5) -> Settings:
    """Sweeps every 0.2 s; bot turns of games idle for `resend` seconds are sent again (the
    run's schema holds other tests' games too: the sweep sees them all, as in production)."""
    return settings.model_copy(
        update={"game_bot_resend_seconds": resend, "game_owed_sweep_seconds": 0.2}
    )


async def test_all_bot_game_finishes_after_redis_flush(
    settings: Settings, redis_client: redis.Redis
) -> None:
    local = quick(settings)
    inbox = Inbox()
    replica = await start_replica(local, inbox)
    try:
        created = await create(replica.stub, local, seats=BOTS, seed=21)
        gid = created.game_id
        while await head(replica, gid) < 3:
            assert await play_turns(replica, inbox, 1), "bot turns are sent"
        # Redis loses everything: versions, locks, the waiting set and the queued tasks
        assert flush_prefix(redis_client, local.redis_prefix) > 0
        inbox.turns.clear()
        # the catch-up path of a replica still holding the game re-sends what is owed
        spectator = game_pb2.GetViewRequest(game_id=gid, token=created.spectator_token)
        await replica.stub.GetView(spectator)
        assert inbox.turns, "catching up after Redis forgot the game re-sends the owed bot turn"
        # lose them again; only the SQL sweep can find the owed work now
        flush_prefix(redis_client, local.redis_prefix)
        inbox.turns.clear()
        async with maintained(replica):
            took = await play_until_over(replica, inbox, gid, 60)
        print(f"all-bot game finished {took:.1f}s after the second Redis flush")
    finally:
        await replica.stop()


async def test_game_continues_after_replica_died_between_commit_and_bot_turn(
    settings: Settings, redis_client: redis.Redis
) -> None:
    local = quick(settings)
    lost = Inbox()
    first = await start_replica(local, lost)
    created = await create(first.stub, local, seats=BOTS, seed=22)
    gid = created.game_id
    try:
        while await head(first, gid) < 2:
            assert await play_turns(first, lost, 1)
        # one more answer commits, then the replica "dies": the bot turns it owes are never
        # sent, the waiting set never records them, and Redis keeps the previous version
        before = await head(first, gid)
        del lost.turns[1:]
        assert await play_turns(first, lost, 1) == 1
        assert await head(first, gid) == before + 1
    finally:
        await first.stop()
    redis_client.delete(f"{local.redis_prefix}game:botwait")
    redis_client.set(f"{local.redis_prefix}game:{gid}:v", before)
    lost.turns.clear()
    inbox = Inbox()
    second = await start_replica(local, inbox)
    try:
        assert gid not in second.authority.games
        async with maintained(second):
            took = await play_until_over(second, inbox, gid, 60)
        print(f"game finished {took:.1f}s after the replica died between commit and bot turn")
    finally:
        await second.stop()


def _sqlite(settings: Settings, path: Path) -> Settings:
    url = f"sqlite:///{path / 'warroom.db'}"
    engine = make_engine(url)
    migrate(engine)
    engine.dispose()
    return settings.model_copy(update={"database_url": url, "db_schema": None})


@pytest.mark.parametrize("database", ["postgresql", "sqlite"])
async def test_clock_fires_from_sql_deadline_without_a_timer(
    settings: Settings, tmp_path: Path, database: str
) -> None:
    local = quick(settings if database == "postgresql" else _sqlite(settings, tmp_path), 3600)
    clock = common_pb2.ClockSpec(
        mode=common_pb2.ClockSpec.MODE_LIVE,
        initial_seconds=1,
        fallback=common_pb2.ClockSpec.FALLBACK_FORFEIT,
    )
    seats = [
        game_pb2.SeatSpec(player_id="sleepy", clock=clock),
        game_pb2.SeatSpec(player_id="bob"),
    ]
    replica = await start_replica(local, Inbox())  # the clock timers are lost
    try:
        created = await create(replica.stub, local, seats=seats, seed=5)
        request = game_pb2.GetViewRequest(game_id=created.game_id, token=created.seat_tokens[0])
        view = (await replica.stub.GetView(request)).view
        deadline = view.clock_deadline.ToDatetime().timestamp()
        assert deadline > 0
        async with maintained(replica):
            while not (await replica.stub.GetView(request)).view.HasField("result"):
                assert time.time() < deadline + 15, "the clock never fired"
                await asyncio.sleep(0.05)
        late = time.time() - deadline
        view = (await replica.stub.GetView(request)).view
        assert view.result.reason == "forfeit"
        assert {s.seat: s.rank for s in view.result.seats}[0] == 1
        print(f"{database}: the clock fired {late:.2f}s after its deadline with no timer")
        assert late < 8, "a sweep every 0.2 s fires a clock within seconds (more under load)"
    finally:
        await replica.stop()


async def test_redis_outage_is_unavailable_with_a_reason(settings: Settings) -> None:
    healthy = await start_replica(settings)
    try:
        created = await create(healthy.stub, settings, seed=8)
    finally:
        await healthy.stop()
    cut = settings.model_copy(update={"redis_url": "redis://127.0.0.1:1/0"})
    replica = await start_replica(cut)
    try:
        gid, token = created.game_id, created.seat_tokens[0]
        calls: list[Awaitable[object]] = [
            replica.stub.GetView(game_pb2.GetViewRequest(game_id=gid, token=token)),
            replica.stub.Resign(game_pb2.ResignRequest(game_id=gid, token=token)),
        ]
        for call in calls:
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await call
            assert status_of(caught.value) == (grpc.StatusCode.UNAVAILABLE, "REDIS_UNAVAILABLE")
        stream = replica.stub.WatchGame(game_pb2.WatchGameRequest(game_id=gid, token=token))
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            async for _update in stream:
                pass
        assert status_of(caught.value) == (grpc.StatusCode.UNAVAILABLE, "REDIS_UNAVAILABLE")
    finally:
        await replica.stop()


async def test_beat_sweep_task_resends_from_sql(
    settings: Settings, redis_client: redis.Redis
) -> None:
    """The Celery beat task's body (`tasks.sweep`: a short-lived authority) finds the owed bot
    turn of a stalled game from SQL alone."""
    local = quick(settings)
    replica = await start_replica(local, Inbox())  # its turns are lost
    try:
        created = await create(replica.stub, local, seats=BOTS, seed=23)
    finally:
        await replica.stop()
    flush_prefix(redis_client, local.redis_prefix)
    await asyncio.sleep(local.game_bot_resend_seconds)
    worker = Inbox()
    assert await tasks.sweep(local, worker) >= 1
    assert {(g, s) for g, s, _v in worker.turns} >= {(created.game_id, 0), (created.game_id, 1)}
    assert all(v == 0 for g, _s, v in worker.turns if g == created.game_id), "turn version"
