"""The authority SIGKILLed 5 times during 20 games: no acknowledged action lost or doubled.

One `python -m services.game` process serves 20 toy games played by 40 simulated clients at
once; it is SIGKILLed five times while they play and restarted on the same port. A client
retries a call that met UNAVAILABLE with the same idempotency key (as the SDK does). At the
end every game has finished, every acknowledged action is in the replay at the version it
was acknowledged at, no (seat, version) appears twice, and replaying each game's log through
the rules reproduces the final state every seat sees.
"""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest

from services.game.tests.helpers import Action, Referee, pick, toy_request
from tests.reliability.procs import Procs, Stack, free_port, ready_channel
from warroom.engine.registry import get_rules, register
from warroom.v1 import game_pb2, game_pb2_grpc

GAMES = 20
KILLS = 5
RETRY = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED}
# About 13 moves per toy game: the kills are spread over the games' progress, not over
# wall-clock seconds, so a faster authority still meets every kill mid-game.
EXPECTED_ACTIONS = GAMES * 12


@dataclass
class Played:
    """One game: its tokens and what the authority acknowledged."""

    game_id: str
    seed: int
    tokens: list[str]
    acked: dict[int, tuple[int, str]] = field(default_factory=dict)  # version -> (seat, option)
    finished: bool = False


class Client:
    """A stub that survives the authority's restarts (a new channel per address)."""

    def __init__(self, address: str) -> None:
        self.address = address
        self.channel: grpc.aio.Channel | None = None
        self.retries = 0

    async def call(self, method: str, request: Any) -> Any:
        while True:
            if self.channel is None:
                self.channel = grpc.aio.insecure_channel(self.address)
            stub: Any = game_pb2_grpc.GameServiceStub(self.channel)
            try:
                return await getattr(stub, method)(request, timeout=5)
            except grpc.aio.AioRpcError as error:
                if error.code() not in RETRY:
                    raise
                self.retries += 1
                await asyncio.sleep(0.2)

    async def close(self) -> None:
        if self.channel is not None:
            await self.channel.close()


async def until_acked(games: list[Played], count: int) -> None:
    """Wait until the games hold `count` acknowledged actions in all (at most about 60 s)."""
    for _ in range(3000):
        if sum(len(g.acked) for g in games) >= count:
            return
        await asyncio.sleep(0.02)


async def play(client: Client, game: Played, rng: random.Random) -> None:
    """Play a game to its end with random legal options, recording acknowledgements."""
    while True:
        views = [
            (
                await client.call("GetView", game_pb2.GetViewRequest(game_id=game.game_id, token=t))
            ).view
            for t in game.tokens
        ]
        if views[0].HasField("result"):
            game.finished = True
            return
        acting = [s for s, v in enumerate(views) if v.decision.options]
        seat = rng.choice(acting)
        view = views[seat]
        option = pick(view, rng)
        assert option is not None
        request = game_pb2.SubmitActionRequest(
            game_id=game.game_id,
            token=game.tokens[seat],
            expected_version=view.version,
            decision_id=view.decision.decision_id,
            option_id=option.id,
            idempotency_key=f"{seat}:{view.version}",
        )
        try:
            answer = await client.call("SubmitAction", request)
        except grpc.aio.AioRpcError as error:
            # Another seat of a simultaneous decision moved the game first: look again.
            if error.code() not in (grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION):
                raise
            continue
        assert answer.version not in game.acked, f"version {answer.version} acknowledged twice"
        game.acked[answer.version] = (seat, option.id)
        await asyncio.sleep(rng.uniform(0.1, 0.4))


@pytest.mark.timeout(240)
async def test_authority_sigkill_loses_and_doubles_no_acknowledged_action(
    stack: Stack, procs: Procs
) -> None:
    register("toy", "tests.engine.toy_game:ToyRules")
    port = free_port()
    address = f"127.0.0.1:{port}"
    authority = procs.game(port)
    setup = await ready_channel(address)
    stub: Any = game_pb2_grpc.GameServiceStub(setup)
    games = []
    for i in range(GAMES):
        created = await stub.CreateGame(
            toy_request(seed=100 + i, request_id=uuid.uuid4().hex),
            metadata=stack.service_metadata,
        )
        games.append(Played(created.game_id, created.seed, list(created.seat_tokens)))
    await setup.close()
    clients = [Client(address) for _ in games]
    started = time.monotonic()
    players = [
        asyncio.ensure_future(play(c, g, random.Random(i)))
        for i, (c, g) in enumerate(zip(clients, games, strict=True))
    ]
    kills, outages = 0, []
    try:
        while kills < KILLS:
            await until_acked(games, (kills + 1) * EXPECTED_ACTIONS // (KILLS + 1))
            assert not all(g.finished for g in games), f"games ended before kill {kills + 1}"
            authority.kill()
            kills += 1
            down = time.monotonic()
            authority = procs.game(port, name=f"game-{kills}")
            channel = await ready_channel(address)
            await channel.close()
            outages.append(time.monotonic() - down)
        await asyncio.wait_for(asyncio.gather(*players), 150)
    finally:
        for task in players:
            task.cancel()
        for c in clients:
            await c.close()
    elapsed = time.monotonic() - started
    # Every acknowledged action is in the log at its version; the log replays to the end.
    channel = await ready_channel(address)
    stub = game_pb2_grpc.GameServiceStub(channel)
    rules = get_rules("toy")
    acked = sum(len(g.acked) for g in games)
    logged = 0
    for game in games:
        assert game.finished, game.game_id
        replay = await stub.GetReplay(
            game_pb2.GetReplayRequest(game_id=game.game_id, token=game.tokens[0])
        )
        log = [(a.seat, a.option_id) for a in replay.actions]
        logged += len(log)
        for version, action in game.acked.items():
            assert log[version - 1] == action, f"{game.game_id}: acknowledged action lost"
        assert len(log) == len(game.acked), f"{game.game_id}: an unacknowledged action applied"
        referee = Referee("toy", replay.seed, replay.variant, dict(replay.options))
        referee.actions = [Action(seat, option) for seat, option in log]
        assert referee.state().over
        for seat, token in enumerate(game.tokens):
            view = (
                await stub.GetView(game_pb2.GetViewRequest(game_id=game.game_id, token=token))
            ).view
            referee.check_view(view, seat)
        assert rules.encode_bytes(referee.state().game)
    await channel.close()
    retries = sum(c.retries for c in clients)
    print(
        f"authority SIGKILL x{kills} during {GAMES} games: {acked} acknowledged actions, "
        f"{logged} in the logs, 0 lost, 0 doubled; all {GAMES} finished and replayed; "
        f"restart {min(outages):.1f}-{max(outages):.1f} s; {retries} client retries; "
        f"{elapsed:.1f} s in all"
    )
