"""BotService over grpc.aio: ChooseAction (given view or live game) and ListBots.

Searches are CPU-bound: they run in worker threads, at most
`bot_concurrency` at once per process (scale out with more replicas).
Run: `python -m services.bots`.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import grpc
from prometheus_client import Counter, Histogram

from services.bots import core
from services.bots.settings import BotSettings
from services.common.logging import get_logger
from services.common.server import RunningServer, start_server
from warroom.engine.errors import RulesError
from warroom.v1 import bots_pb2, bots_pb2_grpc, game_pb2, game_pb2_grpc

log = get_logger("bots")
SERVICE_NAME = "warroom.v1.BotService"

DECISIONS = Counter(
    "warroom_bot_decisions_total", "Bot decisions answered", ["kind", "game", "source"]
)
ERRORS = Counter("warroom_bot_errors_total", "ChooseAction calls refused or failed", ["code"])
LATENCY = Histogram(
    "warroom_bot_decision_seconds",
    "Time to choose an option",
    ["kind"],
    buckets=(0.005, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30),
)


class BotServicer(bots_pb2_grpc.BotServiceServicer):
    """Answers ChooseAction and ListBots."""

    def __init__(self, settings: BotSettings, game_stub: Any | None = None) -> None:
        self.settings = settings
        self.limits = core.Limits(settings.bot_max_budget_ms, settings.bot_max_budget_iterations)
        self._slots = asyncio.Semaphore(max(1, settings.bot_concurrency))
        self._game_stub = game_stub
        self._channel: grpc.aio.Channel | None = None

    def _game(self) -> Any:
        if self._game_stub is None:
            self._channel = grpc.aio.insecure_channel(self.settings.game_endpoint)
            self._game_stub = game_pb2_grpc.GameServiceStub(self._channel)
        return self._game_stub

    async def close(self) -> None:
        """Close the channel to the game authority."""
        if self._channel is not None:
            await self._channel.close()

    async def ChooseAction(
        self, request: bots_pb2.ChooseActionRequest, context: grpc.aio.ServicerContext
    ) -> bots_pb2.ChooseActionResponse:
        """Choose an option for a seat from a given view, or from a live game's view."""
        try:
            return await self._choose(request, context)
        except core.BotRequestError as exc:
            ERRORS.labels("INVALID_ARGUMENT").inc()
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        except (RulesError, ValueError, KeyError) as exc:
            ERRORS.labels("INVALID_ARGUMENT").inc()
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT,
                f"the view and decision do not make a position of this game: {exc!r}",
            )
        raise AssertionError("unreachable")

    async def _choose(
        self, request: bots_pb2.ChooseActionRequest, context: grpc.aio.ServicerContext
    ) -> bots_pb2.ChooseActionResponse:
        position = request.WhichOneof("position")
        if position is None:
            raise core.BotRequestError("set `given` (a view) or `live` (game id and seat token)")
        source = position
        if position == "given":
            given = request.given
            game_id = core.resolve_game(request.game, request.rules_id)
            seat, decision_message, variant, packed = (
                given.seat,
                given.decision,
                given.variant,
                given.view,
            )
            version = decision_message.game_version
            seed_key = f"given:{request.rules_id or request.game}"
        else:
            live = request.live
            if not live.game_id or not live.seat_token:
                raise core.BotRequestError("a live position needs game_id and seat_token")
            view = await self._fetch(live, context)
            game_id = core.resolve_game(view.game, request.rules_id or view.rules_id)
            if view.seat < 0:
                raise core.BotRequestError("the token is a spectator's: a bot needs a seat token")
            if view.seat not in view.decision.seats or not view.decision.options:
                ERRORS.labels("FAILED_PRECONDITION").inc()
                await context.abort(
                    grpc.StatusCode.FAILED_PRECONDITION,
                    f"seat {view.seat} of game {live.game_id} owes no decision at version "
                    f"{view.version}",
                )
            seat, decision_message, variant, packed = (
                view.seat,
                view.decision,
                view.variant,
                view.view,
            )
            version = view.version
            seed_key = live.game_id
        rules = core.load_rules(game_id)
        message = core.unpack_view(rules, packed)
        decision = core.engine_decision(decision_message, seat)
        spec = core.spec_from_message(request.bot, default_kind="heuristic")
        core.check_spec(spec, self.limits)
        if not spec.seed:
            spec = core.BotSpec(
                spec.kind,
                spec.difficulty,
                spec.budget_iterations,
                spec.budget_ms,
                core.derived_seed(seed_key, seat, version),
            )
        start = time.perf_counter()
        async with self._slots:
            choice, used = await asyncio.to_thread(
                core.choose,
                game_id,
                message,
                seat,
                decision,
                spec,
                variant,
                self.settings.budget_overrides(),
            )
        LATENCY.labels(used.kind).observe(time.perf_counter() - start)
        DECISIONS.labels(used.kind, game_id, source).inc()
        log.info(
            "chose",
            game=game_id,
            seat=seat,
            kind=used.kind,
            option=choice.option_id,
            iterations=choice.iterations,
            ms=round(choice.elapsed_ms, 1),
        )
        return core.response(choice, decision_message.decision_id, used)

    async def _fetch(
        self, live: bots_pb2.LivePosition, context: grpc.aio.ServicerContext
    ) -> game_pb2.SeatView:
        request = game_pb2.GetViewRequest(game_id=live.game_id, token=live.seat_token)
        try:
            answer = await self._game().GetView(
                request, timeout=self.settings.bot_rpc_timeout_seconds
            )
        except grpc.aio.AioRpcError as exc:
            ERRORS.labels(exc.code().name).inc()
            await context.abort(
                exc.code(), f"fetching the view of game {live.game_id}: {exc.details()}"
            )
        view: game_pb2.SeatView = answer.view
        return view

    async def ListBots(
        self, request: bots_pb2.ListBotsRequest, context: grpc.aio.ServicerContext
    ) -> bots_pb2.ListBotsResponse:
        """Bot kinds, their games, difficulties and default budgets."""
        game_filter: str | None = None
        if request.rules_id or request.game:
            try:
                game_filter = core.resolve_game(request.game, request.rules_id)
            except core.BotRequestError as exc:
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        return core.list_bots(game_filter, self.settings.budget_overrides())


async def serve(
    settings: BotSettings, port: int | None = None, metrics_port: int | None = None
) -> tuple[RunningServer, BotServicer]:
    """Start the bot service (port 0 picks a free port); returns the server and servicer."""
    settings.register_extra_games()
    servicer = BotServicer(settings)
    running = await start_server(
        settings,
        port=settings.bots_port if port is None else port,
        service_names=[SERVICE_NAME],
        register=[lambda server: bots_pb2_grpc.add_BotServiceServicer_to_server(servicer, server)],
        metrics_port=metrics_port,
    )
    return running, servicer
