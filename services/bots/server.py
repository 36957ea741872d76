"""BotService over grpc.aio: ChooseAction (given view or live game) and ListBots.

ChooseAction needs a lobby player token or the service credential (`services.bots.access`),
caps each search by the caller's role, charges a player's search time to a per-player quota,
and runs searches in worker threads on two fairly queued lanes (`services.bots.fairqueue`):
the live lane for the service credential, the analysis lane (`bot_concurrency` at once) for
players, so analysis traffic never delays the platform's own decisions. ListBots is public.
Run: `python -m services.bots`.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, replace
from typing import Any

import grpc
from google.rpc import error_details_pb2
from prometheus_client import Counter, Histogram

from services.bots import access, core
from services.bots.fairqueue import FairQueue, Quota
from services.bots.settings import BotSettings
from services.common import validation
from services.common.errors import RpcError, abort
from services.common.logging import get_logger
from services.common.server import RunningServer, start_server
from warroom.engine.errors import RulesError
from warroom.v1 import bots_pb2, bots_pb2_grpc, common_pb2, game_pb2, game_pb2_grpc

log = get_logger("bots")
SERVICE_NAME = "warroom.v1.BotService"
DOMAIN = "warroom.bots"


def _refused(
    code: grpc.StatusCode, reason: str, message: str, field: str | None = None
) -> RpcError:
    """A BotService refusal (ErrorInfo domain `warroom.bots`; reasons in docs/api.md)."""
    return RpcError(code, reason, message, field=field)


def _invalid(reason: str, message: str, field: str | None = None) -> RpcError:
    return _refused(grpc.StatusCode.INVALID_ARGUMENT, reason, message, field)


def _game_of(kind: int, rules_id: str) -> str:
    """The game a request names: UNKNOWN_GAME, or MISSING_FIELD when it names none."""
    try:
        return core.resolve_game(kind, rules_id)
    except core.BotRequestError as exc:
        reason = "UNKNOWN_GAME" if kind or rules_id else "MISSING_FIELD"
        raise _invalid(reason, str(exc), "rules_id") from None


def _check_bot(spec: core.BotSpec, game_id: str, limits: core.Limits) -> None:
    """The spec names a bot that plays the game, with budgets within the limits."""
    validation.check_bot(spec.kind, spec.difficulty, game_id, "bot")
    if spec.budget_ms < 0 or spec.budget_iterations < 0:
        raise _invalid("BAD_BUDGET", "bot budgets must not be negative", "bot")
    try:
        core.check_spec(spec, limits)
    except core.BotRequestError as exc:
        raise _invalid("BUDGET_TOO_LARGE", str(exc), "bot") from None


def _upstream(exc: grpc.aio.AioRpcError, game_id: str) -> RpcError:
    """A refusal of the game service, with its own reason (e.g. BAD_TOKEN)."""
    from grpc_status import rpc_status

    reason = "GAME_SERVICE_ERROR"
    status = rpc_status.from_call(exc)  # type: ignore[arg-type]
    for detail in status.details if status is not None else ():
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            reason = info.reason
            break
    if exc.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
        reason = "GAME_SERVICE_UNAVAILABLE"
    return _refused(exc.code(), reason, f"fetching the view of game {game_id}: {exc.details()}")


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


@dataclass(frozen=True, slots=True)
class _Position:
    """What a search needs from a request: the seat's view and decision, and where from."""

    game_id: str
    seat: int
    decision: common_pb2.Decision
    variant: str
    packed: Any
    version: int
    seed_key: str
    source: str


