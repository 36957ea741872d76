"""A clock expiry hands the seat to a bot (through real Celery tasks) and the game finishes.

The bot worker here is a test-only stand-in honouring the contract of
docs/architecture.md: task `warroom.bots.play_turn(game_id, seat, version)` on
queue `bots`, token = HMAC(service secret, f"{game_id}:{seat}"), random legal option.
"""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path

import grpc
import pytest
from celery import Celery
from celery.contrib.testing.worker import start_worker

from services.common.auth import bot_seat_token
from services.common.celery_app import make_celery
from services.common.db import make_engine, migrate
from services.common.settings import Settings
from services.game.scheduler import BOT_TASK, CLOCK_TASK, CeleryScheduler
from services.game.tasks import expire
from services.game.tests.helpers import answer, create, start_replica
from warroom.v1 import common_pb2, game_pb2, game_pb2_grpc


def worker_app(settings: Settings, endpoint: list[str]) -> Celery:
    """A Celery app with the clock task and a random-move bot task (no other task modules)."""
    app = make_celery(settings, include=())

    def play_turn(game_id: str, seat: int, version: int) -> str:
        token = bot_seat_token(settings.secret(), game_id, seat)
        with grpc.insecure_channel(endpoint[0]) as channel:
            stub = game_pb2_grpc.GameServiceStub(channel)
            view = stub.GetView(game_pb2.GetViewRequest(game_id=game_id, token=token)).view
            if not view.decision.options:
                return "stale"
            options = [o for o in view.decision.options if o.id != "undo"]
            choice = random.Random(version).choice(options)
            try:
                stub.SubmitAction(
                    game_pb2.SubmitActionRequest(
                        game_id=game_id,
                        token=token,
                        expected_version=version,
                        decision_id=view.decision.decision_id,
                        option_id=choice.id,
                        idempotency_key=f"{game_id}:{seat}:{version}",
                    )
                )
            except grpc.RpcError as error:
                if error.code() in (  # type: ignore[attr-defined]
                    grpc.StatusCode.ABORTED,
                    grpc.StatusCode.FAILED_PRECONDITION,
                    grpc.StatusCode.PERMISSION_DENIED,
                ):
                    return "stale"
                raise
            return choice.id

    def clock_expired(game_id: str, seat: int, decision_id: str, version: int) -> str:
        return asyncio.run(expire(settings, game_id, seat, decision_id, version))

    # Shared tasks of the same names imported elsewhere in the session (the real bot worker's
    # `@app.task`) are attached to every app when it is finalized; ours must replace them.
    app.finalize()
    for name, run in ((BOT_TASK, play_turn), (CLOCK_TASK, clock_expired)):
        task = type(f"Test{name.title()}", (app.Task,), {"name": name, "run": staticmethod(run)})
        app.register_task(task())
    return app


async def _submit_random(
    stub: game_pb2_grpc.GameServiceAsyncStub, gid: str, token: str, rng: random.Random
) -> bool:
    """Answer the seat's decision if it has one; False when nothing was (or could be) done."""
    view = (await stub.GetView(game_pb2.GetViewRequest(game_id=gid, token=token))).view
    if not view.decision.options:
        return False
    option = rng.choice(list(view.decision.options))
    try:
        await answer(stub, gid, token, view, option)
    except grpc.aio.AioRpcError as error:
        if error.code() not in (grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION):
            raise
        return False
    return True


def _clock(seconds: int, fallback: int) -> common_pb2.ClockSpec:
    return common_pb2.ClockSpec(
        mode=common_pb2.ClockSpec.MODE_LIVE,
        initial_seconds=seconds,
        increment_seconds=0,
        fallback=fallback,  # type: ignore[arg-type]
        fallback_bot=common_pb2.BotSpec(kind="random"),
    )


