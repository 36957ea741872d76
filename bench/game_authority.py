"""Benchmark of GameService.SubmitAction against a bare grpc.aio echo server (the ceiling).

Starts the authority (`python -m services.game`, persistence on: PostgreSQL +
Redis) and an echo server as subprocesses on loopback, then drives N concurrent
toy games (N = 1, 100, 1000 by default) closed-loop for a fixed time each (the
throughput rows), then 100 games open-loop under Poisson arrivals at a fraction of
the measured 100-game throughput, the echo under the same arrivals (the latency
row), and writes the `<!-- bench:game -->` section of docs/benchmarks.md.

Usage:  .venv/bin/python bench/game_authority.py [--seconds 8] [--games 1,100,1000]
        [--paced-fractions 0.25,0.5] [--no-write] [--profile FILE]
Needs REDIS_URL and DATABASE_URL (defaults: local Redis, local PostgreSQL "postgres").
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
from sqlalchemy import text
from sqlalchemy.engine import Engine

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "libs"))
# A benchmark on loopback with throw-away keys: development mode (services.common.keys);
# inherited by every process it starts.
os.environ.setdefault("WARROOM_ENV", "development")

from services.common.auth import service_metadata  # noqa: E402
from services.common.db import make_engine, migrate  # noqa: E402
from services.common.settings import Settings  # noqa: E402
from warroom import docsections  # noqa: E402
from warroom.v1 import game_pb2, game_pb2_grpc  # noqa: E402

STREAM_MESSAGES = 20  # messages per call of the echo server's server-streaming method

ECHO = """
import asyncio, grpc, sys
STREAM_MESSAGES = @STREAM_MESSAGES@
async def _echo(request, context):
    return request
async def _stream(request, context):
    for _ in range(STREAM_MESSAGES):
        yield request
async def main():
    server = grpc.aio.server()
    handler = grpc.method_handlers_generic_handler(
        "bench.Echo", {"Echo": grpc.unary_unary_rpc_method_handler(_echo),
                       "Stream": grpc.unary_stream_rpc_method_handler(_stream)})
    server.add_generic_rpc_handlers((handler,))
    server.add_insecure_port("127.0.0.1:" + sys.argv[1])
    await server.start()
    await server.wait_for_termination()
