"""Matchmaking benchmark: ticket creation and matching rates, and one 10,000-ticket cycle.

Writes the `<!-- bench:lobby -->` section of docs/benchmarks.md. Runs on the real Redis and
PostgreSQL (a fresh schema and key prefix, removed afterwards) with New Cold War 4p tickets:

1. the pure match function over 10,000 tickets;
2. one director cycle over a pool of 10,000 waiting tickets: load the pool, match, claim
   (Lua), create the games (a stub authority in the process that answers at once: what the
   matchmaker itself costs), record every game in SQL and assign every ticket (Redis);
3. sustained throughput at the queue: tickets enqueued (Lua) as fast as possible while a
   matcher loop runs, stub authority;
4. sustained throughput through the service: several load-generator processes call
   EnqueueTicket over gRPC on a lobby process running its matchmaker loop, games created
   by a stub GameService process, then by the real authority (`python -m services.game`);
   the CPU of the lobby, the authority and the load generators is read from /proc.

Open Match 2 states 500 ticket creations/s and 500 matches/s on GKE for comparison.

Usage: .venv/bin/python bench/matchmaking.py [--pool 10000] [--seconds 8] [--no-write]
  [--no-service | --only-service] [--no-stub] [--clients 3] [--concurrency 32]
BENCH_PROFILE_LOBBY=PATH writes a cProfile of the lobby process to PATH.<queue>.
Needs REDIS_URL and DATABASE_URL (defaults: local Redis, local PostgreSQL "test").
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import platform
import random
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any, cast

import grpc
import redis.asyncio as aioredis
from sqlalchemy import text

SCRIPT = Path(__file__).resolve()
ROOT = SCRIPT.parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "libs"))
# A benchmark on loopback with throw-away keys: development mode (services.common.keys);
# inherited by every process it starts.
os.environ.setdefault("WARROOM_ENV", "development")

from services.common.db import make_engine, migrate  # noqa: E402
from services.common.settings import Settings  # noqa: E402
from services.lobby.config import LobbySettings  # noqa: E402
from services.lobby.queue import TicketQueue  # noqa: E402
from services.lobby.runtime import build, tune_gc  # noqa: E402
from services.lobby.store import LobbyStore  # noqa: E402
from warroom import docsections  # noqa: E402
from warroom.matchmaking import Ticket, layouts_for, make_matches  # noqa: E402
from warroom.v1 import (  # noqa: E402
    common_pb2,
    game_pb2,
    lobby_pb2,
    lobby_pb2_grpc,
)

GAME = "ncw"
VARIANT = "4p"


class StubAuthority:
    """Answers CreateGame at once (isolates the matchmaker's own cost)."""

    async def create_game(self, request: game_pb2.CreateGameRequest) -> game_pb2.CreateGameResponse:
        game_id = uuid.uuid4().hex
        return game_pb2.CreateGameResponse(
            game_id=game_id, seat_tokens=[f"{game_id}.{i}" for i in range(len(request.seats))]
        )

    async def view(self, game_id: str, token: str) -> game_pb2.SeatView:
        return game_pb2.SeatView()


def tickets(n: int, rng: random.Random, now: float, tag: str) -> list[Ticket]:
    """n solo tickets with ratings around 25 that waited up to 30 s."""
    return [
        Ticket(
            f"tk-{tag}-{i}",
            (f"pl-{tag}-{i}",),
            (rng.gauss(25, 5),),
            now - rng.uniform(0, 30),
            (VARIANT,),
            names=(f"Player {tag}-{i}",),
        )
        for i in range(n)
    ]


async def enqueue_all(queue: TicketQueue, batch: list[Ticket], queue_name: str) -> None:
    """Enqueue tickets through the Lua script, 32 at a time in flight."""
    for i in range(0, len(batch), 32):
        await asyncio.gather(
            *(queue.enqueue(t, GAME, queue_name, time.time() + 600, 700) for t in batch[i : i + 32])
        )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def pure(n: int) -> dict[str, float]:
    layouts = layouts_for(GAME)
    batch = tickets(n, random.Random(1), time.time(), "pure")
    t0 = time.perf_counter()
    outcome = make_matches(batch, layouts, time.time())
    return {"seconds": time.perf_counter() - t0, "matches": len(outcome.proposals)}


async def redis_cpu(client: aioredis.Redis) -> float:
    """CPU seconds the Redis server has used so far (the whole server: other work too)."""
    info = await client.info("cpu")
    return float(info["used_cpu_sys"]) + float(info["used_cpu_user"])


def postgres_cpu() -> float:
    """CPU seconds every PostgreSQL process alive now has used (the whole server)."""
    total = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if (entry / "comm").read_bytes().strip() in (b"postgres", b"postmaster"):
                total += proc_cpu(int(entry.name))
        except (OSError, ValueError):
            continue
    return total


async def one_cycle(
    settings: Settings, store: LobbyStore, n: int, queue_name: str, warm: bool
) -> dict[str, float]:
    """One director cycle over `n` waiting tickets. `warm`: the director's pool copy has
    followed the pool's log as the tickets arrived (as a running director's does), so the
    cycle reads no ticket again; otherwise its first read of the pool is a full one (a
    restarted director)."""
    wired = build(settings, LobbySettings(queue=queue_name), games=StubAuthority(), store=store)
    try:
        if warm:
            await wired.queue.load_pool(GAME, queue_name)
        batch = tickets(n, random.Random(2), time.time(), queue_name)
        t0 = time.perf_counter()
        await enqueue_all(wired.queue, batch, queue_name)
        enqueue_s = time.perf_counter() - t0
        if warm:
            await wired.queue.load_pool(GAME, queue_name)
        await asyncio.sleep(0.2)  # Redis and PostgreSQL idle again before the window
        servers = await redis_cpu(wired.redis), postgres_cpu()
        cpu = time.process_time()
        report = await wired.director.cycle(GAME, queue_name)
        cpu_s = time.process_time() - cpu
        redis_s, pg_s = await redis_cpu(wired.redis) - servers[0], postgres_cpu() - servers[1]
        return {
            "warm": warm,
            "redis_cpu_s": redis_s,
            "pg_cpu_s": pg_s,
            "enqueue_s": enqueue_s,
            "pool": report.pool_size,
            "started": report.started,
            "matched_tickets": report.started * 4,
            "match_s": report.match_s,
            "claim_s": report.claim_s,
            "start_s": report.start_s,
            "total_s": report.total_s,
            "cpu_s": cpu_s,
        }
    finally:
        await wired.close()


async def sustained(settings: Settings, store: LobbyStore, seconds: float) -> dict[str, float]:
    """Tickets enqueued at the queue (Lua) as fast as one process can, while a matcher loop
    cycles the pool every 50 ms, stub game creation."""
    queue_name = "queue"
    wired = build(settings, LobbySettings(queue=queue_name), games=StubAuthority(), store=store)
    stop = asyncio.Event()
    matched = 0
    cycles = 0

    async def matcher() -> None:
        nonlocal matched, cycles
        while not stop.is_set():
            report = await wired.director.cycle(GAME, queue_name)
            matched += report.started * 4
            cycles += 1
            await asyncio.sleep(0.05)

    created = 0
    rng = random.Random(3)
    try:
        task = asyncio.create_task(matcher())
        t0 = time.perf_counter()
        deadline = t0 + seconds
        serial = 0
        while time.perf_counter() < deadline:
            batch_t = tickets(200, rng, time.time(), f"s{serial}")
            serial += 1
            await enqueue_all(wired.queue, batch_t, queue_name)
            created += len(batch_t)
        elapsed = time.perf_counter() - t0
        # let the matcher drain what was created
        drain_until = time.perf_counter() + 10
        while matched < created - 3 and time.perf_counter() < drain_until:  # noqa: ASYNC110
            await asyncio.sleep(0.05)
        total = time.perf_counter() - t0
        stop.set()
        await task
        return {
            "created": created,
            "created_per_s": created / elapsed,
            "matched": matched,
            "matched_per_s": matched / total,
            "cycles": cycles,
            "seconds": total,
        }
    finally:
        stop.set()
        await wired.close()


def proc_cpu(pid: int) -> float:
    """CPU seconds (user + system) a process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def stub_create_game(
    request: game_pb2.CreateGameRequest, context: Any
) -> game_pb2.CreateGameResponse:
    """A GameService CreateGame that answers at once (the lobby's own cost over gRPC)."""
    game_id = uuid.uuid4().hex
    return game_pb2.CreateGameResponse(
        game_id=game_id, seat_tokens=[f"{game_id}.{i}" for i in range(len(request.seats))]
    )


async def serve_stub_authority(port: int) -> None:
    """Serve GameService.CreateGame alone (stub_create_game) on `port` until terminated
    (`--stub-authority PORT`)."""
    server = grpc.aio.server()
    handler = grpc.unary_unary_rpc_method_handler(
        stub_create_game,
        request_deserializer=game_pb2.CreateGameRequest.FromString,
        response_serializer=game_pb2.CreateGameResponse.SerializeToString,
    )
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler("warroom.v1.GameService", {"CreateGame": handler}),)
    )
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    await server.wait_for_termination()


