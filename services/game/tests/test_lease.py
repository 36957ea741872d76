"""The lock lease: a replica that follows a game keeps its Redis lock between its writes.

A lone write on the lease sends its version to Redis beside its commit (`Writer.stake`): the
answer still follows both the commit and the version in Redis; a reader on another replica
that finds a version Redis holds and SQL not yet waits for the commit in flight; a commit
that fails after its stake leaves Redis ahead of SQL until the game's next write, which
nothing acknowledged depends on.
"""

from __future__ import annotations

import asyncio
import inspect
import random
import time
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
import pytest
import sqlalchemy.exc

from services.common.settings import Settings
from services.game import cache
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


# ---------------------------------------------------------------- the stake
class Gate:
    """Holds the replica's commits until opened (or fails them), counting what it held."""

    def __init__(self, replica: Replica) -> None:
        self.committer = replica.authority.core.committer
        self.run: Callable[[list[Any]], Awaitable[Any]] = self.committer.run
        self.opened = asyncio.Event()
        self.held = 0
        self.failure: BaseException | None = None
        self.committer.run = self._run  # type: ignore[method-assign]

    async def _run(self, items: list[Any]) -> Any:
        self.held += 1
        await self.opened.wait()
        if self.failure is not None:
            raise self.failure
        return await self.run(items)

    def close(self) -> None:
        self.opened.set()
        self.committer.run = self.run  # type: ignore[method-assign]


def _count_reads(replica: Replica) -> list[int]:
    """Counts the replica's SQL log reads (`actions_after`) in the returned one-item list."""
    store = replica.authority.core.store
    reads = [0]
    actions_after = store.actions_after

    def counted(*args: Any) -> Any:
        reads[0] += 1
        return actions_after(*args)

    store.actions_after = counted  # type: ignore[method-assign,assignment]
    return reads


async def _redis_version(replica: Replica, gid: str) -> int:
    raw = await replica.client.get(replica.authority.core.hot.key(gid, "v"))
    return int(raw)


async def _sql_head(replica: Replica, gid: str) -> int | None:
    return await asyncio.to_thread(replica.authority.core.store.head, gid)


async def _leased_game(replica: Replica, seed: int) -> tuple[str, list[str], Referee, Any]:
    """A game this replica follows and has written once (its lock kept as the lease)."""
    created = await create(replica.stub, replica.settings, seed=seed)
    gid, tokens = created.game_id, list(created.seat_tokens)
    watcher = await _follow(replica, gid, tokens[0])
    referee = Referee("toy", seed, "duel")
    await _move(replica, gid, tokens, referee, random.Random(seed))
    assert replica.authority.games[gid].lease is not None
    return gid, tokens, referee, watcher


async def _next_move(
    replica: Replica, gid: str, tokens: list[str], rng: random.Random
) -> tuple[int, game_pb2.SeatView, Any]:
    """The seat that must act now, its view and an option it may answer."""
    for seat, token in enumerate(tokens):
        view = (await replica.stub.GetView(game_pb2.GetViewRequest(game_id=gid, token=token))).view
        option = pick(view, rng)
        if option is not None:
            return seat, view, option
    raise AssertionError("nobody must act")


async def _until(check: Callable[[], bool | Awaitable[bool]], what: str) -> None:
    for _ in range(500):
        outcome = check()
        if await outcome if inspect.isawaitable(outcome) else outcome:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(what)


async def _staked_move(
    replica: Replica, gid: str, tokens: list[str], gate: Gate, seed: int
) -> tuple[int, Any, asyncio.Future[game_pb2.SubmitActionResponse]]:
    """Submit the next move through `replica` and return once its commit is held at `gate`
    and its version is in Redis: (seat, option, the pending reply)."""
    version = replica.authority.games[gid].version
    seat, view, option = await _next_move(replica, gid, tokens, random.Random(seed))
    reply = asyncio.ensure_future(answer(replica.stub, gid, tokens[seat], view, option))

    async def staked() -> bool:
        return gate.held == 1 and await _redis_version(replica, gid) == version + 1

    await _until(staked, "the version did not reach Redis while the commit was held")
    return seat, option, reply


