"""A replica's own writes are not echoed back to it by pub/sub unless another replica listens.

A pattern subscription observes the channel without counting as a channel subscriber
(`PUBSUB NUMSUB` counts channel subscriptions only), so it sees exactly what was published.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from collections.abc import AsyncIterator
from typing import Any

from services.common.redisio import async_redis
from services.common.settings import Settings
from services.game.tests.helpers import Replica, answer, create, pick, start_replica
from warroom.v1 import game_pb2


class Watch:
    """One seat's WatchGame stream on a replica, recording the versions it delivers."""

    def __init__(self, replica: Replica, game_id: str, token: str) -> None:
        self.versions: list[int] = []
        self.changed = asyncio.Event()
        request = game_pb2.WatchGameRequest(game_id=game_id, token=token)
        self.call: Any = replica.stub.WatchGame(request)
        self.task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for update in self.call:
            self.versions.append(update.version)
            self.changed.set()

    async def until(self, version: int) -> None:
        async def reached() -> None:
            while not self.versions or self.versions[-1] < version:
                self.changed.clear()
                await self.changed.wait()

        await asyncio.wait_for(reached(), 5)

    def stop(self) -> None:
        self.call.cancel()
        self.task.cancel()


async def heard(replica: Replica, game_id: str, confirmed: bool = True) -> None:
    """Wait until the replica holds its subscription to the game as confirmed (or not)."""

    async def settled() -> None:
        # the replica's own bookkeeping has no event to wait on: poll it
        while (game_id in replica.authority.core.hot.heard) != confirmed:  # noqa: ASYNC110
            await asyncio.sleep(0.01)

    await asyncio.wait_for(settled(), 5)


async def move(replica: Replica, game_id: str, tokens: list[str], rng: random.Random) -> int:
    """One legal move by whichever seat must act; the version answered."""
    for token in tokens:
        view = (
            await replica.stub.GetView(game_pb2.GetViewRequest(game_id=game_id, token=token))
        ).view
        option = pick(view, rng)
        if option is not None:
            return (await answer(replica.stub, game_id, token, view, option)).version
    raise AssertionError("no seat can act")


async def published(spy: Any, seconds: float = 0.3) -> list[bytes]:
    """The update messages the spy saw within `seconds`."""
    seen: list[bytes] = []
    end = asyncio.get_running_loop().time() + seconds
    while (left := end - asyncio.get_running_loop().time()) > 0:
        message = await spy.get_message(ignore_subscribe_messages=True, timeout=left)
        if message is not None and message["type"] == "pmessage":
            seen.append(message["data"])
    return seen


@contextlib.asynccontextmanager
async def spied_game(
    replica: Replica, settings: Settings, seed: int
) -> AsyncIterator[tuple[str, list[str], Any, Any]]:
    """A new toy game, with a Redis client and a pattern subscription on its channel."""
    created = await create(replica.stub, settings, seed=seed)
    client: Any = async_redis(settings)
    spy = client.pubsub()
    try:
        await spy.psubscribe(replica.authority.core.hot.channel(created.game_id))
        await published(spy, 0.1)  # the psubscribe confirmation
        yield created.game_id, list(created.seat_tokens), client, spy
    finally:
        await spy.aclose()
        await client.aclose()


async def test_own_writes_are_not_echoed_to_a_lone_subscriber(
    replica: Replica, settings: Settings
) -> None:
    a = replica
    async with spied_game(a, settings, 3) as (gid, tokens, client, spy):
        watch = Watch(a, gid, tokens[0])
        await heard(a, gid)
        rng = random.Random(2)
        version = await move(a, gid, tokens, rng)
        await watch.until(version)  # the local watcher is woken in process
        assert await published(spy) == []
        assert (await client.get(a.authority.core.hot.key(gid, "v"))) == str(version).encode()
        watch.stop()
        await heard(a, gid, confirmed=False)
        version = await move(a, gid, tokens, rng)
        assert await published(spy) == []  # nobody subscribed: NUMSUB 0


async def test_writes_reach_another_replica_watching_the_game(
    replica: Replica, settings: Settings
) -> None:
    a, b = replica, await start_replica(settings)
    try:
        async with spied_game(a, settings, 4) as (gid, tokens, _client, spy):
            here, there = Watch(a, gid, tokens[0]), Watch(b, gid, tokens[1])
            await heard(a, gid)
            await heard(b, gid)
            rng = random.Random(5)
            version = await move(a, gid, tokens, rng)
            await here.until(version)
            await there.until(version)  # b learns of a's write only through the channel
            assert len(await published(spy)) == 1
            lease = a.authority.games[gid].lease
            assert lease is not None  # a follows the game: it keeps the lock between writes
            version = await move(b, gid, tokens, rng)
            await here.until(version)
            # b took a's lease over (announced to a), then wrote (announced: a listens)
            seen = await published(spy)
            assert len(seen) == 2 and json.loads(seen[0]) == {"r": lease.fence}
            assert json.loads(seen[1])["v"] == version
            here.stop()
            there.stop()
    finally:
        await b.stop()


async def test_a_failed_subscription_connection_echoes_again(
    replica: Replica, settings: Settings
) -> None:
    a = replica
    created = await create(a.stub, settings, seed=6)
    gid, tokens = created.game_id, list(created.seat_tokens)
    watch = Watch(a, gid, tokens[0])
    await heard(a, gid)
    fanout = a.authority.fanout
    fanout._resubscribing()
    assert gid not in a.authority.core.hot.heard
    fanout._confirmed(gid)  # the renewed subscription's confirmation
    assert gid in a.authority.core.hot.heard
    watch.stop()


async def test_a_subscription_is_confirmed_before_the_watcher_reads(
    replica: Replica, settings: Settings
) -> None:
    created = await create(replica.stub, settings, seed=8)
    fanout = replica.authority.fanout
    await fanout.subscribe(created.game_id)
    try:
        # Redis counts this replica now: a write after this point is announced to it
        assert created.game_id in replica.authority.core.hot.heard
        numsub = await replica.client.pubsub_numsub(
            replica.authority.core.hot.channel(created.game_id)
        )
        assert numsub[0][1] == 1
    finally:
        await fanout.unsubscribe(created.game_id)
    assert created.game_id not in replica.authority.core.hot.heard