def client_process(
    target: str, tag: str, players: int, concurrency: int, pipe: Any
) -> None:  # pragma: no cover - runs in a spawned process
    """A load generator process: log `players` guests in, report ready, then on the start
    message (a deadline in epoch seconds) keep `concurrency` EnqueueTicket calls in flight
    on one channel until the deadline; send back the ticket ids, refusals and CPU used."""
    asyncio.run(_client(target, tag, players, concurrency, pipe))


async def _client(target: str, tag: str, players: int, concurrency: int, pipe: Any) -> None:
    channel = grpc.aio.insecure_channel(target)
    stub = lobby_pb2_grpc.LobbyServiceStub(channel)
    tokens: list[tuple[tuple[str, str], ...]] = []
    for start in range(0, players, 64):
        logins = await asyncio.gather(
            *(
                stub.Login(lobby_pb2.LoginRequest(name=f"{tag}-{i}"))
                for i in range(start, min(start + 64, players))
            )
        )
        tokens += [(("authorization", f"Bearer {r.token}"),) for r in logins]
    pipe.send("ready")
    deadline = pipe.recv()
    request = lobby_pb2.EnqueueTicketRequest(
        game=common_pb2.GAME_KIND_NEW_COLD_WAR, variants=[VARIANT]
    )
    ticket_ids: list[str] = []
    refused = 0
    next_token = 0
    cpu = time.process_time()

    async def worker() -> None:
        nonlocal next_token, refused
        while time.time() < deadline:
            md = tokens[next_token % len(tokens)]
            next_token += 1
            try:
                response = await stub.EnqueueTicket(request, metadata=md)
            except grpc.aio.AioRpcError:
                refused += 1  # that player's previous ticket is still waiting
                continue
            ticket_ids.append(response.ticket.ticket_id)

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    pipe.send((ticket_ids, refused, time.process_time() - cpu))
    await channel.close()