from services.common import eventloop
from services.common.settings import Settings
eventloop.run(main(), Settings())
""".replace("@STREAM_MESSAGES@", str(STREAM_MESSAGES))


async def run_stream_echo(channel: grpc.aio.Channel, streams: int, seconds: float) -> int:
    """Closed loop of `streams` concurrent server-streaming calls of the echo server (each
    answers with `STREAM_MESSAGES` copies of its 600-byte request); the messages received."""
    call: grpc.aio.UnaryStreamMultiCallable[bytes, bytes] = channel.unary_stream(
        "/bench.Echo/Stream"
    )
    payload = os.urandom(600)
    received = 0
    stop = time.perf_counter() + seconds

    async def loop() -> None:
        nonlocal received
        while time.perf_counter() < stop:
            async for _message in call(payload):
                received += 1

    await asyncio.gather(*(loop() for _ in range(streams)))
    return received


def spawn(argv: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    """Start a server subprocess from the repo root."""
    return subprocess.Popen(argv, cwd=ROOT, env=env)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def ready(address: str) -> grpc.aio.Channel:
    deadline = time.monotonic() + 60
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


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def run_echo(
    channel: grpc.aio.Channel, games: int, seconds: float
) -> tuple[float, list[float]]:
    call: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary("/bench.Echo/Echo")
    payload = os.urandom(600)
    latencies: list[float] = []
    stop = time.perf_counter() + seconds

    async def loop() -> None:
        while time.perf_counter() < stop:
            started = time.perf_counter()
            await call(payload)
            latencies.append(time.perf_counter() - started)

    began = time.perf_counter()
    await asyncio.gather(*(loop() for _ in range(games)))
    return len(latencies) / (time.perf_counter() - began), latencies


class Player:
    """One client driving every seat of one toy game at a time (a new game when one ends).

    It asks `GetView` only for the seats whose turn it cannot read from what it already
    holds: the `SubmitAction` answer carries the submitter's view (its next options when it
    acts again) and the decision's acting seats, so a view is fetched only when the turn
    passes to a seat whose options it does not know.
    """

    def __init__(
        self,
        stub: game_pb2_grpc.GameServiceAsyncStub,
        settings: Settings,
        index: int,
        created: game_pb2.CreateGameResponse,
    ) -> None:
        self.stub = stub
        self.metadata = service_metadata(settings)
        self.index = index
        self.rng = random.Random(index)
        self.created = created
        self.known: dict[int, game_pb2.SeatView] = {}
        self.latest: game_pb2.SeatView | None = None
        self.sent = 0
        self.views = 0

    async def new_game(self) -> None:
        self.created = await self.stub.CreateGame(
            new_game_request(self.rng), metadata=self.metadata
        )
        self.known, self.latest = {}, None

    async def fetch(self, seats: list[int]) -> None:
        for seat in seats:
            got = await self.stub.GetView(
                game_pb2.GetViewRequest(
                    game_id=self.created.game_id, token=self.created.seat_tokens[seat]
                )
            )
            self.views += 1
            self.known[seat] = got.view
            self.latest = got.view

    def actor(self) -> int:
        for seat, view in self.known.items():
            if view.decision.options and seat in view.decision.seats:
                return seat
        return -1

    async def step(self) -> float | None:
        """Answer one decision: the SubmitAction latency (None when the step did not submit)."""
        seat = self.actor()
        if seat < 0:
            latest = self.latest
            acting = list(latest.decision.seats) if latest is not None else []
            await self.fetch(acting or list(range(len(self.created.seat_tokens))))
            if self.latest is not None and self.latest.HasField("result"):
                await self.new_game()
                return None
            seat = self.actor()
            if seat < 0:
                self.known, self.latest = {}, None
                return None
        view = self.known[seat]
        option = self.rng.choice([o for o in view.decision.options if o.id != "undo"])
        self.sent += 1
        started = time.perf_counter()
        try:
            answer = await self.stub.SubmitAction(
                game_pb2.SubmitActionRequest(
                    game_id=self.created.game_id,
                    token=self.created.seat_tokens[seat],
                    expected_version=view.version,
                    decision_id=view.decision.decision_id,
                    option_id=option.id,
                    idempotency_key=f"{self.index}-{self.sent}",
                )
            )
        except grpc.aio.AioRpcError:
            self.known, self.latest = {}, None
            return None
        latency = time.perf_counter() - started
        self.known = {
            other: known
            for other, known in self.known.items()
            if known.decision.decision_id == answer.view.decision.decision_id
        }
        self.known[seat] = answer.view
        self.latest = answer.view
        if answer.view.HasField("result"):
            await self.new_game()
        return latency


def new_game_request(rng: random.Random) -> game_pb2.CreateGameRequest:
    return game_pb2.CreateGameRequest(
        rules_id="toy",
        variant="duel",
        seed=rng.randrange(1 << 40),
        seats=[game_pb2.SeatSpec(player_id="a"), game_pb2.SeatSpec(player_id="b")],
    )


async def players(
    stub: game_pb2_grpc.GameServiceAsyncStub, settings: Settings, games: int
) -> list[Player]:
    """`games` players, each with a freshly created game."""
    out: list[Player] = []
    metadata = service_metadata(settings)
    for start in range(0, games, 50):
        batch = range(start, min(games, start + 50))
        created = await asyncio.gather(
            *(
                stub.CreateGame(new_game_request(random.Random(-i)), metadata=metadata)
                for i in batch
            )
        )
        out += [Player(stub, settings, i, c) for i, c in zip(batch, created, strict=True)]
    return out


async def run_game(
    stub: game_pb2_grpc.GameServiceAsyncStub,
    settings: Settings,
    games: int,
    seconds: float,
    pid: int,
) -> tuple[float, list[float], int, float]:
    """Closed loop: every game acts again as soon as its previous action is answered."""
    latencies: list[float] = []
    crowd = await players(stub, settings, games)
    stop = time.perf_counter() + seconds

    async def loop(player: Player) -> None:
        while time.perf_counter() < stop:
            latency = await player.step()
            if latency is not None:
                latencies.append(latency)

    began = time.perf_counter()
    cpu_before = cpu_seconds(pid)
    await asyncio.gather(*(loop(p) for p in crowd))
    cpu = cpu_seconds(pid) - cpu_before
    views = sum(p.views for p in crowd)
    return len(latencies) / (time.perf_counter() - began), latencies, views, cpu


async def poisson(rate: float, seconds: float, seed: int, fire: Callable[[], None]) -> int:
    """Call `fire` at Poisson arrival times (mean `rate` per second) for `seconds`."""
    rng = random.Random(seed)
    began = time.perf_counter()
    due = began
    fired = 0
    while True:
        due += rng.expovariate(rate)
        if due - began >= seconds:
            return fired
        delay = due - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        fire()
        fired += 1


async def run_game_paced(
    stub: game_pb2_grpc.GameServiceAsyncStub,
    settings: Settings,
    games: int,
    seconds: float,
    rate: float,
    pid: int,
) -> tuple[float, list[float], int, float, int]:
    """Open loop: Poisson arrivals at `rate`/s, each making one idle game (of `games`) act.

    An arrival that finds every game busy waits for the next idle one (counted as `queued`).
    """
    latencies: list[float] = []
    crowd = await players(stub, settings, games)
    idle: asyncio.Queue[Player] = asyncio.Queue()
    for player in crowd:
        idle.put_nowait(player)
    tasks: set[asyncio.Task[None]] = set()
    queued = 0

    async def act() -> None:
        nonlocal queued
        if idle.empty():
            queued += 1
        player = await idle.get()
        try:
            latency = await player.step()
            while latency is None:  # a new game or a refused step: the arrival still acts
                latency = await player.step()
            latencies.append(latency)
        finally:
            idle.put_nowait(player)

    def fire() -> None:
        task = asyncio.ensure_future(act())
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    began = time.perf_counter()
    cpu_before = cpu_seconds(pid)
    await poisson(rate, seconds, 7, fire)
    if tasks:
        await asyncio.gather(*tasks)
    cpu = cpu_seconds(pid) - cpu_before
    views = sum(p.views for p in crowd)
    return len(latencies) / (time.perf_counter() - began), latencies, views, cpu, queued


async def run_echo_paced(
    channel: grpc.aio.Channel, clients: int, seconds: float, rate: float
) -> list[float]:
    """The echo under the same Poisson arrivals, at most `clients` calls in flight."""
    call: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary("/bench.Echo/Echo")
    payload = os.urandom(600)
    latencies: list[float] = []
    slots = asyncio.Semaphore(clients)
    tasks: set[asyncio.Task[None]] = set()

    async def one() -> None:
        async with slots:
            started = time.perf_counter()
            await call(payload)
            latencies.append(time.perf_counter() - started)

    def fire() -> None:
        task = asyncio.ensure_future(one())
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    await poisson(rate, seconds, 7, fire)
    if tasks:
        await asyncio.gather(*tasks)
    return latencies


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def context_switches(pid: int) -> int:
    """Voluntary and involuntary context switches of all a process's threads so far."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            status = (task / "status").read_text()
        except OSError:  # a thread that ended meanwhile
            continue
        total += sum(
            int(line.split()[1]) for line in status.splitlines() if "ctxt_switches" in line
        )
    return total


