"""The lock lease: a replica that follows a game keeps its Redis lock between its writes."""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import grpc
import pytest

from services.common.settings import Settings
from services.game.live import Lease
from services.game.store import Append
from services.game.tests.helpers import (
    Referee,
    Replica,
    answer,
    create,
    pick,
    start_replica,
    status_of,
)
from warroom.engine.match import Action
from warroom.v1 import game_pb2


class Counted:
    """Counts the calls of a Redis script object (and passes them on)."""

    def __init__(self, script: Any) -> None:
        self.script, self.calls = script, 0

    async def __call__(self, **kwargs: Any) -> Any:
        self.calls += 1
        return await self.script(**kwargs)


async def _follow(replica: Replica, gid: str, token: str) -> asyncio.Task[None]:
    """A WatchGame stream on `replica`, running until cancelled; returns once Redis has
    confirmed the replica's subscription to the game's channel."""

    async def run() -> None:
        async for _update in replica.stub.WatchGame(
            game_pb2.WatchGameRequest(game_id=gid, token=token)
        ):
            pass

    task = asyncio.create_task(run())
    for _ in range(200):
        if gid in replica.authority.core.hot.heard:
            return task
        await asyncio.sleep(0.01)
    raise AssertionError("the subscription was not confirmed")


async def _move(
    replica: Replica, gid: str, tokens: list[str], referee: Referee, rng: random.Random
) -> game_pb2.SubmitActionResponse:
    """One random legal move of whichever seat must act, through `replica`."""
    for seat, token in enumerate(tokens):
        view = (await replica.stub.GetView(game_pb2.GetViewRequest(game_id=gid, token=token))).view
        option = pick(view, rng)
        if option is not None:
            reply = await answer(replica.stub, gid, token, view, option)
            referee.actions.append(Action(seat, option.id))
            return reply
    raise AssertionError("nobody must act")


async def _lock(replica: Replica, gid: str) -> str | None:
    raw = await replica.client.get(replica.authority.core.hot.key(gid, "lock"))
    return None if raw is None else raw.decode() if isinstance(raw, bytes) else str(raw)


async def test_a_replica_that_follows_a_game_takes_its_lock_once(replica: Replica) -> None:
    created = await create(replica.stub, replica.settings, seed=11)
    gid, tokens = created.game_id, list(created.seat_tokens)
    hot = replica.authority.core.hot
    acquires = Counted(hot._acquire_script)
    hot._acquire_script = acquires  # type: ignore[assignment]
    watcher = await _follow(replica, gid, tokens[0])
    referee, rng = Referee("toy", 11, "duel"), random.Random(3)
    try:
        for _ in range(6):
            await _move(replica, gid, tokens, referee, rng)
        assert acquires.calls == 1  # the first write; the five after it wrote on the lease
        lease = replica.authority.games[gid].lease
        assert lease is not None and await _lock(replica, gid) == f"idle:{lease.fence}"
        view = await replica.stub.GetView(game_pb2.GetViewRequest(game_id=gid, token=tokens[0]))
        assert view.view.version == 6
        referee.check_view(view.view, 0)
    finally:
        watcher.cancel()
    for _ in range(100):  # the last watcher gone, the replica no longer hears a takeover
        if gid not in hot.heard:
            break
        await asyncio.sleep(0.01)
    assert replica.authority.games[gid].lease is None
    await _move(replica, gid, tokens, referee, rng)
    assert acquires.calls == 2
    assert await _lock(replica, gid) is None  # no lease kept for a game nobody follows here