async def receive(worker: Any, pipe: Any, timeout_s: float) -> Any:
    """The next message of a load process (fails when it died or stays silent)."""
    deadline = time.time() + timeout_s
    while not await asyncio.to_thread(pipe.poll, 0.5):
        if not worker.is_alive():
            raise RuntimeError(f"load process {worker.name} died (exit {worker.exitcode})")
        if time.time() > deadline:
            raise RuntimeError(f"load process {worker.name} is silent after {timeout_s} s")
    return pipe.recv()


async def through_service(
    settings: Settings,
    env: dict[str, str],
    authority: str,
    authority_pid: int,
    seconds: float,
    queue_name: str,
    clients: int = 3,
    concurrency: int = 32,
    players: int = 3000,
) -> dict[str, float]:
    """EnqueueTicket from `clients` load processes against a lobby process running its
    matchmaker loop, games created by the authority at `authority`. Matched = tickets whose
    status is matched; CPU of the lobby and the authority processes measured from /proc."""
    lobby_port = free_port()
    lobby_env = {
        **env,
        "WARROOM_GAME_PORT": authority.rsplit(":", 1)[1],
        "WARROOM_LOBBY_PORT": str(lobby_port),
        "WARROOM_LOBBY_METRICS_PORT": str(free_port()),
        "WARROOM_LOBBY_CYCLE_INTERVAL_S": "0.05",
        "WARROOM_LOBBY_QUEUE": queue_name,
    }
    profile = os.environ.get("BENCH_PROFILE_LOBBY")
    argv = [sys.executable, "-m", "services.lobby", "--matchmaker"]
    if profile:  # the lobby's main thread under cProfile, written to this path on exit
        argv[1:1] = ["-m", "cProfile", "-o", f"{profile}.{queue_name}"]
    proc = subprocess.Popen(argv, cwd=ROOT, env=lobby_env)  # noqa: ASYNC220
    target = f"127.0.0.1:{lobby_port}"
    client = aioredis.Redis.from_url(settings.redis_url)
    spawn = multiprocessing.get_context("spawn")
    loaders = []
    try:
        channel = grpc.aio.insecure_channel(target)
        await asyncio.wait_for(channel.channel_ready(), 60)
        await channel.close()
        for k in range(clients):
            mine, theirs = spawn.Pipe()
            worker = spawn.Process(
                target=client_process,
                args=(target, f"{queue_name}{k}", players, concurrency, theirs),
                daemon=True,
            )
            worker.start()
            loaders.append((worker, mine))
        for worker, pipe in loaders:
            await receive(worker, pipe, 300)
        await asyncio.sleep(1.0)  # the lobby's layouts are warm and its loop idle
        lobby_cpu, authority_cpu = proc_cpu(proc.pid), proc_cpu(authority_pid)
        servers = await redis_cpu(client), postgres_cpu()
        t0 = time.time()
        for _, pipe in loaders:
            pipe.send(t0 + seconds)
        outcomes = [await receive(worker, pipe, seconds + 60) for worker, pipe in loaders]
        elapsed = time.time() - t0
        window_cpu = proc_cpu(proc.pid) - lobby_cpu
        ticket_ids = [t for ids, _, _ in outcomes for t in ids]
        prefix = settings.redis_prefix + "lobby:t:"

        async def matched_count() -> tuple[int, float]:
            """Tickets matched, and when the last of them was (the lobby's `ended_at`)."""
            pipe = client.pipeline(transaction=False)
            for tid in ticket_ids:
                pipe.hmget(prefix + tid, "status", "ended_at")
            rows = [row for row in await pipe.execute() if row[0] == b"matched"]
            return len(rows), max((float(row[1]) for row in rows), default=t0)

        matched, last = await matched_count()
        drain_until = time.time() + 20
        while matched < len(ticket_ids) - 3 and time.time() < drain_until:
            await asyncio.sleep(0.2)
            matched, last = await matched_count()
        # the window plus the time to drain, to the last assignment (not to the poll that
        # saw it: a poll of every ticket every 0.2 s added up to 0.3 s)
        total = max(elapsed, last - t0)
        lobby_s = proc_cpu(proc.pid) - lobby_cpu
        redis_s, pg_s = await redis_cpu(client) - servers[0], postgres_cpu() - servers[1]
        per_ticket = 1000 / max(1, len(ticket_ids))
        return {
            "redis_cpu_ms_per_ticket": redis_s * per_ticket,
            "pg_cpu_ms_per_ticket": pg_s * per_ticket,
            "created": len(ticket_ids),
            "created_per_s": len(ticket_ids) / elapsed,
            "refused": sum(r for _, r, _ in outcomes),
            "matched": matched,
            "matched_per_s": matched / total,
            "seconds": total,
            "lobby_cpu_s": lobby_s,
            "lobby_cpu_ms_per_ticket": 1000 * lobby_s / max(1, len(ticket_ids)),
            "lobby_window_cpu_s": window_cpu,
            "authority_cpu_ms_per_game": 1000
            * (proc_cpu(authority_pid) - authority_cpu)
            / max(1, matched // 4),
            "client_cpu_ms_per_call": 1000
            * sum(c for _, _, c in outcomes)
            / max(1, len(ticket_ids) + sum(r for _, r, _ in outcomes)),
            "clients": clients,
            "concurrency": concurrency,
        }
    finally:
        for worker, _ in loaders:
            worker.join(10)
            if worker.is_alive():
                worker.terminate()
        await cast(Any, client).aclose()
        proc.terminate()
        proc.wait(10)


def write_section(body: str) -> None:
    """Replace this script's section of docs/benchmarks.md."""
    docsections.write_section(ROOT / "docs" / "benchmarks.md", "lobby", body)


async def start_process(argv: list[str], env: dict[str, str], port: int) -> subprocess.Popen[bytes]:
    """A service process, once its gRPC port answers."""
    proc = subprocess.Popen(argv, cwd=ROOT, env=env)  # noqa: ASYNC220
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    try:
        await asyncio.wait_for(channel.channel_ready(), 60)
    finally:
        await channel.close()
    return proc


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pool", type=int, default=10_000)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--no-service", action="store_true", help="skip the gRPC scenarios")
    parser.add_argument("--only-service", action="store_true", help="only the gRPC scenarios")
    parser.add_argument("--repeat", type=int, default=3, help="best of N for scenarios 1-2")
    parser.add_argument("--clients", type=int, default=3, help="load generator processes")
    parser.add_argument("--concurrency", type=int, default=32, help="calls in flight per client")
    parser.add_argument(
        "--service-repeat", type=int, default=2, help="best of N for each gRPC scenario"
    )
    parser.add_argument(
        "--no-stub", action="store_true", help="skip the gRPC row with the stub authority"
    )
    parser.add_argument("--stub-authority", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.stub_authority:
        await serve_stub_authority(args.stub_authority)
        return
    database_url = os.environ.get(
        "DATABASE_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
    )
    redis_url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    schema = f"bench_lobby_{uuid.uuid4().hex[:8]}"
    prefix = f"wr-bench-{uuid.uuid4().hex[:8]}:"
    admin = make_engine(database_url)
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    settings = Settings(
        redis_url=redis_url,
        redis_prefix=prefix,
        database_url=database_url,
        db_schema=schema,
        service_secret="bench-secret",
    )
    engine = make_engine(database_url, schema, pool_size=20)
    migrate(engine)
    store = LobbyStore(engine)
    procs: list[subprocess.Popen[bytes]] = []
    t0 = time.perf_counter()
    layouts_for(GAME)
    warm = time.perf_counter() - t0
    tune_gc()  # as the lobby process does once its layouts are read
    try:
        results: dict[str, Any] = {"warm_s": warm}
        results["load_before"] = os.getloadavg()[0]
        if not args.only_service:
            results["pure"] = min(
                [await pure(args.pool) for _ in range(args.repeat)], key=lambda r: r["seconds"]
            )
            print("pure", results["pure"], flush=True)
            cycles = []
            for i in range(args.repeat):  # cold and warm interleaved
                for warm in (False, True):
                    name = f"cycle{i}{'w' if warm else 'c'}"
                    cycles.append(await one_cycle(settings, store, args.pool, name, warm))
                    print("cycle", cycles[-1], flush=True)
            for row, warm in (("cycle", True), ("cycle_cold", False)):
                mine = [c for c in cycles if c["warm"] == warm]
                results[row] = min(mine, key=lambda r: r["total_s"])
                results[row + "_worst"] = max(c["total_s"] for c in mine)
            results["queue"] = await sustained(settings, store, args.seconds)
            print("queue", results["queue"], flush=True)
        if not args.no_service:
            env = {
                **os.environ,
                "REDIS_URL": redis_url,
                "DATABASE_URL": database_url,
                "WARROOM_DB_SCHEMA": schema,
                "WARROOM_REDIS_PREFIX": prefix,
                "WARROOM_SERVICE_SECRET": "bench-secret",
                "WARROOM_LOG_LEVEL": "WARNING",
            }
            load = {"clients": args.clients, "concurrency": args.concurrency}
            port = free_port()
            stub = await start_process(
                [sys.executable, str(SCRIPT), "--stub-authority", str(port)],
                env,
                port,
            )
            procs.append(stub)

            async def best_of(name: str, target: str, pid: int) -> dict[str, Any]:
                runs = []
                for i in range(args.service_repeat):
                    runs.append(
                        await through_service(
                            settings, env, target, pid, args.seconds, f"{name}{i}", **load
                        )
                    )
                    print(f"service, {name} authority", runs[-1], flush=True)
                best: dict[str, Any] = max(
                    runs, key=lambda r: min(r["created_per_s"], r["matched_per_s"])
                )
                best["runs"] = [(r["created_per_s"], r["matched_per_s"]) for r in runs]
                return best

            if not args.no_stub:
                results["svc_stub"] = await best_of("stub", f"127.0.0.1:{port}", stub.pid)
            port = free_port()
            game_env = {**env, "WARROOM_GAME_PORT": str(port)}
            game_env["WARROOM_GAME_METRICS_PORT"] = str(free_port())
            real = await start_process([sys.executable, "-m", "services.game"], game_env, port)
            procs.append(real)
            results["svc_real"] = await best_of("real", f"127.0.0.1:{port}", real.pid)
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(10)
        client = aioredis.Redis.from_url(redis_url)
        async for key in client.scan_iter(match=prefix + "*", count=1000):
            await client.unlink(key)
        await cast(Any, client).aclose()
        engine.dispose()
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()
    results["load_after"] = os.getloadavg()[0]
    if not args.no_write:
        write_section(render(results, args))


def render(results: dict[str, Any], args: argparse.Namespace) -> str:
    """The section's Markdown from one run's results."""
    lines = [
        "## Lobby: matchmaking (bench/matchmaking.py)",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()};"
        " real Redis and PostgreSQL on loopback; New Cold War 4p solo tickets, ratings ~ N(25, 5)."
        f" 1-minute load average {results['load_before']:.1f} before and"
        f" {results['load_after']:.1f} after (other work shared the machine: wall times"
        " stretch with it, CPU times less so). Redis and PostgreSQL CPU are the whole servers'"
        " over the measured window (other work on them counts too).",
        "",
        "| Measure | Result | Open Match 2 (published, GKE) |",
        "|---|---|---|",
        *_queue_rows(results, args),
        *_service_rows(results),
    ]
    lines += _verdicts(results)
    lines += HISTORY
    lines += [
        "",
        f"Variant layouts are read from the rules once per process ({results['warm_s']:.1f} s"
        " cold for New Cold War, done before timing).",
        "Created per second counts acknowledged tickets over the load window; matched per"
        " second counts tickets that reached MATCHED with an assignment, over the window plus"
        " the time to drain (in the gRPC rows, to the last ticket's assignment as the lobby"
        " recorded it). In the gRPC rows the players log in before the window (Login"
        " caches their names and ratings, as in use), the lobby's matchmaker loop cycles every"
        " 50 ms, and every process (load generators, lobby, authority, Redis, PostgreSQL)"
        " shares the same 2 cores, so the rates there are bounded by the sum of their CPU per"
        " ticket; the CPU figures come from /proc (Redis: INFO cpu) and say what each part"
        " costs. In the first rows the lobby and its load share one process.",
    ]
    return "\n".join(lines)


