"""Every RPC of every service, called as every role, answers as docs/api.md's table says.

The table ("Authorization matrix" in docs/api.md, between the `authz-matrix` markers) is
parsed here; the RPCs are enumerated from the services' descriptors, so an RPC added without
a row (or a row without a request builder below) fails the test, and docs and behaviour
cannot drift apart. Cells: `allow` (the call is not refused for who the caller is: OK, or a
refusal about the request itself such as INVALID_ARGUMENT or FAILED_PRECONDITION),
`unauthenticated`, `denied` (PERMISSION_DENIED), `hidden` (NOT_FOUND: the resource is not
revealed to this caller).
"""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest
import pytest_asyncio
from sqlalchemy.engine import Engine

from services.bots.server import BotServicer
from services.bots.settings import BotSettings
from services.bots.tests.test_server import _given as given_position
from services.catalog.service import CatalogServicer
from services.common.auth import service_metadata
from services.common.db import migrate
from services.common.server import RunningServer, start_server
from services.common.settings import Settings
from services.game.tests.helpers import start_replica, toy_request
from services.lobby.config import LobbySettings
from services.lobby.tests.harness import Harness, start_lobby
from warroom.v1 import (
    bots_pb2,
    bots_pb2_grpc,
    catalog_pb2,
    catalog_pb2_grpc,
    common_pb2,
    game_pb2,
    lobby_pb2,
)

ROOT = Path(__file__).resolve().parents[2]
ROLES = ("none", "guest", "player", "other seat", "spectator", "admin", "service", "host")
SERVICES = (
    ("LobbyService", lobby_pb2),
    ("CatalogService", catalog_pb2),
    ("GameService", game_pb2),
    ("BotService", bots_pb2),
)
OUTCOMES = {"allow", "unauthenticated", "denied", "hidden"}
Metadata = tuple[tuple[str, str], ...]


def documented_matrix() -> dict[str, dict[str, str]]:
    """The table of docs/api.md between `<!-- authz-matrix:start -->` and `:end -->`."""
    text = (ROOT / "docs" / "api.md").read_text()
    match = re.search(r"<!-- authz-matrix:start -->(.*?)<!-- authz-matrix:end -->", text, re.S)
    assert match, "docs/api.md has no authorization matrix (authz-matrix markers)"
    rows = [line for line in match.group(1).splitlines() if line.startswith("|")]
    header = [cell.strip() for cell in rows[0].strip("|").split("|")]
    assert header[1:] == list(ROLES), f"the matrix columns must be {ROLES}, not {header[1:]}"
    table: dict[str, dict[str, str]] = {}
    for row in rows[1:]:
        if re.fullmatch(r"[|\s:-]+", row):
            continue  # the header's separator
        cells = [cell.strip().strip("`") for cell in row.strip("|").split("|")]
        rpc = cells[0]
        assert rpc not in table, f"{rpc} has two rows"
        assert set(cells[1:]) <= OUTCOMES, f"{rpc}: unknown outcome in {cells[1:]}"
        table[rpc] = dict(zip(ROLES, cells[1:], strict=True))
    return table


def every_rpc() -> list[str]:
    """Service.Method for every RPC of every Warroom service (from the descriptors)."""
    return [
        f"{name}.{method.name}"
        for name, module in SERVICES
        for method in module.DESCRIPTOR.services_by_name[name].methods
    ]


def outcome(code: grpc.StatusCode) -> str:
    """The matrix outcome of a status code."""
    return {
        grpc.StatusCode.UNAUTHENTICATED: "unauthenticated",
        grpc.StatusCode.PERMISSION_DENIED: "denied",
        grpc.StatusCode.NOT_FOUND: "hidden",
    }.get(code, "allow")


# ---------------------------------------------------------------------- the world


@dataclass
class Caller:
    """One role: its lobby metadata and the token it would put in a GameService request."""

    metadata: Metadata
    game_token: str
    player_id: str = ""


