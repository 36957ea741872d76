"""Test helpers: in-process replicas, gRPC clients, and the view-leak check."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from services.common.auth import service_metadata
from services.common.db import make_engine
from services.common.redisio import async_redis
from services.common.server import RunningServer, start_server
from services.common.settings import Settings
from services.game.authority import Authority, NullScheduler, Scheduler
from services.game.service import SERVICE_NAME, GameServicer, register
from warroom.engine.match import Action, Match, MatchState
from warroom.engine.registry import get_rules
from warroom.v1 import common_pb2, game_pb2, game_pb2_grpc


@dataclass
class Replica:
    """A running in-process authority with a client stub."""

    settings: Settings
    server: RunningServer
    authority: Authority
    channel: grpc.aio.Channel
    stub: game_pb2_grpc.GameServiceAsyncStub
    engine: Any
    client: Any

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.server.port}"

    async def stop(self) -> None:
        await self.channel.close()
        await self.server.stop(0)
        await self.authority.close()
        await self.client.aclose()
        self.engine.dispose()


async def start_replica(settings: Settings, scheduler: Scheduler | None = None) -> Replica:
    """Start an authority on a free port (the schema must be migrated)."""
    settings.register_extra_games()
    engine = make_engine(settings.database_url, settings.db_schema)
    client = async_redis(settings)
    authority = Authority(settings, engine, client, scheduler or NullScheduler())
    server = await start_server(
        settings,
        port=0,
        service_names=[SERVICE_NAME],
        register=[register(GameServicer(authority, settings))],
    )
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{server.port}")
    return Replica(settings, server, authority, channel, async_stub(channel), engine, client)


def async_stub(channel: grpc.aio.Channel) -> game_pb2_grpc.GameServiceAsyncStub:
    """A GameService stub typed for grpc.aio."""
    return game_pb2_grpc.GameServiceStub(channel)


def toy_request(**extra: Any) -> game_pb2.CreateGameRequest:
    """A CreateGameRequest for the toy duel with two human seats and spectators."""
    request = game_pb2.CreateGameRequest(
        rules_id="toy",
        variant="duel",
        seed=extra.pop("seed", 7),
        allow_spectators=True,
        seats=extra.pop(
            "seats",
            [
                game_pb2.SeatSpec(player_id="alice", display_name="Alice"),
                game_pb2.SeatSpec(player_id="bob", display_name="Bob"),
            ],
        ),
    )
    for key, value in extra.items():
        setattr(request, key, value)
    return request


async def create(
    stub: game_pb2_grpc.GameServiceAsyncStub, settings: Settings, **extra: Any
) -> game_pb2.CreateGameResponse:
    """Create a toy game with the service credential."""
    return await stub.CreateGame(toy_request(**extra), metadata=service_metadata(settings))


def status_of(error: grpc.aio.AioRpcError) -> tuple[grpc.StatusCode, str]:
    """The status code and the ErrorInfo reason of a failed call."""
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    reason = ""
    if status is not None:
        for detail in status.details:
            if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                info = error_details_pb2.ErrorInfo()
                detail.Unpack(info)
                reason = info.reason
    return error.code(), reason


@dataclass
class Referee:
    """The test's own copy of the match, replayed from the acknowledged actions."""

    rules_id: str
    seed: int
    variant: str
    options: dict[str, str] = field(default_factory=dict)
    actions: list[Action] = field(default_factory=list)

    _cache: tuple[int, MatchState[Any]] | None = None

    def state(self) -> MatchState[Any]:
        """The match state after every recorded action (applied incrementally)."""
        match = Match(get_rules(self.rules_id))
        if self._cache is None or self._cache[0] > len(self.actions):
            self._cache = (0, match.start(self.seed, self.variant, self.options))
        done, state = self._cache
        for action in self.actions[done:]:
            state = match.apply(state, action.seat, action.option_id).state
        self._cache = (len(self.actions), state)
        return state

    def check_view(
        self, view: game_pb2.SeatView, viewer: int | None, state: MatchState[Any] | None = None
    ) -> None:
        """The view must be exactly what the rules let `viewer` see, with no foreign options or events."""
        rules = get_rules(self.rules_id)
        state = state or self.state()
        expected = rules.view(state.game, viewer)
        got = type(expected)()
        assert view.view.Unpack(got)
        assert got == expected, f"view of {viewer} differs from the rules' view"
        if view.HasField("decision") and (viewer is None or viewer not in view.decision.seats):
            assert not view.decision.options, f"options leaked to {viewer}"
        for event in view.events:
            assert event.public or (viewer is not None and viewer in event.visible_to), (
                f"event {event.text!r} leaked to {viewer}"
            )


async def play_random(
    stub: game_pb2_grpc.GameServiceAsyncStub,
    gid: str,
    tokens: list[str],
    referee: Referee,
    rng: random.Random,
    moves: int,
    after: Callable[[], Awaitable[None]] | None = None,
) -> None:
    """Play random options seat by seat until the referee holds `moves` actions (`after`
    runs after each answer)."""
    while len(referee.actions) < moves:
        for seat, token in enumerate(tokens):
            view = (await stub.GetView(game_pb2.GetViewRequest(game_id=gid, token=token))).view
            option = pick(view, rng)
            if option is None:
                continue
            await answer(stub, gid, token, view, option)
            referee.actions.append(Action(seat, option.id))
            if after is not None:
                await after()


async def answer(
    stub: game_pb2_grpc.GameServiceAsyncStub,
    game_id: str,
    token: str,
    view: game_pb2.SeatView,
    option: common_pb2.Option,
) -> game_pb2.SubmitActionResponse:
    """Submit `option` of the decision in `view`, made on that view's version."""
    return await stub.SubmitAction(
        game_pb2.SubmitActionRequest(
            game_id=game_id,
            token=token,
            expected_version=view.version,
            decision_id=view.decision.decision_id,
            option_id=option.id,
        )
    )


def pick(view: game_pb2.SeatView, rng: random.Random) -> common_pb2.Option | None:
    """A random non-undo legal option of this view's decision, if the seat must act."""
    options = [o for o in view.decision.options if o.id != "undo"] or list(view.decision.options)
    return rng.choice(options) if options else None