def _cycle_cell(c: dict[str, Any], worst: float, repeat: int) -> str:
    return (
        f"**{c['total_s']:.2f} s** for {c['matched_tickets']:,} tickets in {c['started']:,}"
        f" games (match {c['match_s'] * 1000:.0f} ms, claim {c['claim_s'] * 1000:.0f} ms,"
        f" create+record+assign {c['start_s'] * 1000:.0f} ms); CPU: lobby {c['cpu_s']:.2f} s,"
        f" Redis {c['redis_cpu_s']:.2f} s, PostgreSQL {c['pg_cpu_s']:.2f} s; best of"
        f" {repeat}, worst {worst:.2f} s"
    )


def _queue_rows(results: dict[str, Any], args: argparse.Namespace) -> list[str]:
    """The in-process rows: pure function, one cycle (warm and cold copy), the queue."""
    if "pure" not in results:
        return []
    p, c, q = results["pure"], results["cycle"], results["queue"]
    cold = results["cycle_cold"]
    what = (
        f"One director cycle over a {c['pool']:,}-ticket pool (match, Lua claim, game creation"
        " by a stub authority in the lobby process, SQL record, Redis assign)"
    )
    return [
        f"| Pure match function, {args.pool:,} tickets (best of {args.repeat}) |"
        f" {p['seconds'] * 1000:.0f} ms, {p['matches']:,} matches | - |",
        f"| {what}, the director's pool copy synced from the pool's log as the tickets"
        f" arrived (a running director) | {_cycle_cell(c, results['cycle_worst'], args.repeat)}"
        " | - |",
        f"| The same, first cycle of a restarted director (full read and decode of the pool;"
        " interleaved with the row above) |"
        f" {_cycle_cell(cold, results['cycle_cold_worst'], args.repeat)} | - |",
        f"| Enqueue {c['pool']:,} tickets at the queue (batched Lua, 32 in flight) |"
        f" {c['pool'] / c['enqueue_s']:,.0f} tickets/s | 500 creations/s |",
        "| Sustained at the queue, matcher loop running (stub game creation, one process) |"
        f" **{q['created_per_s']:,.0f} created/s, {q['matched_per_s']:,.0f} matched/s**"
        f" ({q['matched']:,} of {q['created']:,} in {q['seconds']:.1f} s) |"
        " 500 creations/s, 500 matches/s |",
    ]


