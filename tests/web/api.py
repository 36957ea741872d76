"""What the browser tests check behind the page: the platform's own answers over gRPC
(the service credential, derived bot seat tokens, a seat played by the test itself)."""

from __future__ import annotations

import random
from collections.abc import Iterable

import grpc
from google.protobuf.message import Message

from services.common.auth import bot_seat_token
from tests.web.conftest import WebPlatform
from warroom.v1 import common_pb2, game_pb2, game_pb2_grpc, lobby_pb2, lobby_pb2_grpc

GAME_KINDS = {
    "ncw": common_pb2.GAME_KIND_NEW_COLD_WAR,
    "qmg_cw": common_pb2.GAME_KIND_QMG_COLD_WAR,
    "qmg_sf": common_pb2.GAME_KIND_QMG_SOUTH_FRONT,
}


class Backend:
    """Sync gRPC access to a running platform for checks and scripted players."""

    def __init__(self, platform: WebPlatform) -> None:
        self.platform = platform
        self._lobby_channel = grpc.insecure_channel(platform.lobby)
        self._game_channel = grpc.insecure_channel(platform.game)
        self.lobby = lobby_pb2_grpc.LobbyServiceStub(self._lobby_channel)
        self.game = game_pb2_grpc.GameServiceStub(self._game_channel)

    def close(self) -> None:
        self._lobby_channel.close()
        self._game_channel.close()

    @property
    def service_md(self) -> tuple[tuple[str, str], ...]:
        return (("authorization", f"Bearer {self.platform.keys['WARROOM_SERVICE_SECRET']}"),)

    def bot_token(self, game_id: str, seat: int) -> str:
        """The derived token of a bot seat (what the bot worker uses)."""
        key = self.platform.keys["WARROOM_BOT_TOKEN_SECRET"].encode()
        return bot_seat_token(key, game_id, seat)

    def summary(self, game_id: str, rules_id: str) -> game_pb2.GameSummary:
        """The authority's summary of one game (admin ListGames)."""
        token = ""
        for _ in range(100):
            page = self.game.ListGames(
                game_pb2.ListGamesRequest(
                    rules_id=rules_id, page=common_pb2.PageRequest(page_size=100, page_token=token)
                ),
                metadata=self.service_md,
            )
            for game in page.games:
                if game.game_id == game_id:
                    return game
            token = page.next_page_token
            if not token:
                break
        raise AssertionError(f"game {game_id} is not listed by the authority")

    def view(self, game_id: str, token: str) -> game_pb2.SeatView:
        return self.game.GetView(game_pb2.GetViewRequest(game_id=game_id, token=token)).view

    def leaderboard(self, rules_id: str) -> list[str]:
        """The display names of a title's leaderboard, best first (first 50)."""
        token = self.login("leaderboard-reader").token
        board = self.lobby.GetLeaderboard(
            lobby_pb2.GetLeaderboardRequest(
                rules_id=rules_id, page=common_pb2.PageRequest(page_size=50)
            ),
            metadata=(("authorization", f"Bearer {token}"),),
        )
        return [entry.player.display_name for entry in board.entries]

    def tickets(self, token: str) -> list[lobby_pb2.Ticket]:
        """The matchmaking tickets of the player with this login token."""
        mine = self.lobby.ListMyTickets(
            lobby_pb2.ListMyTicketsRequest(), metadata=(("authorization", f"Bearer {token}"),)
        )
        return list(mine.tickets)

    def login(self, name: str) -> lobby_pb2.LoginResponse:
        return self.lobby.Login(lobby_pb2.LoginRequest(name=name))

    def bot_table(
        self, token: str, rules_id: str, variant: str, bot: str = "random"
    ) -> lobby_pb2.CreateTableResponse:
        """A started public table with spectators: the caller's seat plus bots."""
        return self.lobby.CreateTable(
            lobby_pb2.CreateTableRequest(
                rules_id=rules_id,
                variant=variant,
                start_now=True,
                allow_spectators=True,
                fill_bot=common_pb2.BotSpec(kind=bot),
            ),
            metadata=(("authorization", f"Bearer {token}"),),
        )

    def act(self, game_id: str, token: str, rng: random.Random) -> bool:
        """Answer this seat's pending decision with a random non-undo option (False: nothing owed)."""
        view = self.view(game_id, token)
        options = [o for o in view.decision.options if o.kind != common_pb2.OPTION_KIND_UNDO]
        if not options:
            return False
        try:
            self.game.SubmitAction(
                game_pb2.SubmitActionRequest(
                    game_id=game_id,
                    token=token,
                    expected_version=view.version,
                    decision_id=view.decision.decision_id,
                    option_id=rng.choice(options).id,
                )
            )
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.ABORTED:  # type: ignore[attr-defined]
                raise
        return True


def unpack(view: game_pb2.SeatView) -> Message:
    """The typed view of a SeatView (its game's View message)."""
    from google.protobuf import symbol_database

    type_name = view.view.TypeName()
    message_class = symbol_database.Default().GetSymbol(type_name)
    message: Message = message_class()
    view.view.Unpack(message)
    return message


def ints(values: Iterable[int]) -> set[int]:
    return {int(v) for v in values}
