"""Matchmaking through the real LobbyService and authority (Redis + PostgreSQL)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import grpc
import pytest

from services.lobby.tests.harness import Harness, Player, play_to_end, table_tokens
from warroom.v1 import common_pb2, game_pb2, lobby_pb2

NCW = common_pb2.GAME_KIND_NEW_COLD_WAR
MATCHED = lobby_pb2.TICKET_STATUS_MATCHED
SEARCHING = lobby_pb2.TICKET_STATUS_SEARCHING
CANCELLED = lobby_pb2.TICKET_STATUS_CANCELLED


async def enqueue(h: Harness, player: Player, **kw: object) -> str:
    kw.setdefault("game", NCW)
    response = await h.stub.EnqueueTicket(
        lobby_pb2.EnqueueTicketRequest(**kw),  # type: ignore[arg-type]
        metadata=player.md,
    )
    return response.ticket.ticket_id


async def test_four_players_matched_into_one_ncw_game(harness: Harness) -> None:
    h = harness
    players = [await h.login() for _ in range(4)]
    tickets = [await enqueue(h, p, variants=["4p"]) for p in players]
    assert (await h.status(players[0], tickets[0])).status == SEARCHING
    from prometheus_client import REGISTRY

    def started() -> float:
        value = REGISTRY.get_sample_value("warroom_lobby_matches_total", {"outcome": "started"})
        return value or 0.0

    before = started()
    report = await h.node.lobby.director.cycle("ncw")
    assert report.started == 1, report
    assert started() == before + 1
    assignments = []
    for player, ticket in zip(players, tickets, strict=True):
        message = await h.status(player, ticket)
        assert message.status == MATCHED
        assignments.append(message.assignment)
    assert len({a.game_id for a in assignments}) == 1
    assert sorted(a.seat for a in assignments) == [0, 1, 2, 3]
    assert sorted(a.side for a in assignments) == ["China", "EU", "Russia", "US"]
    for a in assignments:
        assert a.game == NCW and a.variant == "4p" and a.game_endpoint
        view = (
            await h.authority.stub.GetView(
                game_pb2.GetViewRequest(game_id=a.game_id, token=a.seat_token)
            )
        ).view
        assert view.seat == a.seat
    # the match is over for matchmaking: each player may queue again
    await enqueue(h, players[0], variants=["4p"])


async def form_party(h: Harness, leader: Player, *members: Player) -> str:
    """Invite each member into the leader's party and have them accept; the party id."""
    party_id = ""
    for member in members:
        invited = await h.stub.InviteToParty(
            lobby_pb2.InviteToPartyRequest(player_id=member.player_id), metadata=leader.md
        )
        party_id = invited.party.party_id
        await h.stub.AcceptPartyInvite(
            lobby_pb2.AcceptPartyInviteRequest(party_id=party_id), metadata=member.md
        )
    return party_id


async def test_party_of_two_sits_in_one_bloc(harness: Harness) -> None:
    h = harness
    a, b, c, d = [await h.login() for _ in range(4)]
    await form_party(h, a, b)
    party = await enqueue(h, a, variants=["4p"], party_player_ids=[b.player_id])
    await enqueue(h, c, variants=["4p"])
    await enqueue(h, d, variants=["4p"])
    report = await h.node.lobby.director.cycle("ncw")
    assert report.started == 1
    first = (await h.status(a, party)).assignment
    second = (await h.status(b, party)).assignment
    assert first.game_id == second.game_id and first.seat != second.seat
    table = h.node.lobby.store.table_by_game(first.game_id)
    assert table is not None
    team = {s.player_id: s.team for s in table.seats}
    assert team[a.player_id] == team[b.player_id]
    assert team[c.player_id] == team[d.player_id] != team[a.player_id]


async def test_party_errors(harness: Harness) -> None:
    h = harness
    a, b = await h.login(), await h.login()
    cases: list[tuple[dict[str, Any], str]] = [
        ({"party_player_ids": [a.player_id]}, "yourself"),
        ({"party_player_ids": ["nobody"]}, "unknown players"),
        ({"party_player_ids": [b.player_id, b.player_id]}, "twice"),
        ({"variants": ["9p"]}, "unknown variants"),
        ({"game": 0}, "game is required"),
    ]
    for kw, words in cases:
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await enqueue(h, a, **kw)
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert words in (info.value.details() or "")


