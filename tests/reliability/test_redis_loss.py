"""Redis flushed, then restarted, mid-game: every game finishes, no ticket or stream hangs.

A private `redis-server` on a free port (never the shared one; no persistence, so a restart
loses everything like a flush) under an authority, a Celery worker and a lobby, all real
processes. In play: two all-bot games, a mixed game (a human seat driven by the test and a
bot) and a human game (both seats driven by the test), plus two players waiting in the
matchmaking queue with a WatchTicket stream open each. Redis is flushed (FLUSHALL), then
killed and started again on the same port. Every game must finish; every waiting player must
be told clearly (the stream ends with NOT_FOUND TICKET_LOST or UNAVAILABLE, or the ticket is
still searching); no stream may stay open without news.
"""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from pathlib import Path
from typing import Any

import grpc
import pytest
import redis

from services.game.tests.helpers import pick, toy_request
from tests.reliability.procs import Procs, Stack, free_port, ready_channel, wait_for_log
from tests.reliability.test_authority_kill import Client
from warroom.engine.registry import register
from warroom.v1 import common_pb2, game_pb2, game_pb2_grpc, lobby_pb2, lobby_pb2_grpc

register("toy", "tests.engine.toy_game:ToyRules")
BOT = common_pb2.BotSpec(kind="ismcts", budget_ms=700)
CLEAR = {grpc.StatusCode.NOT_FOUND, grpc.StatusCode.UNAVAILABLE}


def start_redis(procs: Procs, port: int, name: str) -> Any:
    proc = procs.command(
        name,
        [
            "redis-server",
            "--bind",
            "127.0.0.1",
            "--port",
            str(port),
            "--save",
            "",
            "--appendonly",
            "no",
        ],
    )
    client = redis.Redis(host="127.0.0.1", port=port)
    deadline = time.monotonic() + 20
    while True:
        try:
            client.ping()
            return proc
        except redis.ConnectionError:
            assert time.monotonic() < deadline, proc.tail()
            time.sleep(0.1)


async def drive(client: Client, game: game_pb2.CreateGameResponse, humans: list[int]) -> None:
    """Play the human seats of a game with random options until it ends."""
    rng = random.Random(game.game_id)
    while True:
        view = (
            await client.call(
                "GetView", game_pb2.GetViewRequest(game_id=game.game_id, token=game.spectator_token)
            )
        ).view
        if view.HasField("result"):
            return
        for seat in humans:
            mine = (
                await client.call(
                    "GetView",
                    game_pb2.GetViewRequest(game_id=game.game_id, token=game.seat_tokens[seat]),
                )
            ).view
            option = pick(mine, rng)
            if option is None:
                continue
            try:
                await client.call(
                    "SubmitAction",
                    game_pb2.SubmitActionRequest(
                        game_id=game.game_id,
                        token=game.seat_tokens[seat],
                        expected_version=mine.version,
                        decision_id=mine.decision.decision_id,
                        option_id=option.id,
                        idempotency_key=f"{seat}:{mine.version}",
                    ),
                )
            except grpc.aio.AioRpcError as error:
                if error.code() not in (
                    grpc.StatusCode.ABORTED,
                    grpc.StatusCode.FAILED_PRECONDITION,
                ):
                    raise
        await asyncio.sleep(0.8)


async def unfinished(stub: Any, games: dict[str, game_pb2.CreateGameResponse]) -> list[str]:
    """The games without a result yet."""
    out = []
    for name, game in games.items():
        request = game_pb2.GetViewRequest(game_id=game.game_id, token=game.spectator_token)
        if not (await stub.GetView(request)).view.HasField("result"):
            out.append(name)
    return out


async def watch(stub: Any, token: str, ticket_id: str) -> str:
    """Follow a WatchTicket stream to its end; what it ended with."""
    call = stub.WatchTicket(
        lobby_pb2.WatchTicketRequest(ticket_id=ticket_id),
        metadata=(("authorization", f"Bearer {token}"),),
    )
    last = "no message"
    try:
        async for message in call:
            last = lobby_pb2.TicketStatus.Name(message.status)
    except grpc.aio.AioRpcError as error:
        if error.code() not in CLEAR:
            raise AssertionError(f"the stream ended with {error.code().name}") from error
        return error.code().name
    return last


@pytest.mark.timeout(300)
async def test_redis_flush_and_restart_mid_game_lose_no_game(stack: Stack, tmp_path: Path) -> None:
    redis_port = free_port()
    private = Stack(
        f"redis://127.0.0.1:{redis_port}/0", stack.database_url, stack.schema, stack.prefix
    )
    procs = Procs(private, tmp_path)
    try:
        await _scenario(procs, private, redis_port)
    finally:
        procs.close()


