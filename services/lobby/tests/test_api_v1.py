"""Issue 17/20 lobby contracts through the real LobbyService and authority (Redis +
PostgreSQL): error reasons, edge validation, parties with consent, my tickets, my games,
seat recovery from digests, games to watch, endpoints."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from sqlalchemy import text

from services.common.auth import token_digest
from services.lobby.tests.harness import Harness, Player, reason_of
from warroom.v1 import common_pb2, game_pb2, lobby_pb2

NCW = common_pb2.GAME_KIND_NEW_COLD_WAR
TOY = "toy"


async def refused(call: Any) -> grpc.aio.AioRpcError:
    """The error a call is refused with (fails the test when it succeeds)."""
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await call
    return info.value


def details(error: grpc.aio.AioRpcError) -> dict[str, Any]:
    """The google.rpc details of a refusal, by type name."""
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    assert status is not None, "every refusal carries a google.rpc.Status"
    found: dict[str, Any] = {}
    for detail in status.details:
        for cls in (
            error_details_pb2.ErrorInfo,
            error_details_pb2.BadRequest,
            error_details_pb2.PreconditionFailure,
        ):
            message = cls()
            if detail.Is(message.DESCRIPTOR):
                detail.Unpack(message)
                found[cls.__name__] = message
    return found


async def started_toy_table(h: Harness, host: Player, guest: Player, **kw: Any) -> Any:
    table = (
        await h.stub.CreateTable(lobby_pb2.CreateTableRequest(rules_id=TOY, **kw), metadata=host.md)
    ).table
    await h.stub.JoinTable(
        lobby_pb2.JoinTableRequest(table_id=table.table_id, invite_code=table.invite_code),
        metadata=guest.md,
    )
    return await h.stub.StartTable(
        lobby_pb2.StartTableRequest(table_id=table.table_id), metadata=host.md
    )


# ------------------------------------------------------------------ reasons and validation


async def test_every_lobby_refusal_carries_errorinfo_and_details(harness: Harness) -> None:
    h = harness
    a, b, c = await h.login(), await h.login(), await h.login()
    first = await h.stub.EnqueueTicket(lobby_pb2.EnqueueTicketRequest(rules_id=TOY), metadata=a.md)
    queued = await refused(
        h.stub.EnqueueTicket(lobby_pb2.EnqueueTicketRequest(rules_id=TOY), metadata=a.md)
    )
    assert queued.code() == grpc.StatusCode.FAILED_PRECONDITION
    found = details(queued)
    info = found["ErrorInfo"]
    assert (info.reason, info.domain) == ("ALREADY_QUEUED", "warroom.lobby")
    assert info.metadata["ticket_id"] == first.ticket.ticket_id
    assert found["PreconditionFailure"].violations[0].type == "ALREADY_QUEUED"
    # one table, every precondition its own reason
    table = (
        await h.stub.CreateTable(lobby_pb2.CreateTableRequest(rules_id=TOY), metadata=b.md)
    ).table
    not_seated = await refused(
        h.stub.LeaveTable(lobby_pb2.LeaveTableRequest(table_id=table.table_id), metadata=c.md)
    )
    assert reason_of(not_seated) == "NOT_SEATED"
    not_host = await refused(
        h.stub.StartTable(lobby_pb2.StartTableRequest(table_id=table.table_id), metadata=c.md)
    )
    assert (not_host.code(), reason_of(not_host)) == (grpc.StatusCode.PERMISSION_DENIED, "NOT_HOST")
    await h.stub.JoinTable(lobby_pb2.JoinTableRequest(table_id=table.table_id), metadata=c.md)
    full = await refused(
        h.stub.JoinTable(lobby_pb2.JoinTableRequest(table_id=table.table_id), metadata=a.md)
    )
    assert reason_of(full) == "TABLE_FULL"
    await h.stub.StartTable(lobby_pb2.StartTableRequest(table_id=table.table_id), metadata=b.md)
    started = await refused(
        h.stub.StartTable(lobby_pb2.StartTableRequest(table_id=table.table_id), metadata=b.md)
    )
    assert (started.code(), reason_of(started)) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        "TABLE_STARTED",
    )
    leave = await refused(
        h.stub.LeaveTable(lobby_pb2.LeaveTableRequest(table_id=table.table_id), metadata=c.md)
    )
    assert reason_of(leave) == "TABLE_STARTED"
    unknown = await refused(
        h.stub.JoinTable(lobby_pb2.JoinTableRequest(table_id="tb-nope"), metadata=a.md)
    )
    assert (unknown.code(), reason_of(unknown)) == (grpc.StatusCode.NOT_FOUND, "TABLE_NOT_FOUND")
    no_token = await refused(h.stub.GetPlayer(lobby_pb2.GetPlayerRequest()))
    assert reason_of(no_token) == "MISSING_TOKEN"
    bad = await refused(
        h.stub.GetPlayer(lobby_pb2.GetPlayerRequest(), metadata=(("authorization", "Bearer x"),))
    )
    assert reason_of(bad) == "BAD_TOKEN"


@pytest.mark.parametrize(
    ("request_", "reason", "field", "words"),
    [
        (
            lobby_pb2.CreateTableRequest(rules_id=TOY, fill_bot=common_pb2.BotSpec(kind="oracle")),
            "UNKNOWN_BOT_KIND",
            "fill_bot.kind",
            "known: random, heuristic, ismcts",
        ),
        (
            lobby_pb2.CreateTableRequest(
                rules_id=TOY, fill_bot=common_pb2.BotSpec(kind="heuristic", difficulty="godlike")
            ),
            "UNKNOWN_DIFFICULTY",
            "fill_bot.difficulty",
            "beginner, intermediate, expert",
        ),
        (
            lobby_pb2.CreateTableRequest(
                rules_id=TOY, fill_bot=common_pb2.BotSpec(kind="ncw-official")
            ),
            "BOT_CANNOT_PLAY",
            "fill_bot.kind",
            "bots for it",
        ),
        (
            lobby_pb2.CreateTableRequest(
                rules_id=TOY,
                seats=[
                    lobby_pb2.TableSeatSpec(),
                    lobby_pb2.TableSeatSpec(bot=common_pb2.BotSpec(kind="oracle")),
                ],
            ),
            "UNKNOWN_BOT_KIND",
            "seats[1].bot.kind",
            "oracle",
        ),
        (
            lobby_pb2.CreateTableRequest(rules_id="chess"),
            "UNKNOWN_GAME",
            "rules_id",
            "toy",
        ),
        (
            lobby_pb2.CreateTableRequest(game=77),  # type: ignore[arg-type]
            "UNKNOWN_GAME",
            "game",
            "known",
        ),
        (
            lobby_pb2.CreateTableRequest(rules_id=TOY, variant="9p"),
            "UNKNOWN_VARIANT",
            "variant",
            "duel",
        ),
        (
            lobby_pb2.CreateTableRequest(rules_id=TOY, host_side="East"),
            "UNKNOWN_SIDE",
            "host_side",
            "North",
        ),
        (
            lobby_pb2.CreateTableRequest(rules_id=TOY, options={"k\x00": "v"}),
            "BAD_TEXT",
            "options key",
            "U+0000",
        ),
        (
            lobby_pb2.CreateTableRequest(
                rules_id=TOY,
                clock=common_pb2.ClockSpec(
                    mode=common_pb2.ClockSpec.MODE_LIVE,
                    initial_seconds=60,
                    fallback_bot=common_pb2.BotSpec(kind="oracle"),
                ),
            ),
            "UNKNOWN_BOT_KIND",
            "clock.fallback_bot.kind",
            "oracle",
        ),
    ],
)
async def test_create_table_validates_every_name(
    harness: Harness, request_: lobby_pb2.CreateTableRequest, reason: str, field: str, words: str
) -> None:
    h = harness
    host = await h.login()
    error = await refused(h.stub.CreateTable(request_, metadata=host.md))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert reason_of(error) == reason
    assert words in (error.details() or "")
    violation = details(error)["BadRequest"].field_violations[0]
    assert violation.field == field
    listed = await h.stub.ListTables(lobby_pb2.ListTablesRequest(), metadata=host.md)
    assert not any(t.host_player_id == host.player_id for t in listed.tables), "nothing changed"


async def test_enqueue_validates_bots_sides_and_variants(harness: Harness) -> None:
    h = harness
    a = await h.login()
    cases: list[tuple[dict[str, Any], str]] = [
        ({"fill_bot": common_pb2.BotSpec(kind="oracle")}, "UNKNOWN_BOT_KIND"),
        (
            {"fill_bot": common_pb2.BotSpec(kind="random", difficulty="expert")},
            "UNKNOWN_DIFFICULTY",
        ),
        ({"side_preferences": ["Atlantis"]}, "UNKNOWN_SIDE"),
        ({"variants": ["9p"]}, "UNKNOWN_VARIANT"),
        ({"ttl_s": -1}, "BAD_DURATION"),
        ({"party_player_ids": ["p\x00x"]}, "MALFORMED_ID"),
    ]
    for kw, reason in cases:
        error = await refused(
            h.stub.EnqueueTicket(lobby_pb2.EnqueueTicketRequest(game=NCW, **kw), metadata=a.md)
        )
        assert (error.code(), reason_of(error)) == (grpc.StatusCode.INVALID_ARGUMENT, reason), kw
    assert await h.node.lobby.queue.active_ticket(a.player_id) is None


async def test_start_table_refuses_a_stored_fill_bot_nothing_can_play(harness: Harness) -> None:
    """A table stored before edge validation with an invented fill bot is never started."""
    h = harness
    host = await h.login()
    table = (
        await h.stub.CreateTable(lobby_pb2.CreateTableRequest(rules_id=TOY), metadata=host.md)
    ).table
    with h.node.lobby.store.sessions.begin() as session:
        session.execute(
            text("UPDATE lobby_tables SET fill_bot = :f WHERE id = :t"),
            {"f": '{"kind": "oracle"}', "t": table.table_id},
        )
    error = await refused(
        h.stub.StartTable(lobby_pb2.StartTableRequest(table_id=table.table_id), metadata=host.md)
    )
    assert reason_of(error) == "UNKNOWN_BOT_KIND"
    assert h.node.lobby.store.table(table.table_id).status == "open"


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("nul\x00name", "BAD_TEXT"),
        ("bell\x07", "BAD_TEXT"),
        ("\x1b[31mred", "BAD_TEXT"),
        ("rtl\u202eoverride", "BAD_TEXT"),
        ("x" * 33, "TOO_LONG"),
        ("   ", "MISSING_FIELD"),
        ("bot:me", "RESERVED_NAME"),
    ],
)
async def test_login_refuses_control_characters_and_long_names(
    harness: Harness, name: str, reason: str
) -> None:
    h = harness
    before = h.node.lobby.store.count_players()
    error = await refused(h.stub.Login(lobby_pb2.LoginRequest(name=name)))
    assert (error.code(), reason_of(error)) == (grpc.StatusCode.INVALID_ARGUMENT, reason)
    assert details(error)["BadRequest"].field_violations[0].field == "name"
    assert h.node.lobby.store.count_players() == before


async def test_ids_with_nul_never_reach_postgresql(harness: Harness) -> None:
    h = harness
    a = await h.login()
    calls = [
        h.stub.JoinTable(lobby_pb2.JoinTableRequest(table_id="tb-\x00"), metadata=a.md),
        h.stub.LeaveTable(lobby_pb2.LeaveTableRequest(table_id="\x00"), metadata=a.md),
        h.stub.StartTable(lobby_pb2.StartTableRequest(table_id="a\x00b"), metadata=a.md),
        h.stub.GetPlayer(lobby_pb2.GetPlayerRequest(player_id="g-\x00"), metadata=a.md),
        h.stub.CancelTicket(lobby_pb2.CancelTicketRequest(ticket_id="tk\x00"), metadata=a.md),
        h.stub.InviteToParty(lobby_pb2.InviteToPartyRequest(player_id="\x00"), metadata=a.md),
        h.stub.GetSeatAccess(lobby_pb2.GetSeatAccessRequest(game_id="\x00"), metadata=a.md),
        h.stub.GetSpectatorAccess(
            lobby_pb2.GetSpectatorAccessRequest(game_id="g\x00"), metadata=a.md
        ),
    ]
    for call in calls:
        error = await refused(call)
        assert (error.code(), reason_of(error)) == (
            grpc.StatusCode.INVALID_ARGUMENT,
            "MALFORMED_ID",
        )


async def test_undecodable_bytes_are_invalid_argument(harness: Harness) -> None:
    h = harness
    raw = h.node.channel.unary_unary(
        "/warroom.v1.LobbyService/Login",
        request_serializer=lambda b: b,
        response_deserializer=lambda b: b,
    )
    stream = h.node.channel.unary_stream(
        "/warroom.v1.LobbyService/WatchTicket",
        request_serializer=lambda b: b,
        response_deserializer=lambda b: b,
    )
    for garbage in (b"\xff\xff\xff\xff", b"\x0a\x7fshort", b"\x08"):
        error = await refused(raw(garbage))
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert reason_of(error) == "MALFORMED_REQUEST"
        assert "Traceback" not in (error.details() or "") and len(error.details() or "") < 120
        with pytest.raises(grpc.aio.AioRpcError) as info:
            async for _ in stream(garbage):
                pass
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT


# ------------------------------------------------------------------ parties and tickets


async def test_nobody_is_queued_without_accepting_an_invitation(harness: Harness) -> None:
    h = harness
    leader, victim = await h.login(), await h.login()
    error = await refused(
        h.stub.EnqueueTicket(
            lobby_pb2.EnqueueTicketRequest(rules_id=TOY, party_player_ids=[victim.player_id]),
            metadata=leader.md,
        )
    )
    assert (error.code(), reason_of(error)) == (grpc.StatusCode.FAILED_PRECONDITION, "NOT_IN_PARTY")
    invited = await h.stub.InviteToParty(
        lobby_pb2.InviteToPartyRequest(player_id=victim.player_id), metadata=leader.md
    )
    party_id = invited.party.party_id
    assert [(m.player_id, m.accepted) for m in invited.party.members] == [
        (leader.player_id, True),
        (victim.player_id, False),
    ]
    # invited but not accepted: still never queued
    error = await refused(
        h.stub.EnqueueTicket(
            lobby_pb2.EnqueueTicketRequest(rules_id=TOY, party_player_ids=[victim.player_id]),
            metadata=leader.md,
        )
    )
    assert reason_of(error) == "NOT_IN_PARTY"
    assert await h.node.lobby.queue.active_ticket(victim.player_id) is None
    mine = await h.stub.GetParty(lobby_pb2.GetPartyRequest(), metadata=victim.md)
    assert not mine.HasField("party")
    assert [(i.party_id, i.leader_player_id) for i in mine.invites] == [
        (party_id, leader.player_id)
    ]
    await h.stub.AcceptPartyInvite(
        lobby_pb2.AcceptPartyInviteRequest(party_id=party_id), metadata=victim.md
    )
    # only the leader queues the party
    error = await refused(
        h.stub.EnqueueTicket(
            lobby_pb2.EnqueueTicketRequest(rules_id=TOY, with_party=True), metadata=victim.md
        )
    )
    assert reason_of(error) == "NOT_PARTY_LEADER"
    ticket = await h.stub.EnqueueTicket(
        lobby_pb2.EnqueueTicketRequest(rules_id=TOY, with_party=True, variants=["duel"]),
        metadata=leader.md,
    )
    assert list(ticket.ticket.player_ids) == [leader.player_id, victim.player_id]
    # the member sees the ticket among their own and may cancel it
    theirs = await h.stub.ListMyTickets(lobby_pb2.ListMyTicketsRequest(), metadata=victim.md)
    assert [t.ticket_id for t in theirs.tickets] == [ticket.ticket.ticket_id]
    assert theirs.tickets[0].status == lobby_pb2.TICKET_STATUS_SEARCHING
    await h.stub.CancelTicket(
        lobby_pb2.CancelTicketRequest(ticket_id=ticket.ticket.ticket_id), metadata=victim.md
    )
    assert not (
        await h.stub.ListMyTickets(lobby_pb2.ListMyTicketsRequest(), metadata=leader.md)
    ).tickets
    # leaving: the member is out, and can no longer be queued
    await h.stub.LeaveParty(lobby_pb2.LeavePartyRequest(), metadata=victim.md)
    error = await refused(
        h.stub.EnqueueTicket(
            lobby_pb2.EnqueueTicketRequest(rules_id=TOY, party_player_ids=[victim.player_id]),
            metadata=leader.md,
        )
    )
    assert reason_of(error) == "NOT_IN_PARTY"


async def test_party_invitation_reasons(harness: Harness) -> None:
    h = harness
    a, b, c = await h.login(), await h.login(), await h.login()
    self_invite = await refused(
        h.stub.InviteToParty(lobby_pb2.InviteToPartyRequest(player_id=a.player_id), metadata=a.md)
    )
    assert reason_of(self_invite) == "CANNOT_INVITE_SELF"
    ghost = await refused(
        h.stub.InviteToParty(lobby_pb2.InviteToPartyRequest(player_id="g-ghost"), metadata=a.md)
    )
    assert (ghost.code(), reason_of(ghost)) == (grpc.StatusCode.NOT_FOUND, "PLAYER_NOT_FOUND")
    party = (
        await h.stub.InviteToParty(
            lobby_pb2.InviteToPartyRequest(player_id=b.player_id), metadata=a.md
        )
    ).party
    declined = await h.stub.DeclinePartyInvite(
        lobby_pb2.DeclinePartyInviteRequest(party_id=party.party_id), metadata=b.md
    )
    assert declined == lobby_pb2.DeclinePartyInviteResponse()
    gone = await refused(
        h.stub.AcceptPartyInvite(
            lobby_pb2.AcceptPartyInviteRequest(party_id=party.party_id), metadata=b.md
        )
    )
    assert reason_of(gone) == "INVITE_NOT_FOUND"
    # c leads its own party; accepting a's invitation needs leaving it first
    await h.stub.InviteToParty(lobby_pb2.InviteToPartyRequest(player_id=b.player_id), metadata=c.md)
    await h.stub.InviteToParty(lobby_pb2.InviteToPartyRequest(player_id=c.player_id), metadata=a.md)
    busy = await refused(
        h.stub.AcceptPartyInvite(
            lobby_pb2.AcceptPartyInviteRequest(party_id=party.party_id), metadata=c.md
        )
    )
    assert reason_of(busy) == "ALREADY_IN_PARTY"
    await h.stub.LeaveParty(lobby_pb2.LeavePartyRequest(), metadata=c.md)
    joined = await h.stub.AcceptPartyInvite(
        lobby_pb2.AcceptPartyInviteRequest(party_id=party.party_id), metadata=c.md
    )
    assert [m.player_id for m in joined.party.members if m.accepted] == [a.player_id, c.player_id]
    not_leader = await refused(
        h.stub.InviteToParty(lobby_pb2.InviteToPartyRequest(player_id=b.player_id), metadata=c.md)
    )
    assert reason_of(not_leader) == "NOT_PARTY_LEADER"
    # the leader leaves: the party passes to c
    await h.stub.LeaveParty(lobby_pb2.LeavePartyRequest(), metadata=a.md)
    now = await h.stub.GetParty(lobby_pb2.GetPartyRequest(), metadata=c.md)
    assert now.party.leader_player_id == c.player_id
    out = await refused(h.stub.LeaveParty(lobby_pb2.LeavePartyRequest(), metadata=a.md))
    assert reason_of(out) == "NOT_IN_PARTY"


async def test_party_size_is_capped_with_invitations_counted(harness: Harness) -> None:
    h = harness
    leader = await h.login()
    cap = h.node.lobby.lobby.max_party
    others = [await h.login() for _ in range(cap)]
    for other in others[: cap - 1]:
        await h.stub.InviteToParty(
            lobby_pb2.InviteToPartyRequest(player_id=other.player_id), metadata=leader.md
        )
    full = await refused(
        h.stub.InviteToParty(
            lobby_pb2.InviteToPartyRequest(player_id=others[-1].player_id), metadata=leader.md
        )
    )
    assert reason_of(full) == "PARTY_FULL"


# ------------------------------------------------------------------ my games, seats, watching


async def test_my_games_show_whose_turn_and_recover_the_seat(harness: Harness) -> None:
    h = harness
    host, guest = await h.login(), await h.login()
    started = await started_toy_table(h, host, guest, allow_spectators=True)
    game_id = started.table.game_id
    listing = await h.stub.ListMyGames(lobby_pb2.ListMyGamesRequest(), metadata=host.md)
    assert [g.game_id for g in listing.games] == [game_id]
    mine = listing.games[0]
    assert mine.live_info and mine.status == lobby_pb2.Table.STATUS_STARTED
    assert mine.seat == started.assignment.seat and mine.rules_id == TOY
    assert mine.last_activity.seconds > 0 and mine.game_endpoint and mine.spectator_token
    view = (
        await h.authority.stub.GetView(
            game_pb2.GetViewRequest(game_id=game_id, token=started.assignment.seat_token)
        )
    ).view
    assert list(mine.to_act) == list(view.decision.seats)
    assert mine.my_turn == (mine.seat in view.decision.seats)
    theirs = (await h.stub.ListMyGames(lobby_pb2.ListMyGamesRequest(), metadata=guest.md)).games
    assert theirs[0].my_turn == (theirs[0].seat in view.decision.seats)
    assert mine.my_turn != theirs[0].my_turn or len(view.decision.seats) == 2
    # the lobby keeps digests only, yet the owner recovers the token
    stored = h.node.lobby.store.table(started.table.table_id)
    assert all(s.seat_token_digest is None or len(s.seat_token_digest) == 64 for s in stored.seats)
    seat = next(s for s in stored.seats if s.player_id == host.player_id)
    assert seat.seat_token_digest == token_digest(started.assignment.seat_token)
    with h.node.lobby.store.engine.connect() as connection:
        columns = [
            row[0]
            for row in connection.execute(
                text(
                    "SELECT column_name FROM information_schema.columns "
                    "WHERE table_name = 'lobby_seats' AND table_schema = current_schema()"
                )
            )
        ]
    assert "seat_token" not in columns and "seat_token_digest" in columns
    for request in (
        lobby_pb2.GetSeatAccessRequest(game_id=game_id),
        lobby_pb2.GetSeatAccessRequest(table_id=started.table.table_id),
    ):
        access = (await h.stub.GetSeatAccess(request, metadata=host.md)).assignment
        assert access.seat_token == started.assignment.seat_token
        assert access.seat == started.assignment.seat
    stranger = await h.login()
    error = await refused(
        h.stub.GetSeatAccess(lobby_pb2.GetSeatAccessRequest(game_id=game_id), metadata=stranger.md)
    )
    assert (error.code(), reason_of(error)) == (grpc.StatusCode.NOT_FOUND, "NOT_SEATED")
    again = await h.stub.JoinTable(
        lobby_pb2.JoinTableRequest(table_id=started.table.table_id), metadata=guest.md
    )
    assert again.assignment.seat_token and again.assignment.seat != started.assignment.seat
    # finished games: listed on request, with their result
    await h.authority.stub.Resign(
        game_pb2.ResignRequest(game_id=game_id, token=started.assignment.seat_token)
    )
    active = await h.stub.ListMyGames(lobby_pb2.ListMyGamesRequest(), metadata=host.md)
    assert [g.status for g in active.games] == [lobby_pb2.Table.STATUS_FINISHED]
    assert active.games[0].result.seats and not active.games[0].to_act


async def test_private_tables_stay_private_and_matchmade_games_are_watchable(
    harness: Harness,
) -> None:
    h = harness
    host, guest, watcher = await h.login(), await h.login(), await h.login()
    public = await started_toy_table(h, host, guest, allow_spectators=True)
    private = await started_toy_table(h, host, guest, allow_spectators=True, private=True)
    closed = await started_toy_table(h, host, guest)
    live = await h.stub.ListLiveGames(
        lobby_pb2.ListLiveGamesRequest(rules_id=TOY), metadata=watcher.md
    )
    ids = [g.game_id for g in live.games]
    assert public.table.game_id in ids
    assert private.table.game_id not in ids and closed.table.game_id not in ids
    entry = next(g for g in live.games if g.game_id == public.table.game_id)
    view = (
        await h.authority.stub.GetView(
            game_pb2.GetViewRequest(game_id=entry.game_id, token=entry.spectator_token)
        )
    ).view
    assert view.seat == -1
    access = await h.stub.GetSpectatorAccess(
        lobby_pb2.GetSpectatorAccessRequest(game_id=public.table.game_id), metadata=watcher.md
    )
    assert access.game.spectator_token == entry.spectator_token
    for hidden in (private, closed):
        error = await refused(
            h.stub.GetSpectatorAccess(
                lobby_pb2.GetSpectatorAccessRequest(game_id=hidden.table.game_id),
                metadata=watcher.md,
            )
        )
        assert (error.code(), reason_of(error)) == (
            grpc.StatusCode.PERMISSION_DENIED,
            "NOT_WATCHABLE",
        )
    # a participant of the private table may still get its spectator access
    own = await h.stub.GetSpectatorAccess(
        lobby_pb2.GetSpectatorAccessRequest(game_id=private.table.game_id), metadata=host.md
    )
    assert own.game.spectator_token
    # a matchmade game is watchable
    a, b = await h.login(), await h.login()
    for p in (a, b):
        await h.stub.EnqueueTicket(
            lobby_pb2.EnqueueTicketRequest(rules_id=TOY, variants=["duel"]), metadata=p.md
        )
    assert (await h.node.lobby.director.cycle(TOY)).started == 1
    matched = (await h.stub.ListMyTickets(lobby_pb2.ListMyTicketsRequest(), metadata=a.md)).tickets
    assert matched[0].status == lobby_pb2.TICKET_STATUS_MATCHED and matched[0].assignment.seat_token
    match_game = matched[0].assignment.game_id
    live = await h.stub.ListLiveGames(
        lobby_pb2.ListLiveGamesRequest(rules_id=TOY, page=common_pb2.PageRequest(page_size=100)),
        metadata=watcher.md,
    )
    found = [g for g in live.games if g.game_id == match_game]
    assert found and found[0].matchmade and found[0].spectator_token
    others = await h.stub.ListLiveGames(
        lobby_pb2.ListLiveGamesRequest(game=NCW), metadata=watcher.md
    )
    assert all(g.rules_id == "ncw" for g in others.games)
    bad = await refused(
        h.stub.ListLiveGames(lobby_pb2.ListLiveGamesRequest(variant="duel"), metadata=watcher.md)
    )
    assert reason_of(bad) == "VARIANT_NEEDS_GAME"


async def test_endpoints_are_discoverable(harness: Harness) -> None:
    h = harness
    answer = await h.stub.GetEndpoints(lobby_pb2.GetEndpointsRequest())
    endpoints = answer.endpoints
    assert endpoints.game_endpoint == h.settings.game_endpoint
    assert endpoints.bots_endpoint.endswith(f":{h.settings.bots_port}")
    assert endpoints.lobby_endpoint.endswith(f":{h.settings.lobby_port}")
    login = await h.stub.Login(lobby_pb2.LoginRequest(name="Discoverer"))
    assert login.endpoints == endpoints


async def test_guests_are_not_on_the_leaderboard(harness: Harness) -> None:
    h = harness
    host = await h.login()
    registered = await h.stub.Login(
        lobby_pb2.LoginRequest(name="Registered Rival", password="long-enough-pw", register=True)
    )
    rival = Player(registered.player_id, registered.token)
    started = await started_toy_table(h, host, rival)
    await h.authority.stub.Resign(
        game_pb2.ResignRequest(game_id=started.table.game_id, token=started.assignment.seat_token)
    )
    from services.lobby.results import settle_tables

    store = h.node.lobby.store
    await settle_tables(
        store, h.node.lobby.games, [store.table(started.table.table_id)], h.settings.bot_token_key()
    )
    board = await h.stub.GetLeaderboard(
        lobby_pb2.GetLeaderboardRequest(rules_id=TOY, page=common_pb2.PageRequest(page_size=100)),
        metadata=host.md,
    )
    ranked = [e.player.player_id for e in board.entries]
    assert rival.player_id in ranked and host.player_id not in ranked
    _, ratings = store.player(host.player_id)
    assert ratings and ratings[0].games == 1, "the guest is still rated (off the board)"


async def test_my_games_still_answer_when_the_authority_does_not(harness: Harness) -> None:
    h = harness
    host, guest = await h.login(), await h.login()
    started = await started_toy_table(h, host, guest)
    await h.authority.server.stop(0)
    listing = await h.stub.ListMyGames(lobby_pb2.ListMyGamesRequest(), metadata=host.md)
    assert [g.game_id for g in listing.games] == [started.table.game_id]
    assert not listing.games[0].live_info and not listing.games[0].to_act
    assert listing.games[0].status == lobby_pb2.Table.STATUS_STARTED
    error = await refused(
        h.stub.GetSeatAccess(
            lobby_pb2.GetSeatAccessRequest(game_id=started.table.game_id), metadata=host.md
        )
    )
    assert (error.code(), reason_of(error)) == (
        grpc.StatusCode.UNAVAILABLE,
        "GAME_SERVICE_UNAVAILABLE",
    )