async def test_one_active_ticket_per_player(harness: Harness) -> None:
    h = harness
    a, b = await h.login(), await h.login()
    ticket = await enqueue(h, a)
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await enqueue(h, a)
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "already queued" in (info.value.details() or "")
    # a party with a queued member is refused too, and nothing changes
    await form_party(h, b, a)
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await enqueue(h, b, party_player_ids=[a.player_id])
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert await h.node.lobby.queue.active_ticket(b.player_id) is None
    cancelled = await h.stub.CancelTicket(
        lobby_pb2.CancelTicketRequest(ticket_id=ticket), metadata=a.md
    )
    assert cancelled.ticket.status == CANCELLED
    await enqueue(h, a)


async def test_unknown_ticket_and_bad_token(harness: Harness) -> None:
    h = harness
    a, b = await h.login(), await h.login()
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await h.stub.CancelTicket(lobby_pb2.CancelTicketRequest(ticket_id="tk-nope"), metadata=a.md)
    assert info.value.code() == grpc.StatusCode.NOT_FOUND
    ticket = await enqueue(h, a)
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await h.stub.CancelTicket(lobby_pb2.CancelTicketRequest(ticket_id=ticket), metadata=b.md)
    assert info.value.code() == grpc.StatusCode.NOT_FOUND
    assert (await h.status(a, ticket)).status == SEARCHING
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await h.stub.EnqueueTicket(
            lobby_pb2.EnqueueTicketRequest(game=NCW), metadata=(("authorization", "Bearer x.y.z"),)
        )
    assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED


async def test_lone_player_with_bots_plays_to_the_end(harness: Harness) -> None:
    h = harness
    a = await h.login()
    ticket = await enqueue(
        h,
        a,
        game=0,
        rules_id="toy",
        allow_bots=True,
        bot_fill_after_s=1,
        fill_bot=common_pb2.BotSpec(kind="random", difficulty="beginner"),
    )
    assert (await h.node.lobby.director.cycle("toy")).started == 0
    assert (await h.status(a, ticket)).status == SEARCHING
    await asyncio.sleep(1.05)
    assert (await h.node.lobby.director.cycle("toy")).started == 1
    assignment = (await h.status(a, ticket)).assignment
    table = h.node.lobby.store.table_by_game(assignment.game_id)
    assert table is not None
    bots = [s for s in table.seats if s.player_id is None]
    assert [(s.bot_kind, s.bot_difficulty) for s in bots] == [("random", "beginner")]
    secret = h.settings.secret()
    tokens = await table_tokens(h, table.id)
    result = await play_to_end(h.authority, assignment.game_id, tokens)
    assert len(result.seats) == 2
    from services.lobby.results import settle_tables

    store = h.node.lobby.store
    await settle_tables(store, h.node.lobby.games, [store.table(table.id)], secret)
    assert store.table(table.id).status == "finished"
    _player, ratings = store.player(a.player_id)
    assert [r.game for r in ratings] == ["toy"] and ratings[0].games == 1


async def test_lone_player_with_bots_in_ncw_plays_to_the_end(harness: Harness) -> None:
    from services.lobby.results import settle_tables

    h = harness
    a = await h.login()
    fill = common_pb2.BotSpec(kind="heuristic", difficulty="beginner")
    ticket = await enqueue(
        h, a, variants=["4p"], allow_bots=True, bot_fill_after_s=1, fill_bot=fill
    )
    assert (await h.node.lobby.director.cycle("ncw")).started == 0
    await asyncio.sleep(1.05)
    assert (await h.node.lobby.director.cycle("ncw")).started == 1
    assignment = (await h.status(a, ticket)).assignment
    table = h.node.lobby.store.table_by_game(assignment.game_id)
    assert table is not None
    bot_seats = [s.index for s in table.seats if s.bot_kind]
    assert len(bot_seats) == 3 and assignment.seat not in bot_seats
    assert {(s.bot_kind, s.bot_difficulty) for s in table.seats if s.bot_kind} == {
        ("heuristic", "beginner")
    }
    secret = h.settings.secret()
    tokens = await table_tokens(h, table.id)
    result = await play_to_end(
        h.authority, assignment.game_id, tokens, bots=dict.fromkeys(bot_seats, ("ncw", fill))
    )
    assert len(result.seats) == 4
    store = h.node.lobby.store
    await settle_tables(store, h.node.lobby.games, [store.table(table.id)], secret)
    assert store.table(table.id).status == "finished"
    _player, ratings = h.node.lobby.store.player(a.player_id)
    assert [(r.game, r.games) for r in ratings] == [("ncw", 1)]
    _bot, bot_ratings = h.node.lobby.store.player("bot:heuristic:beginner")
    assert [r.game for r in bot_ratings] == ["ncw"]