def _service_rows(results: dict[str, Any]) -> list[str]:
    """The rows through LobbyService.EnqueueTicket over gRPC."""
    rows = []
    for key, what in (
        ("svc_stub", "a stub GameService process (answers CreateGame at once)"),
        ("svc_real", "the real authority (`python -m services.game`)"),
    ):
        if key not in results:
            continue
        s = results[key]
        runs = s.get("runs", ())
        rows.append(
            f"| Through LobbyService.EnqueueTicket over gRPC: lobby process"
            f" (`python -m services.lobby --matchmaker`), games from {what},"
            f" {s['clients']} load processes x {s['concurrency']} calls in flight |"
            f" **{s['created_per_s']:,.0f} created/s, {s['matched_per_s']:,.0f} matched/s**"
            f" ({s['matched']:,} of {s['created']:,} in {s['seconds']:.1f} s); CPU per ticket:"
            f" lobby {s['lobby_cpu_ms_per_ticket']:.2f} ms (enqueue and matching), Redis"
            f" {s['redis_cpu_ms_per_ticket']:.2f} ms, PostgreSQL {s['pg_cpu_ms_per_ticket']:.2f}"
            f" ms; authority {s['authority_cpu_ms_per_game']:.2f} ms per game; load generator"
            f" {s['client_cpu_ms_per_call']:.2f} ms per call"
            + (
                f"; best of {len(runs)} runs by the lower of the two rates (created/matched"
                " per s: " + ", ".join(f"{c:,.0f}/{m:,.0f}" for c, m in runs) + ")"
                if len(runs) > 1
                else ""
            )
            + " | 500 creations/s, 500 matches/s |"
        )
    return rows