@dataclass
class World:
    """Players, a game per row, and the stubs, built once per test."""

    h: Harness
    settings: Settings
    bots: Any
    catalog: Any
    users: dict[str, Any] = field(default_factory=dict)

    @property
    def lobby(self) -> Any:
        return self.h.stub

    @property
    def game(self) -> Any:
        return self.h.authority.stub

    async def register(self, name: str) -> Any:
        response = await self.lobby.Login(
            lobby_pb2.LoginRequest(name=name, password="correct horse battery", register=True)
        )
        return response

    async def new_game(self) -> game_pb2.CreateGameResponse:
        response: game_pb2.CreateGameResponse = await self.game.CreateGame(
            toy_request(
                request_id=uuid.uuid4().hex,
                seats=[
                    game_pb2.SeatSpec(player_id=self.users["host"].player_id, display_name="host"),
                    game_pb2.SeatSpec(player_id="opponent", display_name="opponent"),
                ],
            ),
            metadata=service_metadata(self.settings),
        )
        return response

    async def started_table(self) -> tuple[str, str]:
        """A public toy table the host started against a bot: (table id, game id)."""
        created = await self.lobby.CreateTable(
            lobby_pb2.CreateTableRequest(
                rules_id="toy",
                allow_spectators=True,
                start_now=True,
                fill_bot=common_pb2.BotSpec(kind="random"),
            ),
            metadata=self.md("host"),
        )
        return str(created.table.table_id), str(created.assignment.game_id)

    async def new_table(self) -> str:
        created = await self.lobby.CreateTable(
            lobby_pb2.CreateTableRequest(rules_id="toy"), metadata=self.md("host")
        )
        return str(created.table.table_id)

    def md(self, user: str) -> Metadata:
        return (("authorization", f"Bearer {self.users[user].token}"),)

    def callers(self, game: game_pb2.CreateGameResponse, other: str) -> dict[str, Caller]:
        """Each role's credentials towards `game` (`other`: a seat token of another game)."""
        service = service_metadata(self.settings)
        return {
            "none": Caller((), ""),
            "guest": Caller(self.md("guest"), self.users["guest"].token),
            "player": Caller(self.md("player"), self.users["player"].token),
            "other seat": Caller(self.md("other"), other),
            "spectator": Caller(self.md("watcher"), game.spectator_token),
            "admin": Caller(self.md("admin"), self.users["admin"].token),
            "service": Caller(service, service[0][1].removeprefix("Bearer ")),
            "host": Caller(self.md("host"), game.seat_tokens[0]),
        }


# ---------------------------------------------------------------------- requests per RPC
# Each builder makes the request a role sends, against objects the host owns; it may set up
# fresh objects (a table, a ticket, a party invitation) so every row starts from the same
# state. Returns (stub method name on the service, request).

Builder = Callable[[World, game_pb2.CreateGameResponse], Awaitable[Any]]


async def _host_ticket(w: World) -> str:
    with_ticket = await w.lobby.ListMyTickets(
        lobby_pb2.ListMyTicketsRequest(), metadata=w.md("host")
    )
    for ticket in with_ticket.tickets:
        if ticket.status == lobby_pb2.TICKET_STATUS_SEARCHING:
            return str(ticket.ticket_id)
    made = await w.lobby.EnqueueTicket(
        lobby_pb2.EnqueueTicketRequest(rules_id="toy", ttl_s=600), metadata=w.md("host")
    )
    return str(made.ticket.ticket_id)


async def _party_invite(w: World) -> str:
    """The host invites `player`; the invitation's party id."""
    invited = await w.lobby.InviteToParty(
        lobby_pb2.InviteToPartyRequest(player_id=w.users["player"].player_id),
        metadata=w.md("host"),
    )
    return str(invited.party.party_id)


