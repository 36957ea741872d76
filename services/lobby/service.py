"""The grpc.aio LobbyService: players, tables, matchmaking tickets, parties, my games,
games to watch, ratings and endpoints.

Every call but Login and GetEndpoints needs `authorization: Bearer <player token>`. Every
refusal is a status with a stable reason (google.rpc.ErrorInfo, domain `warroom.lobby`)
and changes nothing. The handlers live in one module per concern, mixed in here:
`tables`, `tickets`, `party_calls`, `my_games` (plumbing in `base`).
"""

from __future__ import annotations

from collections.abc import Callable

import grpc

from services.common import validation
from services.lobby.auth import Identity, issue_token
from services.lobby.base import Context, LobbyBase, page, ts
from services.lobby.director import game_kind
from services.lobby.models import PlayerRow, RatingRow
from services.lobby.my_games import GamesMixin
from services.lobby.party_calls import PartiesMixin
from services.lobby.tables import TablesMixin
from services.lobby.tickets import TicketsMixin
from warroom.engine.registry import game_ids
from warroom.v1 import lobby_pb2, lobby_pb2_grpc

SERVICE_NAME = lobby_pb2.DESCRIPTOR.services_by_name["LobbyService"].full_name


class PlayersMixin(LobbyBase):
    """Login, GetPlayer, GetLeaderboard, GetEndpoints."""

    async def Login(
        self, request: lobby_pb2.LoginRequest, context: Context
    ) -> lobby_pb2.LoginResponse:
        async def call() -> lobby_pb2.LoginResponse:
            player = await self._db(
                self.store.login, request.name, request.password, request.register
            )
            means = await self._db(self.store.means, player.id)
            await self.queue.cache_profile(
                player.id,
                player.display_name,
                player.bot,
                {game: means.get(game) for game in {*game_ids(), *means}},
                self.lobby.token_ttl_s,
            )
            token, expires = issue_token(
                self.key, player.id, player.display_name, player.guest, self.lobby.token_ttl_s
            )
            self._remember(token, Identity(player.id, player.display_name, player.guest, expires))
            return lobby_pb2.LoginResponse(
                player_id=player.id,
                display_name=player.display_name,
                token=token,
                expires_at=ts(expires),
                guest=player.guest,
                endpoints=self.endpoints(),
            )

        return await self._run(context, call)

    async def GetEndpoints(
        self, request: lobby_pb2.GetEndpointsRequest, context: Context
    ) -> lobby_pb2.GetEndpointsResponse:
        """The public endpoints (no token needed: a client asks before logging in)."""
        return lobby_pb2.GetEndpointsResponse(endpoints=self.endpoints())

    def _rating(self, row: RatingRow) -> lobby_pb2.Rating:
        return lobby_pb2.Rating(
            game=game_kind(row.game),
            rules_id=row.game,
            mu=row.mu,
            sigma=row.sigma,
            ordinal=row.ordinal,
            games=row.games,
        )

    def _player(self, player: PlayerRow, ratings: list[RatingRow]) -> lobby_pb2.Player:
        return lobby_pb2.Player(
            player_id=player.id,
            display_name=player.display_name,
            guest=player.guest,
            bot=player.bot,
            ratings=[self._rating(r) for r in ratings],
            created_at=ts(player.created_at),
        )

    async def GetPlayer(
        self, request: lobby_pb2.GetPlayerRequest, context: Context
    ) -> lobby_pb2.GetPlayerResponse:
        async def call() -> lobby_pb2.GetPlayerResponse:
            me = self._identity(context)
            validation.check_id(request.player_id, "player_id", required=False)
            player, ratings = await self._db(self.store.player, request.player_id or me.player_id)
            return lobby_pb2.GetPlayerResponse(player=self._player(player, ratings))

        return await self._run(context, call)

    async def GetLeaderboard(
        self, request: lobby_pb2.GetLeaderboardRequest, context: Context
    ) -> lobby_pb2.GetLeaderboardResponse:
        async def call() -> lobby_pb2.GetLeaderboardResponse:
            self._identity(context)
            game = self._game(request.game, request.rules_id)
            offset, size = page(request.page, self.lobby.page_size_max)
            rows = await self._db(self.store.leaderboard, game, offset, size + 1)
            entries = [
                lobby_pb2.LeaderboardEntry(
                    rank=offset + i + 1, player=self._player(p, []), rating=self._rating(r)
                )
                for i, (p, r) in enumerate(rows[:size])
            ]
            return lobby_pb2.GetLeaderboardResponse(
                entries=entries, next_page_token=str(offset + size) if len(rows) > size else ""
            )

        return await self._run(context, call)


class LobbyServicer(
    PlayersMixin,
    TablesMixin,
    TicketsMixin,
    PartiesMixin,
    GamesMixin,
    lobby_pb2_grpc.LobbyServiceServicer,
):
    """LobbyService over the SQL store, the Redis ticket queue and the authority."""


def register(servicer: LobbyServicer) -> Callable[[grpc.aio.Server], None]:
    """A registration callback for `services.common.server.start_server`."""

    def add(server: grpc.aio.Server) -> None:
        lobby_pb2_grpc.add_LobbyServiceServicer_to_server(servicer, server)

    return add
