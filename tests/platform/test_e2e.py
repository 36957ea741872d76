"""End to end through real processes: `make run`'s supervisor, the SDK, the CLI and Node.

Four SDK-driven players queue for New Cold War and play to the end (ratings update), "play
now against bots" completes, a spectator never sees hidden information, the `warroom` CLI
plays a game, the Node client plays a game; the supervisor then stops cleanly on Ctrl-C
(asserted by the `platform` fixture's teardown).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.platform.conftest import ROOT, Platform, read_state
from warroom.cli.main import play_game
from warroom.cli.render import unpack_view
from warroom.platform.health import grpc_health, http_health
from warroom.sdk import Client
from warroom.v1 import common_pb2, game_pb2, lobby_pb2

pytestmark = [pytest.mark.slow, pytest.mark.timeout(480)]

NCW = common_pb2.GAME_KIND_NEW_COLD_WAR
RANDOM_BOT = common_pb2.BotSpec(kind="random", difficulty="beginner")
# Fields of New Cold War's View that only the viewing seat may see.
PRIVATE_FIELDS = ("hand", "objectives", "objective_offer", "objectives_out")


# Games against random bots end in seconds (about 10 s under load): fail fast when one hangs.
STALL_S = float(os.environ.get("WARROOM_E2E_STALL_S", "90"))


async def play_to_end(client: Client, assignment: common_pb2.Assignment) -> game_pb2.SeatView:
    """Play a seat with random choices; fail fast, with the owed decision, if the game stalls."""
    session = client.game(assignment)
    playing = asyncio.create_task(play_game(client, session, auto="random", quiet=True))
    probe = client.game(assignment)
    last_version, last_change = -1, asyncio.get_running_loop().time()
    try:
        while not playing.done():
            await asyncio.wait({playing}, timeout=5)
            if playing.done():
                break
            view = await probe.view()
            now = asyncio.get_running_loop().time()
            if view.version != last_version:
                last_version, last_change = view.version, now
            elif now - last_change > STALL_S:
                owed = ", ".join(str(s) for s in view.decision.seats)
                bots = [s.index for s in view.seats if s.is_bot]
                raise AssertionError(
                    f"game {assignment.game_id} stalled for {STALL_S:g}s at version {view.version}: "
                    f"decision {view.decision.kind!r} owed by seats [{owed}] (bot seats {bots})"
                )
        return playing.result()
    finally:
        playing.cancel()


def test_supervisor_reports_every_process_healthy(platform: Platform) -> None:
    state = read_state(platform.var)
    assert state["status"] == "running"
    processes = state["processes"]
    assert isinstance(processes, dict)
    assert {"lobby", "game", "bots", "worker", "beat"} <= set(processes)
    for endpoint in (platform.lobby, platform.game, platform.bots):
        assert grpc_health(endpoint) == "SERVING", endpoint
    output = platform.output.read_text()
    for expected in (platform.lobby, platform.game, platform.bots, "worker.log", "Connect"):
        assert expected in output, f"{expected!r} missing from the start-up summary:\n{output}"
    assert platform.var.joinpath("log", "migrations.log").exists()


def test_supervisor_starts_the_web_gateway_and_prints_its_url(platform: Platform) -> None:
    url = f"http://127.0.0.1:{platform.env['WARROOM_WEB_PORT']}"
    processes = read_state(platform.var)["processes"]
    assert isinstance(processes, dict) and "web" in processes
    assert http_health(f"{url}/healthz") == "SERVING"
    # Ready: every upstream (lobby, game, bots, catalogue) answers its health check.
    assert http_health(f"{url}/readyz") == "SERVING"
    assert f"Play in a browser: {url}/" in platform.output.read_text()


async def _player(platform: Platform, name: str) -> Client:
    client = Client(platform.lobby, deadline=20)
    await client.login(name)
    return client


async def test_four_players_queue_for_ncw_and_ratings_update(platform: Platform) -> None:
    names = [f"e2e-{i}-{os.urandom(3).hex()}" for i in range(4)]
    clients = [await _player(platform, name) for name in names]
    try:
        tickets = [await c.enqueue(NCW, variants=["4p"], ttl_s=600) for c in clients]
        assignments = await asyncio.wait_for(
            asyncio.gather(
                *(c.wait_for_match(t.ticket_id) for c, t in zip(clients, tickets, strict=True))
            ),
            timeout=120,
        )
        assert len({a.game_id for a in assignments}) == 1, "the four were not seated together"
        assert sorted(a.seat for a in assignments) == [0, 1, 2, 3]
        assert len({a.seat_token for a in assignments}) == 4

        finals = await asyncio.wait_for(
            asyncio.gather(*(play_to_end(c, a) for c, a in zip(clients, assignments, strict=True))),
            timeout=300,
        )
        for final in finals:
            assert final.HasField("result"), "a player's game did not end"
            assert len(final.result.seats) == 4
        winners = {s.seat for s in finals[0].result.seats if s.winner}

        # Ratings are settled from the result (possibly by a task): poll for them.
        ratings: dict[int, lobby_pb2.Rating] = {}
        for _ in range(120):
            ratings = {}
            for client, assignment in zip(clients, assignments, strict=True):
                player = await client.player()
                for rating in player.ratings:
                    if rating.game == NCW and rating.games >= 1:
                        ratings[assignment.seat] = rating
            if len(ratings) == 4:
                break
            await asyncio.sleep(0.5)
        assert len(ratings) == 4, f"ratings not updated for every player: {ratings}"
        mus = {seat: r.mu for seat, r in ratings.items()}
        assert len(set(mus.values())) > 1 or not winners, f"no rating moved: {mus}"
        if winners and len(winners) < 4:
            best_winner = max(mus[s] for s in winners)
            worst_loser = min(mus[s] for s in mus if s not in winners)
            assert best_winner > worst_loser, f"winners {winners} rated below losers: {mus}"
    finally:
        for client in clients:
            await client.close()


async def test_play_now_against_bots_completes(platform: Platform) -> None:
    client = await _player(platform, f"e2e-bots-{os.urandom(3).hex()}")
    try:
        created = await client.create_table(
            NCW, start_now=True, fill_bot=RANDOM_BOT, allow_spectators=False
        )
        assert not created.table.spectator_token, "spectator token of a table without spectators"
        assignment = created.assignment
        session = client.game(assignment)
        final = await asyncio.wait_for(play_to_end(client, assignment), 300)
        assert final.HasField("result")
        seats = final.seats
        assert sum(1 for s in seats if s.is_bot) == len(seats) - 1
        replay = await session.replay()
        assert replay.game_id == assignment.game_id
        assert len(replay.actions) > 0
        assert any(a.seat != assignment.seat for a in replay.actions), "no bot ever acted"
    finally:
        await client.close()


def _assert_public(view: game_pb2.SeatView, where: str) -> None:
    assert view.seat == -1, f"{where}: spectator view has seat {view.seat}"
    assert not view.decision.options, f"{where}: spectator sees options"
    for event in view.events:
        assert event.public, f"{where}: spectator sees a private event {event.text!r}"
    data = unpack_view(view.view)
    assert "_unknown_type" not in data
    for name in PRIVATE_FIELDS:
        assert not data.get(name), f"{where}: spectator sees {name}={data.get(name)}"


async def test_spectator_sees_no_hidden_information(platform: Platform) -> None:
    client = await _player(platform, f"e2e-spec-{os.urandom(3).hex()}")
    watcher = Client(platform.lobby)
    try:
        created = await client.create_table(
            NCW, start_now=True, fill_bot=RANDOM_BOT, allow_spectators=True
        )
        assignment, token = created.assignment, created.table.spectator_token
        assert token, "the lobby handed out no spectator token for a table that allows them"
        assert token != assignment.seat_token
        spectator = watcher.game(assignment, token=token)
        seen: list[game_pb2.SeatView] = []

        async def spectate() -> None:
            async for update in spectator.watch(0):
                for event in update.events:
                    assert event.public, f"stream event not public: {event.text!r}"
                _assert_public(update.view, f"v{update.version}")
                seen.append(update.view)

        watching = asyncio.create_task(spectate())
        final = await asyncio.wait_for(play_to_end(client, assignment), 300)
        await asyncio.wait_for(watching, 60)
        assert final.HasField("result")
        assert seen and seen[-1].HasField("result")
        assert len(seen) > 1, "the spectator saw no progress"
        _assert_public(await spectator.view(), "GetView")
        # The player's own view does carry private information the spectator never got.
        own = unpack_view((await client.game(assignment).view()).view)
        assert own.get("viewer") == assignment.seat
    finally:
        await client.close()
        await watcher.close()


def test_cli_logs_in_plays_against_bots_and_exports_the_replay(
    platform: Platform, tmp_path: Path
) -> None:
    env = {**os.environ, "WARROOM_CLI_HOME": str(tmp_path), "WARROOM_LOBBY": platform.lobby}
    warroom = [sys.executable, "-m", "warroom.cli.main"]

    def cli(*args: str, timeout: float = 60) -> str:
        result = subprocess.run(
            [*warroom, *args], env=env, capture_output=True, text=True, timeout=timeout, check=False
        )
        assert result.returncode == 0, (
            f"warroom {' '.join(args)}:\n{result.stdout}\n{result.stderr}"
        )
        return result.stdout

    assert "Logged in as" in cli("login", "cli-player")
    # A bot named without a difficulty gets its own kind's default (random has only one).
    out = cli("bots", "ncw", "--bot", "random", "--auto", "random", "--quiet", timeout=300)
    assert "Game over" in out, out
    out = cli("replay", "--out", str(tmp_path / "replay.json"), _last_game(tmp_path))
    assert (tmp_path / "replay.json").read_text().count('"option_id"') > 0, out
    assert "ncw" in cli("leaderboard", "ncw").lower()


def _last_game(home: Path) -> str:
    import json

    return str(json.loads((home / "session.json").read_text())["last_game"])


def test_node_client_plays_a_game_against_bots(platform: Platform) -> None:
    node = shutil.which("node")
    npm = shutil.which("npm")
    assert node and npm, "node and npm are needed for the Node client test"
    example = ROOT / "examples" / "node-client"
    if not (example / "node_modules" / "@grpc" / "grpc-js").exists():
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=example, check=True, timeout=300)
    result = subprocess.run(
        [node, "client.js"],
        cwd=example,
        env={
            **os.environ,
            "WARROOM_LOBBY": platform.lobby,
            "WARROOM_BOT": "random:beginner",
            "WARROOM_TIMEOUT_S": "300",
        },
        capture_output=True,
        text=True,
        timeout=330,
        check=False,
    )
    assert result.returncode == 0, f"{result.stdout}\n{result.stderr}"
    assert "RESULT {" in result.stdout, result.stdout


def test_node_conformance_every_title(platform: Platform) -> None:
    """The Node conformance test (examples/node-client/conformance.test.js, `node --test`):
    a client built from proto/ and the docs reads every catalogue, checks its error
    reasons, and plays a bot table of each title to the end, resolving every view id; it
    also uses health and reflection v1, checks the lobby/game refusals by reason, lists its
    games, spectates one to the end and verifies the replay (flows.js)."""
    node = shutil.which("node")
    assert node, "node is needed for the Node conformance test"
    example = ROOT / "examples" / "node-client"
    if not (example / "node_modules" / "protobufjs").exists():
        npm = shutil.which("npm")
        assert npm, "npm is needed to install the Node client's packages"
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=example, check=True, timeout=300)
    result = subprocess.run(
        [node, "--test", "--test-reporter=spec", "conformance.test.js"],
        cwd=example,
        env={**os.environ, "WARROOM_LOBBY": platform.lobby, "WARROOM_BOT": "random:beginner"},
        capture_output=True,
        text=True,
        timeout=420,
        check=False,
    )
    assert result.returncode == 0, f"{result.stdout}\n{result.stderr}"
    assert "skipped 0" in result.stdout and "fail 0" in result.stdout, result.stdout
    for title in ("ncw", "qmg_cw", "qmg_sf"):
        assert f"✔ {title} (" in result.stdout, result.stdout
    for flow in (
        "health and reflection v1",
        "refusals carry",
        "my games, a live game",
        "a resignation",
        "answering back to back",
    ):
        assert f"✔ {flow}" in result.stdout, result.stdout  # examples/node-client/flows.js
    print(result.stdout)


def test_cli_shows_the_hand_by_name_from_the_catalogue(platform: Platform, tmp_path: Path) -> None:
    """`warroom bots qmg_sf` draws each card of the hand with its catalogue name and text."""
    from warroom import catalog

    env = {**os.environ, "WARROOM_CLI_HOME": str(tmp_path), "WARROOM_LOBBY": platform.lobby}
    warroom = [sys.executable, "-m", "warroom.cli.main"]
    for args in (["login", "cli-cards"], ["bots", "qmg_sf", "--bot", "random", "--auto", "random"]):
        result = subprocess.run(
            [*warroom, *args], env=env, capture_output=True, text=True, timeout=300, check=False
        )
        assert result.returncode == 0, f"{result.stdout}\n{result.stderr}"
    out = " ".join(result.stdout.split())
    assert "Your hand" in out and "Game over" in out, out[-3000:]
    cards = catalog.catalog("qmg_sf").cards
    shown = [c for c in cards if f"#{c.id} {c.name} (" in out]
    assert shown, out[-3000:]
    assert any(" ".join(c.text.split()[:4]) in out for c in shown), out[-3000:]
    version = catalog.content_version("qmg_sf")
    assert (tmp_path / "catalog" / f"catalog-qmg_sf-{version}.binpb").is_file()
