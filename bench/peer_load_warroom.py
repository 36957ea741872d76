"""Warroom load generator of the peer benchmark (bench/peer_boardgameio.py starts it).

The same client work as the boardgame.io load generator (bench/peers/boardgameio/load.js):
each game is two seats, each following the game through its own WatchGame stream, as two
Warroom clients would; one move of a game is in flight at a time: the seat that must act (on
the latest view it holds) submits a random offered option, and the move's latency is the
SubmitAction round trip (answered only after the move is committed, with the version only:
`omit_view`). Both seats learn of the move from their streams, as boardgame.io's sockets do.
A finished game is replaced by a new CreateGame inside the timed window.

    python bench/peer_load_warroom.py --address 127.0.0.1:PORT --tables 100 [--ack-schema S]

It prints READY once every table holds a game, then reads commands on stdin, one a line, and
answers each with one JSON line (the keys of load.js):
    closed GAMES SECONDS               closed loop on the first GAMES tables
    paced GAMES SECONDS RATE ACK_EVERY  Poisson arrivals at RATE/s over GAMES tables; every
                                       ACK_EVERY-th answer is followed at once by a read of the
                                       game's committed version (`ahead`: the answer was newer)
    quit
The authority's settings (service credential, database) come from the WARROOM_* environment.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import math
import random
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "libs"))

from services.common.auth import service_metadata  # noqa: E402
from services.common.settings import Settings  # noqa: E402
from warroom.v1 import common_pb2, game_pb2, game_pb2_grpc  # noqa: E402

TIMEOUT = 15.0


class Table:
    """One game slot: the current game, each seat's latest view, the newest version seen."""

    def __init__(self, stub: game_pb2_grpc.GameServiceAsyncStub, metadata: Any, index: int) -> None:
        self.stub = stub
        self.metadata = metadata
        self.rng = random.Random(index)
        self.game_id = ""
        self.tokens: list[str] = []
        self.views: list[game_pb2.SeatView | None] = [None, None]
        self.head = -1
        self.changed = asyncio.Event()
        self.streams: list[asyncio.Task[None]] = []
        self.created = 0

    def receive(self, seat: int, view: game_pb2.SeatView) -> None:
        """A newer view of `seat` (from its stream)."""
        held = self.views[seat]
        if held is not None and view.version <= held.version:
            return
        self.views[seat] = view
        self.head = max(self.head, view.version)
        self.changed.set()

    async def follow(self, seat: int, game_id: str) -> None:
        """The seat's WatchGame stream, until the game ends or the table moves on."""
        request = game_pb2.WatchGameRequest(game_id=game_id, token=self.tokens[seat])
        async for update in self.stub.WatchGame(request):
            if self.game_id != game_id:
                return
            self.receive(seat, update.view)

    async def new_game(self) -> None:
        """Create a game and follow both seats' streams until each holds its first view."""
        for task in self.streams:
            task.cancel()
        created = await self.stub.CreateGame(
            game_pb2.CreateGameRequest(
                rules_id="toy",
                variant="duel",
                seed=self.rng.randrange(1 << 40),
                seats=[game_pb2.SeatSpec(player_id="a"), game_pb2.SeatSpec(player_id="b")],
            ),
            metadata=self.metadata,
        )
        self.game_id, self.tokens = created.game_id, list(created.seat_tokens)
        self.views, self.head = [None, None], -1
        self.streams = [
            asyncio.ensure_future(self.follow(seat, created.game_id)) for seat in (0, 1)
        ]
        await self.until(lambda: all(v is not None for v in self.views))
        self.created += 1

    async def until(self, ready: Callable[[], bool]) -> None:
        async def wait() -> None:
            while not ready():
                self.changed.clear()
                await self.changed.wait()

        await asyncio.wait_for(wait(), TIMEOUT)

    def over(self) -> bool:
        return any(v is not None and v.HasField("result") for v in self.views)

    def options(self, seat: int) -> list[common_pb2.Option]:
        view = self.views[seat]
        if view is None or view.version != self.head or view.HasField("result"):
            return []
        if seat not in view.decision.seats:
            return []
        return [o for o in view.decision.options if o.id != "undo"]

    async def step(self) -> tuple[float, str, int] | None:
        """One move: (latency s, game id, answered version); None when it made a new game."""
        if not self.game_id or self.over():
            await self.new_game()
            return None
        await self.until(lambda: self.over() or any(self.options(s) for s in (0, 1)))
        if self.over():
            return await self.step()
        seat = next(s for s in (0, 1) if self.options(s))
        view = self.views[seat]
        assert view is not None
        option = self.rng.choice(self.options(seat))
        started = time.perf_counter()
        answer = await asyncio.wait_for(
            self.stub.SubmitAction(
                game_pb2.SubmitActionRequest(
                    game_id=self.game_id,
                    token=self.tokens[seat],
                    expected_version=view.version,
                    decision_id=view.decision.decision_id,
                    option_id=option.id,
                    idempotency_key=f"{self.game_id}-{view.version}-{seat}",
                    omit_view=True,
                )
            ),
            TIMEOUT,
        )
        latency = time.perf_counter() - started
        # The answer may come before the streams carry its version: until they do, no view
        # held is current, so this seat does not answer the same decision twice.
        self.head = max(self.head, answer.version)
        return latency, self.game_id, answer.version