_BOUNCE = (
    "import os, sys\n"
    "r, w = int(sys.argv[1]), int(sys.argv[2])\n"
    "while os.read(r, 1) == b'x':\n"
    "    os.write(w, b'x')\n"
)


def wake_cost_us(cpus: set[int] | None = None, rounds: int = 20_000) -> float:
    """CPU (us) of one sleep-and-wake of a process on this machine: two processes bounce a
    byte over two pipes, so each bounce puts one to sleep and wakes the other. `cpus` pins
    both to those CPUs (one CPU: every wake stays on its core); None leaves them free."""
    mine = os.sched_getaffinity(0)
    a_read, b_write = os.pipe()
    b_read, a_write = os.pipe()
    child = subprocess.Popen(
        [sys.executable, "-c", _BOUNCE, str(b_read), str(b_write)], pass_fds=(b_read, b_write)
    )
    os.close(b_read)
    os.close(b_write)
    try:
        if cpus is not None:
            os.sched_setaffinity(0, cpus)
            os.sched_setaffinity(child.pid, cpus)
        for _ in range(200):  # warm-up
            os.write(a_write, b"x")
            os.read(a_read, 1)
        child0, own0 = cpu_seconds(child.pid), time.process_time()
        for _ in range(rounds):
            os.write(a_write, b"x")
            os.read(a_read, 1)
        spent = time.process_time() - own0 + cpu_seconds(child.pid) - child0
    finally:
        os.sched_setaffinity(0, mine)
        os.write(a_write, b"q")
        child.wait()
        os.close(a_read)
        os.close(a_write)
    return spent / (2 * rounds) * 1e6