async def test_a_lone_write_on_the_lease_sends_its_version_beside_its_commit(
    replica: Replica,
) -> None:
    gid, tokens, referee, watcher = await _leased_game(replica, 21)
    live = replica.authority.games[gid]
    fence = live.lease.fence if live.lease is not None else ""
    version = live.version
    gate = Gate(replica)
    try:
        seat, option, reply = await _staked_move(replica, gid, tokens, gate, 5)
        assert await _sql_head(replica, gid) == version  # the commit has not landed
        assert not reply.done()  # and nothing is acknowledged before it
        gate.opened.set()
        assert (await reply).version == version + 1
        referee.actions.append(Action(seat, option.id))
        assert await _sql_head(replica, gid) == version + 1
        assert live.lease is not None and live.lease.fence == fence  # the lease renewed
        now = await replica.stub.GetView(game_pb2.GetViewRequest(game_id=gid, token=tokens[0]))
        assert now.view.version == version + 1
        referee.check_view(now.view, 0)
    finally:
        gate.close()
        watcher.cancel()


async def test_a_reader_elsewhere_waits_for_the_commit_in_flight(
    replicas: tuple[Replica, Replica], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Replica b holds the game; a's commit is held after its version reached Redis. A read
    on b in that moment waits for the commit instead of answering the old version (a read
    that starts after a's answer finds it either way)."""
    monkeypatch.setattr(cache, "IN_FLIGHT_WAITS", (0.01, 0.05, 0.2, 0.5, 1.0, 2.0))
    a, b = replicas
    gate: Gate | None = None
    try:
        gid, tokens, _referee, watcher = await _leased_game(a, 22)
        version = a.authority.games[gid].version
        seen = await b.stub.GetView(game_pb2.GetViewRequest(game_id=gid, token=tokens[1]))
        assert seen.view.version == version  # b holds the game at the head
        gate = Gate(a)
        _seat, _option, reply = await _staked_move(a, gid, tokens, gate, 6)
        reads = _count_reads(b)
        read = asyncio.ensure_future(
            b.stub.GetView(game_pb2.GetViewRequest(game_id=gid, token=tokens[1]))
        )

        await _until(lambda: reads[0] >= 1, "b did not look for the new version")
        assert not read.done()
        gate.opened.set()
        assert (await reply).version == version + 1
        assert (await read).view.version == version + 1
        watcher.cancel()
    finally:
        if gate is not None:
            gate.close()


async def test_a_commit_that_fails_after_its_stake_loses_nothing(replica: Replica) -> None:
    """The stake reached Redis, the commit failed: UNAVAILABLE, nothing written, the lease
    kept; reads still answer SQL's version (only the first waits for the missing commit), and
    the answer sent again is applied once, on the lease."""
    gid, tokens, referee, watcher = await _leased_game(replica, 23)
    live = replica.authority.games[gid]
    version, fence = live.version, live.lease.fence if live.lease is not None else ""
    gate = Gate(replica)
    try:
        seat, view, option = await _next_move(replica, gid, tokens, random.Random(7))
        gate.failure = sqlalchemy.exc.OperationalError("COMMIT", {}, Exception("connection lost"))
        gate.opened.set()
        with pytest.raises(grpc.aio.AioRpcError) as failed:
            await answer(replica.stub, gid, tokens[seat], view, option)
        assert status_of(failed.value) == (grpc.StatusCode.UNAVAILABLE, "DATABASE_UNAVAILABLE")
        assert await _redis_version(replica, gid) == version + 1  # the stake had gone out
        assert await _sql_head(replica, gid) == version
        assert live.lease is not None and live.lease.fence == fence
        assert await _lock(replica, gid) == f"idle:{fence}"
        reads = _count_reads(replica)
        now = await replica.stub.GetView(game_pb2.GetViewRequest(game_id=gid, token=tokens[seat]))
        assert now.view.version == version
        assert reads[0] == len(cache.IN_FLIGHT_WAITS) + 1  # waited for the commit, in vain
        now = await replica.stub.GetView(game_pb2.GetViewRequest(game_id=gid, token=tokens[seat]))
        assert now.view.version == version
        assert reads[0] == len(cache.IN_FLIGHT_WAITS) + 2  # not again for the same version
        gate.failure = None
        hot = replica.authority.core.hot
        acquires = Counted(hot._acquire_script)
        hot._acquire_script = acquires  # type: ignore[assignment]
        stakes = 0
        stake = hot.stake

        def counted_stake(*args: Any) -> Any:
            nonlocal stakes
            stakes += 1
            return stake(*args)

        hot.stake = counted_stake  # type: ignore[method-assign,assignment]
        again = await answer(replica.stub, gid, tokens[seat], view, option)
        assert again.version == version + 1
        assert acquires.calls == 0  # on the lease
        assert stakes == 0  # released after its commit: readers elsewhere no longer wait for it
        referee.actions.append(Action(seat, option.id))
        assert await _sql_head(replica, gid) == version + 1
        assert await _redis_version(replica, gid) == version + 1
        for s, token in enumerate(tokens):
            now = await replica.stub.GetView(game_pb2.GetViewRequest(game_id=gid, token=token))
            assert now.view.version == version + 1
            referee.check_view(now.view, s)
    finally:
        gate.close()
        watcher.cancel()


def _versions_seen(replica: Replica, gid: str, token: str) -> tuple[list[int], asyncio.Task[None]]:
    """A WatchGame stream on `replica` that records each version it is sent."""
    seen: list[int] = []

    async def follow() -> None:
        request = game_pb2.WatchGameRequest(game_id=gid, token=token)
        async for update in replica.stub.WatchGame(request):
            seen.append(update.version)

    return seen, asyncio.create_task(follow())


async def test_another_replicas_watcher_hears_a_staked_write_after_its_commit(
    replicas: tuple[Replica, Replica],
) -> None:
    """The stake sends no announcement; when another replica listens, the announcement
    follows the commit, and that replica's watcher gets the version at once (not at its
    stream's 5-second check)."""
    a, b = replicas
    gid, tokens, _referee, watcher = await _leased_game(a, 24)
    version = a.authority.games[gid].version
    seen, stream = _versions_seen(b, gid, tokens[1])
    try:

        async def heard() -> bool:
            return gid in b.authority.core.hot.heard and seen[-1:] == [version]

        await _until(heard, "b's watcher did not start")
        gate = Gate(a)
        try:
            _seat, _option, reply = await _staked_move(a, gid, tokens, gate, 8)
            gate.opened.set()
            assert (await reply).version == version + 1
        finally:
            gate.close()
        started = time.monotonic()
        await _until(lambda: seen[-1] == version + 1, "b's watcher did not get the version")
        assert time.monotonic() - started < 2.0  # announced, not found at the 5-second check
        assert a.authority.games[gid].lease is not None  # still a's lease
    finally:
        stream.cancel()
        watcher.cancel()


async def test_a_takeover_heard_during_a_staked_commit_is_not_undone(replica: Replica) -> None:
    """The stake renewed the lease; then, while the commit ran, a takeover was heard (the
    listener dropped the lease). The stake's late news must not give the lease back."""
    gid, tokens, _referee, watcher = await _leased_game(replica, 25)
    live = replica.authority.games[gid]
    version = live.version
    gate = Gate(replica)
    try:
        _seat, _option, reply = await _staked_move(replica, gid, tokens, gate, 9)
        live.lease = None  # what the listener does on hearing another replica's takeover
        gate.opened.set()
        assert (await reply).version == version + 1
        assert live.lease is None  # the next write takes the lock again
    finally:
        gate.close()
        watcher.cancel()


async def test_a_late_commit_is_announced_to_a_watcher_that_came_after_its_stake(
    replicas: tuple[Replica, Replica],
) -> None:
    """b's watcher subscribes after a's stake (which found no other subscriber) and stops
    waiting for the missing commit before it lands: the commit, late, is announced anyway,
    so b's watcher gets the version at once, not at its 5-second check."""
    a, b = replicas
    gate: Gate | None = None
    try:
        gid, tokens, _referee, watcher = await _leased_game(a, 26)
        version = a.authority.games[gid].version
        gate = Gate(a)
        _seat, _option, reply = await _staked_move(a, gid, tokens, gate, 10)
        seen, stream = _versions_seen(b, gid, tokens[1])
        await _until(lambda: seen == [version], "b's watcher did not start at the old version")
        await asyncio.sleep(cache.in_flight_wait_s())  # the commit is late by any measure
        gate.opened.set()
        assert (await reply).version == version + 1
        started = time.monotonic()
        await _until(lambda: seen[-1] == version + 1, "b's watcher did not get the version")
        assert time.monotonic() - started < 2.0  # announced, not found at the 5-second check
        stream.cancel()
        watcher.cancel()
    finally:
        if gate is not None:
            gate.close()
