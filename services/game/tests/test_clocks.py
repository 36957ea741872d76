"""A clock expiry hands the seat to a bot (through real Celery tasks) and the game finishes.

The bot worker here is a test-only stand-in honouring the contract of
docs/architecture.md: task `warroom.bots.play_turn(game_id, seat, version)` on
queue `bots`, token = HMAC(service secret, f"{game_id}:{seat}"), random legal option.
"""

from __future__ import annotations

import asyncio
import random
import time

import grpc
from celery import Celery
from celery.contrib.testing.worker import start_worker

from services.common.auth import bot_seat_token
from services.common.celery_app import make_celery
from services.common.settings import Settings
from services.game.scheduler import BOT_TASK, CLOCK_TASK, CeleryScheduler
from services.game.tasks import expire
from services.game.tests.helpers import create, start_replica
from warroom.v1 import common_pb2, game_pb2, game_pb2_grpc


def worker_app(settings: Settings, endpoint: list[str]) -> Celery:
    """A Celery app with the clock task and a random-move bot task (no other task modules)."""
    app = make_celery(settings, include=())

    @app.task(name=BOT_TASK)
    def play_turn(game_id: str, seat: int, version: int) -> str:
        token = bot_seat_token(settings.secret(), game_id, seat)
        with grpc.insecure_channel(endpoint[0]) as channel:
            stub = game_pb2_grpc.GameServiceStub(channel)
            view = stub.GetView(game_pb2.GetViewRequest(game_id=game_id, token=token)).view
            if view.version != version or not view.decision.options:
                return "stale"
            options = [o for o in view.decision.options if o.id != "undo"]
            choice = random.Random(version).choice(options)
            stub.SubmitAction(
                game_pb2.SubmitActionRequest(
                    game_id=game_id,
                    token=token,
                    expected_version=version,
                    decision_id=view.decision.decision_id,
                    option_id=choice.id,
                    idempotency_key=f"bot:{version}:{view.decision.decision_id}",
                )
            )
            return choice.id

    @app.task(name=CLOCK_TASK)
    def clock_expired(game_id: str, seat: int, decision_id: str, version: int) -> str:
        return asyncio.run(expire(settings, game_id, seat, decision_id, version))

    return app


async def test_clock_expiry_hands_seat_to_bot_and_game_finishes(settings: Settings) -> None:
    endpoint: list[str] = []
    app = worker_app(settings, endpoint)
    replica = await start_replica(settings, CeleryScheduler(app))
    endpoint.append(replica.address)
    clock = common_pb2.ClockSpec(
        mode=common_pb2.ClockSpec.MODE_LIVE,
        initial_seconds=1,
        increment_seconds=0,
        fallback=common_pb2.ClockSpec.FALLBACK_BOT,
        fallback_bot=common_pb2.BotSpec(kind="random"),
    )
    seats = [
        game_pb2.SeatSpec(player_id="sleepy", clock=clock),
        game_pb2.SeatSpec(player_id="bob"),
    ]
    with start_worker(app, pool="solo", perform_ping_check=False, queues=["game", "bots"]):
        try:
            created = await create(replica.stub, settings, seats=seats, seed=3)
            gid, token = created.game_id, created.seat_tokens[1]
            rng = random.Random(0)
            took_over = False
            deadline = time.monotonic() + 90
            while time.monotonic() < deadline:
                spectator = (
                    await replica.stub.GetView(
                        game_pb2.GetViewRequest(game_id=gid, token=created.spectator_token)
                    )
                ).view
                took_over = took_over or spectator.seats[0].is_bot
                if spectator.HasField("result"):
                    break
                view = (
                    await replica.stub.GetView(game_pb2.GetViewRequest(game_id=gid, token=token))
                ).view
                if view.decision.options:
                    option = rng.choice(list(view.decision.options))
                    try:
                        await replica.stub.SubmitAction(
                            game_pb2.SubmitActionRequest(
                                game_id=gid,
                                token=token,
                                expected_version=view.version,
                                decision_id=view.decision.decision_id,
                                option_id=option.id,
                            )
                        )
                    except grpc.aio.AioRpcError as error:
                        if error.code() != grpc.StatusCode.ABORTED:
                            raise
                else:
                    await asyncio.sleep(0.1)
            assert took_over, "the seat with the expired clock went to a bot"
            assert spectator.HasField("result"), "the game finished"
            assert spectator.seats[0].bot.kind == "random"
            replay = await replica.stub.GetReplay(
                game_pb2.GetReplayRequest(game_id=gid, token=token)
            )
            assert any(a.seat == 0 for a in replay.actions), "the bot played seat 0"
        finally:
            await replica.stop()