async def build(w: World, rpc: str, game: game_pb2.CreateGameResponse) -> Any:
    """The request of one RPC (set-up included)."""
    host_id = w.users["host"].player_id
    simple: dict[str, Any] = {
        "LobbyService.Login": lambda: lobby_pb2.LoginRequest(name=f"g{uuid.uuid4().hex[:8]}"),
        "LobbyService.ListTables": lambda: lobby_pb2.ListTablesRequest(rules_id="toy"),
        "LobbyService.GetPlayer": lambda: lobby_pb2.GetPlayerRequest(player_id=host_id),
        "LobbyService.GetLeaderboard": lambda: lobby_pb2.GetLeaderboardRequest(rules_id="toy"),
        "LobbyService.ListMyTickets": lobby_pb2.ListMyTicketsRequest,
        "LobbyService.GetParty": lobby_pb2.GetPartyRequest,
        "LobbyService.LeaveParty": lobby_pb2.LeavePartyRequest,
        "LobbyService.ListMyGames": lambda: lobby_pb2.ListMyGamesRequest(include_finished=True),
        "LobbyService.ListLiveGames": lambda: lobby_pb2.ListLiveGamesRequest(rules_id="toy"),
        "LobbyService.GetEndpoints": lobby_pb2.GetEndpointsRequest,
        "LobbyService.EnqueueTicket": lambda: lobby_pb2.EnqueueTicketRequest(
            rules_id="toy", ttl_s=60
        ),
        "LobbyService.InviteToParty": lambda: lobby_pb2.InviteToPartyRequest(
            player_id=w.users["invitee"].player_id
        ),
        "LobbyService.CreateTable": lambda: lobby_pb2.CreateTableRequest(rules_id="toy"),
        "CatalogService.ListGameKinds": catalog_pb2.ListGameKindsRequest,
        "CatalogService.GetCatalog": lambda: catalog_pb2.GetCatalogRequest(rules_id="ncw"),
        "GameService.CreateGame": lambda: toy_request(request_id=uuid.uuid4().hex),
        "GameService.ListGames": game_pb2.ListGamesRequest,
        "BotService.ListBots": lambda: bots_pb2.ListBotsRequest(rules_id="toy"),
        "BotService.ChooseAction": lambda: bots_pb2.ChooseActionRequest(
            rules_id="toy", given=given_position()[0], bot=common_pb2.BotSpec(kind="random")
        ),
    }
    if rpc in simple:
        return simple[rpc]()
    if rpc in ("LobbyService.JoinTable", "LobbyService.LeaveTable", "LobbyService.StartTable"):
        table = await w.new_table()
        kind = {"JoinTable": lobby_pb2.JoinTableRequest, "LeaveTable": lobby_pb2.LeaveTableRequest}
        return kind.get(rpc.split(".")[1], lobby_pb2.StartTableRequest)(table_id=table)
    if rpc in ("LobbyService.CancelTicket", "LobbyService.WatchTicket"):
        ticket = await _host_ticket(w)
        if rpc.endswith("CancelTicket"):
            return lobby_pb2.CancelTicketRequest(ticket_id=ticket)
        return lobby_pb2.WatchTicketRequest(ticket_id=ticket)
    if rpc in ("LobbyService.GetSeatAccess", "LobbyService.GetSpectatorAccess"):
        table, game_id = await w.started_table()
        if rpc.endswith("GetSeatAccess"):
            return lobby_pb2.GetSeatAccessRequest(table_id=table)
        return lobby_pb2.GetSpectatorAccessRequest(game_id=game_id)
    if rpc == "LobbyService.AcceptPartyInvite":
        return lobby_pb2.AcceptPartyInviteRequest(party_id=await _party_invite(w))
    if rpc == "LobbyService.DeclinePartyInvite":
        return lobby_pb2.DeclinePartyInviteRequest(party_id=await _party_invite(w))
    return None  # GameService seat RPCs: built per caller (they carry the token)


def seat_request(
    rpc: str, game: game_pb2.CreateGameResponse, token: str, view: game_pb2.SeatView
) -> Any:
    """A GameService request carrying a token (SubmitAction: any option of the decision)."""
    gid = game.game_id
    method = rpc.split(".")[1]
    if method == "GetView":
        return game_pb2.GetViewRequest(game_id=gid, token=token)
    if method == "WatchGame":
        return game_pb2.WatchGameRequest(game_id=gid, token=token)
    if method == "Resign":
        return game_pb2.ResignRequest(game_id=gid, token=token)
    if method == "GetReplay":
        return game_pb2.GetReplayRequest(game_id=gid, token=token)
    if method == "GetReplayViews":
        return game_pb2.GetReplayViewsRequest(game_id=gid, token=token)
    if method == "SubmitAction":
        return game_pb2.SubmitActionRequest(
            game_id=gid,
            token=token,
            expected_version=view.version,
            decision_id=view.decision.decision_id,
            option_id=view.decision.options[0].id if view.decision.options else "none",
            idempotency_key=uuid.uuid4().hex,
        )
    return None


async def call(stub: Any, method: str, request: Any, metadata: Metadata) -> grpc.StatusCode:
    """The status of one call (a stream: of its first message)."""
    try:
        answer = getattr(stub, method)(request, metadata=metadata, timeout=15)
        if hasattr(answer, "read"):
            await answer.read()
            answer.cancel()
        else:
            await answer
    except grpc.aio.AioRpcError as error:
        return error.code()
    return grpc.StatusCode.OK


