"""Custom tables, players and ratings through the real LobbyService and authority."""

from __future__ import annotations

import json

import grpc
import pytest

from services.lobby.results import settle_tables
from services.lobby.tests.harness import Harness, play_to_end, table_tokens
from warroom.v1 import common_pb2, game_pb2, lobby_pb2

NCW = common_pb2.GAME_KIND_NEW_COLD_WAR


async def test_register_login_and_token_errors(harness: Harness) -> None:
    h = harness
    created = await h.stub.Login(
        lobby_pb2.LoginRequest(name="Marshal Ney", password="bravest-of-the-brave", register=True)
    )
    assert not created.guest and created.expires_at.seconds > 0
    again = await h.stub.Login(
        lobby_pb2.LoginRequest(name="marshal ney", password="bravest-of-the-brave")
    )
    assert again.player_id == created.player_id
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await h.stub.Login(lobby_pb2.LoginRequest(name="Marshal Ney", password="wrong-password"))
    assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await h.stub.Login(
            lobby_pb2.LoginRequest(name="Marshal Ney", password="x" * 9, register=True)
        )
    assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await h.stub.GetPlayer(lobby_pb2.GetPlayerRequest())
    assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED
    from services.lobby.auth import issue_token
    from services.lobby.config import token_key

    expired, _ = issue_token(
        token_key(h.settings, h.node.lobby.lobby), created.player_id, "Ney", False, -10
    )
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await h.stub.GetPlayer(
            lobby_pb2.GetPlayerRequest(), metadata=(("authorization", f"Bearer {expired}"),)
        )
    assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert "expired" in (info.value.details() or "")
    me = await h.stub.GetPlayer(
        lobby_pb2.GetPlayerRequest(), metadata=(("authorization", f"Bearer {created.token}"),)
    )
    assert me.player.display_name == "Marshal Ney"
    stored = (
        h.node.lobby.store.sessions()
        .execute(
            __import__("sqlalchemy").text(
                "SELECT password_hash FROM lobby_credentials WHERE player_id = :p"
            ),
            {"p": created.player_id},
        )
        .scalar_one()
    )
    assert stored.startswith("$argon2id$")


async def test_private_table_rejects_a_wrong_invite_code(harness: Harness) -> None:
    h = harness
    host, guest = await h.login(), await h.login()
    created = await h.stub.CreateTable(
        lobby_pb2.CreateTableRequest(rules_id="toy", private=True), metadata=host.md
    )
    table = created.table
    assert table.private and table.invite_code and table.open_seats == 1
    for code in ("", "wrong-code"):
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await h.stub.JoinTable(
                lobby_pb2.JoinTableRequest(table_id=table.table_id, invite_code=code),
                metadata=guest.md,
            )
        assert info.value.code() == grpc.StatusCode.PERMISSION_DENIED
        assert "invite code" in (info.value.details() or "")
    assert h.node.lobby.store.table(table.table_id).seats[1].player_id is None
    listed = await h.stub.ListTables(lobby_pb2.ListTablesRequest(rules_id="toy"), metadata=guest.md)
    assert table.table_id not in {t.table_id for t in listed.tables}
    joined = await h.stub.JoinTable(
        lobby_pb2.JoinTableRequest(table_id=table.table_id, invite_code=table.invite_code),
        metadata=guest.md,
    )
    assert joined.table.open_seats == 0 and joined.table.invite_code == ""


