"""The director's in-memory pool copies (services.lobby.poolcache): synced from each pool's
change log, never matching a ticket that left the pool, and rebuilt in full on a restart,
a lost or trimmed log, or a copy whose size disagrees with Redis."""

from __future__ import annotations

import time
import uuid

from services.lobby.queue import TicketQueue
from services.lobby.tests.harness import Harness
from warroom.matchmaking import Ticket


def ticket(name: str, i: int, rating: float = 25.0) -> Ticket:
    return Ticket(f"tk-{name}-{i}", (f"pl-{name}-{i}",), (rating,), time.time() - 1, ("duel",))


async def enqueue(queue: TicketQueue, name: str, *tickets: Ticket) -> None:
    for t in tickets:
        await queue.enqueue(t, "toy", name, time.time() + 600, 700)


async def pool_ids(queue: TicketQueue, name: str) -> set[str]:
    """The copy's ticket ids, checked equal to what Redis holds."""
    copy = {t.ticket_id for t in await queue.load_pool("toy", name)}
    stored = {k.decode() for k in await queue.redis.hkeys(f"{queue.prefix}pooldata:toy:{name}")}
    assert copy == stored
    return copy


async def test_a_ticket_cancelled_between_cycles_is_never_matched(harness: Harness) -> None:
    wired = harness.node.lobby
    director, queue = wired.director, wired.queue
    name = f"pc{uuid.uuid4().hex[:6]}"
    a, b, c = ticket(name, 0), ticket(name, 1), ticket(name, 2)
    await enqueue(queue, name, a)
    assert (await director.cycle("toy", name)).pool_size == 1
    resyncs = queue.pools.stats.resyncs
    await enqueue(queue, name, b)
    assert await queue.cancel(a.ticket_id, a.player_ids[0]) == "cancelled"
    report = await director.cycle("toy", name)
    # the copy learnt both changes from the log, without reading the pool again
    assert report.pool_size == 1 and report.started == 0
    assert queue.pools.stats.resyncs == resyncs
    await enqueue(queue, name, c)
    report = await director.cycle("toy", name)
    assert report.started == 1 and queue.pools.stats.resyncs == resyncs
    statuses = {t.ticket_id: (await queue.get(t.ticket_id) or {})["status"] for t in (a, b, c)}
    assert statuses == {a.ticket_id: "cancelled", b.ticket_id: "matched", c.ticket_id: "matched"}
    assert await pool_ids(queue, name) == set()


async def test_claims_and_released_claims_reach_the_copy_through_the_log(
    harness: Harness,
) -> None:
    queue = harness.node.lobby.queue
    name = f"pc{uuid.uuid4().hex[:6]}"
    pair = [ticket(name, 0), ticket(name, 1)]
    await enqueue(queue, name, *pair, ticket(name, 2, 40.0))
    assert len(await pool_ids(queue, name)) == 3
    resyncs = queue.pools.stats.resyncs
    lock = await queue.acquire("toy", name, 5000)
    assert lock is not None
    ids = [t.ticket_id for t in pair]
    assert await queue.claim(lock, "toy", name, [("m1", ids)], 30.0) == [True]
    assert await pool_ids(queue, name) == {f"tk-{name}-2"}
    assert await queue.release("m1") == 2
    assert await pool_ids(queue, name) == {*ids, f"tk-{name}-2"}
    assert queue.pools.stats.resyncs == resyncs and queue.pools.stats.applied >= 2


async def test_a_restart_rebuilds_the_pool(harness: Harness) -> None:
    wired = harness.node.lobby
    name = f"pc{uuid.uuid4().hex[:6]}"
    tickets = [ticket(name, i, 20.0 + 5 * i) for i in range(3)]
    await enqueue(wired.queue, name, *tickets)
    assert len(await pool_ids(wired.queue, name)) == 3
    # a new process: no copy yet, so the first read is a full one
    restarted = TicketQueue(wired.redis, wired.queue.prefix, wired.queue.keep_s)
    pool = {t.ticket_id: t for t in await restarted.load_pool("toy", name)}
    assert pool == {t.ticket_id: t for t in tickets}
    assert restarted.pools.stats.resyncs == 1 and restarted.pools.stats.deltas == 0
    # then it follows the log
    await enqueue(restarted, name, ticket(name, 9))
    assert len(await pool_ids(restarted, name)) == 4
    assert restarted.pools.stats.resyncs == 1 and restarted.pools.stats.deltas == 1


async def test_a_lost_or_trimmed_log_resyncs(harness: Harness) -> None:
    queue = harness.node.lobby.queue
    name = f"pc{uuid.uuid4().hex[:6]}"
    await enqueue(queue, name, ticket(name, 0), ticket(name, 1, 40.0))
    assert len(await pool_ids(queue, name)) == 2
    resyncs = queue.pools.stats.resyncs
    log = queue.pools.log_key("toy", name)
    # the log is gone (Redis lost it) and a ticket arrives meanwhile: its entry alone is
    # in the new log, so the copy's cursor is not there and the copy is rebuilt
    await queue.redis.delete(log)
    await enqueue(queue, name, ticket(name, 2, 60.0))
    assert len(await pool_ids(queue, name)) == 3
    assert queue.pools.stats.resyncs == resyncs + 1
    # trimmed past the cursor: rebuilt again
    await enqueue(queue, name, ticket(name, 3, 80.0))
    await queue.redis.xtrim(log, maxlen=0)
    assert len(await pool_ids(queue, name)) == 4
    assert queue.pools.stats.resyncs == resyncs + 2
