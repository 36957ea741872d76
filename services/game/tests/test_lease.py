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
        # not after the lease's 30 s (or the lock's 5 s): b took it over and a heard of it
        assert time.monotonic() - started < 3.0 and reply.version == 3
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


async def _lose_lease_unheard(
    replica: Replica, seed: int, same_seat: bool
) -> tuple[Any, list[str], Referee, int, int, str, asyncio.Task[None]]:
    """Play until two seats owe one decision, with the lease held; then another writer's
    answer of one of them reaches SQL unheard (its takeover's announcement still on its way).
    Returns (the live game, tokens, referee, the version before that answer, the seat that
    answers next on the stale lease: the same seat or the other one, its old fence, the
    watcher that makes the replica follow the game)."""
    created = await create(replica.stub, replica.settings, seed=seed)
    gid, tokens = created.game_id, list(created.seat_tokens)
    watcher = await _follow(replica, gid, tokens[0])
    referee, rng = Referee("toy", seed, "duel"), random.Random(seed)
    await _move(replica, gid, tokens, referee, rng)
    while len((pending := referee.state().pending).options) < 2:  # type: ignore[union-attr]
        await _move(replica, gid, tokens, referee, rng)
    live = replica.authority.games[gid]
    version, lease = live.version, live.lease
    assert lease is not None and pending is not None
    other = sorted(pending.options)[0]
    option = pending.options[other][0].id
    row = {
        "seat": other,
        "kind": "option",
        "decision_id": pending.id,
        "option_id": option,
        "expected_version": version,
    }
    store = replica.authority.core.store
    await asyncio.to_thread(store.append, gid, version, Append(action=row))
    referee.actions.append(Action(other, option))
    live.lease = Lease(lease.fence, time.monotonic() + 60)  # the takeover still unheard
    seat = other if same_seat else 1 - other
    return live, tokens, referee, version, seat, lease.fence, watcher


async def test_a_write_on_a_lease_lost_unheard_is_ordered_after_the_other(
    replica: Replica,
) -> None:
    """The holder's write on its stale lease loses the SQL compare-and-set; it is answered
    again under the lock on the game as SQL holds it, as the lock would have ordered the two:
    the other seat of a simultaneous decision still answers, after the other row."""
    live, tokens, referee, version, seat, fence, watcher = await _lose_lease_unheard(
        replica, 15, same_seat=False
    )
    try:
        view = await replica.stub.GetView(
            game_pb2.GetViewRequest(game_id=live.id, token=tokens[seat])
        )
        assert view.view.version == version  # Redis does not know the other row either
        option = view.view.decision.options[0]
        reply = await answer(replica.stub, live.id, tokens[seat], view.view, option)
        assert reply.version == version + 2
        referee.actions.append(Action(seat, option.id))
        store = replica.authority.core.store
        assert await asyncio.to_thread(store.head, live.id) == version + 2
        assert live.lease is not None and live.lease.fence != fence  # taken again by lock
        for s, token in enumerate(tokens):
            now = await replica.stub.GetView(game_pb2.GetViewRequest(game_id=live.id, token=token))
            referee.check_view(now.view, s)
    finally:
        watcher.cancel()


async def test_a_write_on_a_lease_lost_unheard_is_refused_when_its_turn_passed(
    replica: Replica,
) -> None:
    """The same, when the other row was this very seat's answer: answered again on the
    game as SQL holds it, it is refused (the seat's turn passed) and nothing is written."""
    live, tokens, referee, version, seat, _fence, watcher = await _lose_lease_unheard(
        replica, 15, same_seat=True
    )
    try:
        view = await replica.stub.GetView(
            game_pb2.GetViewRequest(game_id=live.id, token=tokens[seat])
        )
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await answer(
                replica.stub, live.id, tokens[seat], view.view, view.view.decision.options[-1]
            )
        assert status_of(refused.value) == (grpc.StatusCode.ABORTED, "STALE_VERSION")
        store = replica.authority.core.store
        assert await asyncio.to_thread(store.head, live.id) == version + 1
        assert live.version == version + 1
        now = await replica.stub.GetView(
            game_pb2.GetViewRequest(game_id=live.id, token=tokens[seat])
        )
        referee.check_view(now.view, seat)
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