async def test_table_lifecycle(harness: Harness) -> None:
    h = harness
    host, second, third = await h.login(), await h.login(), await h.login()
    created = await h.stub.CreateTable(
        lobby_pb2.CreateTableRequest(
            rules_id="toy",
            host_side="South",
            clock=common_pb2.ClockSpec(mode=common_pb2.ClockSpec.MODE_NONE),
        ),
        metadata=host.md,
    )
    table_id = created.table.table_id
    assert created.table.seats[1].player_id == host.player_id
    listed = await h.stub.ListTables(
        lobby_pb2.ListTablesRequest(
            rules_id="toy", open_only=True, page=common_pb2.PageRequest(page_size=100)
        ),
        metadata=second.md,
    )
    assert table_id in {t.table_id for t in listed.tables}
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await h.stub.JoinTable(
            lobby_pb2.JoinTableRequest(table_id="tb-missing"), metadata=second.md
        )
    assert info.value.code() == grpc.StatusCode.NOT_FOUND
    joined = await h.stub.JoinTable(
        lobby_pb2.JoinTableRequest(table_id=table_id, side_preference="North"), metadata=second.md
    )
    assert joined.table.seats[0].player_id == second.player_id
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await h.stub.JoinTable(lobby_pb2.JoinTableRequest(table_id=table_id), metadata=third.md)
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "full" in (info.value.details() or "")
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await h.stub.StartTable(lobby_pb2.StartTableRequest(table_id=table_id), metadata=second.md)
    assert info.value.code() == grpc.StatusCode.PERMISSION_DENIED
    left = await h.stub.LeaveTable(
        lobby_pb2.LeaveTableRequest(table_id=table_id), metadata=second.md
    )
    assert left.table.open_seats == 1
    await h.stub.JoinTable(lobby_pb2.JoinTableRequest(table_id=table_id), metadata=second.md)
    started = await h.stub.StartTable(
        lobby_pb2.StartTableRequest(table_id=table_id), metadata=host.md
    )
    assert started.table.status == lobby_pb2.Table.STATUS_STARTED
    assert started.assignment.seat == 1 and started.assignment.seat_token
    again = await h.stub.JoinTable(
        lobby_pb2.JoinTableRequest(table_id=table_id), metadata=second.md
    )
    assert again.assignment.seat == 0 and again.assignment.game_id == started.table.game_id
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await h.stub.StartTable(lobby_pb2.StartTableRequest(table_id=table_id), metadata=host.md)
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await h.stub.JoinTable(lobby_pb2.JoinTableRequest(table_id=table_id), metadata=third.md)
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION


async def test_create_table_errors(harness: Harness) -> None:
    h = harness
    host = await h.login()
    for request, code in [
        (lobby_pb2.CreateTableRequest(rules_id="chess"), grpc.StatusCode.INVALID_ARGUMENT),
        (lobby_pb2.CreateTableRequest(game=NCW, variant="9p"), grpc.StatusCode.INVALID_ARGUMENT),
        (
            lobby_pb2.CreateTableRequest(rules_id="toy", host_side="East"),
            grpc.StatusCode.INVALID_ARGUMENT,
        ),
        (
            lobby_pb2.CreateTableRequest(
                rules_id="toy",
                seats=[
                    lobby_pb2.TableSeatSpec(bot=common_pb2.BotSpec(kind="random")),
                    lobby_pb2.TableSeatSpec(bot=common_pb2.BotSpec(kind="random")),
                ],
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
        ),
    ]:
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await h.stub.CreateTable(request, metadata=host.md)
        assert info.value.code() == code, request


async def test_play_now_against_bots_ncw_solitaire(harness: Harness) -> None:
    h = harness
    host = await h.login()
    created = await h.stub.CreateTable(
        lobby_pb2.CreateTableRequest(
            game=NCW,
            variant="solitaire-russia",
            start_now=True,
            fill_bot=common_pb2.BotSpec(kind="heuristic", difficulty="expert"),
        ),
        metadata=host.md,
    )
    assert created.table.status == lobby_pb2.Table.STATUS_STARTED
    assert created.assignment.side == "Russia" and created.assignment.seat_token
    assert [(s.bot.kind, s.bot.difficulty) for s in created.table.seats if s.is_bot] == [
        ("ncw-official", "expert")
    ] * 3
    view = (
        await h.authority.stub.GetView(
            game_pb2.GetViewRequest(
                game_id=created.assignment.game_id, token=created.assignment.seat_token
            )
        )
    ).view
    assert view.seat == created.assignment.seat


async def test_ratings_move_in_the_right_direction(harness: Harness) -> None:
    h = harness
    host, other = await h.login(), await h.login()
    table = (
        await h.stub.CreateTable(lobby_pb2.CreateTableRequest(rules_id="toy"), metadata=host.md)
    ).table
    await h.stub.JoinTable(lobby_pb2.JoinTableRequest(table_id=table.table_id), metadata=other.md)
    started = await h.stub.StartTable(
        lobby_pb2.StartTableRequest(table_id=table.table_id), metadata=host.md
    )
    game_id = started.table.game_id
    row = h.node.lobby.store.table(table.table_id)
    tokens = await table_tokens(h, table.table_id)
    # the host resigns: the other player wins
    host_seat = started.assignment.seat
    await h.authority.stub.Resign(game_pb2.ResignRequest(game_id=game_id, token=tokens[host_seat]))
    result = await play_to_end(h.authority, game_id, tokens)
    winner = next(s.seat for s in result.seats if s.rank == 0)
    assert winner != host_seat
    # the winner's (missing) rating is cached for matchmaking before the game is rated
    queue = h.node.lobby.queue
    early = await h.stub.EnqueueTicket(
        lobby_pb2.EnqueueTicketRequest(rules_id="toy"), metadata=other.md
    )
    await h.stub.CancelTicket(
        lobby_pb2.CancelTicketRequest(ticket_id=early.ticket.ticket_id), metadata=other.md
    )
    cached = await queue.cached_profiles([other.player_id], "toy")
    assert cached is not None and cached[other.player_id][2] is None
    secret = h.settings.secret()
    await settle_tables(h.node.lobby.store, h.node.lobby.games, [row], secret, queue=queue)
    await settle_tables(h.node.lobby.store, h.node.lobby.games, [row], secret, queue=queue)
    loser_rating = (
        await h.stub.GetPlayer(lobby_pb2.GetPlayerRequest(), metadata=host.md)
    ).player.ratings
    winner_rating = (
        await h.stub.GetPlayer(
            lobby_pb2.GetPlayerRequest(player_id=other.player_id), metadata=host.md
        )
    ).player.ratings
    assert loser_rating[0].mu < 25.0 < winner_rating[0].mu
    # matchmaking uses the new rating (the stale cached one was dropped)
    ticket = await h.stub.EnqueueTicket(
        lobby_pb2.EnqueueTicketRequest(rules_id="toy"), metadata=other.md
    )
    fields = await queue.get(ticket.ticket.ticket_id)
    assert fields is not None
    assert json.loads(fields["data"])["r"] == [pytest.approx(winner_rating[0].mu)]
    assert loser_rating[0].games == winner_rating[0].games == 1
    board = await h.stub.GetLeaderboard(
        lobby_pb2.GetLeaderboardRequest(rules_id="toy", page=common_pb2.PageRequest(page_size=100)),
        metadata=host.md,
    )
    ranked = [e.player.player_id for e in board.entries]
    # guests are rated (their opponents' ratings move) but not listed on the leaderboard
    assert other.player_id not in ranked and host.player_id not in ranked
    assert all(not e.player.guest for e in board.entries)
    assert h.node.lobby.store.table(table.table_id).status == "finished"


async def test_bots_are_rated_as_pseudo_players(harness: Harness) -> None:
    h = harness
    host = await h.login()
    created = await h.stub.CreateTable(
        lobby_pb2.CreateTableRequest(
            rules_id="toy",
            start_now=True,
            fill_bot=common_pb2.BotSpec(kind="ismcts", difficulty="expert"),
        ),
        metadata=host.md,
    )
    game_id = created.table.game_id
    await h.authority.stub.Resign(
        game_pb2.ResignRequest(game_id=game_id, token=created.assignment.seat_token)
    )
    store = h.node.lobby.store
    row = store.table(created.table.table_id)
    assert row.spectator_token, "the lobby keeps a side-effect-free token for every game"
    await settle_tables(store, h.node.lobby.games, [row], h.settings.secret())
    assert store.table(created.table.table_id).status == "finished"
    bot, ratings = h.node.lobby.store.player("bot:ismcts:expert")
    assert bot.bot and ratings[0].mu > 25.0


async def test_settlement_walks_every_started_game(harness: Harness) -> None:
    from services.lobby.results import settle_finished

    h = harness
    store, queue = h.node.lobby.store, h.node.lobby.queue
    host = await h.login()
    created = []
    for _ in range(3):
        response = await h.stub.CreateTable(
            lobby_pb2.CreateTableRequest(rules_id="toy", start_now=True), metadata=host.md
        )
        created.append(response)
    # only the newest game ends: small batches must still reach it
    last = created[-1]
    await h.authority.stub.Resign(
        game_pb2.ResignRequest(game_id=last.table.game_id, token=last.assignment.seat_token)
    )
    runs = len(store.started_tables(100_000)) // 2 + 2
    for _ in range(runs):
        await settle_finished(store, h.node.lobby.games, h.settings.secret(), queue, batch=2)
        if store.table(last.table.table_id).status == "finished":
            break
    assert store.table(last.table.table_id).status == "finished"
    assert all(store.table(c.table.table_id).status == "started" for c in created[:2])
