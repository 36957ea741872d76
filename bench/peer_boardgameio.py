"""Peer benchmark: the Warroom authority against boardgame.io on the same toy game.

Four servers run side by side on loopback, each with its own database:
  warroom           `python -m services.game` (PostgreSQL + a private Redis): a move is answered
                    only after its commit;
  bgio-pg           boardgame.io 0.50 + bgio-postgres as shipped (the broadcast that answers a
                    move goes out before its write);
  bgio-pg-commit    the same, each broadcast held until its write has committed, through the
                    socket transport's documented `pubSub` option (bench/peers/boardgameio/server.js);
  bgio-memory       boardgame.io's in-memory store (no durability: the ceiling).
A load process per server (bench/peer_load_warroom.py, bench/peers/boardgameio/load.js) plays
the toy game with two clients per game (WatchGame streams / sockets) and replaces finished games
inside the timed window. Rounds alternate the servers (A B C D, A B C D, ...); each round
measures moves/s at 1 and at 100 concurrent games (closed loop), then p50/p99 under the same
Poisson arrivals for every server, with a read of the database right after every 5th answer
(answers ahead of the database are counted). Server CPU comes from /proc; database CPU is the
CPU of the PostgreSQL backends serving the server's database (pg_stat_activity pids' /proc
times; WAL writer and checkpointer excluded), Warroom's Redis CPU is reported apart. A bare grpc.aio echo server (bench/game_authority.py's)
runs a 100-call closed loop in each round as the reference row: Python gRPC's CPU per call,
the floor under Warroom's CPU per move.

Usage:  .venv/bin/python bench/peer_boardgameio.py [--rounds 3] [--seconds 5] [--no-write]
Writes the `<!-- bench:peers -->` section of docs/benchmarks.md. Needs DATABASE_URL (default
local PostgreSQL), node and npm (runs `npm ci` in bench/peers/boardgameio when needed) and
redis-server on PATH.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import signal
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from sqlalchemy import text
from sqlalchemy.engine import make_url

ROOT = Path(__file__).resolve().parents[1]
PEER = ROOT / "bench" / "peers" / "boardgameio"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "libs"))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("WARROOM_ENV", "development")

from game_authority import (  # noqa: E402
    ECHO,
    STREAM_MESSAGES,
    commit_latency,
    context_switches,
    cpu_seconds,
    free_port,
    ready,
    run_echo,
    run_stream_echo,
    wake_cost_us,
)
from services.common.db import make_engine, migrate  # noqa: E402
from warroom import docsections  # noqa: E402

SYSTEMS = ("warroom", "bgio-pg", "bgio-pg-commit", "bgio-memory")
LABELS = {
    "warroom": "Warroom (PostgreSQL, answered after commit)",
    "bgio-pg": "boardgame.io + PostgreSQL, as shipped",
    "bgio-pg-commit": "boardgame.io + PostgreSQL, broadcast after commit (pubSub)",
    "bgio-memory": "boardgame.io in memory (not durable)",
}
ACK_EVERY = 5
POOL = 8  # database connections of each server (Warroom's authority and boardgame.io's Sequelize)


class DbCpu:
    """CPU seconds of the PostgreSQL backends connected to one database, sampled in a thread."""

    def __init__(self, admin_url: str, database: str) -> None:
        self.admin_url, self.database = admin_url, database
        self.first: dict[int, float] = {}
        self.last: dict[int, float] = {}
        self.stop = threading.Event()
        self.thread: threading.Thread | None = None

    def pids(self, conn: Any) -> list[int]:
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s", (self.database,)
        ).fetchall()
        return [int(r[0]) for r in rows]

    def sample(self, conn: Any, baseline: bool) -> None:
        for pid in self.pids(conn):
            try:
                used = cpu_seconds(pid)
            except (FileNotFoundError, ProcessLookupError):
                continue
            self.first.setdefault(pid, used if baseline else 0.0)
            self.last[pid] = used

    def start(self) -> None:
        import psycopg

        self.first, self.last = {}, {}
        self.stop.clear()
        conn = psycopg.connect(self.admin_url, autocommit=True)
        self.sample(conn, baseline=True)

        def run() -> None:
            with conn:
                while not self.stop.wait(0.2):
                    self.sample(conn, baseline=False)
                self.sample(conn, baseline=False)

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()

    def finish(self) -> float:
        """CPU seconds used by the database's backends since `start`."""
        self.stop.set()
        if self.thread is not None:
            self.thread.join()
        return sum(self.last[pid] - self.first[pid] for pid in self.last)


