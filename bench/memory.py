"""Memory of one game authority holding many live games (New Cold War, 4 seats).

Starts one `python -m services.game` process on the test Redis and PostgreSQL (its own schema
and key prefix), creates `--games` games through gRPC (CreateGame, service credential), reads
each game's view once so it is live in the replica's memory, plays one action in every game,
and samples the process's resident memory (VmRSS, /proc) at each checkpoint. Writes the
`<!-- bench:memory -->` section of docs/benchmarks.md with `--write`. Target: 1,000 live games
under 1 GiB.

    .venv/bin/python bench/memory.py --games 1000 --write
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import grpc
from sqlalchemy import text

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "libs"))

from services.common.db import make_engine, migrate  # noqa: E402
from warroom import docsections  # noqa: E402
from warroom.v1 import common_pb2, game_pb2, game_pb2_grpc  # noqa: E402

TARGET_MIB = 1024


def free_port() -> int:
    """A free 127.0.0.1 port."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def rss_mib(pid: int) -> float:
    """Resident memory of a process (MiB)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for {pid}")


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start_authority(env: dict[str, str]) -> subprocess.Popen[bytes]:
    """`python -m services.game` with `env`."""
    return subprocess.Popen([sys.executable, "-m", "services.game"], cwd=ROOT, env=env)


async def ready(address: str) -> grpc.aio.Channel:
    """A channel once the server answers."""
    for _ in range(600):
        channel = grpc.aio.insecure_channel(address)
        try:
            await asyncio.wait_for(channel.channel_ready(), 1)
            return channel
        except (TimeoutError, grpc.aio.AioRpcError):
            await channel.close()
    raise RuntimeError(f"{address} never answered")


async def create_games(stub: Any, metadata: Any, count: int, start: int) -> list[Any]:
    """`count` NCW games, 16 creations in flight."""
    gate = asyncio.Semaphore(16)

    async def one(i: int) -> Any:
        async with gate:
            return await stub.CreateGame(
                game_pb2.CreateGameRequest(
                    game=common_pb2.GAME_KIND_NEW_COLD_WAR,
                    variant="4p",
                    seed=start + i,
                    request_id=uuid.uuid4().hex,
                    seats=[game_pb2.SeatSpec(player_id=f"p{s}") for s in range(4)],
                ),
                metadata=metadata,
                timeout=60,
            )

    return list(await asyncio.gather(*(one(i) for i in range(count))))


async def touch(stub: Any, games: list[Any]) -> None:
    """Read a view of every game and play one option in each (16 at a time)."""
    gate = asyncio.Semaphore(16)

    async def one(game: Any) -> None:
        async with gate:
            for token in game.seat_tokens:
                view = (
                    await stub.GetView(game_pb2.GetViewRequest(game_id=game.game_id, token=token))
                ).view
                options = [o for o in view.decision.options if o.id != "undo"]
                if options:
                    await stub.SubmitAction(
                        game_pb2.SubmitActionRequest(
                            game_id=game.game_id,
                            token=token,
                            expected_version=view.version,
                            decision_id=view.decision.decision_id,
                            option_id=options[0].id,
                            idempotency_key="bench",
                        )
                    )
                    return

    await asyncio.gather(*(one(g) for g in games))


async def run(args: argparse.Namespace) -> list[tuple[int, float, float]]:
    """(live games, RSS MiB, authority CPU s) at each checkpoint."""
    database_url = os.environ.get(
        "DATABASE_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
    )
    schema = f"bench_mem_{uuid.uuid4().hex[:8]}"
    admin = make_engine(database_url)
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    engine = make_engine(database_url, schema)
    migrate(engine)
    engine.dispose()
    secret = secrets.token_urlsafe(32)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("WARROOM_")}
    env.update(
        WARROOM_ENV="production",
        WARROOM_SERVICE_SECRET=secret,
        WARROOM_BOT_TOKEN_SECRET=secrets.token_urlsafe(32),
        WARROOM_PLAYER_TOKEN_SECRET=secrets.token_urlsafe(32),
        WARROOM_REDIS_URL=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"),
        WARROOM_REDIS_PREFIX=f"wr-bench-mem-{uuid.uuid4().hex[:8]}:",
        WARROOM_DATABASE_URL=database_url,
        WARROOM_DB_SCHEMA=schema,
        WARROOM_GAME_PORT=str(port),
        WARROOM_GAME_METRICS_PORT=str(free_port()),
        WARROOM_GAME_RATE_PER_SECOND="1000000",
        WARROOM_GAME_RATE_BURST="1000000",
        WARROOM_GAME_CACHE_SECONDS="3600",
        WARROOM_LOG_LEVEL="WARNING",
        PYTHONPATH=f"{ROOT}:{ROOT / 'libs'}",
    )
    authority = start_authority(env)
    rows: list[tuple[int, float, float]] = []
    try:
        channel = await ready(f"127.0.0.1:{port}")
        stub: Any = game_pb2_grpc.GameServiceStub(channel)
        metadata = (("authorization", f"Bearer {secret}"),)
        await asyncio.sleep(2)
        rows.append((0, rss_mib(authority.pid), cpu_seconds(authority.pid)))
        done = 0
        for checkpoint in args.checkpoints:
            games = await create_games(stub, metadata, checkpoint - done, done)
            await touch(stub, games)
            done = checkpoint
            rows.append((done, rss_mib(authority.pid), cpu_seconds(authority.pid)))
            print(f"{done} live games: {rows[-1][1]:.0f} MiB, {rows[-1][2]:.0f} s CPU", flush=True)
        await channel.close()
    finally:
        authority.terminate()
        authority.wait(30)
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()
    return rows


def section(rows: list[tuple[int, float, float]], seconds: float) -> str:
    """The docs/benchmarks.md section."""
    base = rows[0][1]
    lines = [
        "## Memory: live games in one authority process",
        "",
        f"`bench/memory.py` ({time.strftime('%Y-%m-%d')}): one `python -m services.game` holding "
        "New Cold War 4-player games (created through gRPC, each game's view read and one "
        "option played, so every game is live in the replica's memory). Resident memory "
        "(VmRSS) of the authority process at each count:",
        "",
        "| live games | RSS (MiB) | per game above the idle process (KiB) | authority CPU (s) |",
        "|---|---|---|---|",
    ]
    for games, rss, cpu in rows:
        per = f"{(rss - base) * 1024 / games:.0f}" if games else "-"
        lines.append(f"| {games:,} | {rss:.0f} | {per} | {cpu:.0f} |")
    games, rss, _ = rows[-1]
    verdict = "under" if rss < TARGET_MIB else "OVER"
    lines += [
        "",
        f"{games:,} live games: {rss:.0f} MiB, {verdict} the 1 GiB target; the run took "
        f"{seconds:.0f} s. An idle game is evicted after `game_cache_seconds` (600 s), so a "
        "replica holds only the games played recently.",
    ]
    return "\n".join(lines)


def main() -> None:
    """Parse arguments, run, print and optionally write the section."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--write", action="store_true", help="write docs/benchmarks.md")
    args = parser.parse_args()
    args.checkpoints = sorted({c for c in (200, 500, args.games) if c <= args.games})
    started = time.monotonic()
    rows = asyncio.run(run(args))
    body = section(rows, time.monotonic() - started)
    print(body)
    if args.write:
        docsections.write_section(ROOT / "docs" / "benchmarks.md", "memory", body)


if __name__ == "__main__":
    main()