async def measure(w: World) -> dict[str, dict[str, tuple[str, grpc.StatusCode]]]:
    """Every RPC called by every role: outcome and code."""
    stubs = {"LobbyService": w.lobby, "CatalogService": w.catalog, "GameService": w.game}
    stubs["BotService"] = w.bots
    measured: dict[str, dict[str, tuple[str, grpc.StatusCode]]] = {}
    other_game = await w.new_game()
    for rpc in every_rpc():
        service, method = rpc.split(".")
        game = await w.new_game()
        request = game_pb2.GetViewRequest(game_id=game.game_id, token=game.seat_tokens[0])
        view = (await w.game.GetView(request)).view
        row: dict[str, tuple[str, grpc.StatusCode]] = {}
        for role, caller in w.callers(game, other_game.seat_tokens[0]).items():
            request = await build(w, rpc, game)
            if request is None:
                request = seat_request(rpc, game, caller.game_token, view)
            metadata = caller.metadata if service != "GameService" else ()
            if rpc in ("GameService.CreateGame", "GameService.ListGames"):
                metadata = caller.metadata
            code = await call(stubs[service], method, request, metadata)
            row[role] = (outcome(code), code)
        measured[rpc] = row
    return measured


# ---------------------------------------------------------------------- fixtures and test


@pytest.fixture(scope="module")
def migrated(db_engine: Engine) -> Engine:
    migrate(db_engine)
    return db_engine


@pytest_asyncio.fixture
async def world(
    redis_url: str, redis_prefix: str, database_url: str, db_schema: str, migrated: Engine
) -> AsyncIterator[World]:
    settings = BotSettings(
        redis_url=redis_url,
        redis_prefix=redis_prefix,
        database_url=database_url,
        db_schema=db_schema,
        service_secret=f"matrix-{uuid.uuid4().hex}",
        extra_games="toy=tests.engine.toy_game:ToyRules",
        game_rate_per_second=10_000.0,
        game_rate_burst=10_000,
    )
    settings.register_extra_games()
    authority = await start_replica(settings)
    h = Harness(settings, authority)
    h.nodes.append(await start_lobby(settings, LobbySettings(watch_interval_s=0.2), authority))
    bots = BotServicer(settings, game_stub=authority.stub)
    side: RunningServer = await start_server(
        settings,
        port=0,
        service_names=["warroom.v1.BotService", "warroom.v1.CatalogService"],
        register=[
            lambda server: bots_pb2_grpc.add_BotServiceServicer_to_server(bots, server),
            lambda server: catalog_pb2_grpc.add_CatalogServiceServicer_to_server(
                CatalogServicer(), server
            ),
        ],
    )
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{side.port}")
    w = World(
        h,
        settings,
        bots_pb2_grpc.BotServiceStub(channel),  # type: ignore[no-untyped-call]
        catalog_pb2_grpc.CatalogServiceStub(channel),  # type: ignore[no-untyped-call]
    )
    try:
        for name in ("host", "player", "other", "watcher", "admin", "invitee"):
            w.users[name] = await w.register(f"{name}-{uuid.uuid4().hex[:6]}")
        w.users["guest"] = await w.lobby.Login(lobby_pb2.LoginRequest(name="guest"))
        yield w
    finally:
        await channel.close()
        await side.stop(0)
        await bots.close()
        for node in h.nodes:
            await node.stop()
        await authority.stop()


def test_every_rpc_has_a_documented_row() -> None:
    table = documented_matrix()
    missing = [rpc for rpc in every_rpc() if rpc not in table]
    stale = [rpc for rpc in table if rpc not in every_rpc()]
    assert not missing, f"RPCs missing from docs/api.md's authorization matrix: {missing}"
    assert not stale, f"rows for RPCs that no longer exist: {stale}"


@pytest.mark.timeout(300)
async def test_every_rpc_answers_every_role_as_documented(world: World) -> None:
    measured = await asyncio.wait_for(measure(world), 240)
    lines = ["| RPC | " + " | ".join(ROLES) + " |", "|---" * (len(ROLES) + 1) + "|"]
    for rpc, row in measured.items():
        lines.append(f"| `{rpc}` | " + " | ".join(row[r][0] for r in ROLES) + " |")
    print("\n".join(lines))
    table = documented_matrix()
    wrong = [
        f"{rpc} as {role}: documented {table.get(rpc, {}).get(role)}, answered {code.name}"
        for rpc, row in measured.items()
        for role, (got, code) in row.items()
        if table.get(rpc, {}).get(role) != got
    ]
    cells = sum(len(row) for row in measured.values())
    print(f"{len(measured)} RPCs x {len(ROLES)} roles = {cells} calls; {len(wrong)} differ")
    assert not wrong, "\n".join(wrong)