@dataclass
class System:
    """One server under test, its load process and its database."""

    name: str
    server: subprocess.Popen[bytes]
    load: subprocess.Popen[str] | None = None
    database: str | None = None
    redis: subprocess.Popen[bytes] | None = None
    results: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def command(self, line: str, db: DbCpu | None) -> dict[str, Any]:
        """Run one window on the load process; add server, database and Redis CPU per move."""
        assert self.load is not None and self.load.stdin and self.load.stdout
        server0 = cpu_seconds(self.server.pid)
        switches0 = context_switches(self.server.pid), context_switches(self.load.pid)
        redis0 = cpu_seconds(self.redis.pid) if self.redis else 0.0
        if db is not None:
            db.start()
        self.load.stdin.write(line + "\n")
        self.load.stdin.flush()
        reply = self.load.stdout.readline()
        if not reply:
            raise RuntimeError(f"{self.name}: load process ended")
        result: dict[str, Any] = json.loads(reply)
        moves = max(1, result["moves"])
        result["server_cpu_ms"] = (cpu_seconds(self.server.pid) - server0) * 1e3 / moves
        result["server_switches"] = (context_switches(self.server.pid) - switches0[0]) / moves
        result["load_switches"] = (context_switches(self.load.pid) - switches0[1]) / moves
        result["db_cpu_ms"] = db.finish() * 1e3 / moves if db is not None else None
        result["redis_cpu_ms"] = (
            (cpu_seconds(self.redis.pid) - redis0) * 1e3 / moves if self.redis else None
        )
        result["load"] = os.getloadavg()[0]
        return result


def wait_line(stream: IO[str] | IO[bytes] | None, word: str, what: str) -> None:
    """Read a child's stdout until a line starting with `word`."""
    assert stream is not None
    while True:
        raw = stream.readline()
        line = raw.decode() if isinstance(raw, bytes) else raw
        if not line:
            raise RuntimeError(f"{what} ended before {word}")
        if line.startswith(word):
            return


def wait_port(port: int, what: str) -> None:
    import socket

    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise RuntimeError(f"{what} did not listen on {port}")


def npm_ci() -> None:
    """Install the pinned boardgame.io packages (package-lock.json) when missing or stale."""
    marker = PEER / "node_modules" / ".package-lock.json"
    lock = PEER / "package-lock.json"
    if marker.exists() and marker.stat().st_mtime >= lock.stat().st_mtime:
        return
    subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=PEER, check=True)