def scrape(metrics_port: int) -> dict[str, tuple[float, float]]:
    """(sum, count) of the authority's SubmitAction latency and of its batch sizes."""
    import urllib.request

    with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=5) as reply:
        body = reply.read().decode()
    series = {
        "latency": ("warroom_game_rpc_seconds", '{method="SubmitAction"}'),
        "commit": ("warroom_game_batch_size", '{batcher="commit"}'),
        "acquire": ("warroom_game_batch_size", '{batcher="redis_acquire"}'),
    }
    values = {}
    for line in body.splitlines():
        name, _, value = line.rpartition(" ")
        values[name] = value
    return {
        key: (
            float(values.get(f"{metric}_sum{labels}", 0.0)),
            float(values.get(f"{metric}_count{labels}", 0.0)),
        )
        for key, (metric, labels) in series.items()
    }


def mean_between(
    before: dict[str, tuple[float, float]], after: dict[str, tuple[float, float]], key: str
) -> float:
    """The mean of one scraped series over the interval between two scrapes."""
    count = after[key][1] - before[key][1]
    return (after[key][0] - before[key][0]) / count if count else float("nan")


def commit_latency(engine: Engine, count: int = 60) -> tuple[float, float]:
    """(p50, p99) seconds of a one-row INSERT + COMMIT on this PostgreSQL (its WAL flush)."""
    timings = []
    with engine.connect() as conn:
        conn.execute(text("CREATE TABLE commit_probe (x integer)"))
        conn.commit()
        for _ in range(count):
            started = time.perf_counter()
            conn.execute(text("INSERT INTO commit_probe VALUES (1)"))
            conn.commit()
            timings.append(time.perf_counter() - started)
        conn.execute(text("DROP TABLE commit_probe"))
        conn.commit()
    return pct(timings, 0.5), pct(timings, 0.99)


def write_section(body: str) -> None:
    """Replace this script's section of docs/benchmarks.md."""
    docsections.write_section(ROOT / "docs" / "benchmarks.md", "game", body)


class InProcessStub:
    """GameService calls answered by the servicer and `Authority` in this process (no gRPC
    transport in between); a refusal is raised as the AioRpcError a client would get."""

    def __init__(self, authority: Any, settings: Settings) -> None:
        from services.game.service import GameServicer

        self.servicer = GameServicer(authority, settings)
        self.metadata = service_metadata(settings)

    def _context(self) -> Any:
        metadata = self.metadata

        class Context:
            def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
                return metadata

            async def abort(self, code: grpc.StatusCode, details: str, *_rest: Any) -> None:
                empty = grpc.aio.Metadata()
                raise grpc.aio.AioRpcError(code, empty, empty, details)

        return Context()

    async def CreateGame(self, request: Any, metadata: Any = None) -> Any:
        return await self.servicer.CreateGame(request, self._context())

    async def GetView(self, request: Any, metadata: Any = None) -> Any:
        return await self.servicer.GetView(request, self._context())

    async def SubmitAction(self, request: Any, metadata: Any = None) -> Any:
        return await self.servicer.SubmitAction(request, self._context())


async def core_child(seconds: float, games: int) -> None:
    """The authority's own work: the closed loop through an in-process servicer (prints JSON)."""
    from services.common.redisio import async_redis
    from services.common.settings import get_settings
    from services.game.authority import Authority

    settings = get_settings()
    settings.register_extra_games()
    engine = make_engine(settings.database_url, settings.db_schema, pool_size=8)
    authority = Authority(settings, engine, async_redis(settings))
    stub: Any = InProcessStub(authority, settings)
    rate, lat, views, cpu = await run_game(stub, settings, games, seconds, os.getpid())
    committer = authority.committer
    print(
        json.dumps(
            {
                "rate": rate,
                "actions": len(lat),
                "views": views,
                "cpu_ms": cpu / max(1, len(lat)) * 1e3,
                "batch": committer.items / max(1, committer.batches),
            }
        ),
        flush=True,
    )
    await authority.close()
    engine.dispose()


