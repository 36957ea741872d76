"""Test harness: the real authority and a lobby, both in-process, on the run's Redis/PostgreSQL."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import grpc

from services.common.db import make_engine
from services.common.server import RunningServer, start_server
from services.common.settings import Settings
from services.game.tests.helpers import Replica
from services.lobby.config import LobbySettings
from services.lobby.games import GameClient
from services.lobby.runtime import Lobby, build
from services.lobby.service import SERVICE_NAME, register
from services.lobby.store import LobbyStore
from warroom.v1 import common_pb2, game_pb2, lobby_pb2, lobby_pb2_grpc


def auth(token: str) -> tuple[tuple[str, str], ...]:
    """Call metadata with a player token."""
    return (("authorization", f"Bearer {token}"),)


@dataclass
class Player:
    """A logged-in test player."""

    player_id: str
    token: str

    @property
    def md(self) -> tuple[tuple[str, str], ...]:
        return auth(self.token)


@dataclass
class LobbyNode:
    """One lobby replica: its wiring, server and a client stub."""

    lobby: Lobby
    server: RunningServer
    channel: grpc.aio.Channel
    stub: lobby_pb2_grpc.LobbyServiceAsyncStub

    async def stop(self) -> None:
        await self.channel.close()
        await self.server.stop(0)
        await self.lobby.close()
        self.lobby.store.engine.dispose()


async def start_lobby(settings: Settings, lobby: LobbySettings, authority: Replica) -> LobbyNode:
    """A lobby replica on a free port using the in-process authority."""
    games = GameClient(settings, target=authority.address)
    store = LobbyStore(make_engine(settings.database_url, settings.db_schema))
    wired = build(settings, lobby, games=games, store=store)
    server = await start_server(
        settings, port=0, service_names=[SERVICE_NAME], register=[register(wired.servicer)]
    )
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{server.port}")
    return LobbyNode(wired, server, channel, lobby_pb2_grpc.LobbyServiceStub(channel))


@dataclass
class Harness:
    """An authority and one or more lobby replicas."""

    settings: Settings
    authority: Replica
    nodes: list[LobbyNode] = field(default_factory=list)
    counter: int = 0

    @property
    def node(self) -> LobbyNode:
        return self.nodes[0]

    @property
    def stub(self) -> lobby_pb2_grpc.LobbyServiceAsyncStub:
        return self.nodes[0].stub

    async def login(self, name: str | None = None) -> Player:
        self.counter += 1
        response = await self.stub.Login(lobby_pb2.LoginRequest(name=name or f"p{self.counter}"))
        return Player(response.player_id, response.token)

    async def status(self, player: Player, ticket_id: str) -> lobby_pb2.WatchTicketResponse:
        """The current status of a ticket (the first message of a WatchTicket stream)."""
        call = self.stub.WatchTicket(
            lobby_pb2.WatchTicketRequest(ticket_id=ticket_id), metadata=player.md
        )
        message = await call.read()
        call.cancel()
        assert isinstance(message, lobby_pb2.WatchTicketResponse)
        return message


async def play_to_end(
    authority: Replica,
    game_id: str,
    tokens: list[str],
    seed: int = 1,
    limit: int = 5000,
    bots: dict[int, tuple[str, common_pb2.BotSpec]] | None = None,
) -> common_pb2.GameResult:
    """Drive every seat until the game ends and return the result: seats in `bots`
    (seat -> (rules id, bot spec)) choose with the bots library from their own view, the
    others pick random legal options."""
    rng = random.Random(seed)
    bots = bots or {}
    for _ in range(limit):
        acted = False
        for seat, token in enumerate(tokens):
            view = (
                await authority.stub.GetView(game_pb2.GetViewRequest(game_id=game_id, token=token))
            ).view
            if view.HasField("result") and view.result.seats:
                return view.result
            if not view.decision.options:
                continue
            if seat in bots:
                option_id = _bot_choice(view, seat, *bots[seat])
            else:
                option_id = rng.choice(list(view.decision.options)).id
            await authority.stub.SubmitAction(
                game_pb2.SubmitActionRequest(
                    game_id=game_id,
                    token=token,
                    expected_version=view.version,
                    decision_id=view.decision.decision_id,
                    option_id=option_id,
                )
            )
            acted = True
        assert acted, "no seat could act but the game has no result"
    raise AssertionError(f"game {game_id} did not end within {limit} rounds")


def _bot_choice(view: game_pb2.SeatView, seat: int, rules_id: str, spec: common_pb2.BotSpec) -> str:
    from services.bots import core

    rules = core.load_rules(rules_id)
    choice, _ = core.choose(
        rules_id,
        core.unpack_view(rules, view.view),
        seat,
        core.engine_decision(view.decision, seat),
        core.spec_from_message(spec),
        view.variant,
    )
    return str(choice.option_id)


async def table_tokens(h: Harness, table_id: str) -> list[str]:
    """Every seat token of a started table: the humans' recovered from the authority (the
    lobby keeps digests only), the bots' derived."""
    from services.common.auth import bot_seat_token

    table = h.node.lobby.store.table(table_id)
    assert table.game_id
    humans = await h.node.lobby.servicer._recover_tokens(table)
    key = (
        h.settings.bot_token_key() if hasattr(h.settings, "bot_token_key") else h.settings.secret()
    )
    return [humans[s.index] or bot_seat_token(key, table.game_id, s.index) for s in table.seats]


def reason_of(error: Any) -> str:
    """The ErrorInfo reason of a refused call ("" when it carries none)."""
    from google.rpc import error_details_pb2
    from grpc_status import rpc_status

    status = rpc_status.from_call(error)
    if status is None:
        return ""
    for detail in status.details:
        info = error_details_pb2.ErrorInfo()
        if detail.Is(info.DESCRIPTOR):
            detail.Unpack(info)
            return str(info.reason)
    return ""


def code_of(error: Any) -> grpc.StatusCode:
    return error.code()  # type: ignore[no-any-return]