def _verdicts(results: dict[str, Any]) -> list[str]:
    """The issue-21 targets against this run, and the CPU floor of the real-authority row."""
    lines: list[str] = []
    if "cycle" in results and "svc_real" in results and "svc_stub" in results:
        c = results["cycle"]
        rates = [
            min(results[k]["created_per_s"], results[k]["matched_per_s"])
            for k in ("svc_stub", "svc_real")
        ]
        servers = c["cpu_s"] + c["redis_cpu_s"] + c["pg_cpu_s"]
        lines += [
            "",
            "Targets (issue 21), this run: one 10,000-ticket cycle under 0.25 s: "
            + (
                f"**MET** ({c['total_s']:.2f} s)"
                if c["total_s"] < 0.25
                else f"**NOT MET** ({c['total_s']:.2f} s; lobby, Redis and PostgreSQL together"
                f" spent {servers:.2f} s of CPU on it, {servers / 2:.2f} s of wall time on 2"
                " cores even if all three overlapped perfectly)"
            )
            + "; at least 2,000 tickets/s created and matched through gRPC: "
            + ", ".join(
                f"{'**MET**' if r >= 2000 else '**NOT MET**'} with {who} ({r:,.0f}/s)"
                for r, who in zip(rates, ("the stub authority", "the real authority"), strict=True)
            )
            + ".",
        ]
    if "svc_real" in results:
        s = results["svc_real"]
        parts = [
            ("lobby", s["lobby_cpu_ms_per_ticket"]),
            ("load generator", s["client_cpu_ms_per_call"]),
            ("authority (a quarter game)", s["authority_cpu_ms_per_game"] / 4),
            ("Redis", s["redis_cpu_ms_per_ticket"]),
            ("PostgreSQL", s["pg_cpu_ms_per_ticket"]),
        ]
        total = sum(v for _, v in parts)
        lines += [
            "",
            "CPU floor of the gRPC row with the real authority: "
            + " + ".join(f"{name} {v:.2f}" for name, v in parts)
            + f" = {total:.2f} ms of CPU per ticket, so the {os.cpu_count()} cores, if nothing"
            f" else ran, would give at most {1000 * (os.cpu_count() or 1) / total:,.0f}"
            " tickets/s.",
        ]
    return lines


