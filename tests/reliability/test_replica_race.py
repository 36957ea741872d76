"""Two authority replicas (two processes) race on one game: exactly one submit wins each time.

At every decision of several toy games, the same seat submits two different options at once,
one through each replica, with different idempotency keys. Exactly one is acknowledged; the
other is refused (ABORTED or FAILED_PRECONDITION), and the log holds the winner only.
"""

from __future__ import annotations

import asyncio
import random
import uuid
from typing import Any

import grpc
import pytest

from services.game.tests.helpers import toy_request
from tests.reliability.procs import Procs, Stack, free_port, ready_channel
from warroom.v1 import game_pb2, game_pb2_grpc

GAMES = 5
LOSING = {grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION}


async def race_game(stubs: list[Any], game: game_pb2.CreateGameResponse, seed: int) -> int:
    """Race at every decision of one game; returns how many races were run."""
    rng = random.Random(seed)
    races = 0
    while True:
        views = [
            (await stubs[0].GetView(game_pb2.GetViewRequest(game_id=game.game_id, token=t))).view
            for t in game.seat_tokens
        ]
        if views[0].HasField("result"):
            return races
        seat = rng.choice([s for s, v in enumerate(views) if v.decision.options])
        view = views[seat]
        options = [o.id for o in view.decision.options if o.id != "undo"] or [
            o.id for o in view.decision.options
        ]
        picks = [rng.choice(options), rng.choice(options)]

        requests = [
            game_pb2.SubmitActionRequest(
                game_id=game.game_id,
                token=game.seat_tokens[seat],
                expected_version=view.version,
                decision_id=view.decision.decision_id,
                option_id=pick,
                idempotency_key=uuid.uuid4().hex,
            )
            for pick in picks
        ]
        outcomes = await asyncio.gather(
            *(stub.SubmitAction(r, timeout=20) for stub, r in zip(stubs, requests, strict=True)),
            return_exceptions=True,
        )
        wins = [o for o in outcomes if isinstance(o, game_pb2.SubmitActionResponse)]
        losses = [o for o in outcomes if isinstance(o, grpc.aio.AioRpcError)]
        assert len(wins) == 1, f"race at version {view.version}: {outcomes}"
        assert len(losses) == 1 and losses[0].code() in LOSING, outcomes
        assert wins[0].version == view.version + 1
        races += 1


@pytest.mark.timeout(240)
async def test_two_replicas_racing_on_one_game_have_exactly_one_winner(
    stack: Stack, procs: Procs
) -> None:
    ports = [free_port(), free_port()]
    for i, port in enumerate(ports):
        procs.game(port, name=f"game-{i}")
    channels = [await ready_channel(f"127.0.0.1:{p}") for p in ports]
    try:
        stubs: list[Any] = [game_pb2_grpc.GameServiceStub(c) for c in channels]
        games = [
            await stubs[i % 2].CreateGame(
                toy_request(seed=300 + i, request_id=uuid.uuid4().hex),
                metadata=stack.service_metadata,
            )
            for i in range(GAMES)
        ]
        races = await asyncio.gather(*(race_game(stubs, g, i) for i, g in enumerate(games)))
        for game in games:
            request = game_pb2.GetReplayRequest(game_id=game.game_id, token=game.seat_tokens[0])
            a = await stubs[0].GetReplay(request)
            b = await stubs[1].GetReplay(request)
            assert list(a.actions) == list(b.actions), "the replicas disagree on the log"
        print(
            f"two replicas raced {sum(races)} times on {GAMES} games: exactly one winner each "
            "time, the loser refused, both replicas serve the same log"
        )
    finally:
        for channel in channels:
            await channel.close()
