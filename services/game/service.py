"""The grpc.aio GameService: maps requests onto the authority and GameError onto rich statuses."""

from __future__ import annotations

import functools
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

import grpc
from grpc_status import rpc_status

from services.common import validation
from services.common.auth import is_service_call
from services.common.errors import RpcError
from services.common.logging import get_logger
from services.common.settings import Settings
from services.game import errors, metrics
from services.game.authority import Authority
from services.game.store import now
from warroom.v1 import game_pb2, game_pb2_grpc

log = get_logger("game.service")
T = TypeVar("T")
SERVICE_NAME = game_pb2.DESCRIPTOR.services_by_name["GameService"].full_name


@functools.cache
def _latency(method: str) -> Any:
    """The latency histogram child of one method (looked up once)."""
    return metrics.LATENCY.labels(method)


async def _abort(context: grpc.aio.ServicerContext[Any, Any], error: RpcError) -> None:
    metrics.REJECTS.labels(error.reason).inc()
    status = rpc_status.to_status(error.status(errors.DOMAIN))
    await context.abort(status.code, status.details, status.trailing_metadata)


def _check_create(request: game_pb2.CreateGameRequest) -> None:
    """Edge validation of CreateGame: a known game, clean options and names, and a bot
    every bot seat's spec names that can play the game (a seat nothing can play would
    stall the game forever)."""
    game = validation.check_game(request.game, request.rules_id)
    validation.check_options(request.options)
    validation.check_text(request.variant, "variant", validation.OPTION_MAX)
    validation.check_text(request.request_id, "request_id", 128)
    for index, seat in enumerate(request.seats):
        field = f"seats[{index}]"
        validation.check_text(seat.player_id, f"{field}.player_id", validation.ID_MAX)
        validation.check_text(seat.display_name, f"{field}.display_name", 64)
        if seat.bot.kind or seat.bot.difficulty:
            if not seat.bot.kind:
                raise validation.invalid(
                    "MISSING_FIELD", f"seat {index}: a bot seat needs bot.kind", f"{field}.bot"
                )
            validation.check_bot(seat.bot.kind, seat.bot.difficulty, game, f"{field}.bot")
        if seat.HasField("clock"):
            validation.check_clock(seat.clock, game, f"{field}.clock")


class GameServicer(game_pb2_grpc.GameServiceServicer):
    """GameService over an `Authority`."""

    def __init__(self, authority: Authority, settings: Settings) -> None:
        self.authority = authority
        self.settings = settings

    async def _run(
        self,
        method: str,
        context: grpc.aio.ServicerContext[Any, Any],
        call: Callable[[], Awaitable[T]],
    ) -> T:
        started = time.perf_counter()
        try:
            return await call()
        except RpcError as error:
            await _abort(context, error)
            raise AssertionError("unreachable") from None
        finally:
            _latency(method).observe(time.perf_counter() - started)

    async def _internal(self, context: grpc.aio.ServicerContext[Any, Any], what: str) -> None:
        if not is_service_call(context.invocation_metadata(), self.settings):
            await _abort(
                context,
                errors.denied(
                    "SERVICE_CREDENTIAL_REQUIRED",
                    f"{what} is internal: it requires the service credential "
                    "(authorization: Bearer <credential>)",
                ),
            )

    async def CreateGame(
        self, request: game_pb2.CreateGameRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> game_pb2.CreateGameResponse:
        """Create a game (service credential)."""
        await self._internal(context, "CreateGame")

        async def call() -> game_pb2.CreateGameResponse:
            _check_create(request)
            return await self.authority.create(request)

        return await self._run("CreateGame", context, call)

    async def GetView(
        self, request: game_pb2.GetViewRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> game_pb2.GetViewResponse:
        """A seat's or spectator's view."""

        async def call() -> game_pb2.GetViewResponse:
            view = await self.authority.view(request.game_id, request.token)
            return game_pb2.GetViewResponse(view=view)

        return await self._run("GetView", context, call)

    async def SubmitAction(
        self, request: game_pb2.SubmitActionRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> game_pb2.SubmitActionResponse:
        """Apply one option durably."""

        async def call() -> game_pb2.SubmitActionResponse:
            validation.check_text(request.idempotency_key, "idempotency_key", 128)
            version, view = await self.authority.submit(
                request.game_id,
                request.token,
                request.expected_version,
                request.decision_id,
                request.option_id,
                request.idempotency_key,
                with_view=not request.omit_view,
            )
            return game_pb2.SubmitActionResponse(version=version, view=view)

        return await self._run("SubmitAction", context, call)

    async def WatchGame(
        self, request: game_pb2.WatchGameRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[game_pb2.WatchGameResponse]:
        """Seat-filtered updates."""
        try:
            async for update in self.authority.watch(
                request.game_id, request.token, request.from_version
            ):
                yield update
        except errors.GameError as error:
            await _abort(context, error)

    async def Resign(
        self, request: game_pb2.ResignRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> game_pb2.ResignResponse:
        """Resign a seat."""
        from warroom.api import convert

        async def call() -> game_pb2.ResignResponse:
            version, result = await self.authority.resign(request.game_id, request.token)
            response = game_pb2.ResignResponse(version=version)
            message = convert.result_message(result)
            if message is not None:
                message.finished_at.FromDatetime(now())
                response.result.CopyFrom(message)
            return response

        return await self._run("Resign", context, call)

    async def GetReplay(
        self, request: game_pb2.GetReplayRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> game_pb2.GetReplayResponse:
        """Seed, options and option log."""
        return await self._run(
            "GetReplay", context, lambda: self.authority.replay(request.game_id, request.token)
        )

    async def GetReplayViews(
        self,
        request: game_pb2.GetReplayViewsRequest,
        context: grpc.aio.ServicerContext[Any, Any],
    ) -> game_pb2.GetReplayViewsResponse:
        """A page of a finished game's per-version views."""
        return await self._run(
            "GetReplayViews", context, lambda: self.authority.replay_views(request)
        )

    async def ListGames(
        self, request: game_pb2.ListGamesRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> game_pb2.ListGamesResponse:
        """Admin listing (service credential)."""
        await self._internal(context, "ListGames")

        async def call() -> game_pb2.ListGamesResponse:
            validation.check_game(request.game, request.rules_id, required=False)
            return await self.authority.list_games(request)

        return await self._run("ListGames", context, call)


def register(servicer: GameServicer) -> Callable[[grpc.aio.Server], None]:
    """A server registration callback for `services.common.server.start_server`."""
    return lambda server: game_pb2_grpc.add_GameServiceServicer_to_server(servicer, server)
