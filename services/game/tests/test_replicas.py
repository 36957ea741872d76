"""Two replicas sharing Redis and PostgreSQL; a SIGKILLed authority subprocess recovers."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest

from services.common.settings import Settings
from services.game.tests.helpers import (
    Referee,
    answer,
    async_stub,
    create,
    pick,
    start_replica,
    status_of,
)
from warroom.engine.match import Action
from warroom.engine.registry import get_rules
from warroom.v1 import game_pb2

ROOT = Path(__file__).resolve().parents[3]


async def test_watcher_on_a_sees_actions_on_b_and_one_of_two_racers_wins(
    settings: Settings,
) -> None:
    a = await start_replica(settings)
    b = await start_replica(settings)
    try:
        created = await create(a.stub, settings, seed=5)
        gid, tokens = created.game_id, list(created.seat_tokens)
        seen: list[int] = []

        async def watch() -> None:
            async for update in a.stub.WatchGame(
                game_pb2.WatchGameRequest(game_id=gid, token=tokens[0], from_version=0)
            ):
                seen.append(update.version)
                if update.version >= 2:
                    return

        watcher = asyncio.create_task(watch())
        await asyncio.sleep(0.2)
        rng = random.Random(1)
        for seat in (0, 1):
            view = (
                await b.stub.GetView(game_pb2.GetViewRequest(game_id=gid, token=tokens[seat]))
            ).view
            option = pick(view, rng)
            assert option is not None
            await b.stub.SubmitAction(
                game_pb2.SubmitActionRequest(
                    game_id=gid,
                    token=tokens[seat],
                    expected_version=view.version,
                    decision_id=view.decision.decision_id,
                    option_id=option.id,
                )
            )
        await asyncio.wait_for(watcher, 10)
        assert seen[-1] == 2
        # a (bonus) decision owed by one seat; two racers on the same version, one per replica
        for _ in range(20):
            views = [
                (await a.stub.GetView(game_pb2.GetViewRequest(game_id=gid, token=t))).view
                for t in tokens
            ]
            actors = [s for s, v in enumerate(views) if v.decision.options]
            if len(actors) == 1:
                break
            seat = actors[0]
            await a.stub.SubmitAction(
                game_pb2.SubmitActionRequest(
                    game_id=gid,
                    token=tokens[seat],
                    expected_version=views[seat].version,
                    decision_id=views[seat].decision.decision_id,
                    option_id=views[seat].decision.options[0].id,
                )
            )
        seat = actors[0]
        view = views[seat]
        version = view.version
        requests = [
            game_pb2.SubmitActionRequest(
                game_id=gid,
                token=tokens[seat],
                expected_version=version,
                decision_id=view.decision.decision_id,
                option_id=o.id,
            )
            for o in view.decision.options[:2]
        ]
        outcomes = await asyncio.gather(
            a.stub.SubmitAction(requests[0]),
            b.stub.SubmitAction(requests[-1]),
            return_exceptions=True,
        )
        wins = [o for o in outcomes if isinstance(o, game_pb2.SubmitActionResponse)]
        losses = [o for o in outcomes if isinstance(o, grpc.aio.AioRpcError)]
        assert len(wins) == 1 and len(losses) == 1, outcomes
        assert wins[0].version == version + 1
        assert status_of(losses[0])[0] == grpc.StatusCode.ABORTED
        head_a = (await a.stub.GetView(game_pb2.GetViewRequest(game_id=gid, token=tokens[0]))).view
        head_b = (await b.stub.GetView(game_pb2.GetViewRequest(game_id=gid, token=tokens[0]))).view
        assert head_a.version == head_b.version == version + 1
    finally:
        await a.stop()
        await b.stop()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _spawn(settings: Settings, port: int) -> subprocess.Popen[bytes]:
    env = dict(os.environ)
    env.update(
        {
            "WARROOM_REDIS_URL": settings.redis_url,
            "WARROOM_REDIS_PREFIX": settings.redis_prefix,
            "WARROOM_DATABASE_URL": settings.database_url,
            "WARROOM_DB_SCHEMA": settings.db_schema or "",
            "WARROOM_SERVICE_SECRET": settings.service_secret.get_secret_value(),
            "WARROOM_EXTRA_GAMES": settings.extra_games,
            "WARROOM_GAME_PORT": str(port),
            "WARROOM_GAME_METRICS_PORT": str(_free_port()),
            "WARROOM_GAME_RATE_PER_SECOND": "1000",
            "WARROOM_GAME_RATE_BURST": "1000",
            "WARROOM_GAME_SNAPSHOT_EVERY": "4",
            "PYTHONPATH": str(ROOT),
        }
    )
    return subprocess.Popen(
        [sys.executable, "-m", "services.game"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


async def _ready(address: str) -> grpc.aio.Channel:
    deadline = time.monotonic() + 30
    while True:
        channel = grpc.aio.insecure_channel(address)
        try:
            await asyncio.wait_for(channel.channel_ready(), 2)
            return channel
        except (TimeoutError, grpc.aio.AioRpcError):
            await channel.close()
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.2)


async def test_sigkill_mid_game_loses_no_acknowledged_action(settings: Settings) -> None:
    port = _free_port()
    address = f"127.0.0.1:{port}"
    process = _spawn(settings, port)
    try:
        channel = await _ready(address)
        stub = async_stub(channel)
        created = await create(stub, settings, seed=21)
        gid, tokens = created.game_id, list(created.seat_tokens)
        referee = Referee("toy", created.seed, "duel")
        rng = random.Random(4)

        async def step() -> bool:
            views = [
                (await stub.GetView(game_pb2.GetViewRequest(game_id=gid, token=t))).view
                for t in tokens
            ]
            if views[0].HasField("result"):
                return False
            seat = rng.choice([s for s, v in enumerate(views) if v.decision.options])
            option = pick(views[seat], rng)
            assert option is not None
            answer = await stub.SubmitAction(
                game_pb2.SubmitActionRequest(
                    game_id=gid,
                    token=tokens[seat],
                    expected_version=views[seat].version,
                    decision_id=views[seat].decision.decision_id,
                    option_id=option.id,
                    idempotency_key=f"{seat}-{views[seat].version}",
                )
            )
            referee.actions.append(Action(seat, option.id))
            assert answer.version == len(referee.actions)
            return True

        for _ in range(6):
            assert await step()
        process.send_signal(signal.SIGKILL)
        process.wait(10)
        await channel.close()
        process = _spawn(settings, port)
        channel = await _ready(address)
        stub = async_stub(channel)
        view = (await stub.GetView(game_pb2.GetViewRequest(game_id=gid, token=tokens[0]))).view
        assert view.version == len(referee.actions), "every acknowledged action survives"
        referee.check_view(view, 0)
        while await step():
            pass
        replay = await stub.GetReplay(game_pb2.GetReplayRequest(game_id=gid, token=tokens[0]))
        assert [(a.seat, a.option_id) for a in replay.actions] == [
            (a.seat, a.option_id) for a in referee.actions
        ]
        rules = get_rules("toy")
        rerun = Referee("toy", replay.seed, replay.variant, dict(replay.options))
        rerun.actions = [Action(a.seat, a.option_id) for a in replay.actions]
        assert rerun.state().over
        assert rules.encode_bytes(rerun.state().game) == rules.encode_bytes(referee.state().game)
        await channel.close()
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
        if process.returncode not in (0, -signal.SIGTERM, -signal.SIGKILL, None):
            stderr = process.stderr.read().decode() if process.stderr else ""
            pytest.fail(f"authority exited {process.returncode}: {stderr[-2000:]}")


async def test_losing_redis_loses_no_game(settings: Settings, redis_client: object) -> None:
    from tests.fixtures.redis_tools import delete_prefixed

    a = await start_replica(settings)
    try:
        created = await create(a.stub, settings, seed=31)
        gid, tokens = created.game_id, list(created.seat_tokens)
        referee = Referee("toy", created.seed, "duel")
        rng = random.Random(2)

        async def step() -> bool:
            views = [
                (await a.stub.GetView(game_pb2.GetViewRequest(game_id=gid, token=t))).view
                for t in tokens
            ]
            if views[0].HasField("result"):
                return False
            seat = rng.choice([s for s, v in enumerate(views) if v.decision.options])
            option = pick(views[seat], rng)
            assert option is not None
            await answer(a.stub, gid, tokens[seat], views[seat], option)
            referee.actions.append(Action(seat, option.id))
            return True

        for _ in range(4):
            assert await step()
        delete_prefixed(redis_client, settings.redis_prefix)  # type: ignore[arg-type]
        assert await step(), "the same replica goes on after Redis lost everything"
        b = await start_replica(settings)
        try:
            view = (
                await b.stub.GetView(game_pb2.GetViewRequest(game_id=gid, token=tokens[1]))
            ).view
            assert view.version == len(referee.actions)
            referee.check_view(view, 1)
        finally:
            await b.stop()
        while await step():
            pass
        rules = get_rules("toy")
        replay = await a.stub.GetReplay(game_pb2.GetReplayRequest(game_id=gid, token=tokens[0]))
        rerun = Referee("toy", replay.seed, replay.variant)
        rerun.actions = [Action(x.seat, x.option_id) for x in replay.actions]
        assert rules.encode_bytes(rerun.state().game) == rules.encode_bytes(referee.state().game)
    finally:
        await a.stop()
