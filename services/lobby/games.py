"""The lobby's client of the authority's GameService (internal calls carry the service credential)."""

from __future__ import annotations

from typing import Protocol

import grpc

from services.common.auth import service_metadata
from services.common.settings import Settings
from warroom.v1 import game_pb2, game_pb2_grpc


class GameCreator(Protocol):
    """What the lobby needs from the authority."""

    async def create_game(
        self, request: game_pb2.CreateGameRequest
    ) -> game_pb2.CreateGameResponse: ...

    async def view(self, game_id: str, token: str) -> game_pb2.SeatView: ...


class GameClient:
    """GameService over a grpc.aio channel."""

    def __init__(self, settings: Settings, target: str | None = None, timeout_s: float = 10.0):
        self.target = target or f"{settings.host}:{settings.game_port}"
        self.channel = grpc.aio.insecure_channel(self.target)
        self.stub = game_pb2_grpc.GameServiceStub(self.channel)
        self.metadata = service_metadata(settings)
        self.timeout_s = timeout_s

    async def create_game(self, request: game_pb2.CreateGameRequest) -> game_pb2.CreateGameResponse:
        """CreateGame with the service credential (idempotent on request_id)."""
        response: game_pb2.CreateGameResponse = await self.stub.CreateGame(
            request, metadata=self.metadata, timeout=self.timeout_s
        )
        return response

    async def view(self, game_id: str, token: str) -> game_pb2.SeatView:
        """A seat's view (the lobby reads results with a stored seat token)."""
        response = await self.stub.GetView(
            game_pb2.GetViewRequest(game_id=game_id, token=token), timeout=self.timeout_s
        )
        return response.view

    async def close(self) -> None:
        await self.channel.close()