class BotServicer(bots_pb2_grpc.BotServiceServicer):
    """Answers ChooseAction (authenticated, capped, fairly queued) and ListBots."""

    def __init__(self, settings: BotSettings, game_stub: Any | None = None) -> None:
        self.settings = settings
        self.limits = core.Limits(settings.bot_max_budget_ms, settings.bot_max_budget_iterations)
        self.gate = access.Gate(settings)
        self.quota = Quota(settings.bot_quota_ms_per_minute)
        self.live_lane = FairQueue(
            "live",
            settings.bot_service_concurrency,
            per_caller=settings.bot_service_concurrency + settings.bot_service_queue_max,
            max_waiting=settings.bot_service_queue_max,
        )
        self.analysis_lane = FairQueue(
            "analysis",
            settings.bot_concurrency,
            per_caller=settings.bot_player_parallel,
            max_waiting=settings.bot_queue_max,
        )
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
            caller = self.gate.identify(context.invocation_metadata())
            return await self._choose(request, caller, context)
        except RpcError as error:
            await self._refuse(context, error)
        except core.BotRequestError as exc:
            await self._refuse(context, _invalid("BAD_POSITION", str(exc), "given"))
        except (RulesError, ValueError, KeyError) as exc:
            message = f"the view and decision do not make a position of this game: {exc!r}"
            await self._refuse(context, _invalid("BAD_POSITION", message, "given"))
        raise AssertionError("unreachable")

    async def _refuse(self, context: grpc.aio.ServicerContext, error: RpcError) -> None:
        ERRORS.labels(error.code.name).inc()
        await abort(context, error, DOMAIN)

    async def _position(
        self, request: bots_pb2.ChooseActionRequest, context: grpc.aio.ServicerContext
    ) -> _Position:
        position = request.WhichOneof("position")
        if position is None:
            raise _invalid(
                "MISSING_FIELD",
                "set `given` (a view) or `live` (game id and seat token)",
                "position",
            )
        if position == "given":
            given = request.given
            return _Position(
                _game_of(request.game, request.rules_id),
                given.seat,
                given.decision,
                given.variant,
                given.view,
                given.decision.game_version,
                f"given:{request.rules_id or request.game}",
                position,
            )
        live = request.live
        if not live.game_id or not live.seat_token:
            raise _invalid("MISSING_FIELD", "a live position needs game_id and seat_token", "live")
        validation.check_id(live.game_id, "live.game_id")
        validation.check_text(live.seat_token, "live.seat_token", 256)
        view = await self._fetch(live)
        game_id = _game_of(view.game, request.rules_id or view.rules_id)
        if view.seat < 0:
            raise _invalid(
                "SPECTATOR_TOKEN",
                "the token is a spectator's: a bot needs a seat token",
                "live.seat_token",
            )
        if view.seat not in view.decision.seats or not view.decision.options:
            raise _refused(
                grpc.StatusCode.FAILED_PRECONDITION,
                "NO_DECISION_OWED",
                f"seat {view.seat} of game {live.game_id} owes no decision at version "
                f"{view.version}",
            )
        return _Position(
            game_id,
            view.seat,
            view.decision,
            view.variant,
            view.view,
            view.version,
            live.game_id,
            position,
        )

    async def _choose(
        self,
        request: bots_pb2.ChooseActionRequest,
        caller: access.Caller,
        context: grpc.aio.ServicerContext,
    ) -> bots_pb2.ChooseActionResponse:
        spec = self.gate.bound(
            core.spec_from_message(request.bot, default_kind="heuristic"), caller
        )
        at = await self._position(request, context)
        _check_bot(spec, at.game_id, self.limits)
        rules = core.load_rules(at.game_id)
        message = core.unpack_view(rules, at.packed)
        decision = core.engine_decision(at.decision, at.seat)
        if not spec.seed:
            spec = replace(spec, seed=core.derived_seed(at.seed_key, at.seat, at.version))
        reserved = self.gate.cost_ms(spec, caller)
        self.quota.reserve(caller.role, caller.key, reserved)
        lane = self.live_lane if caller.is_service else self.analysis_lane
        start = searched = time.perf_counter()
        try:
            async with lane.slot(caller.key, reserved / 1000):
                searched = time.perf_counter()
                choice, used = await asyncio.to_thread(
                    core.choose,
                    at.game_id,
                    message,
                    at.seat,
                    decision,
                    spec,
                    at.variant,
                    self.settings.budget_overrides(),
                )
        finally:
            spent = (time.perf_counter() - searched) * 1000 if searched > start else 0.0
            self.quota.refund(caller.role, caller.key, reserved - spent)
        LATENCY.labels(used.kind).observe(time.perf_counter() - start)
        DECISIONS.labels(used.kind, at.game_id, at.source).inc()
        log.info(
            "chose",
            game=at.game_id,
            seat=at.seat,
            kind=used.kind,
            role=caller.role,
            option=choice.option_id,
            iterations=choice.iterations,
            ms=round(choice.elapsed_ms, 1),
            waited_ms=round((searched - start) * 1000, 1),
        )
        return core.response(choice, at.decision.decision_id, used)

    async def _fetch(self, live: bots_pb2.LivePosition) -> game_pb2.SeatView:
        request = game_pb2.GetViewRequest(game_id=live.game_id, token=live.seat_token)
        try:
            answer = await self._game().GetView(
                request, timeout=self.settings.bot_rpc_timeout_seconds
            )
        except grpc.aio.AioRpcError as exc:
            raise _upstream(exc, live.game_id) from None
        view: game_pb2.SeatView = answer.view
        return view

    async def ListBots(
        self, request: bots_pb2.ListBotsRequest, context: grpc.aio.ServicerContext
    ) -> bots_pb2.ListBotsResponse:
        """Bot kinds, their games, difficulties and default budgets."""
        game_filter: str | None = None
        if request.rules_id or request.game:
            try:
                game_filter = _game_of(request.game, request.rules_id)
            except RpcError as error:
                await self._refuse(context, error)
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
