"""Real processes for the fault tests: game replicas and Celery workers on loopback.

Every process runs in production mode with keys generated for the run
(`WARROOM_ENV=production`), on free 127.0.0.1 ports, against the run's PostgreSQL schema and a
Redis key prefix of its own; each is started in its own process group so a test can SIGKILL
a whole worker (the Celery parent and its pool), and `Procs.close` leaves nothing behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import grpc

ROOT = Path(__file__).resolve().parents[2]
TOY = "toy=tests.engine.toy_game:ToyRules"


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def run_keys() -> dict[str, str]:
    """Three fresh keys for the run's processes."""
    return {
        name: secrets.token_urlsafe(32)
        for name in (
            "WARROOM_SERVICE_SECRET",
            "WARROOM_BOT_TOKEN_SECRET",
            "WARROOM_PLAYER_TOKEN_SECRET",
        )
    }


@dataclass
class Stack:
    """What every process of one test shares: stores, prefix, keys, extra settings."""

    redis_url: str
    database_url: str
    schema: str
    prefix: str
    keys: dict[str, str] = field(default_factory=run_keys)
    extra: dict[str, str] = field(default_factory=dict)

    def env(self, **more: str) -> dict[str, str]:
        """The environment of a process of this stack."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("WARROOM_")}
        env.pop("REDIS_URL", None)
        env.pop("DATABASE_URL", None)
        env.update(self.keys)
        env.update(
            {
                "WARROOM_ENV": "production",
                "WARROOM_REDIS_URL": self.redis_url,
                "WARROOM_REDIS_PREFIX": self.prefix,
                "WARROOM_DATABASE_URL": self.database_url,
                "WARROOM_DB_SCHEMA": self.schema,
                "WARROOM_EXTRA_GAMES": TOY,
                "WARROOM_GAME_RATE_PER_SECOND": "10000",
                "WARROOM_GAME_RATE_BURST": "10000",
                "WARROOM_LOG_LEVEL": "WARNING",
                "PYTHONPATH": str(ROOT),
                "PYTHONUNBUFFERED": "1",
            }
        )
        env.update(self.extra)
        env.update(more)
        return env

    @property
    def service_metadata(self) -> tuple[tuple[str, str], ...]:
        return (("authorization", f"Bearer {self.keys['WARROOM_SERVICE_SECRET']}"),)


@dataclass
class Proc:
    """One started process and its log."""

    name: str
    argv: list[str]
    env: dict[str, str]
    log: Path
    popen: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("ab") as handle:
            self.popen = subprocess.Popen(
                self.argv,
                cwd=ROOT,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=handle,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def kill(self) -> None:
        """SIGKILL the process and its whole group (a Celery worker with its pool)."""
        if self.popen is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.popen.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(10)

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after a few seconds."""
        if self.popen is None or self.popen.poll() is not None:
            self.kill()
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.popen.pid, signal.SIGTERM)
        try:
            self.popen.wait(8)
        except subprocess.TimeoutExpired:
            self.kill()
        self.kill()  # pool children of a Celery worker, if any are left

    def tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


@dataclass
class Procs:
    """The processes of one test (all stopped by `close`)."""

    stack: Stack
    logs: Path
    started: list[Proc] = field(default_factory=list)

    def _proc(self, name: str, argv: list[str], **env: str) -> Proc:
        proc = Proc(name, argv, self.stack.env(**env), self.logs / f"{name}.log")
        proc.start()
        self.started.append(proc)
        return proc

    def command(self, name: str, argv: list[str], **env: str) -> Proc:
        """Any program (e.g. a private redis-server) with the stack's environment."""
        return self._proc(name, argv, **env)

    def module(self, name: str, module: str, **env: str) -> Proc:
        """`python -m <module>` (e.g. services.lobby) with the stack's environment."""
        return self._proc(name, [sys.executable, "-m", module], **env)

    def game(self, port: int, name: str = "game", **env: str) -> Proc:
        """A game authority replica on `port`."""
        return self._proc(
            name,
            [sys.executable, "-m", "services.game"],
            WARROOM_GAME_PORT=str(port),
            WARROOM_GAME_METRICS_PORT=str(free_port()),
            **env,
        )

    def worker(self, endpoint: str, name: str = "worker", concurrency: int = 2, **env: str) -> Proc:
        """A Celery worker on every queue, talking to the authority at `endpoint`."""
        argv = [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "services.common.celery_app",
            "worker",
            "-Q",
            "game,bots,lobby",
            "-n",
            f"{name}-{os.getpid()}-{free_port()}@%h",
            "--concurrency",
            str(concurrency),
            "--without-gossip",
            "--without-mingle",
            "--loglevel",
            "INFO",
        ]
        return self._proc(name, argv, WARROOM_GAME_ENDPOINT=endpoint, **env)

    def close(self) -> None:
        for proc in reversed(self.started):
            proc.stop()

    def tails(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.tail()}" for p in self.started)


async def ready_channel(address: str, within: float = 90) -> grpc.aio.Channel:
    """A channel to `address` once the server there answers."""
    deadline = time.monotonic() + within
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


def wait_for_log(proc: Proc, needle: str, timeout: float = 60) -> None:
    """Wait until `needle` shows in the process's log (e.g. a Celery worker's ' ready.')."""
    deadline = time.monotonic() + timeout
    while needle not in proc.tail(400):
        assert proc.popen is not None and proc.popen.poll() is None, proc.tail()
        assert time.monotonic() < deadline, f"{proc.name}: no {needle!r}\n{proc.tail()}"
        time.sleep(0.2)