# Measured by hand for this pass (2026-12-02, see each figure's load) and the passes before.
HISTORY = [
    "",
    "This pass (issue 21, 2026-12-02 05:40-06:50 UTC), four changes, each A/B'd interleaved"
    " (the machine was shared; loads as stated):",
    "",
    "- The director keeps each pool in memory and applies only the changes since its last"
    " read (services.lobby.poolcache): every script that adds a ticket to a pool or takes one"
    " out appends the change to the pool's log stream, and a cycle reads the entries after"
    " its cursor (one transaction with the pool's size) and decodes only the new tickets; a"
    " full resync on the first read, a trimmed or lost log, a size mismatch, and every 60 s."
    " Redis stays the source of truth (the claim script checks every ticket). The log costs"
    " Redis one XADD per enqueued ticket (10,000 enqueues: 0.32 s of Redis CPU before and"
    " after). The warm and cold rows above are this change's A/B.",
    "- The match function yields its proposals as they form (iter_matches) and each chunk's"
    " claim goes to Redis at once, so Redis claims and the start pipeline runs while the"
    " rest of the pool is matched: one warm 10,000-ticket cycle, old/new interleaved x4 at"
    " load 7.7-7.9, wall 1.22/1.77/1.78/1.66 s -> 1.25/1.32/1.43/1.21 s (lobby CPU 0.35-0.46"
    " s either way).",
    "- The director keeps 64 CreateGame calls in flight instead of 16"
    " (WARROOM_LOBBY_CREATE_CONCURRENCY): the authority group-commits the creations that"
    " arrive together. One cycle of 500 games from the real authority over gRPC, 16/64"
    " interleaved x2 at load 7.0-7.6: wall 1.77/2.23 s -> 1.22/1.20 s, lobby CPU 0.50/0.48 ->"
    " 0.30/0.36 s, authority CPU 2.00/1.78 -> 1.66/1.42 ms per game.",
    "- The start pipeline starts its CreateGame workers as matches arrive, one per match up"
    " to the 64, instead of all of them in every cycle (a 50 ms matchmaker loop runs many"
    " small cycles): cycles of 10 matches, old/new interleaved x8 at load 1.9, lobby CPU"
    " median 11 -> 10.5 ms.",
    "",
    "Where the time goes now (measured 2026-12-02 05:45-06:40 UTC, load 1.9-11): Redis"
    " spends 0.10-0.13 s of CPU claiming 2,500 matches and 0.13-0.21 s assigning them (Lua:"
    " per ticket a status check and write, then the assignment, its expiry and the status"
    " message), PostgreSQL 0.13-0.24 s recording them; with the lobby's 0.25-0.45 s that is"
    " more CPU than 2 cores give in 0.25 s, so the cycle target sits below what the three"
    " servers need together on this machine. CreateGame in the authority, in process at load"
    " 1.9 (CPU per game, one at a time): group-committed insert 1.03 ms (SQL thread and"
    " hand-off, services/game/store.py), hot-state init 0.34 ms (Redis,"
    " services/game/hot.py), Match.start 0.23 ms (the rules' setup, seed-dependent), seat"
    " rows 0.11 ms (the ORM constructor is 21 of each row's 25 us), live-game hold with its"
    " bot tokens 0.09 ms, the response 0.07 ms; 1.2 ms per game with 16 in flight, about"
    " 15% less with 64. Through gRPC the lobby's EnqueueTicket handler costs 0.11 ms of CPU"
    " in process (load 5.2); the rest of the lobby's CPU per ticket is grpc.aio (the"
    " authority section's bare echo costs its server 0.21-0.33 ms a call) and matching.",
    "",
    "Before this pass (b77da6e, 04:26-04:30 UTC, load average 2.2-3.2): 10,000-ticket cycle"
    " 0.52 s with 0.26 s of lobby CPU (every cycle read the whole pool); through gRPC"
    " 1,538 created/1,473 matched per s with the stub authority and 1,553/1,101 with the real"
    " one; lobby 0.51 ms, load generator 0.20 ms and authority 0.32 ms (a quarter game) of"
    " CPU per ticket. Earlier: 0.70-0.78 s and 1,444/986 (02:54 UTC, load 1.8-8); 1.64 s"
    " and 364 created/s before the speed pass of 2026-11-29 (load about 6).",
]


if __name__ == "__main__":
    asyncio.run(main())
