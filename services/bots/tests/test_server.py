"""BotService over gRPC: ChooseAction from a given view, ListBots, errors, health and reflection."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from google.protobuf import any_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc

from services.bots import core
from services.bots.server import BotServicer
from services.bots.settings import BotSettings
from services.common.auth import service_metadata
from tests.engine.toy_game import ToyRules
from warroom.api.convert import decision_message
from warroom.engine.match import Match
from warroom.v1 import bots_pb2, bots_pb2_grpc, common_pb2, game_pb2


def _given(seat: int = 0, seed: int = 3) -> tuple[bots_pb2.GivenPosition, list[str]]:
    rules = ToyRules()
    state = Match(rules).start(seed, "duel", {})
    assert state.pending is not None
    packed = any_pb2.Any()
    packed.Pack(rules.view(state.game, seat))
    decision = decision_message(state.pending, state.version, seat)
    assert decision is not None
    ids = [o.id for o in state.pending.options_for(seat)]
    return bots_pb2.GivenPosition(view=packed, seat=seat, decision=decision, variant="duel"), ids


@pytest.mark.parametrize("kind", ["random", "heuristic", "ismcts"])
async def test_choose_action_from_a_given_view(
    bot_stub: bots_pb2_grpc.BotServiceAsyncStub, kind: str
) -> None:
    given, ids = _given()
    answer = await bot_stub.ChooseAction(
        bots_pb2.ChooseActionRequest(
            rules_id="toy", given=given, bot=common_pb2.BotSpec(kind=kind, seed=5)
        )
    )
    assert answer.option_id in ids
    assert answer.decision_id == given.decision.decision_id
    assert answer.bot.kind == kind and answer.bot.seed == 5
    if kind == "ismcts":
        assert [a.option_id for a in answer.analysis] == ids
        assert sum(a.visits for a in answer.analysis) == answer.iterations == 60


async def test_ismcts_with_seed_and_iterations_is_reproducible(
    bot_stub: bots_pb2_grpc.BotServiceAsyncStub,
) -> None:
    given, _ = _given(seat=1, seed=8)
    spec = common_pb2.BotSpec(kind="ismcts", budget_iterations=150, seed=11)
    request = bots_pb2.ChooseActionRequest(rules_id="toy", given=given, bot=spec)
    first = await bot_stub.ChooseAction(request)
    second = await bot_stub.ChooseAction(request)
    assert first.analysis == second.analysis
    assert first.option_id == second.option_id


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ({"bot": common_pb2.BotSpec(kind="psychic")}, "unknown bot kind"),
        ({"bot": common_pb2.BotSpec(kind="ismcts", difficulty="godlike")}, "difficulty"),
        ({"bot": common_pb2.BotSpec(kind="ismcts", budget_ms=10**8)}, "exceeds the limit"),
        ({"rules_id": "chess"}, "unknown game"),
        ({"rules_id": ""}, "unknown game kind"),
        ({"given": bots_pb2.GivenPosition(seat=0)}, "no view"),
    ],
)
async def test_bad_requests_are_invalid_argument(
    bot_stub: bots_pb2_grpc.BotServiceAsyncStub, change: dict[str, Any], needle: str
) -> None:
    given, _ = _given()
    fields: dict[str, Any] = {
        "rules_id": "toy",
        "given": given,
        "bot": common_pb2.BotSpec(kind="random"),
    }
    fields.update(change)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await bot_stub.ChooseAction(bots_pb2.ChooseActionRequest(**fields))
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert needle in (caught.value.details() or "")


async def test_decision_without_options_for_the_seat_is_refused(
    bot_stub: bots_pb2_grpc.BotServiceAsyncStub,
) -> None:
    given, _ = _given()
    del given.decision.options[:]
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await bot_stub.ChooseAction(
            bots_pb2.ChooseActionRequest(
                rules_id="toy", given=given, bot=common_pb2.BotSpec(kind="random")
            )
        )
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "no option" in (caught.value.details() or "")


async def test_list_bots(bot_stub: bots_pb2_grpc.BotServiceAsyncStub) -> None:
    answer = await bot_stub.ListBots(bots_pb2.ListBotsRequest(rules_id="toy"))
    kinds = {b.kind: b for b in answer.bots}
    assert set(kinds) == {"random", "heuristic", "ismcts"}
    ismcts = kinds["ismcts"]
    assert list(ismcts.difficulties) == ["beginner", "intermediate", "expert"]
    # The settings' override (60 iterations, no time budget) shows in every difficulty.
    assert list(ismcts.default_budget_iterations) == [60, 60, 60]
    assert "toy" in ismcts.rules_ids
    everything = await bot_stub.ListBots(bots_pb2.ListBotsRequest())
    assert (
        "ncw-official" in {b.kind for b in everything.bots}
        or not core.KINDS["ncw-official"].games()
    )


async def test_health_and_reflection(bot_settings: BotSettings) -> None:
    from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

    from services.bots.server import serve

    running, servicer = await serve(bot_settings, port=0, metrics_port=None)
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            health: Any = health_pb2_grpc.HealthStub(channel)
            status = await health.Check(
                health_pb2.HealthCheckRequest(service="warroom.v1.BotService")
            )
            assert status.status == health_pb2.HealthCheckResponse.SERVING
            stub: Any = reflection_pb2_grpc.ServerReflectionStub(channel)  # type: ignore[arg-type]
            names: list[str] = []
            async for reply in stub.ServerReflectionInfo(
                iter([reflection_pb2.ServerReflectionRequest(list_services="")])
            ):
                names += [s.name for s in reply.list_services_response.service]
            assert "warroom.v1.BotService" in names
    finally:
        await running.stop(0)
        await servicer.close()


class FakeGame:
    """A GameService stub answering GetView from a toy match."""

    def __init__(self, seat: int, over: bool = False) -> None:
        rules = ToyRules()
        state = Match(rules).start(4, "duel", {})
        assert state.pending is not None
        packed = any_pb2.Any()
        packed.Pack(rules.view(state.game, seat))
        decision = decision_message(state.pending, state.version, seat)
        self.view = game_pb2.SeatView(
            game_id="g1",
            version=state.version,
            seat=seat,
            view=packed,
            rules_id="toy",
            decision=decision,
            variant="duel",
        )
        self.tokens: list[str] = []
        self.ids = [o.id for o in state.pending.options_for(seat)]

    async def GetView(self, request: game_pb2.GetViewRequest, **options: Any) -> Any:
        self.tokens.append(request.token)
        return game_pb2.GetViewResponse(view=self.view)


async def test_live_position_fetches_the_view_with_the_seat_token() -> None:
    fake = FakeGame(seat=1)
    servicer = BotServicer(BotSettings(service_secret="s"), game_stub=fake)

    class Context:
        def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
            return service_metadata(servicer.settings)

        async def abort(self, code: grpc.StatusCode, details: str, *more: Any) -> None:
            raise AssertionError(f"{code}: {details}")

    request = bots_pb2.ChooseActionRequest(
        live=bots_pb2.LivePosition(game_id="g1", seat_token="tok-1"),
        bot=common_pb2.BotSpec(kind="heuristic"),
    )
    answer = await servicer.ChooseAction(request, Context())  # type: ignore[arg-type]
    assert fake.tokens == ["tok-1"]
    assert answer.option_id in fake.ids
    assert answer.bot.seed != 0  # derived from game id, seat and version


async def test_a_view_that_does_not_fit_the_decision_is_invalid_argument(
    bot_stub: bots_pb2_grpc.BotServiceAsyncStub,
) -> None:
    given, _ = _given()
    given.view.Pack(common_pb2.Seat(index=3))  # a message of another type than the toy's view
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await bot_stub.ChooseAction(
            bots_pb2.ChooseActionRequest(
                rules_id="toy", given=given, bot=common_pb2.BotSpec(kind="heuristic")
            )
        )
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "is not the view of game 'toy'" in (caught.value.details() or "")