async def test_clock_expiry_hands_seat_to_bot_human_reclaims_and_game_finishes(
    settings: Settings,
) -> None:
    endpoint: list[str] = []
    app = worker_app(settings, endpoint)
    replica = await start_replica(settings, CeleryScheduler(app))
    endpoint.append(replica.address)
    seats = [
        game_pb2.SeatSpec(player_id="sleepy", clock=_clock(2, common_pb2.ClockSpec.FALLBACK_BOT)),
        game_pb2.SeatSpec(player_id="bob"),
    ]
    stub = replica.stub
    with start_worker(app, pool="solo", perform_ping_check=False, queues=["game", "bots"]):
        try:
            created = await create(stub, settings, seats=seats, seed=3)
            gid = created.game_id
            human, other = created.seat_tokens
            rng = random.Random(0)

            async def public() -> game_pb2.SeatView:
                request = game_pb2.GetViewRequest(game_id=gid, token=created.spectator_token)
                return (await stub.GetView(request)).view

            # phase 1: seat 0 sleeps; its clock runs out and a bot takes the seat
            deadline = time.monotonic() + 60
            while not (await public()).seats[0].is_bot:
                assert time.monotonic() < deadline, "the clock never handed seat 0 to a bot"
                if not await _submit_random(stub, gid, other, rng):
                    await asyncio.sleep(0.1)
            bot_version = (await public()).version
            # phase 2: the human comes back (any call with their token) and plays again
            reclaimed_at = None
            while True:
                view = await public()
                if view.HasField("result"):
                    break
                assert time.monotonic() < deadline + 60, "the game did not finish"
                if reclaimed_at is None and not view.seats[0].is_bot:
                    reclaimed_at = view.version
                acted = await _submit_random(stub, gid, human, rng)
                acted = await _submit_random(stub, gid, other, rng) or acted
                if not acted:
                    await asyncio.sleep(0.05)
            assert reclaimed_at is not None, "the returning human got the seat back"
            replay = await stub.GetReplay(game_pb2.GetReplayRequest(game_id=gid, token=other))
            assert any(a.seat == 0 and a.version <= bot_version + 3 for a in replay.actions)
            assert any(a.seat == 0 and a.version > reclaimed_at for a in replay.actions) or (
                reclaimed_at >= replay.actions[-1].version
            )
        finally:
            await replica.stop()


@pytest.mark.parametrize("database", ["postgresql", "sqlite"])
async def test_clock_expiry_with_forfeit_ends_the_game(
    settings: Settings, tmp_path: Path, database: str
) -> None:
    """Through the Celery timer, on both databases (SQLite once compared a naive deadline
    with an aware now() and never fired)."""
    if database == "sqlite":
        url = f"sqlite:///{tmp_path / 'warroom.db'}"
        engine = make_engine(url)
        migrate(engine)
        engine.dispose()
        settings = settings.model_copy(update={"database_url": url, "db_schema": None})
    endpoint: list[str] = []
    app = worker_app(settings, endpoint)
    replica = await start_replica(settings, CeleryScheduler(app))
    endpoint.append(replica.address)
    seats = [
        game_pb2.SeatSpec(
            player_id="sleepy", clock=_clock(1, common_pb2.ClockSpec.FALLBACK_FORFEIT)
        ),
        game_pb2.SeatSpec(player_id="bob"),
    ]
    with start_worker(app, pool="solo", perform_ping_check=False, queues=["game", "bots"]):
        try:
            created = await create(replica.stub, settings, seats=seats, seed=4)
            request = game_pb2.GetViewRequest(game_id=created.game_id, token=created.seat_tokens[1])
            deadline = time.monotonic() + 30
            while True:
                view = (await replica.stub.GetView(request)).view
                if view.HasField("result"):
                    break
                assert time.monotonic() < deadline, "the clock never ran out"
                await asyncio.sleep(0.1)
            assert view.result.reason == "forfeit"
            ranks = {s.seat: s.rank for s in view.result.seats}
            assert ranks[0] > ranks[1]
        finally:
            await replica.stop()