def run_core(env: dict[str, str], seconds: float, games: int) -> dict[str, float]:
    """Run `core_child` in a fresh process with the authority's settings."""
    done = subprocess.run(
        [
            sys.executable,
            str(Path(__file__).resolve()),
            "--core-child",
            str(games),
            "--seconds",
            str(seconds),
        ],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:.1f}"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--games", default="1,100,1000")
    parser.add_argument(
        "--paced-fractions",
        default="0.25,0.5",
        help="offered loads of the paced rows, as fractions of the closed-loop 100-game rate",
    )
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--profile", help="write a cProfile of the authority to this file")
    parser.add_argument("--core-child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.core_child:
        await core_child(args.seconds, args.core_child)
        return
    counts = [int(n) for n in args.games.split(",")]
    load = os.getloadavg()[0]
    schema = f"bench_{uuid.uuid4().hex[:8]}"
    prefix = f"wr-bench-{uuid.uuid4().hex[:8]}:"
    database_url = os.environ.get(
        "DATABASE_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
    )
    settings = Settings(
        redis_url=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"),
        redis_prefix=prefix,
        database_url=database_url,
        db_schema=schema,
        extra_games="toy=tests.engine.toy_game:ToyRules",
        game_rate_per_second=1e6,
        game_rate_burst=1_000_000,
    )
    admin = make_engine(database_url)
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    engine = make_engine(database_url, schema)
    migrate(engine)
    flush = commit_latency(engine)
    engine.dispose()
    game_port, echo_port, metrics_port = free_port(), free_port(), free_port()
    env = dict(os.environ)
    env.update(
        WARROOM_REDIS_URL=settings.redis_url,
        WARROOM_REDIS_PREFIX=prefix,
        WARROOM_DATABASE_URL=database_url,
        WARROOM_DB_SCHEMA=schema,
        WARROOM_EXTRA_GAMES=settings.extra_games,
        WARROOM_GAME_PORT=str(game_port),
        WARROOM_GAME_METRICS_PORT=str(metrics_port),
        WARROOM_GAME_RATE_PER_SECOND="1000000",
        WARROOM_GAME_RATE_BURST="1000000",
        WARROOM_LOG_LEVEL="WARNING",
        WARROOM_DB_POOL_SIZE="8",
        PYTHONPATH=f"{ROOT}:{ROOT / 'libs'}",
    )
    profile = ["-m", "cProfile", "-o", args.profile] if args.profile else []
    authority = spawn([sys.executable, *profile, "-m", "services.game"], env)
    echo = spawn([sys.executable, "-c", ECHO, str(echo_port)], env)
    rows = []
    core: dict[str, float] | None = None
    paced: list[tuple[float, float, float, list[float], list[float], float, float, int]] = []
    try:
        game_channel = await ready(f"127.0.0.1:{game_port}")
        echo_channel = await ready(f"127.0.0.1:{echo_port}")
        stub = game_pb2_grpc.GameServiceStub(game_channel)
        for n in counts:
            echo_cpu = cpu_seconds(echo.pid)
            echo_rate, echo_lat = await run_echo(echo_channel, n, args.seconds)
            echo_ms = (cpu_seconds(echo.pid) - echo_cpu) / max(1, len(echo_lat)) * 1e3
            before = await asyncio.to_thread(scrape, metrics_port)
            client_cpu = time.process_time()
            rate, lat, views, cpu = await run_game(stub, settings, n, args.seconds, authority.pid)
            client_ms = (time.process_time() - client_cpu) / max(1, len(lat)) * 1e3
            after = await asyncio.to_thread(scrape, metrics_port)
            inside = mean_between(before, after, "latency") * 1e3
            batch = mean_between(before, after, "commit")
            locks = mean_between(before, after, "acquire")
            cpu_ms = cpu / max(1, len(lat)) * 1e3
            per = views / max(1, len(lat))
            rows.append(
                (
                    n,
                    rate,
                    pct(lat, 0.5),
                    pct(lat, 0.99),
                    echo_rate,
                    pct(echo_lat, 0.5),
                    pct(echo_lat, 0.99),
                    inside,
                    cpu_ms,
                    per,
                    echo_ms,
                    client_ms,
                    batch,
                    locks,
                )
            )
            print(
                f"N={n}: SubmitAction {rate:.0f}/s p50 {ms(pct(lat, 0.5))} ms p99 "
                f"{ms(pct(lat, 0.99))} ms | echo {echo_rate:.0f}/s p50 {ms(pct(echo_lat, 0.5))} "
                f"ms p99 {ms(pct(echo_lat, 0.99))} ms | authority-side mean {inside:.1f} ms, "
                f"CPU {cpu_ms:.2f} ms/action, {per:.2f} GetView/action | load generator CPU "
                f"{client_ms:.2f} ms/action, echo server CPU {echo_ms:.2f} ms/call | rows per "
                f"commit {batch:.1f}, games per lock trip {locks:.1f}",
                flush=True,
            )
            # the paced rows right after the 100-game row: the authority then holds ~100 games
            capacity = rate if n == 100 else None
            for fraction in (
                [float(f) for f in args.paced_fractions.split(",") if f] if capacity else []
            ):
                offered = (capacity or 0.0) * fraction
                rate, lat, views, cpu, queued = await run_game_paced(
                    stub, settings, 100, args.seconds, offered, authority.pid
                )
                echo_lat = await run_echo_paced(echo_channel, 100, args.seconds, offered)
                paced.append(
                    (
                        fraction,
                        offered,
                        rate,
                        lat,
                        echo_lat,
                        cpu / max(1, len(lat)) * 1e3,
                        views / max(1, len(lat)),
                        queued,
                    )
                )
                print(
                    f"paced N=100 at {offered:.0f}/s: SubmitAction p50 {ms(pct(lat, 0.5))} ms p99 "
                    f"{ms(pct(lat, 0.99))} ms | echo p50 {ms(pct(echo_lat, 0.5))} ms p99 "
                    f"{ms(pct(echo_lat, 0.99))} ms | {queued} arrivals found no idle game",
                    flush=True,
                )
        core = await asyncio.to_thread(run_core, env, args.seconds, 100) if 100 in counts else None
        if core is not None:
            print(f"in-process authority, 100 games: {core}", flush=True)
        await game_channel.close()
        await echo_channel.close()
    finally:
        for process in (authority, echo):
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()
    lines = [
        "## Game authority: SubmitAction vs bare grpc.aio echo",
        "",
        f"`bench/game_authority.py --seconds {args.seconds:g}`, {time.strftime('%Y-%m-%d %H:%M')}"
        f" UTC, {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}; authority and echo server as subprocesses on loopback, "
        "both on the services' event loop (uvloop), "
        "the load generator in a third process, PostgreSQL and Redis local, all on the same "
        "cores. Persistence on: a SubmitAction is answered only after its log row is committed "
        "to PostgreSQL (group commit: the rows of concurrent submissions of different games "
        "share one transaction) and the game's Redis lock/version/publish went through "
        "(coalesced into one script call for all queued submissions). Toy game (about 15 "
        "actions a game; a finished game is replaced by a new CreateGame in the timed window). "
        f"A lone one-row commit on this PostgreSQL took p50 {ms(flush[0])} ms, p99 "
        f"{ms(flush[1])} ms when the run started (the WAL flush to disk): the floor of a "
        "durable SubmitAction's latency, which group commit shares but cannot remove.",
        "",
        "Each game is driven by one client playing both seats; it calls GetView only when the "
        "turn passes to a seat whose options it does not hold (the SubmitAction answer carries "
        "the submitter's view and the acting seats), so the authority also serves the "
        "GetView/action shown (not in the latency). Authority CPU ms/action is the authority "
        "process's CPU time in the timed window divided by the actions applied (all its RPCs "
        "included).",
        "",
        f"Load average when the run started (other processes on the machine): {load:.1f}. "
        "With a load above the core count the echo server and the authority compete with "
        "other processes, so throughputs, latencies and the ratio swing from run to run; the "
        "authority CPU per action is the steadier figure.",
        "",
        "**Saturated, closed loop** (every game acts again as soon as it is answered; zero "
        "think time). This is the throughput figure; its latencies are queueing (Little's "
        "law: N in flight / throughput), for the echo too.",
        "",
        "| concurrent games | SubmitAction/s | p50 ms | p99 ms | authority-side mean ms "
        "| authority CPU ms/action | GetView/action | rows per commit | games per lock trip "
        "| load generator CPU ms/action | echo/s | echo p50 ms | echo p99 ms "
        "| echo server CPU ms/call | ratio |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for n, rate, p50, p99, erate, ep50, ep99, inside, cpu_ms, per, echo_ms, client_ms, b, k in rows:
        lines.append(
            f"| {n} | {rate:.0f} | {ms(p50)} | {ms(p99)} | {inside:.1f} | {cpu_ms:.2f} | "
            f"{per:.2f} | {b:.1f} | {k:.1f} | {client_ms:.2f} | {erate:.0f} | "
            f"{ep50 * 1e3:.2f} | {ep99 * 1e3:.2f} | {echo_ms:.2f} | {rate / erate:.0%} |"
        )
    lines.append("")
    at100 = [r for r in rows if r[0] == 100]
    if core is not None and at100:
        lines += [
            "**Without gRPC** (where the authority's CPU goes): the same 100-game closed loop "
            "driven in one process against the servicer and its `Authority` (same Redis and "
            f"PostgreSQL work, no transport): {core['rate']:.0f} SubmitAction/s, **{core['cpu_ms']:.2f} "
            f"ms of CPU per action** ({core['views'] / max(1, core['actions']):.2f} "
            f"GetView/action; group commits of {core['batch']:.1f} rows on average), against "
            f"{at100[0][8]:.2f} ms per action and {at100[0][12]:.1f} rows per commit through "
            "gRPC above. The difference is gRPC handling (about the echo's CPU per call times "
            "the calls per action) and smaller batches: through the network the requests "
            "arrive spread out, so fewer share a Redis round trip or a commit, while the "
            "in-process loop hands the authority all 100 at once. The in-process rate is "
            f"{core['rate'] / at100[0][4]:.0%} of the echo's: even with no gRPC cost at all "
            "the authority's own work stays near the 40% line on this machine.",
            "",
        ]
    ratio_met = bool(at100) and at100[0][1] / at100[0][4] >= 0.4
    if paced:
        lines += [
            "**Paced, open loop** (the latency figure): 100 games; actions arrive as a Poisson "
            "process at the stated fraction of the closed-loop 100-game throughput above; each "
            "arrival makes one idle game act (fetching a view first when it must), so every game "
            "waits a random think time between its actions; an arrival that finds every game "
            "busy waits (counted). The echo server gets the same Poisson arrivals (at most 100 "
            "calls in flight). When the machine's other load rises after the capacity was "
            "measured, the offered load exceeds what is left and the row shows queueing. "
            "Spread-out arrivals share fewer commits and Redis round trips than the closed loop, "
            "so each action costs the authority more CPU here; the core-busy column (CPU per "
            "action times actions per second) shows how close a row runs to the one core an "
            "authority process can use, which is where its tail grows.",
            "",
            "| games | offered/s (of capacity) | SubmitAction/s | p50 ms | p99 ms "
            "| authority CPU ms/action | authority core busy | GetView/action | arrivals queued "
            "| echo p50 ms | echo p99 ms |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for fraction, offered, rate, lat, echo_lat, cpu_ms, per, queued in paced:
            lines.append(
                f"| 100 | {offered:.0f} ({fraction:.0%}) | {rate:.0f} | {ms(pct(lat, 0.5))} | "
                f"{ms(pct(lat, 0.99))} | {cpu_ms:.2f} | {cpu_ms * rate / 1000:.0%} | {per:.2f} | "
                f"{queued} | "
                f"{ms(pct(echo_lat, 0.5))} | {ms(pct(echo_lat, 0.99))} |"
            )
        lines.append("")
    ratio_text = (
        f"{at100[0][1] / at100[0][4]:.0%} of the echo at 100 games" if at100 else "not measured"
    )
    p99_parts = [
        f"{'MET' if pct(lat, 0.99) < 0.025 else 'NOT MET'} at {fraction:.0%} of capacity "
        f"(p99 {ms(pct(lat, 0.99))} ms)"
        for fraction, _o, _r, lat, _e, _c, _p, _q in paced
    ]
    lines.append(
        "Targets (issue 4), this run: throughput >= 40% of the echo at 100 games: "
        f"**{'MET' if ratio_met else 'NOT MET'}** ({ratio_text}); p99 < 25 ms at 100 "
        f"games under paced load: **{'; '.join(p99_parts) or 'not measured'}**."
    )
    if not args.no_write:
        write_section("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    if "--core-child" in sys.argv:
        from services.common import eventloop

        eventloop.run(main(), Settings())  # the authority's own loop, as in the service
    else:
        asyncio.run(main())
