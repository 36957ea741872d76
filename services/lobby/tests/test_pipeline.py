"""The director's streamed cycle: claims in chunks feeding the start pipeline, and failures
mid-batch (a claim call, an SQL record, a Redis assignment) that must leave every ticket
either matched (out of the pool, with an assignment) or waiting (in the pool, without
one), never both and never lost."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Sequence

import pytest

from services.lobby.director import Director
from services.lobby.queue import Lock, TicketQueue
from services.lobby.store import LobbyStore, MatchRecord
from services.lobby.tests.harness import Harness
from warroom.matchmaking import Ticket


class FlakyQueue(TicketQueue):
    """A queue whose `fail_claim`-th claim call or `fail_finalize`-th assignment raises
    before reaching Redis, and which cancels `cancel_after_load` once the pool is read."""

    fail_claim = 0
    fail_finalize = 0
    cancel_after_load: Ticket | None = None
    claims = 0
    finalizes = 0

    async def load_pool(self, game: str, queue: str) -> list[Ticket]:
        tickets = await super().load_pool(game, queue)
        if self.cancel_after_load is not None:
            t = self.cancel_after_load
            assert await self.cancel(t.ticket_id, t.player_ids[0]) == "cancelled"
        return tickets

    async def claim(
        self,
        lock: Lock,
        game: str,
        queue: str,
        matches: Sequence[tuple[str, Sequence[str]]],
        lease_s: float,
        chunk: int = 500,
    ) -> list[bool] | None:
        self.claims += 1
        if self.claims == self.fail_claim:
            raise ConnectionError("redis went away mid-claim")
        return await super().claim(lock, game, queue, matches, lease_s, chunk)

    async def finalize_many(
        self, matches: Sequence[tuple[str, str, str, dict[str, str]]], chunk: int = 250
    ) -> list[tuple[bool, str]]:
        self.finalizes += 1
        if self.finalizes == self.fail_finalize:
            raise ConnectionError("redis went away mid-assignment")
        return await super().finalize_many(matches, chunk)


class FlakyStore(LobbyStore):
    """A store whose `fail_record`-th record_matches call fails (nothing recorded)."""

    fail_record = 0
    records = 0

    def record_matches(self, records: Sequence[MatchRecord], watchable: bool = True) -> None:
        self.records += 1
        if self.records == self.fail_record:
            raise RuntimeError("database went away mid-batch")
        super().record_matches(records, watchable)


def setup(
    h: Harness, claim_chunk: int, record_chunk: int, pairs: int
) -> tuple[Director, FlakyQueue, FlakyStore, str, list[Ticket]]:
    wired = h.node.lobby
    queue = FlakyQueue(wired.redis, wired.queue.prefix, wired.queue.keep_s)
    store = FlakyStore(wired.store.engine)
    director = Director(
        queue,
        store,
        wired.games,
        wired.lobby,
        "g",
        concurrency=2,
        record_chunk=record_chunk,
        claim_chunk=claim_chunk,
    )
    name = f"pipe{uuid.uuid4().hex[:6]}"
    now = time.time()
    tickets = [
        Ticket(f"tk-{name}-{i}", (f"pl-{name}-{i}",), (25.0,), now - 1, ("duel",))
        for i in range(2 * pairs)
    ]
    return director, queue, store, name, tickets


async def states(queue: TicketQueue, name: str, tickets: Sequence[Ticket]) -> dict[str, str]:
    """Each ticket's status, checked consistent with the pool: a matched ticket has an
    assignment and is out of the pool; a searching one is in it without an assignment."""
    pool = {m.decode() for m in await queue.redis.zrange(queue.pool_key("toy", name), 0, -1)}
    data = {k.decode() for k in await queue.redis.hkeys(f"{queue.prefix}pooldata:toy:{name}")}
    found: dict[str, str] = {}
    for t in tickets:
        fields = await queue.get(t.ticket_id)
        assert fields is not None, f"{t.ticket_id} lost"
        status = fields["status"]
        found[t.ticket_id] = status
        if status == "searching":
            assert t.ticket_id in pool and t.ticket_id in data and "assign" not in fields
        else:
            assert t.ticket_id not in pool and t.ticket_id not in data
        if status == "matched":
            assert set(json.loads(fields["assign"])) == set(t.player_ids)
    return found


async def enqueue(queue: TicketQueue, name: str, tickets: Sequence[Ticket]) -> None:
    for t in tickets:
        await queue.enqueue(t, "toy", name, time.time() + 600, 700)


@pytest.mark.parametrize(
    ("claim_chunk", "record_chunk", "pairs"), [(1, 1, 3), (2, 3, 7), (3, 2, 6)]
)
async def test_every_claim_chunk_starts_once(
    harness: Harness, claim_chunk: int, record_chunk: int, pairs: int
) -> None:
    """Claim chunks and commit batches of every size around their boundaries: each match
    is claimed, recorded and assigned exactly once."""
    director, queue, store, name, tickets = setup(harness, claim_chunk, record_chunk, pairs)
    await enqueue(queue, name, tickets)
    report = await director.cycle("toy", name)
    assert report.claimed == report.started == pairs and report.failed == report.aborted == 0
    assert queue.claims == -(-pairs // claim_chunk)
    assert set((await states(queue, name, tickets)).values()) == {"matched"}
    games = {(await queue.get(t.ticket_id) or {})["game_id"] for t in tickets}
    assert len(games) == pairs
    assert all(store.table_by_game(g) is not None for g in games)


async def test_a_cancel_after_the_pool_read_sinks_only_its_match(harness: Harness) -> None:
    director, queue, _store, name, tickets = setup(harness, 2, 2, 4)
    await enqueue(queue, name, tickets)
    queue.cancel_after_load = tickets[3]
    report = await director.cycle("toy", name)
    assert report.proposals == 4 and report.claimed == report.started == 3
    found = await states(queue, name, tickets)
    assert found[tickets[3].ticket_id] == "cancelled"
    assert sorted(found.values()).count("matched") == 6
    assert sorted(found.values()).count("searching") == 1


async def test_a_failed_claim_call_leaves_its_chunk_waiting(harness: Harness) -> None:
    """The second of three claim calls fails: the other two chunks start, the failed
    chunk's tickets stay in the pool, and the cycle reports the error."""
    director, queue, _store, name, tickets = setup(harness, 2, 10, 6)
    await enqueue(queue, name, tickets)
    queue.fail_claim = 2
    with pytest.raises(ConnectionError):
        await director.cycle("toy", name)
    found = await states(queue, name, tickets)
    assert list(found.values()).count("matched") == 8
    assert list(found.values()).count("searching") == 4
    report = await director.cycle("toy", name)
    assert report.started == 2
    assert set((await states(queue, name, tickets)).values()) == {"matched"}


