"""The director's bulk paths: COPY text escaping, assignment JSON, chunked commits."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from typing import Any

from sqlalchemy.engine import Engine

from services.common.auth import token_digest
from services.lobby.config import LobbySettings
from services.lobby.director import Director
from services.lobby.queue import AlreadyQueuedError
from services.lobby.store import LobbyStore, MatchRecord, SeatPlan
from services.lobby.tests.harness import Harness, start_lobby
from warroom.matchmaking import BotChoice, Proposal, SeatAssignment, Ticket
from warroom.v1 import game_pb2, lobby_pb2


def test_record_matches_round_trips_awkward_text(lobby_migrated: Engine) -> None:
    store = LobbyStore(lobby_migrated)
    awkward = ["back\\slash", "tab\there", "new\nline", "cr\rhere", "ünï \\N", "plain"]
    records = []
    for i, name in enumerate(awkward):
        mid = f"bulk-{uuid.uuid4().hex[:12]}"
        records.append(
            MatchRecord(
                mid,
                "toy",
                "duel",
                f"game-{mid}",
                [
                    SeatPlan(0, "North", "N", player_id=f"pl\\{i}", display_name=name),
                    SeatPlan(1, "So\tuth", "S", bot=BotChoice("heur\\istic", "be\nginner")),
                ],
                [f"tok\\{i}.0", f"tok\t{i}.1"],
                "spec\\token" if i % 2 else "",
            )
        )
    store.record_matches(records)
    for i, record in enumerate(records):
        table = store.table(record.match_id)
        assert (table.status, table.source, table.game_id) == ("started", "match", record.game_id)
        assert table.spectator_token == (record.spectator_token or None)
        human, bot = table.seats
        assert (human.player_id, human.display_name) == (f"pl\\{i}", awkward[i])
        # seat tokens are kept as digests only (issue 20)
        assert (human.seat_token_digest, bot.seat_token_digest) == (
            token_digest(f"tok\\{i}.0"),
            token_digest(f"tok\t{i}.1"),
        )
        assert table.game_request_id == f"match:{record.match_id}" and table.allow_spectators
        assert (bot.side, bot.bot_kind, bot.bot_difficulty) == (
            "So\tuth",
            "heur\\istic",
            "be\nginner",
        )
        assert bot.player_id is None and not bot.automated
    # recording them again is idempotent (the per-match fallback)
    store.record_matches(records)
    assert store.table(records[0].match_id).game_id == records[0].game_id


async def test_assignment_json_is_what_json_dumps_writes(harness: Harness) -> None:
    director = harness.node.lobby.director
    proposal = Proposal(
        "toy",
        "duel",
        ("t1", "t2"),
        (
            SeatAssignment(0, 'Nö"rth', "N", player_id="p\\1", ticket_id="t1"),
            SeatAssignment(1, "South", "S", player_id="p2", ticket_id="t1"),
            SeatAssignment(2, "East", "E", bot=BotChoice()),
            SeatAssignment(3, "West", "W", player_id="p3\n", ticket_id="t2"),
        ),
        bot_filled=True,
        rating_spread=0.0,
        window=3.0,
    )
    created = game_pb2.CreateGameResponse(game_id="g", seat_tokens=["a", 'b"', "c", "d\t"])
    got = director.assignments(proposal, created)
    want = {
        "t1": {
            "p\\1": {"seat": 0, "side": 'Nö"rth', "token": "a"},
            "p2": {"seat": 1, "side": "South", "token": 'b"'},
        },
        "t2": {"p3\n": {"seat": 3, "side": "West", "token": "d\t"}},
    }
    assert got == {t: json.dumps(a, separators=(",", ":")) for t, a in want.items()}


async def test_many_chunks_commit_and_a_matched_player_queues_again(harness: Harness) -> None:
    """More matches than one commit chunk: every one is recorded and assigned, and a player
    whose ticket was matched may enqueue a new one (the stale active-ticket key yields)."""
    h = harness
    wired = h.node.lobby
    queue = wired.queue
    director = Director(queue, wired.store, wired.games, wired.lobby, "g", 2, record_chunk=3)
    queue_name = f"bulk{uuid.uuid4().hex[:6]}"
    now = time.time()
    count = 2 * (3 * 3 + 2)
    tickets = [
        Ticket(f"tk-{queue_name}-{i}", (f"pl-{queue_name}-{i}",), (25.0,), now - 1, ("duel",))
        for i in range(count)
    ]
    for ticket in tickets:
        await queue.enqueue(ticket, "toy", queue_name, now + 600, 700)
    report = await director.cycle("toy", queue_name)
    assert report.started == count // 2 and report.failed == report.aborted == 0
    games = set()
    for ticket in tickets:
        fields = await queue.get(ticket.ticket_id)
        assert fields is not None and fields["status"] == "matched"
        games.add(fields["game_id"])
        assert h.node.lobby.store.table_by_game(fields["game_id"]) is not None
    assert len(games) == count // 2
    assert await queue.active_ticket(tickets[0].player_ids[0]) is None
    again = Ticket("tk-again", tickets[0].player_ids, (25.0,), time.time(), ("duel",))
    await queue.enqueue(again, "toy", queue_name, time.time() + 600, 700)
    assert await queue.active_ticket(tickets[0].player_ids[0]) == "tk-again"


async def test_bursts_wait_for_redis_connections_and_watchers_hold_their_own(
    harness: Harness,
) -> None:
    """More calls at once than the command pool has connections wait for one (they used to
    fail past the client's default 100), and open WatchTicket streams do not take them."""
    h = harness
    node = await start_lobby(
        h.settings, LobbySettings(redis_connections=3, watch_interval_s=30), h.authority
    )
    h.nodes.append(node)
    players = [await h.login() for _ in range(4)]
    tickets = [
        (
            await node.stub.EnqueueTicket(
                lobby_pb2.EnqueueTicketRequest(rules_id="toy", variants=["duel"]), metadata=p.md
            )
        ).ticket.ticket_id
        for p in players
    ]
    watches = [
        node.stub.WatchTicket(lobby_pb2.WatchTicketRequest(ticket_id=t), metadata=p.md)
        for p, t in zip(players, tickets, strict=True)
    ]
    for watch in watches:
        first = await watch.read()
        assert isinstance(first, lobby_pb2.WatchTicketResponse)
        assert first.status == lobby_pb2.TICKET_STATUS_SEARCHING
    queue = node.lobby.queue
    found = await asyncio.gather(*(queue.get(tickets[i % 4]) for i in range(300)))
    assert all(f is not None and f["status"] == "searching" for f in found)
    report = await node.lobby.director.cycle("toy")
    assert report.started == 2
    for watch in watches:
        update = await watch.read()
        assert isinstance(update, lobby_pb2.WatchTicketResponse)
        assert update.status == lobby_pb2.TICKET_STATUS_MATCHED


async def test_batched_enqueue_one_ticket_per_player_and_profiles_from_the_cache(
    harness: Harness,
) -> None:
    """Tickets enqueued at once go in shared script calls: a player with two tickets in one
    batch gets one; cached names and means fill the match data; a missing profile or mean
    adds nothing; a bot is refused."""
    queue = harness.node.lobby.queue
    now = time.time()

    def make(tid: str, players: tuple[str, ...], **kw: Any) -> Ticket:
        return Ticket(tid, players, (), now, ("duel",), fill_bot=BotChoice("random", "x"), **kw)

    same = [make(f"dup{i}", ("twice",)) for i in range(2)]
    many = [make(f"solo{i}", (f"solo{i}",)) for i in range(300)]
    for p in [*(t.player_ids[0] for t in many), "twice"]:
        await queue.cache_profile(p, f"Name {p}\\/", False, {"toy": 30.5}, 60)
    outcomes = await asyncio.gather(
        *(queue.enqueue_cached(t, "toy", "q", now + 60, 70, 25.0) for t in [*same, *many]),
        return_exceptions=True,
    )
    refused = [o for o in outcomes[:2] if isinstance(o, AlreadyQueuedError)]
    assert len(refused) == 1 and refused[0].player_id == "twice"
    assert all(o == ["ok"] for o in outcomes[2:])
    pool = {t.ticket_id: t for t in await queue.load_pool("toy", "q")}
    assert len(pool) == 301
    stored = pool["solo7"]
    assert (stored.ratings, stored.names) == ((30.5,), ("Name solo7\\/",))
    assert (stored.created_at, stored.variants, stored.fill_bot) == (
        now,
        ("duel",),
        BotChoice("random", "x"),
    )
    # unrated in this game: the default mean; not cached, or no mean for the game: a miss
    await queue.cache_profile("fresh", "Fresh", False, {"toy": None}, 60)
    assert await queue.enqueue_cached(make("f", ("fresh",)), "toy", "q", now + 60, 70, 24.0) == [
        "ok"
    ]
    pool = {t.ticket_id: t for t in await queue.load_pool("toy", "q")}
    assert pool["f"].ratings == (24.0,)
    await queue.cache_profile("other", "Other", False, {"ncw": 20.0}, 60)
    for tid, players in (("m1", ("ghost",)), ("m2", ("other",)), ("m3", ("fresh", "ghost"))):
        verdict = await queue.enqueue_cached(make(tid, players), "toy", "q", now + 60, 70, 25.0)
        assert verdict == ["miss"] and await queue.get(tid) is None
    await queue.cache_profile("bot:x", "Bot", True, {"toy": 20.0}, 60)
    verdict = await queue.enqueue_cached(make("b", ("bot:x",)), "toy", "q", now + 60, 70, 25.0)
    assert verdict == ["bot", "bot:x"] and await queue.get("b") is None


async def test_pool_loads_reparse_only_changed_tickets(harness: Harness) -> None:
    queue = harness.node.lobby.queue
    now = time.time()
    tickets = [Ticket(f"pl{i}", (f"pp{i}",), (20.0 + i,), now, ("duel",)) for i in range(3)]
    for ticket in tickets:
        await queue.enqueue(ticket, "toy", "cache", now + 60, 70)
    first = {t.ticket_id: t for t in await queue.load_pool("toy", "cache")}
    assert {t: first[t].ratings for t in first} == {"pl0": (20.0,), "pl1": (21.0,), "pl2": (22.0,)}
    # a ticket whose stored data changed is read again; a gone one is gone
    key = f"{queue.prefix}pooldata:toy:cache"
    stored = await queue.redis.hget(key, "pl1")
    assert stored is not None
    data = json.loads(stored)
    data["r"] = [33.0]
    await queue.redis.hset(key, "pl1", json.dumps(data))
    await queue.redis.hdel(key, "pl2")
    second = {t.ticket_id: t for t in await queue.load_pool("toy", "cache")}
    assert {t: second[t].ratings for t in second} == {"pl0": (20.0,), "pl1": (33.0,)}
    assert second["pl0"] is first["pl0"]
