"""Bots through the live platform: authority replica + Celery bot worker + real Redis/PostgreSQL.

The worker is a real `celery worker` process on queue `bots` (the broker keys
carry the test's Redis prefix, so no other worker takes these tasks). A scripted human
plays its seat through GameService.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
import pytest_asyncio
import redis
from sqlalchemy.engine import Engine

from services.bots.turn import claim_key
from services.common.auth import service_metadata
from services.common.celery_app import make_celery
from services.common.db import migrate
from services.common.settings import Settings
from services.game.scheduler import CeleryScheduler
from services.game.tests.helpers import Replica, start_replica
from warroom.engine.registry import get_rules, register
from warroom.v1 import common_pb2, game_pb2

ROOT = Path(__file__).resolve().parents[3]
TOY = "toy=tests.engine.toy_game:ToyRules"
pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def migrated(db_engine: Engine) -> Engine:
    migrate(db_engine)
    return db_engine


@pytest.fixture
def live_settings(
    redis_url: str, redis_prefix: str, database_url: str, db_schema: str, migrated: Engine
) -> Settings:
    register("toy", "tests.engine.toy_game:ToyRules")
    return Settings(
        redis_url=redis_url,
        redis_prefix=redis_prefix,
        database_url=database_url,
        db_schema=db_schema,
        service_secret="live-bots-secret",
        extra_games=TOY,
        game_rate_per_second=1000.0,
        game_rate_burst=1000,
    )


@pytest_asyncio.fixture
async def authority(live_settings: Settings) -> AsyncIterator[Replica]:
    scheduler = CeleryScheduler(make_celery(live_settings))
    replica = await start_replica(live_settings, scheduler)
    try:
        yield replica
    finally:
        await replica.stop()


class Worker:
    """A `celery worker -Q bots` subprocess that can be killed and restarted."""

    def __init__(self, settings: Settings, endpoint: str, log: Path) -> None:
        self.env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "REDIS_URL": settings.redis_url,
            "WARROOM_REDIS_PREFIX": settings.redis_prefix,
            "WARROOM_CELERY_BROKER_URL": settings.broker_url(),
            "WARROOM_SERVICE_SECRET": settings.service_secret.get_secret_value(),
            "WARROOM_GAME_ENDPOINT": endpoint,
            "WARROOM_EXTRA_GAMES": TOY,
            "WARROOM_TEST_VISIBILITY_TIMEOUT": "3",
        }
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        command = [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "services.bots.tests.worker_app",
            "worker",
            "-Q",
            "bots",
            "-c",
            "2",
            "--pool",
            "prefork",
            "-l",
            "INFO",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
        ]
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                command,
                cwd=ROOT,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def kill(self) -> None:
        """SIGKILL the worker and its pool children at once (no warm shutdown, no ack)."""
        assert self.process is not None
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(10)
        self.process = None

    def stop(self) -> None:
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()
            self.process = None


@pytest.fixture
def worker(
    live_settings: Settings, authority: Replica, tmp_path: Path, redis_url: str
) -> Iterator[Worker]:
    running = Worker(live_settings, authority.address, tmp_path / "worker.log")
    running.start()
    try:
        yield running
    finally:
        running.stop()
        print((tmp_path / "worker.log").read_text()[-4000:])


async def _create(
    replica: Replica, settings: Settings, **fields: Any
) -> game_pb2.CreateGameResponse:
    return await replica.stub.CreateGame(
        game_pb2.CreateGameRequest(**fields), metadata=service_metadata(settings)
    )


async def _human(
    replica: Replica, game_id: str, token: str, deadline: float
) -> tuple[game_pb2.SeatView, int]:
    """Play a seat by always taking its first option; returns the final view and moves made."""
    moves = 0
    while True:
        view = (
            await replica.stub.GetView(game_pb2.GetViewRequest(game_id=game_id, token=token))
        ).view
        if view.HasField("result"):
            return view, moves
        assert time.monotonic() < deadline, f"game stuck at version {view.version}"
        if view.seat in view.decision.seats and view.decision.options:
            option = view.decision.options[0].id
            try:
                await replica.stub.SubmitAction(
                    game_pb2.SubmitActionRequest(
                        game_id=game_id,
                        token=token,
                        expected_version=view.version,
                        decision_id=view.decision.decision_id,
                        option_id=option,
                        idempotency_key=f"human:{view.version}",
                    )
                )
                moves += 1
            except grpc.aio.AioRpcError as exc:
                if exc.code() != grpc.StatusCode.ABORTED:
                    raise
            continue
        await asyncio.sleep(0.02)


async def _replay(replica: Replica, game_id: str, token: str) -> game_pb2.GetReplayResponse:
    return await replica.stub.GetReplay(game_pb2.GetReplayRequest(game_id=game_id, token=token))


def _bot(kind: str, **extra: Any) -> game_pb2.SeatSpec:
    return game_pb2.SeatSpec(display_name=kind, bot=common_pb2.BotSpec(kind=kind, **extra))


def _four_seat_game() -> tuple[str, str]:
    try:
        rules = get_rules("ncw")
        rules.setup(1, "4p", {})
    except Exception as exc:  # New Cold War not playable in this checkout
        pytest.fail(f"New Cold War is not playable: {exc}")
    return "ncw", "4p"


async def test_three_bots_and_a_scripted_human_finish_a_game(
    authority: Replica, live_settings: Settings, worker: Worker
) -> None:
    rules_id, variant = _four_seat_game()
    seats = [
        game_pb2.SeatSpec(player_id="human", display_name="Human"),
        _bot("random"),
        _bot("heuristic", difficulty="beginner"),
        _bot("ismcts", budget_iterations=3),
    ]
    created = await _create(
        authority, live_settings, rules_id=rules_id, variant=variant, seed=5, seats=seats
    )
    final, moves = await _human(
        authority, created.game_id, created.seat_tokens[0], time.monotonic() + 600
    )
    assert moves > 0
    assert final.result.seats
    replay = await _replay(authority, created.game_id, created.seat_tokens[0])
    by_seat = {s: sum(a.seat == s for a in replay.actions) for s in range(4)}
    assert all(by_seat[s] > 0 for s in (1, 2, 3)), by_seat
    keys = [(a.seat, a.decision_id) for a in replay.actions]
    assert len(keys) == len(set(keys)), "a seat answered one decision twice"


async def test_killing_the_worker_mid_turn_still_gives_one_action(
    authority: Replica, live_settings: Settings, worker: Worker, redis_client: redis.Redis
) -> None:
    seats = [
        _bot("ismcts", budget_ms=2500),
        game_pb2.SeatSpec(player_id="human", display_name="Human"),
    ]
    created = await _create(
        authority, live_settings, rules_id="toy", variant="duel", seed=9, seats=seats
    )
    game_id, human = created.game_id, created.seat_tokens[1]
    # The opening decision is simultaneous: the bot's turn at version 0 is running once its claim
    # appears in Redis.
    key = claim_key(live_settings.redis_prefix, game_id, 0, 0)
    deadline = time.monotonic() + 60
    while not redis_client.exists(key):
        assert time.monotonic() < deadline, "the worker never started the bot's turn"
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.5)
    worker.kill()
    view = (
        await authority.stub.GetView(game_pb2.GetViewRequest(game_id=game_id, token=human))
    ).view
    assert view.version == 0, "the killed worker must not have acted"
    worker.start()
    final, _ = await _human(authority, game_id, human, time.monotonic() + 300)
    assert final.result.seats
    replay = await _replay(authority, game_id, human)
    first = [a for a in replay.actions if a.seat == 0 and a.decision_id == "1"]
    assert len(first) == 1, f"the bot's first turn produced {len(first)} actions"
    keys = [(a.seat, a.decision_id) for a in replay.actions]
    assert len(keys) == len(set(keys))