class Bench:
    """Databases, servers and load processes of one run (all removed by `close`)."""

    def __init__(self, admin_url: str, tables: int, server_cpu: int | None = None) -> None:
        self.admin_url = admin_url
        self.server_cpu = server_cpu
        self.tables = tables
        self.tag = uuid.uuid4().hex[:8]
        self.admin = make_engine(admin_url).execution_options(isolation_level="AUTOCOMMIT")
        self.databases: list[str] = []
        self.systems: dict[str, System] = {}
        self.schema = "warroom_bench"
        self.flush = (float("nan"), float("nan"))
        self.echo: subprocess.Popen[bytes] | None = None
        self.echo_port = 0
        self.echo_results: list[dict[str, float]] = []
        self.load_before = os.getloadavg()[0]
        self.wake = (float("nan"), float("nan"))  # us of CPU per wake: across the cores, on one

    def url(self, database: str, driver: str = "postgresql+psycopg") -> str:
        url = make_url(self.admin_url).set(drivername=driver, database=database)
        return url.render_as_string(hide_password=False)

    def create_database(self, name: str) -> str:
        database = f"bench_peer_{name.replace('-', '_')}_{self.tag}"
        with self.admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{database}"'))
        self.databases.append(database)
        return database

    def start(self) -> None:
        npm_ci()
        self.wake = (wake_cost_us(), wake_cost_us({min(os.sched_getaffinity(0))}))
        self.start_echo()
        self.start_warroom()
        for name, storage in (
            ("bgio-pg", "postgres"),
            ("bgio-pg-commit", "postgres-commit"),
            ("bgio-memory", "memory"),
        ):
            self.start_bgio(name, storage)
        for system in self.systems.values():
            assert system.load is not None
            wait_line(system.load.stdout, "READY", f"{system.name} load")

    def start_warroom(self) -> None:
        database = self.create_database("warroom")
        url = self.url(database)
        engine = make_engine(url)
        with engine.begin() as conn:
            conn.execute(text(f'CREATE SCHEMA "{self.schema}"'))
        engine.dispose()
        engine = make_engine(url, self.schema)
        migrate(engine)
        self.flush = commit_latency(engine)
        engine.dispose()
        redis_port, port, metrics = free_port(), free_port(), free_port()
        redis = subprocess.Popen(
            ["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--daemonize", "no", "--loglevel", "warning"],
            stdout=subprocess.DEVNULL,
        )  # fmt: skip
        wait_port(redis_port, "redis-server")
        env = dict(os.environ)
        env.update(
            WARROOM_REDIS_URL=f"redis://127.0.0.1:{redis_port}/0",
            WARROOM_REDIS_PREFIX=f"wr-peer-{self.tag}:",
            WARROOM_DATABASE_URL=url,
            WARROOM_DB_SCHEMA=self.schema,
            WARROOM_EXTRA_GAMES="toy=tests.engine.toy_game:ToyRules",
            WARROOM_GAME_PORT=str(port),
            WARROOM_GAME_METRICS_PORT=str(metrics),
            WARROOM_GAME_RATE_PER_SECOND="1000000",
            WARROOM_GAME_RATE_BURST="1000000",
            WARROOM_LOG_LEVEL="WARNING",
            WARROOM_DB_POOL_SIZE=str(POOL),
            PYTHONPATH=f"{ROOT}:{ROOT / 'libs'}",
        )
        server = subprocess.Popen(
            [sys.executable, "-m", "services.game"], cwd=ROOT, env=env, preexec_fn=self.pin
        )
        system = System("warroom", server, database=database, redis=redis)
        self.systems["warroom"] = system
        wait_port(port, "the Warroom authority")
        system.load = subprocess.Popen(
            [sys.executable, str(ROOT / "bench" / "peer_load_warroom.py"),
             "--address", f"127.0.0.1:{port}", "--tables", str(self.tables),
             "--ack-database", self.url(database, "postgresql"), "--ack-schema", self.schema],
            cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip

    def pin(self) -> None:
        """In a server's child process before it starts: keep it (every thread it will have)
        on `server_cpu`, when one is set."""
        if self.server_cpu is not None:
            os.sched_setaffinity(0, {self.server_cpu})

    def start_echo(self) -> None:
        """The reference row: a bare grpc.aio echo server on the services' event loop."""
        self.echo_port = free_port()
        env = dict(os.environ, PYTHONPATH=f"{ROOT}:{ROOT / 'libs'}")
        self.echo = subprocess.Popen(
            [sys.executable, "-c", ECHO, str(self.echo_port)], cwd=ROOT, env=env
        )
        wait_port(self.echo_port, "the echo server")

    def echo_window(self, seconds: float) -> dict[str, float]:
        """Closed loops of `tables` concurrent 600-byte unary calls (calls/s, server CPU per
        call), then of `tables` server-streaming calls (server CPU per streamed message)."""
        assert self.echo is not None
        pid = self.echo.pid

        async def run() -> tuple[float, int, float, float]:
            channel = await ready(f"127.0.0.1:{self.echo_port}")
            try:
                cpu = cpu_seconds(pid)
                rate, latencies = await run_echo(channel, self.tables, seconds)
                unary = (cpu_seconds(pid) - cpu) * 1e3 / max(1, len(latencies))
                cpu = cpu_seconds(pid)
                messages = await run_stream_echo(channel, self.tables, seconds)
                streamed = (cpu_seconds(pid) - cpu) * 1e3 / max(1, messages)
                return rate, len(latencies), unary, streamed
            finally:
                await channel.close()

        rate, _calls, unary, streamed = asyncio.run(run())
        result = {
            "rate": rate,
            "server_cpu_ms": unary,
            "stream_cpu_ms": streamed,
            "load": os.getloadavg()[0],
        }
        self.echo_results.append(result)
        print(f"{'echo':15} closed100 {json.dumps(result)}", flush=True)
        return result

    def start_bgio(self, name: str, storage: str) -> None:
        port = free_port()
        database = self.create_database(name) if storage != "memory" else None
        argv = ["node", "server.js", "--port", str(port), "--storage", storage]
        if database is not None:
            argv += ["--database", self.url(database, "postgresql"), "--pool", str(POOL)]
        env = dict(os.environ, NODE_ENV="production")
        server = subprocess.Popen(
            argv, cwd=PEER, env=env, stdout=subprocess.PIPE, preexec_fn=self.pin
        )
        system = System(name, server, database=database)
        self.systems[name] = system
        wait_line(server.stdout, "READY", f"{name} server")
        load = [
            "node",
            "load.js",
            "--url",
            f"http://127.0.0.1:{port}",
            "--tables",
            str(self.tables),
        ]
        if database is not None:
            load += ["--ack-database", self.url(database, "postgresql")]
        system.load = subprocess.Popen(
            load, cwd=PEER, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )

    def window(self, name: str, key: str, line: str) -> dict[str, Any]:
        system = self.systems[name]
        db = DbCpu(self.url("postgres", "postgresql"), system.database) if system.database else None
        result = system.command(line, db)
        system.results.setdefault(key, []).append(result)
        print(f"{name:15} {key:8} {json.dumps(result)}", flush=True)
        return result

    def close(self) -> None:
        if self.echo is not None and self.echo.poll() is None:
            self.echo.send_signal(signal.SIGTERM)
            self.echo.wait(10)
        for system in self.systems.values():
            for child in (system.load, system.server, system.redis):
                if child is None or child.poll() is not None:
                    continue
                child.send_signal(signal.SIGTERM)
                try:
                    child.wait(10)
                except subprocess.TimeoutExpired:
                    child.kill()
                    child.wait()
        with self.admin.connect() as conn:
            for database in self.databases:
                conn.execute(text(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)'))
        self.admin.dispose()


def run_rounds(bench: Bench, rounds: int, seconds: float, paced_rate: float | None) -> float:
    """A B C D rounds of every window; returns the paced arrival rate used."""
    rate = paced_rate
    loads: list[tuple[float, float]] = []
    for index in range(rounds):
        before = os.getloadavg()[0]
        for name in SYSTEMS:
            bench.window(name, "closed1", f"closed 1 {seconds:g}")
        for name in SYSTEMS:
            bench.window(name, "closed100", f"closed {bench.tables} {seconds:g}")
        bench.echo_window(seconds)
        if rate is None:
            # half the slower of Warroom and shipped boardgame.io + PostgreSQL at 100 games
            rate = 0.5 * min(
                bench.systems[n].results["closed100"][0]["rate"] for n in ("warroom", "bgio-pg")
            )
        for name in SYSTEMS:
            bench.window(name, "paced", f"paced {bench.tables} {seconds:g} {rate:.1f} {ACK_EVERY}")
        loads.append((before, os.getloadavg()[0]))
        print(f"round {index + 1}: load average {before:.1f} -> {loads[-1][1]:.1f}", flush=True)
    bench.loads = loads  # type: ignore[attr-defined]
    return rate or 0.0


def med(results: list[dict[str, Any]], key: str) -> float:
    values = [r[key] for r in results if r.get(key) is not None]
    return statistics.median(values) if values else float("nan")


def fmt(value: float, digits: int = 1) -> str:
    return "-" if value != value else f"{value:,.{digits}f}"


def report(bench: Bench, args: argparse.Namespace, rate: float, started: str) -> str:
    """The Markdown section: summary table, ratios against the targets, per-round figures."""
    res = {name: bench.systems[name].results for name in SYSTEMS}
    loads: list[tuple[float, float]] = bench.loads  # type: ignore[attr-defined]

    def m(name: str, key: str, field_: str) -> float:
        return med(res[name].get(key, []), field_)

    def total(name: str) -> float:
        parts = [m(name, "closed100", k) for k in ("server_cpu_ms", "db_cpu_ms", "redis_cpu_ms")]
        return sum(p for p in parts if p == p)

    def ahead(name: str) -> str:
        checked = sum(r["ack_checked"] for r in res[name].get("paced", []))
        late = sum(r["ack_ahead"] for r in res[name].get("paced", []))
        return f"{late} of {checked}" if checked else "- (no database)"

    lines = [
        "## Peer benchmark: Warroom against boardgame.io (`bench/peer_boardgameio.py`)",
        "",
        f"`bench/peer_boardgameio.py --rounds {args.rounds} --seconds {args.seconds:g}`, {started}"
        f" UTC, {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()},"
        f" Node {node_version()}, boardgame.io {npm_version('boardgame.io')}, bgio-postgres "
        f"{npm_version('bgio-postgres')}. 1-minute load average {bench.load_before:.1f} before"
        " the run; during it the run's own processes (four servers, their load generators,"
        " PostgreSQL and Redis) share the 2 cores with whatever else runs (load per round"
        " below): absolute figures move with the machine; the servers took turns within each"
        " round, so the ratios are the comparable figures.",
        "",
        "The same toy game on both (`tests/engine/toy_game.py`, `bench/peers/boardgameio/game.js`:"
        " three rounds of simultaneous card placement, bonus and protest; about 13 moves a game;"
        " every move validated by the server; each seat's state goes out as the game's own typed"
        " protobuf view on Warroom, as every real game's does, and as JSON on boardgame.io)."
        " Each game has two clients, one per seat: Warroom"
        " seats follow the game on WatchGame streams and move with SubmitAction (answered with"
        " the version only, `omit_view`: the new state reaches each seat once, on its stream);"
        " boardgame.io seats each hold a socket.io connection (websocket, reused across that"
        " table's matches) and move with the socket's `update`; a new boardgame.io match is made through its Lobby"
        " API (create, join, join). One move of a game is in flight at a time; a finished game is"
        " replaced inside the timed window. Latency: SubmitAction round trip / the time until the"
        " mover's socket receives the new state. Each server has its own PostgreSQL database"
        f" (dropped afterwards) and a pool of {POOL} connections (Sequelize's default is 5);"
        f" a lone one-row commit took p50 {bench.flush[0] * 1e3:.1f} ms,"
        f" p99 {bench.flush[1] * 1e3:.1f} ms at the start (the WAL flush: the floor of a durable"
        " move's latency at one game)."
        + (
            " Every server's process ran pinned to the same CPU"
            f" (`--server-cpu {bench.server_cpu}`); load generators, PostgreSQL and Redis did not."
            if bench.server_cpu is not None
            else " No process was pinned to a CPU."
        ),
        "",
        f"Medians over {args.rounds} rounds; closed loop for moves/s; paced: Poisson arrivals at"
        f" {rate:.0f} moves/s over {bench.tables} games for every server (half the slower of Warroom"
        f" and shipped boardgame.io + PostgreSQL at {bench.tables} games in round 1). CPU per move"
        f" at {bench.tables} games"
        " (closed loop). Database CPU: the PostgreSQL backends of the server's database."
        " Answers ahead of the database: a read of the game's row right after every"
        f" {ACK_EVERY}th paced answer found an older state.",
        "",
        f"| server | moves/s, 1 game | moves/s, {bench.tables} games | paced p50 ms | paced p99 ms "
        "| server CPU ms/move | database CPU ms/move | Redis CPU ms/move | server + database "
        "+ Redis | load generator CPU ms/move | server context switches/move, 1 / 100 games "
        "| answers ahead of the database |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for name in SYSTEMS:
        lines.append(
            f"| {LABELS[name]} | {fmt(m(name, 'closed1', 'rate'), 0)} "
            f"| {fmt(m(name, 'closed100', 'rate'), 0)} | {fmt(m(name, 'paced', 'p50_ms'))} "
            f"| {fmt(m(name, 'paced', 'p99_ms'))} | {fmt(m(name, 'closed100', 'server_cpu_ms'), 2)} "
            f"| {fmt(m(name, 'closed100', 'db_cpu_ms'), 2)} "
            f"| {fmt(m(name, 'closed100', 'redis_cpu_ms'), 2)} | {fmt(total(name), 2)} "
            f"| {fmt(m(name, 'closed100', 'client_cpu_ms_per_move'), 2)} "
            f"| {fmt(m(name, 'closed1', 'server_switches'))} / "
            f"{fmt(m(name, 'closed100', 'server_switches'))} | {ahead(name)} |"
        )
    w100, b100 = m("warroom", "closed100", "rate"), m("bgio-pg", "closed100", "rate")
    w1, b1 = m("warroom", "closed1", "rate"), m("bgio-pg", "closed1", "rate")
    wcpu, bcpu = (
        m("warroom", "closed100", "server_cpu_ms"),
        m("bgio-pg", "closed100", "server_cpu_ms"),
    )
    wp99, bp99 = m("warroom", "paced", "p99_ms"), m("bgio-pg", "paced", "p99_ms")
    mem100 = m("bgio-memory", "closed100", "rate")
    targets = [
        ("Moves/s at 100 games vs boardgame.io + PostgreSQL (shipped)", w100 / b100, ">= 3x", w100 / b100 >= 3, paired(res, "bgio-pg", "closed100", "rate")),
        ("Moves/s at 1 game vs boardgame.io + PostgreSQL (shipped)", w1 / b1, ">= 1.5x", w1 / b1 >= 1.5, paired(res, "bgio-pg", "closed1", "rate")),
        ("Server CPU per move at 100 games vs boardgame.io's", wcpu / bcpu, "<= 0.33x", wcpu / bcpu <= 0.33, paired(res, "bgio-pg", "closed100", "server_cpu_ms")),
        ("Paced p99 vs boardgame.io + PostgreSQL (shipped)", wp99 / bp99, "<= 0.5x", wp99 / bp99 <= 0.5, paired(res, "bgio-pg", "paced", "p99_ms")),
        ("Moves/s at 100 games vs boardgame.io in memory", w100 / mem100, ">= 0.75x", w100 / mem100 >= 0.75, paired(res, "bgio-memory", "closed100", "rate")),
    ]  # fmt: skip
    commit100 = m("bgio-pg-commit", "closed100", "rate")
    lines += [
        "",
        "Warroom against boardgame.io, this run (targets of issue 21). The ratio is of the"
        " medians over the rounds (the verdict's); beside it, the median and range of the"
        " ratios within each round, where both servers ran in the same minutes:",
        "",
        "| measure | ratio | within a round: median (range) | target | |",
        "|---|---:|---|---|---|",
        *(
            f"| {what} | {ratio:.2f}x | {rounds} | {target} | {'MET' if ok else 'NOT MET'} |"
            for what, ratio, target, ok, rounds in targets
        ),
        f"| Moves/s at 100 games vs boardgame.io + PostgreSQL, broadcast after commit "
        f"| {w100 / commit100:.2f}x | {paired(res, 'bgio-pg-commit', 'closed100', 'rate')} "
        "| (same promise as Warroom) | |",
        "",
        *floors(bench, wcpu, bcpu, w100, mem100, bp99, wp99, m),
        "",
        "Per round (moves/s at 1 / 100 games; paced p99 ms; 1-minute load average at the round's"
        " start and end):",
        "",
        "| round | load average | " + " | ".join(LABELS[n] for n in SYSTEMS) + " |",
        "|---:|---|" + "---|" * len(SYSTEMS),
    ]
    for index, (before, after) in enumerate(loads):
        cells = []
        for name in SYSTEMS:
            one = res[name]["closed1"][index]["rate"]
            hundred = res[name]["closed100"][index]["rate"]
            p99 = res[name]["paced"][index]["p99_ms"]
            cells.append(
                f"{one:.0f} / {hundred:.0f}; {fmt(p99 if p99 is not None else float('nan'))}"
            )
        lines.append(f"| {index + 1} | {before:.1f} -> {after:.1f} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def paired(
    res: dict[str, dict[str, list[dict[str, Any]]]], peer: str, key: str, field_: str
) -> str:
    """Warroom's figure over the peer's, round by round: "median (lowest-highest)"."""
    ratios = sorted(
        ours[field_] / theirs[field_]
        for ours, theirs in zip(res["warroom"].get(key, []), res[peer].get(key, []), strict=False)
        if ours.get(field_) is not None and theirs.get(field_)
    )
    if not ratios:
        return "-"
    return f"{statistics.median(ratios):.2f}x ({ratios[0]:.2f}-{ratios[-1]:.2f})"


def floors(
    bench: Bench,
    wcpu: float,
    bcpu: float,
    w100: float,
    mem100: float,
    bp99: float,
    wp99: float,
    m: Callable[[str, str, str], float],
) -> list[str]:
    """The reference echo row, and where each target not met stops (floors of this run)."""
    echo_cpu = med(bench.echo_results, "server_cpu_ms")
    stream_cpu = med(bench.echo_results, "stream_cpu_ms")
    echo_rate = med(bench.echo_results, "rate")
    transport = echo_cpu + 2 * stream_cpu
    loads = [load for pair in bench.loads for load in pair]  # type: ignore[attr-defined]
    lines = [
        f"Reference row, **a bare grpc.aio echo** (the services' event loop, 600-byte unary calls,"
        f" {bench.tables} in flight, run in each round right after the 100-game windows):"
        f" {fmt(echo_rate, 0)} calls/s, **{fmt(echo_cpu, 2)} ms of server CPU per call**; the"
        f" same server streaming {STREAM_MESSAGES} copies per call to {bench.tables} streams:"
        f" **{fmt(stream_cpu, 3)} ms per streamed message**. A Warroom move is one such unary"
        " call (SubmitAction) plus a message on each seat's WatchGame stream, so gRPC's own"
        f" share of a move is about {fmt(transport, 2)} ms, and per game (about 13 moves) a"
        " CreateGame and two stream openings; besides gRPC it costs one Redis round trip"
        " (version, announcement and the lock kept as the replica's lease in one script; the"
        " announcement is not published while no other replica subscribes; a lone write sends"
        " it beside its commit instead of after it, `Writer.stake`; a game's first"
        " move, and one in about 8 of a seat's for its rate limit, take one more), one SQL"
        " statement through a worker thread"
        " (`quickcommit`: log row, head, seats, and a result or snapshot when there is one),"
        " the rules' apply and the two seats' views (each rendered once per version,"
        " `views.render`).",
    ]
    lines += ["", wake_floor(m, bench.wake)]
    shortfalls = rate_floors(m, transport)
    if wcpu > 0.33 * bcpu:
        shortfalls.append(
            f"- **Server CPU per move**: the target is {fmt(0.33 * bcpu, 2)} ms (0.33x"
            f" boardgame.io's {fmt(bcpu, 2)}); Python gRPC alone (a unary call and two stream"
            f" messages of the echo server) is {fmt(transport, 2)} ms of Warroom's"
            f" {fmt(wcpu, 2)} ms, before any game, Redis or SQL work, leaving"
            f" {fmt(0.33 * bcpu - transport, 2)} ms for the rest against the"
            f" {fmt(wcpu - transport, 2)} ms it takes."
        )
    if w100 < 0.75 * mem100:
        shortfalls.append(
            f"- **Moves/s against boardgame.io in memory**: the target is {fmt(0.75 * mem100, 0)}"
            f" moves/s; at {fmt(wcpu, 2)} ms per move one core serves at most"
            f" {fmt(1000 / wcpu, 0)}, and the server shares the 2 cores with its load generator,"
            f" PostgreSQL and Redis (at {fmt(w100, 0)} moves/s it kept {fmt(w100 * wcpu / 10, 0)}%"
            " of a core busy); boardgame.io in memory is one Node process with nothing to write."
        )
    if wp99 > 0.5 * bp99:
        shortfalls.append(
            f"- **Paced p99**: the target is {fmt(0.5 * bp99)} ms (0.5x boardgame.io's"
            f" {fmt(bp99)}); each Warroom move waits on other processes in turn (Redis for"
            " the lock when the replica holds no lease of the game, PostgreSQL with its WAL"
            f" flush: a lone commit took p99 {bench.flush[1] * 1e3:.1f} ms at the start, then"
            " Redis for the version and announcement, beside the commit only when it runs"
            " alone), and at load"
            f" {min(loads):.1f}-{max(loads):.1f} on 2 cores each wake-up may wait for a core;"
            " boardgame.io as shipped answers before its write."
        )
    if shortfalls:
        lines += ["", "Floors of the targets not met, measured in this run:", "", *shortfalls]
    return lines


def wake_floor(m: Callable[[str, str, str], float], wake: tuple[float, float]) -> str:
    """What the 1-game move's wake-ups cost: the context switches of the server's and the load
    generator's threads per move, against one sleep-and-wake's CPU measured here."""
    server, load = (
        m("warroom", "closed1", "server_switches"),
        m("warroom", "closed1", "load_switches"),
    )
    node = m("bgio-pg", "closed1", "server_switches")
    return (
        f"Part of a move's work is waking up: at 1 game the server's threads (the event loop,"
        f" gRPC's completion-queue poller and event-engine threads, the SQL worker) switched"
        f" {fmt(server)} times per move and the load generator's {fmt(load)} (boardgame.io's"
        f" Node server {fmt(node)}). One sleep-and-wake of a process cost {fmt(wake[0])} us of"
        f" CPU here when the two processes ran on different cores, {fmt(wake[1])} us on one core"
        f" (two processes bouncing a byte over pipes), so the server's switches alone cost up to"
        f" {fmt(server * wake[0] / 1000, 2)} ms of CPU per move when its threads wake each other"
        " across the cores."
    )


def rate_floors(m: Callable[[str, str, str], float], transport: float) -> list[str]:
    """Where the 100-game and the 1-game rates stop on this machine: the CPU every process
    spends per move (server, database, Redis, load generator), measured in the same windows."""

    def spent(key: str) -> tuple[float, str]:
        parts = {
            "server": m("warroom", key, "server_cpu_ms"),
            "database": m("warroom", key, "db_cpu_ms"),
            "Redis": m("warroom", key, "redis_cpu_ms"),
            "load generator": m("warroom", key, "client_cpu_ms_per_move"),
        }
        named = ", ".join(f"{name} {fmt(ms, 2)}" for name, ms in parts.items())
        return sum(ms for ms in parts.values() if ms == ms), named

    out = []
    w100, b100 = m("warroom", "closed100", "rate"), m("bgio-pg", "closed100", "rate")
    if w100 < 3 * b100:
        cpu, named = spent("closed100")
        need = 2000 / (3 * b100)
        out.append(
            f"- **Moves/s at 100 games**: the target is {fmt(3 * b100, 0)} moves/s (3x"
            f" boardgame.io + PostgreSQL's {fmt(b100, 0)}). A Warroom move cost {fmt(cpu, 2)} ms"
            f" of CPU across its processes ({named}), so the 2 cores carry at most"
            f" {fmt(2000 / cpu, 0)} moves/s ({2000 / cpu / b100:.2f}x); 3x needs all of it at"
            f" {fmt(need, 2)} ms, which leaves the server {fmt(need - cpu + m('warroom', 'closed100', 'server_cpu_ms'), 2)}"
            f" ms against the {fmt(transport, 2)} ms of Python gRPC alone (the echo row)."
        )
    w1, b1 = m("warroom", "closed1", "rate"), m("bgio-pg", "closed1", "rate")
    if w1 < 1.5 * b1:
        cpu, named = spent("closed1")
        took, need = 1000 / w1, 1000 / (1.5 * b1)
        server = m("warroom", "closed1", "server_cpu_ms")
        out.append(
            f"- **Moves/s at 1 game**: the target is {fmt(1.5 * b1, 0)} moves/s (1.5x"
            f" {fmt(b1, 0)}), a move every {fmt(need, 2)} ms. One game's moves are serial: a"
            f" move took {fmt(took, 2)} ms while its processes spent {fmt(cpu, 2)} ms of CPU on it"
            f" ({named}; a little of it overlaps, such as the other seat's stream message), so a"
            f" move's time is its CPU work in turn, and the target needs about"
            f" {fmt(took - need, 2)} ms of it gone per move ({100 * (took - need) / server:.0f}%"
            " of the server's)."
        )
    return out


def node_version() -> str:
    return subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()


def npm_version(package: str) -> str:
    data = json.loads((PEER / "node_modules" / package / "package.json").read_text())
    return str(data["version"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--tables", type=int, default=100, help="concurrent games of the big rows")
    parser.add_argument("--paced-rate", type=float, help="moves/s of the paced rows")
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument(
        "--server-cpu",
        type=int,
        help="pin every server under test to this CPU (load generators,"
        " PostgreSQL and Redis stay free)",
    )
    args = parser.parse_args()
    admin_url = os.environ.get(
        "DATABASE_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
    )
    started = time.strftime("%Y-%m-%d %H:%M", time.gmtime())
    bench = Bench(admin_url, args.tables, args.server_cpu)
    try:
        bench.start()
        rate = run_rounds(bench, args.rounds, args.seconds, args.paced_rate)
    finally:
        bench.close()
    body = report(bench, args, rate, started)
    if not args.no_write:
        docsections.write_section(ROOT / "docs" / "benchmarks.md", "peers", body)
    print(body)


if __name__ == "__main__":
    main()