async def test_cancel_at_the_moment_of_matching_is_never_assigned(harness: Harness) -> None:
    h = harness
    players = [await h.login() for _ in range(4)]
    tickets = [await enqueue(h, p, variants=["4p"]) for p in players]
    director = h.node.lobby.director
    real = director.games

    class CancelFirst:
        """Cancels one ticket just as the director creates the game."""

        async def create_game(
            self, request: game_pb2.CreateGameRequest
        ) -> game_pb2.CreateGameResponse:
            await h.stub.CancelTicket(
                lobby_pb2.CancelTicketRequest(ticket_id=tickets[2]), metadata=players[2].md
            )
            return await real.create_game(request)

        async def view(self, game_id: str, token: str) -> game_pb2.SeatView:
            return await real.view(game_id, token)

    director.games = CancelFirst()
    report = await director.cycle("ncw")
    director.games = real
    assert report.claimed == 1 and report.aborted == 1 and report.started == 0
    assert (await h.status(players[2], tickets[2])).status == CANCELLED
    for player, ticket in zip(players, tickets, strict=True):
        message = await h.status(player, ticket)
        assert message.status != MATCHED and not message.assignment.game_id
    # the other three are back in the pool with their place; a newcomer completes the match
    newcomer = await h.login()
    await enqueue(h, newcomer, variants=["4p"])
    assert (await director.cycle("ncw")).started == 1
    for i in (0, 1, 3):
        assert (await h.status(players[i], tickets[i])).status == MATCHED
    assert (await h.status(players[2], tickets[2])).status == CANCELLED


async def test_crash_after_claim_returns_tickets(harness: Harness) -> None:
    h = harness
    queue = h.node.lobby.queue
    players = [await h.login() for _ in range(2)]
    tickets = [await enqueue(h, p, game=0, rules_id="toy", variants=["duel"]) for p in players]
    lock = await queue.acquire("toy", "default", 5000)
    assert lock is not None
    assert await queue.claim(lock, "toy", "default", [("dead-match", tickets)], 0.2) == [True]
    await queue.unlock(lock)
    assert await queue.pool_size("toy", "default") == 0
    await asyncio.sleep(0.3)
    report = await h.node.lobby.director.cycle("toy")
    assert report.released == 2 and report.started == 1
    for player, ticket in zip(players, tickets, strict=True):
        assert (await h.status(player, ticket)).status == MATCHED
    # the dead director's late finalize is refused
    ok, why = await queue.finalize("dead-match", "g", "duel", {tickets[0]: "{}"})
    assert not ok and "matched" in why


async def test_stale_matcher_is_fenced_off(harness: Harness) -> None:
    h = harness
    queue = h.node.lobby.queue
    a, b = await h.login(), await h.login()
    tickets = [await enqueue(h, p, game=0, rules_id="toy") for p in (a, b)]
    stale = await queue.acquire("toy", "default", 50)
    assert stale is not None
    await asyncio.sleep(0.1)
    fresh = await queue.acquire("toy", "default", 5000)
    assert fresh is not None and fresh.token > stale.token
    assert await queue.claim(stale, "toy", "default", [("m1", tickets)], 30) is None
    assert await queue.claim(fresh, "toy", "default", [("m2", tickets)], 30) == [True]
    assert await queue.claim(fresh, "toy", "default", [("m3", tickets)], 30) == [False]