class AckCheck:
    """Reads a game's committed version right after every `every`-th answer."""

    def __init__(self, url: str | None, schema: str | None) -> None:
        self.url, self.schema = url, schema
        self.conn: Any = None
        self.every, self.count, self.checked, self.ahead = 0, 0, 0, 0

    async def open(self) -> None:
        """Connect before any timed window (as load.js loads its driver at start): importing
        psycopg and connecting inside the first paced window stalled this process's event loop
        while moves were in flight, and their latencies counted the stall."""
        if self.url and self.conn is None:
            import psycopg

            self.conn = await psycopg.AsyncConnection.connect(self.url, autocommit=True)

    async def after(self, game_id: str, version: int) -> None:
        self.count += 1
        if not self.every or not self.url or self.count % self.every:
            return
        await self.open()
        query = f'SELECT version FROM "{self.schema}".games WHERE id = %s'
        row = await (await self.conn.execute(query, (game_id,))).fetchone()
        self.checked += 1
        if row is None or row[0] < version:
            self.ahead += 1


async def closed(tables: list[Table], seconds: float, ack: AckCheck) -> tuple[list[float], int]:
    """Every table moves again as soon as it is answered."""
    latencies: list[float] = []
    stop = time.perf_counter() + seconds

    async def loop(table: Table) -> None:
        while time.perf_counter() < stop:
            answer = await table.step()
            if answer is not None:
                latencies.append(answer[0])
                await ack.after(answer[1], answer[2])

    await asyncio.gather(*(loop(t) for t in tables))
    return latencies, 0


async def paced(
    tables: list[Table], seconds: float, rate: float, ack: AckCheck
) -> tuple[list[float], int]:
    """Poisson arrivals at `rate`/s, each making one idle table move (queued when none is)."""
    latencies: list[float] = []
    idle: asyncio.Queue[Table] = asyncio.Queue()
    for table in tables:
        idle.put_nowait(table)
    queued = 0
    running: set[asyncio.Task[None]] = set()

    async def act() -> None:
        nonlocal queued
        if idle.empty():
            queued += 1
        table = await idle.get()
        try:
            answer = await table.step()
            while answer is None:
                answer = await table.step()
            latencies.append(answer[0])
            await ack.after(answer[1], answer[2])
        finally:
            idle.put_nowait(table)

    def fire() -> None:
        task = asyncio.ensure_future(act())
        running.add(task)
        task.add_done_callback(running.discard)

    began = time.perf_counter()
    for due in arrivals(rate, seconds, 7):
        delay = began + due - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        fire()
    if running:
        await asyncio.gather(*running)
    return latencies, queued


def mulberry32(seed: int) -> Callable[[], float]:
    """The uniform generator of load.js (same seed, same numbers)."""
    state = seed & 0xFFFFFFFF

    def imul(a: int, b: int) -> int:
        return (a * b) & 0xFFFFFFFF

    def draw() -> float:
        nonlocal state
        state = (state + 0x6D2B79F5) & 0xFFFFFFFF
        t = imul(state ^ (state >> 15), state | 1)
        t ^= (t + imul(t ^ (t >> 7), t | 61)) & 0xFFFFFFFF
        return ((t ^ (t >> 14)) & 0xFFFFFFFF) / 4294967296

    return draw


def arrivals(rate: float, seconds: float, seed: int) -> list[float]:
    """Poisson arrival offsets (s) within `seconds`: the same times as load.js's paced windows."""
    draw = mulberry32(seed)
    due, out = 0.0, list[float]()
    while True:
        due += -math.log(1 - draw()) / rate
        if due >= seconds:
            return out
        out.append(due)


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def window(
    tables: list[Table], ack: AckCheck, run: Callable[[], Awaitable[tuple[list[float], int]]]
) -> dict[str, Any]:
    """Run one timed window and describe it (the JSON line of load.js)."""
    created = sum(t.created for t in tables)
    cpu = time.process_time()
    checked, ahead = ack.checked, ack.ahead
    began = time.perf_counter()
    latencies, queued = await run()
    elapsed = time.perf_counter() - began
    p50, p99 = percentile(latencies, 0.5), percentile(latencies, 0.99)
    return {
        "moves": len(latencies),
        "elapsed": elapsed,
        "rate": len(latencies) / elapsed,
        "p50_ms": None if p50 is None else p50 * 1e3,
        "p99_ms": None if p99 is None else p99 * 1e3,
        "games_created": sum(t.created for t in tables) - created,
        "queued": queued,
        "ack_checked": ack.checked - checked,
        "ack_ahead": ack.ahead - ahead,
        "client_cpu_ms_per_move": (time.process_time() - cpu) * 1e3 / max(1, len(latencies)),
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--address", required=True)
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--ack-database", help="psycopg URL of the authority's database")
    parser.add_argument("--ack-schema", help="the authority's schema")
    args = parser.parse_args()
    settings = Settings()
    channel = grpc.aio.insecure_channel(args.address)
    stub = game_pb2_grpc.GameServiceStub(channel)
    metadata = service_metadata(settings)
    tables = [Table(stub, metadata, i) for i in range(args.tables)]
    for start in range(0, len(tables), 25):
        await asyncio.gather(*(t.new_game() for t in tables[start : start + 25]))
    ack = AckCheck(args.ack_database, args.ack_schema)
    await ack.open()
    print("READY", flush=True)
    loop = asyncio.get_running_loop()
    while True:
        line = (await loop.run_in_executor(None, sys.stdin.readline)).split()
        if not line or line[0] == "quit":
            break
        games, seconds = int(line[1]), float(line[2])
        crowd = tables[:games]
        if line[0] == "closed":
            ack.every = 0
            result = await window(crowd, ack, functools.partial(closed, crowd, seconds, ack))
        else:
            rate, ack.every = float(line[3]), int(line[4])
            result = await window(crowd, ack, functools.partial(paced, crowd, seconds, rate, ack))
        print(json.dumps(result), flush=True)
    for table in tables:
        for task in table.streams:
            task.cancel()
    if ack.conn is not None:
        await ack.conn.close()
    await channel.close()


if __name__ == "__main__":
    from services.common import eventloop

    eventloop.run(main(), Settings())