async def test_a_failed_record_returns_its_batch_to_the_pool(harness: Harness) -> None:
    """The second SQL batch fails: its matches fail, their tickets go back to the pool (no
    assignment), every other match starts."""
    director, queue, store, name, tickets = setup(harness, 10, 2, 5)
    await enqueue(queue, name, tickets)
    store.fail_record = 2
    report = await director.cycle("toy", name)
    assert report.claimed == 5 and report.failed >= 1 and report.started + report.failed == 5
    found = await states(queue, name, tickets)
    assert list(found.values()).count("matched") == 2 * report.started
    assert list(found.values()).count("searching") == 2 * report.failed
    report = await director.cycle("toy", name)
    assert set((await states(queue, name, tickets)).values()) == {"matched"}


async def test_a_failed_assignment_leaves_claims_to_lapse(harness: Harness) -> None:
    """The first Redis assignment fails: its tickets stay claimed (neither matched nor
    waiting) until the reaper returns them after the lease; later batches start."""
    director, queue, _store, name, tickets = setup(harness, 10, 2, 4)
    await enqueue(queue, name, tickets)
    queue.fail_finalize = 1
    report = await director.cycle("toy", name)
    assert report.claimed == 4 and 1 <= report.started < 4
    found = await states(queue, name, tickets)
    stuck = [t for t, s in found.items() if s == "claimed"]
    assert len(stuck) == 2 * (4 - report.started)
    assert await queue.reap(now=time.time() + 60) == len(stuck)
    found = await states(queue, name, tickets)
    assert all(found[t] == "searching" for t in stuck)
    await director.cycle("toy", name)
    assert set((await states(queue, name, tickets)).values()) == {"matched"}
