"""A running platform for end-to-end tests: `make run`'s supervisor on free ports.

The supervisor runs as a real subprocess (`python -m warroom.platform.supervisor run`)
against the test Redis and PostgreSQL: its own PostgreSQL schema, its own Redis key prefix
and a dedicated Redis database for the Celery broker (flushed before and after). When the
module's tests are done, the fixture stops it with SIGINT (Ctrl-C) and asserts a clean exit
with no process left behind.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import redis

from tests.fixtures import temporary_schema
from warroom.platform.health import free_port

ROOT = Path(__file__).resolve().parents[2]
BROKER_DB = int(os.environ.get("WARROOM_E2E_BROKER_DB", "14"))


@dataclass
class Platform:
    """A supervisor subprocess and what a client needs to reach it."""

    process: subprocess.Popen[bytes]
    var: Path
    env: dict[str, str]
    lobby: str
    game: str
    bots: str
    database_url: str
    schema: str
    output: Path
    state: dict[str, object] = field(default_factory=dict)

    def log(self, name: str) -> str:
        try:
            return (self.var / "log" / f"{name}.log").read_text(errors="replace")
        except OSError:
            return ""

    def logs_tail(self, lines: int = 30) -> str:
        """The last lines of every log, for assertion messages."""
        parts = [f"--- supervisor output\n{_tail(self.output, lines)}"]
        for log in sorted((self.var / "log").glob("*.log")):
            parts.append(f"--- {log.name}\n{_tail(log, lines)}")
        return "\n".join(parts)

    def child_pids(self) -> list[int]:
        processes = self.state.get("processes")
        pids: list[int] = []
        if isinstance(processes, dict):
            for info in processes.values():
                if isinstance(info, dict) and isinstance(info.get("pid"), int):
                    pids.append(int(info["pid"]))
        return pids


def _tail(path: Path, lines: int) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def with_db(url: str, db: int) -> str:
    """A redis:// URL pointing at database `db`."""
    base, _, last = url.rstrip("/").rpartition("/")
    if last.isdigit() and base.count("/") >= 2:
        return f"{base}/{db}"
    return f"{url.rstrip('/')}/{db}"


def supervisor_env(var: Path, extra: dict[str, str]) -> dict[str, str]:
    """Environment for a supervisor on free ports with its data in `var`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("WARROOM_")}
    env.pop("REDIS_URL", None)
    env.pop("DATABASE_URL", None)
    env.update(
        {
            "WARROOM_VAR_DIR": str(var),
            "WARROOM_HOST": "127.0.0.1",
            "WARROOM_START_TIMEOUT": "120",
            "WARROOM_WORKER_CONCURRENCY": "2",
        }
    )
    for name in ("LOBBY", "GAME", "BOTS", "WEB"):
        env[f"WARROOM_{name}_PORT"] = str(free_port())
        env[f"WARROOM_{name}_METRICS_PORT"] = str(free_port())
    env.update(extra)
    return env


def start_supervisor(
    env: dict[str, str], output: Path, timeout: float = 180
) -> subprocess.Popen[bytes]:
    """Start `supervisor run` in the foreground mode as a subprocess; wait until it is running."""
    var = Path(env["WARROOM_VAR_DIR"])
    with output.open("wb") as handle:
        process = subprocess.Popen(
            [sys.executable, "-m", "warroom.platform.supervisor", "run", "--foreground"],
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=handle,
            stderr=subprocess.STDOUT,
        )
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(
                f"the supervisor exited with {process.returncode} while starting:\n"
                f"{_tail(output, 60)}\n"
                + "\n".join(
                    f"--- {log.name}\n{_tail(log, 30)}"
                    for log in sorted((var / "log").glob("*.log"))
                )
            )
        state = read_state(var)
        if state.get("status") == "running":
            return process
        time.sleep(0.3)
    process.send_signal(signal.SIGINT)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(60)
    raise AssertionError(f"the supervisor was not running after {timeout:g}s:\n{_tail(output, 60)}")


def read_state(var: Path) -> dict[str, object]:
    try:
        data = json.loads((var / "supervisor.json").read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def pid_running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def group_members(pgid: int) -> list[int]:
    """Live processes whose process group is `pgid` (what Ctrl-C must not leave behind)."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            members.append(int(entry.name))
    return members


def stop_and_check(platform: Platform, sig: int = signal.SIGINT) -> None:
    """Stop the supervisor with a signal; assert exit 0, nothing left running, files removed."""
    children = platform.child_pids()
    assert children, "the supervisor recorded no child processes"
    platform.process.send_signal(sig)
    try:
        code = platform.process.wait(90)
    except subprocess.TimeoutExpired:
        platform.process.kill()
        raise AssertionError(f"the supervisor did not stop:\n{platform.logs_tail()}") from None
    assert code == 0, f"supervisor exit {code}:\n{platform.logs_tail()}"
    deadline = time.monotonic() + 10
    leftovers: list[int] = []
    while time.monotonic() < deadline:
        leftovers = [pid for pid in children if pid_running(pid)]
        leftovers += [p for pid in children for p in group_members(pid)]
        if not leftovers:
            break
        time.sleep(0.2)
    assert not leftovers, f"processes left after shutdown: {sorted(set(leftovers))}"
    assert not (platform.var / "supervisor.pid").exists()
    output = platform.output.read_text(errors="replace")
    assert "Warroom stopped." in output, output[-2000:]


@contextlib.contextmanager
def running_platform(
    redis_url: str,
    database_url: str,
    var: Path,
    extra: dict[str, str],
    broker_db: int = BROKER_DB,
    prefix: str = "wr-e2e",
) -> Iterator[Platform]:
    """`make run`'s supervisor on free ports in its own schema, key prefix and broker
    database (flushed before and after); stopped with Ctrl-C and checked at the end."""
    broker = with_db(redis_url, broker_db)
    broker_client = redis.Redis.from_url(broker)
    broker_client.flushdb()
    with temporary_schema(database_url) as schema:
        env = supervisor_env(
            var,
            {
                "REDIS_URL": redis_url,
                "DATABASE_URL": database_url,
                "WARROOM_DB_SCHEMA": schema,
                "WARROOM_REDIS_PREFIX": f"{prefix}-{uuid.uuid4().hex[:8]}:",
                "WARROOM_CELERY_BROKER_URL": broker,
                **extra,
            },
        )
        output = var / "supervisor.out"
        process = start_supervisor(env, output)
        running = Platform(
            process=process,
            var=var,
            env=env,
            lobby=f"127.0.0.1:{env['WARROOM_LOBBY_PORT']}",
            game=f"127.0.0.1:{env['WARROOM_GAME_PORT']}",
            bots=f"127.0.0.1:{env['WARROOM_BOTS_PORT']}",
            database_url=database_url,
            schema=schema,
            output=output,
            state=read_state(var),
        )
        try:
            yield running
        finally:
            try:
                if process.poll() is None:
                    # The last check of the module: Ctrl-C stops everything cleanly.
                    stop_and_check(running)
            finally:
                if process.poll() is None:
                    process.kill()
                    process.wait(30)
                with contextlib.suppress(redis.RedisError):
                    broker_client.flushdb()
                broker_client.close()


@pytest.fixture(scope="module")
def platform(
    redis_url: str, database_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Platform]:
    """`make run`'s supervisor on free ports over the test Redis and PostgreSQL."""
    var = tmp_path_factory.mktemp("warroom-var")
    extra = {"WARROOM_SERVICE_SECRET": uuid.uuid4().hex}
    with running_platform(redis_url, database_url, var, extra) as running:
        yield running