async def _scenario(procs: Procs, stack: Stack, redis_port: int) -> None:
    start_redis(procs, redis_port, "redis")
    game_port, lobby_port = free_port(), free_port()
    address = f"127.0.0.1:{game_port}"
    procs.game(game_port)
    wait_for_log(procs.worker(address), " ready.", 120)
    procs.module(
        "lobby",
        "services.lobby",
        WARROOM_GAME_ENDPOINT=address,
        WARROOM_LOBBY_PORT=str(lobby_port),
        WARROOM_LOBBY_METRICS_PORT=str(free_port()),
        WARROOM_LOBBY_WATCH_INTERVAL_S="0.5",
    )
    channel = await ready_channel(address)
    lobby_channel = await ready_channel(f"127.0.0.1:{lobby_port}")
    stub: Any = game_pb2_grpc.GameServiceStub(channel)
    lobby: Any = lobby_pb2_grpc.LobbyServiceStub(lobby_channel)
    human = game_pb2.SeatSpec(player_id="h", display_name="H")
    bot = game_pb2.SeatSpec(bot=BOT)
    kinds = {
        "all-bot": [bot, bot],
        "all-bot 2": [bot, bot],
        "mixed": [human, bot],
        "human": [human, human],
    }
    humans = {"all-bot": [], "all-bot 2": [], "mixed": [0], "human": [0, 1]}
    games = {
        name: await stub.CreateGame(
            toy_request(seed=700 + i, seats=seats, request_id=uuid.uuid4().hex),
            metadata=stack.service_metadata,
        )
        for i, (name, seats) in enumerate(kinds.items())
    }
    waiting = []
    for name in ("wait-a", "wait-b"):
        login = await lobby.Login(lobby_pb2.LoginRequest(name=f"{name}-{uuid.uuid4().hex[:4]}"))
        md = (("authorization", f"Bearer {login.token}"),)
        ticket = await lobby.EnqueueTicket(
            lobby_pb2.EnqueueTicketRequest(rules_id="ncw", ttl_s=600), metadata=md
        )
        waiting.append((login.token, ticket.ticket.ticket_id))
    watchers = [asyncio.ensure_future(watch(lobby, t, tid)) for t, tid in waiting]
    clients = [Client(address) for _ in games]
    drivers = [
        asyncio.ensure_future(drive(c, g, humans[name]))
        for c, (name, g) in zip(clients, games.items(), strict=True)
    ]
    started = time.monotonic()
    await asyncio.sleep(2)
    at_flush = await unfinished(stub, games)
    redis.Redis(host="127.0.0.1", port=redis_port).flushall()
    flushed = time.monotonic()
    await asyncio.sleep(4)
    at_restart = await unfinished(stub, games)
    procs.started[0].kill()
    start_redis(procs, redis_port, "redis-restarted")
    restarted = time.monotonic()
    try:
        await asyncio.wait_for(asyncio.gather(*drivers), 150)
        finished = time.monotonic()
        endings = await asyncio.wait_for(asyncio.gather(*watchers), 30)
    finally:
        for task in (*drivers, *watchers):
            task.cancel()
        for c in clients:
            await c.close()
    after = []
    for token, ticket_id in waiting:
        try:
            reply = await lobby.WatchTicket(
                lobby_pb2.WatchTicketRequest(ticket_id=ticket_id),
                metadata=(("authorization", f"Bearer {token}"),),
            ).read()
            after.append(lobby_pb2.TicketStatus.Name(reply.status))
        except grpc.aio.AioRpcError as error:
            if error.code() not in CLEAR:
                raise
            after.append(error.code().name)
    await channel.close()
    await lobby_channel.close()
    assert len(at_flush) == len(games), f"games ended before the flush: {at_flush}"
    assert len(at_restart) >= 3, f"too few games still playing at the restart: {at_restart}"
    print(
        f"{len(at_flush)} games playing at the flush, {len(at_restart)} at the restart. "
        f"Redis flushed at {flushed - started:.1f} s and restarted at {restarted - started:.1f} s: "
        f"all {len(games)} games (2 all-bot, mixed, human) finished {finished - restarted:.1f} s "
        f"after the restart; waiting tickets' streams ended with {endings}, then {after}; "
        f"{sum(c.retries for c in clients)} client retries"
    )