async def test_another_replica_takes_the_lease_over_at_once(settings: Settings) -> None:
    a = await start_replica(settings)
    b = await start_replica(settings)
    try:
        created = await create(a.stub, settings, seed=12)
        gid, tokens = created.game_id, list(created.seat_tokens)
        watcher = await _follow(a, gid, tokens[0])
        referee, rng = Referee("toy", 12, "duel"), random.Random(4)
        for _ in range(2):
            await _move(a, gid, tokens, referee, rng)
        assert a.authority.games[gid].lease is not None
        started = time.monotonic()
        reply = await _move(b, gid, tokens, referee, rng)
        # not after the lease's 5 s: b took it over and a heard of it
        assert time.monotonic() - started < 1.0 and reply.version == 3
        for _ in range(200):
            if a.authority.games[gid].lease is None and a.authority.games[gid].version == 3:
                break
            await asyncio.sleep(0.01)
        assert a.authority.games[gid].lease is None
        reply = await _move(a, gid, tokens, referee, rng)  # on b's version, not ABORTED
        assert reply.version == 4
        for replica in (a, b):
            view = await replica.stub.GetView(game_pb2.GetViewRequest(game_id=gid, token=tokens[1]))
            assert view.view.version == 4
            referee.check_view(view.view, 1)
        watcher.cancel()
    finally:
        await a.stop()
        await b.stop()


async def test_a_write_on_a_lease_lost_unheard_is_fenced_by_sql(replica: Replica) -> None:
    """Another writer's row reached SQL and the holder heard nothing of it (the takeover's
    announcement still on its way): the holder's write on its stale lease loses the SQL
    compare-and-set, is refused ABORTED, and its lease ends; the other row stands."""
    created = await create(replica.stub, replica.settings, seed=13)
    gid, tokens = created.game_id, list(created.seat_tokens)
    watcher = await _follow(replica, gid, tokens[0])
    referee, rng = Referee("toy", 13, "duel"), random.Random(5)
    try:
        await _move(replica, gid, tokens, referee, rng)
        live = replica.authority.games[gid]
        lease = live.lease
        assert lease is not None and live.version == 1
        # the other writer: a legal move at version 2, straight into SQL
        state = referee.state()
        assert state.pending is not None
        seat = sorted(state.pending.options)[0]
        option = state.pending.options[seat][0].id
        row = {
            "seat": seat,
            "kind": "option",
            "decision_id": state.pending.id,
            "option_id": option,
            "expected_version": 1,
        }
        store = replica.authority.core.store
        await asyncio.to_thread(store.append, gid, 1, Append(action=row))
        view = (
            await replica.stub.GetView(game_pb2.GetViewRequest(game_id=gid, token=tokens[seat]))
        ).view
        live.lease = Lease(lease.fence, time.monotonic() + 60)  # still unheard
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await answer(replica.stub, gid, tokens[seat], view, view.decision.options[-1])
        assert status_of(refused.value) == (grpc.StatusCode.ABORTED, "VERSION_CONFLICT")
        assert live.lease is None and live.version == 2
        referee.actions.append(Action(seat, option))
        assert await asyncio.to_thread(store.head, gid) == 2
        now = (
            await replica.stub.GetView(game_pb2.GetViewRequest(game_id=gid, token=tokens[seat]))
        ).view
        referee.check_view(now, seat)
    finally:
        watcher.cancel()


async def test_a_write_on_the_lease_still_pays_the_rate_limit(settings: Settings) -> None:
    settings.game_rate_burst, settings.game_rate_per_second = 12, 0.001
    replica = await start_replica(settings)
    try:
        created = await create(replica.stub, settings, seed=14)
        gid, tokens = created.game_id, list(created.seat_tokens)
        watcher = await _follow(replica, gid, tokens[0])
        await _move(replica, gid, tokens, Referee("toy", 14, "duel"), random.Random(6))
        assert replica.authority.games[gid].lease is not None
        view = await replica.stub.GetView(game_pb2.GetViewRequest(game_id=gid, token=tokens[0]))
        request = game_pb2.SubmitActionRequest(
            game_id=gid,
            token=tokens[0],
            expected_version=view.view.version,
            decision_id=view.view.decision.decision_id or "0",
            option_id="no-such-option",
        )
        codes = []
        for _ in range(14):
            try:
                await replica.stub.SubmitAction(request)
            except grpc.aio.AioRpcError as refused:
                codes.append(refused.code())
        # the bucket of 12 (less the stream, the view and any move of this seat) runs out
        assert grpc.StatusCode.RESOURCE_EXHAUSTED in codes
        assert replica.authority.games[gid].version == 1  # no refused answer changed anything
        watcher.cancel()
    finally:
        await replica.stop()
