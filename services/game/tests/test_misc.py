"""Health, reflection, metrics, pagination, spectator delay and the spectator replay delay."""

from __future__ import annotations

import random
import urllib.request
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from services.common.auth import service_metadata
from services.common.settings import Settings
from services.game.service import SERVICE_NAME
from services.game.tests.helpers import Replica, create, pick, start_replica, status_of
from warroom.v1 import common_pb2, game_pb2


async def _advance(replica: Replica, created: game_pb2.CreateGameResponse, steps: int) -> int:
    rng = random.Random(9)
    version = 0
    for _ in range(steps):
        views = [
            (
                await replica.stub.GetView(
                    game_pb2.GetViewRequest(game_id=created.game_id, token=t)
                )
            ).view
            for t in created.seat_tokens
        ]
        seat = next(s for s, v in enumerate(views) if v.decision.options)
        option = pick(views[seat], rng)
        assert option is not None
        answer = await replica.stub.SubmitAction(
            game_pb2.SubmitActionRequest(
                game_id=created.game_id,
                token=created.seat_tokens[seat],
                expected_version=views[seat].version,
                decision_id=views[seat].decision.decision_id,
                option_id=option.id,
            )
        )
        version = answer.version
    return version


async def test_health_reflection_and_metrics(settings: Settings) -> None:
    replica = await start_replica(settings)
    try:
        health: Any = health_pb2_grpc.HealthStub(replica.channel)  # type: ignore[arg-type]
        answer = await health.Check(health_pb2.HealthCheckRequest(service=SERVICE_NAME))
        assert answer.status == health_pb2.HealthCheckResponse.SERVING
        reflection: Any = reflection_pb2_grpc.ServerReflectionStub(replica.channel)  # type: ignore[arg-type]
        names: list[str] = []
        async for reply in reflection.ServerReflectionInfo(
            iter([reflection_pb2.ServerReflectionRequest(list_services="")])
        ):
            names += [s.name for s in reply.list_services_response.service]
        assert SERVICE_NAME in names
    finally:
        await replica.stop()
    from services.common.server import start_server

    running = await start_server(settings, port=0, service_names=[], register=[], metrics_port=0)
    try:
        assert running.metrics_port
        url = f"http://127.0.0.1:{running.metrics_port}/metrics"
        with urllib.request.urlopen(url, timeout=5) as reply:  # noqa: ASYNC210
            body = reply.read().decode()
        assert "warroom_game_actions_applied_total" in body
        assert "warroom_game_rejects_total" in body
    finally:
        await running.stop(0)


async def test_spectator_delay_and_replay_delay(settings: Settings) -> None:
    delayed = settings.model_copy(update={"game_replay_spectator_delay_seconds": 3600})
    replica = await start_replica(delayed)
    try:
        created = await create(replica.stub, delayed, spectator_delay_versions=2)
        head = await _advance(replica, created, 4)
        spectator = await replica.stub.GetView(
            game_pb2.GetViewRequest(game_id=created.game_id, token=created.spectator_token)
        )
        assert spectator.view.version == head - 2
        assert spectator.view.seat == -1
        await replica.stub.Resign(
            game_pb2.ResignRequest(game_id=created.game_id, token=created.seat_tokens[0])
        )
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await replica.stub.GetReplay(
                game_pb2.GetReplayRequest(game_id=created.game_id, token=created.spectator_token)
            )
        assert status_of(caught.value) == (grpc.StatusCode.FAILED_PRECONDITION, "REPLAY_DELAYED")
        replay = await replica.stub.GetReplay(
            game_pb2.GetReplayRequest(game_id=created.game_id, token=created.seat_tokens[1])
        )
        # every version has its entry: the options, then the resignation (issue 17)
        assert [a.kind for a in replay.actions] == ["option"] * head + ["resign"]
        assert replay.result.reason == "resignation"
    finally:
        await replica.stop()


async def test_list_games_pages(replica: Replica) -> None:
    made = {(await create(replica.stub, replica.settings, seed=s)).game_id for s in range(5)}
    seen: set[str] = set()
    token = ""
    for _ in range(100):
        page = await replica.stub.ListGames(
            game_pb2.ListGamesRequest(
                status=game_pb2.GAME_STATUS_ACTIVE,
                rules_id="toy",
                page=common_pb2.PageRequest(page_size=2, page_token=token),
            ),
            metadata=service_metadata(replica.settings),
        )
        assert len(page.games) <= 2
        seen |= {g.game_id for g in page.games}
        token = page.next_page_token
        if not token:
            break
    assert made <= seen
