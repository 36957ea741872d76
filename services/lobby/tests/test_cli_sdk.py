"""The SDK and the `warroom` CLI against the real lobby and authority: parties with consent,
my tickets, my games with seat recovery, games to watch, endpoints, reasons on errors."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from services.lobby.tests.harness import Harness
from warroom.cli.main import app
from warroom.sdk import Client, WarroomError
from warroom.v1 import lobby_pb2


def _address(h: Harness) -> str:
    return f"127.0.0.1:{h.node.server.port}"


async def test_sdk_parties_tickets_games_and_watching(harness: Harness) -> None:
    h = harness
    async with Client(_address(h)) as leader, Client(_address(h)) as member:
        await leader.login("Leader")
        await member.login("Member")
        assert leader.bots_endpoint == (await leader.endpoints()).bots_endpoint
        with pytest.raises(WarroomError) as info:
            await leader.enqueue(0, party=[member.player_id])
        assert info.value.reason == "MISSING_FIELD"
        party = await leader.invite(member.player_id)
        pending = await member.party()
        assert [i.party_id for i in pending.invites] == [party.party_id]
        await member.accept_invite(party.party_id)
        ticket = await leader.enqueue("ncw", variants=["4p"], with_party=True)
        assert list(ticket.player_ids) == [leader.player_id, member.player_id]
        assert [t.ticket_id for t in await member.my_tickets()] == [ticket.ticket_id]
        with pytest.raises(WarroomError) as info:
            await member.enqueue("ncw")
        assert info.value.reason == "ALREADY_QUEUED" and "[ALREADY_QUEUED]" in str(info.value)
        await member.cancel_ticket(ticket.ticket_id)
        await member.leave_party()
        assert not (await leader.party()).party.members[1:]
        # a public table with spectators: my games, seat recovery, watching
        created = await leader._ask(
            "CreateTable",
            lobby_pb2.CreateTableRequest(rules_id="toy", allow_spectators=True),
        )
        await member.join_table(created.table.table_id)
        started = await leader.start_table(created.table.table_id)
        mine = await leader.my_games()
        assert [g.game_id for g in mine] == [started.table.game_id] and mine[0].live_info
        seat = await leader.seat_access(started.table.game_id)
        assert seat.seat_token == started.assignment.seat_token
        watchable = [g.game_id for g in await member.live_games()]
        assert started.table.game_id in watchable
        access = await member.spectate(started.table.game_id)
        session = member.game(
            game_id=access.game_id, token=access.spectator_token, endpoint=h.authority.address
        )
        view = await session.view()
        assert view.seat == -1


def _cli(home: Path, *args: str) -> str:
    result = CliRunner().invoke(
        app, list(args), env={"WARROOM_CLI_HOME": str(home), "COLUMNS": "250"}
    )
    assert result.exit_code == 0, result.output
    return result.output


async def test_cli_party_flow_games_and_live(harness: Harness, tmp_path: Path) -> None:
    h = harness
    lobby = _address(h)
    alice, bob = tmp_path / "alice", tmp_path / "bob"

    def run(home: Path, *args: str) -> asyncio.Future[str]:
        return asyncio.ensure_future(asyncio.to_thread(_cli, home, *args))

    await run(alice, "login", "Alice", "--lobby", lobby)
    await run(bob, "login", "Bob", "--lobby", lobby)
    bob_id = json.loads((bob / "session.json").read_text())["player_id"]
    invited = await run(alice, "invite", bob_id)
    party_id = invited.split("party ")[1].split(".")[0]
    shown = await run(bob, "party")
    assert f"warroom accept {party_id}" in shown
    joined = await run(bob, "accept", party_id)
    assert "You joined party" in joined
    assert "Bob" in await run(alice, "party")
    assert "No active ticket." in await run(bob, "tickets")
    await run(bob, "leave-party")
    assert "You are in no party" in await run(bob, "party")
    # a started public table shows in `games` (with whose turn) and `live`
    async with Client(lobby) as a, Client(lobby) as b:
        await a.login("Host")
        await b.login("Guest")
        created = await a._ask(
            "CreateTable", lobby_pb2.CreateTableRequest(rules_id="toy", allow_spectators=True)
        )
        await b.join_table(created.table.table_id)
        started = await a.start_table(created.table.table_id)
    listing = await run(alice, "live")
    assert started.table.game_id in listing
    # the CLI's own games: none for Alice yet
    assert "Your games" in await run(alice, "games", "--finished")