async def test_watch_on_another_replica_and_resume(
    harness: Harness, lobby_settings: object
) -> None:
    from services.lobby.config import LobbySettings
    from services.lobby.tests.harness import start_lobby

    h = harness
    other = await start_lobby(h.settings, LobbySettings(watch_interval_s=30), h.authority)
    h.nodes.append(other)
    a, b = await h.login(), await h.login()
    tickets = [await enqueue(h, p, game=0, rules_id="toy") for p in (a, b)]
    call = other.stub.WatchTicket(lobby_pb2.WatchTicketRequest(ticket_id=tickets[0]), metadata=a.md)
    first = await call.read()
    assert isinstance(first, lobby_pb2.WatchTicketResponse)
    assert first.status == SEARCHING and first.pool_size == 2 and first.rating_window > 0
    started = time.monotonic()
    await h.node.lobby.director.cycle("toy")
    second = await call.read()
    assert isinstance(second, lobby_pb2.WatchTicketResponse)
    assert second.status == MATCHED and second.assignment.seat_token
    assert time.monotonic() - started < 5, "pub/sub, not the 30 s poll, woke the stream"
    # reconnecting (to either replica) resumes with the current status
    again = await h.status(a, tickets[0])
    assert again.status == MATCHED and again.assignment == second.assignment


async def test_ticket_expires(harness: Harness) -> None:
    h = harness
    a = await h.login()
    ticket = await enqueue(h, a, game=0, rules_id="toy", ttl_s=1)
    await asyncio.sleep(1.1)
    await h.node.lobby.director.cycle("toy")
    assert (await h.status(a, ticket)).status == lobby_pb2.TICKET_STATUS_EXPIRED
    await enqueue(h, a, game=0, rules_id="toy")


async def test_redis_loss_keeps_tables_and_ratings(harness: Harness, redis_client: object) -> None:
    from tests.fixtures import delete_prefixed

    h = harness
    a, b, c = [await h.login() for _ in range(3)]
    tickets = [await enqueue(h, p, game=0, rules_id="toy") for p in (a, b)]
    await h.node.lobby.director.cycle("toy")
    assignment = (await h.status(a, tickets[0])).assignment
    waiting = await enqueue(h, c, game=0, rules_id="toy")
    call = h.stub.WatchTicket(lobby_pb2.WatchTicketRequest(ticket_id=waiting), metadata=c.md)
    first = await call.read()
    assert isinstance(first, lobby_pb2.WatchTicketResponse) and first.status == SEARCHING
    delete_prefixed(redis_client, h.settings.redis_prefix)  # type: ignore[arg-type]

    async def drain() -> None:
        while True:
            await asyncio.wait_for(call.read(), 5)

    with pytest.raises(grpc.aio.AioRpcError) as lost:
        await drain()
    assert lost.value.code() == grpc.StatusCode.NOT_FOUND
    assert "enqueue again" in (lost.value.details() or "")
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await h.status(c, waiting)
    assert info.value.code() == grpc.StatusCode.NOT_FOUND
    await enqueue(h, c, game=0, rules_id="toy")
    table = h.node.lobby.store.table_by_game(assignment.game_id)
    assert table is not None and table.status == "started"
    assert {s.player_id for s in table.seats} == {a.player_id, b.player_id}


async def test_slow_game_creation_keeps_its_claims(harness: Harness) -> None:
    from services.lobby.config import LobbySettings
    from services.lobby.director import Director

    h = harness
    wired = h.node.lobby
    real = wired.games

    class Slow:
        """An authority that takes several claim leases to create a game."""

        async def create_game(
            self, request: game_pb2.CreateGameRequest
        ) -> game_pb2.CreateGameResponse:
            await asyncio.sleep(1.2)
            return await real.create_game(request)

        async def view(self, game_id: str, token: str) -> game_pb2.SeatView:
            return await real.view(game_id, token)

    lobby = LobbySettings(claim_lease_s=0.3)
    slow = Director(wired.queue, wired.store, Slow(), lobby, "g")
    other = Director(wired.queue, wired.store, real, lobby, "g")
    a, b = await h.login(), await h.login()
    tickets = [await enqueue(h, p, game=0, rules_id="toy") for p in (a, b)]
    first = asyncio.create_task(slow.cycle("toy"))
    await asyncio.sleep(0.8)  # well past one lease: the claim must still hold
    meanwhile = await other.cycle("toy")
    assert meanwhile.released == 0 and meanwhile.pool_size == 0
    report = await first
    assert report.started == 1
    for player, ticket in zip((a, b), tickets, strict=True):
        assert (await h.status(player, ticket)).status == MATCHED
