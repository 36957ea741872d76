"""`make demo`: one bot-filled table of every game, played through the public gRPC API.

Uses a running platform (the lobby answers its health check) or starts one in the
background and stops it at the end. Each table is "play now against bots"; the demo's own
seat asks the bot service for its moves (falling back to a random legal option), so every
seat is a bot. A progress bar per table shows the turn, round and running score; at the end
each result and replay (game) id is printed, and each replay is written to `var/demo/`.
"""

from __future__ import annotations

import asyncio
import os
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path

import grpc
from google.protobuf import json_format
from rich.console import Console
from rich.progress import BarColumn, Progress, SpinnerColumn, TaskID, TextColumn, TimeElapsedColumn
from rich.table import Table

from warroom.cli.render import seat_label, unpack_view
from warroom.platform.health import grpc_health
from warroom.platform.supervisor import Config, run_detached, stop_running
from warroom.sdk import Client, GameSession, WarroomError, game_name_of
from warroom.v1 import common_pb2, game_pb2

console = Console(highlight=False)


@dataclass
class TableRun:
    """One demo table: its game, progress and outcome."""

    kind: int
    name: str
    game_id: str = ""
    seat: int = -1
    result: game_pb2.SeatView | None = None
    error: str = ""
    actions: int = 0
    task: TaskID | None = None
    notes: list[str] = field(default_factory=list)
    random_moves: int = 0
    replay: game_pb2.GetReplayResponse | None = None
    replay_file: Path | None = None


def _games() -> list[int]:
    return [v for v in common_pb2.GameKind.values() if v != common_pb2.GAME_KIND_UNSPECIFIED]


def score_line(view: game_pb2.SeatView) -> str:
    """ "turn 3 round 2 · US 5 EU 3 ..." from a view (what the game exposes)."""
    data = unpack_view(view.view)
    parts: list[str] = []
    for key in ("turn", "round"):
        if key in data:
            parts.append(f"{key} {data[key]}")
    powers = data.get("powers")
    if isinstance(powers, list):
        scores = [f"{p.get('power', '?')} {p.get('vp', 0)}" for p in powers if isinstance(p, dict)]
        parts.append(" ".join(scores))
    return " · ".join(parts) or f"version {view.version}"


async def _choose(
    client: Client, run: TableRun, session: GameSession, view: game_pb2.SeatView
) -> str | None:
    """The bot service's choice for the demo's seat (None: the position moved, look again);
    a random legal option when the bot service cannot answer."""
    options = [o.id for o in view.decision.options if o.id != "undo"] or [
        o.id for o in view.decision.options
    ]
    try:
        hint = await client.bots().hint(
            run.kind, session.game_id, session.token, common_pb2.BotSpec(kind="heuristic")
        )
        if hint.option_id in options:
            return hint.option_id
    except WarroomError as error:
        if error.code == grpc.StatusCode.FAILED_PRECONDITION:
            fresh = await session.view()
            if fresh.version != view.version:
                return None
        if not run.notes:
            run.notes.append(f"bot service hint failed ({error.code.name})")
    run.random_moves += 1
    return random.choice(options)


async def play_table(client: Client, run: TableRun, progress: Progress) -> None:
    """Start a table against bots, play the demo's seat to the end, fetch the replay."""
    assert run.task is not None
    try:
        assignment = await client.play_now(run.kind, bot=common_pb2.BotSpec(kind="heuristic"))
    except WarroomError as error:
        run.error = f"{error.code.name}: {error.message}"
        progress.update(run.task, description=f"{run.name}: not available ({run.error})")
        return
    run.game_id, run.seat = assignment.game_id, assignment.seat
    session = client.game(assignment)
    answered = -1
    async for update in session.watch(0):
        view = update.view
        progress.update(
            run.task, completed=view.version, description=f"{run.name}: {score_line(view)}"
        )
        if view.HasField("result"):
            run.result = view
            break
        while view.decision.options and view.version > answered:
            option = await _choose(client, run, session, view)
            if option is None:
                view = await session.view()
                continue
            try:
                response = await session.submit(
                    view.decision.decision_id, option, expected_version=view.version
                )
            except WarroomError as error:
                if error.code not in (grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION):
                    raise
                view = await session.view()
                continue
            answered = view.version
            run.actions += 1
            view = response.view
            if view.HasField("result"):
                run.result = view
                break
        if run.result is not None:
            break
    progress.update(
        run.task, description=f"{run.name}: finished · {score_line(run.result or view)}"
    )
    if run.result is not None:
        run.replay = await session.replay()


async def run_demo(lobby: str) -> list[TableRun]:
    """Play one table of each game concurrently, with live progress; the runs."""
    runs = [TableRun(kind, game_name_of(kind)) for kind in _games()]
    async with Client(lobby, game=os.environ.get("WARROOM_GAME") or None) as client:
        await client.login("demo")
        with Progress(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            BarColumn(),
            TextColumn("v{task.completed:.0f}"),
            TimeElapsedColumn(),
            console=console,
        ) as progress:
            for run in runs:
                run.task = progress.add_task(f"{run.name}: starting", total=None)
            results = await asyncio.gather(
                *(play_table(client, run, progress) for run in runs), return_exceptions=True
            )
        for run, outcome in zip(runs, results, strict=True):
            if isinstance(outcome, BaseException) and not run.error:
                run.error = str(outcome)
    return runs


def save_replays(runs: list[TableRun], folder: Path) -> None:
    """Write each finished game's replay to `folder/<game>-<game id>.json`."""
    for run in runs:
        if run.replay is not None:
            folder.mkdir(parents=True, exist_ok=True)
            run.replay_file = folder / f"{run.name}-{run.game_id}.json"
            text = json_format.MessageToJson(run.replay, preserving_proto_field_name=True, indent=2)
            run.replay_file.write_text(text + "\n")


def report(runs: list[TableRun]) -> int:
    """Print results and replay ids; 0 when at least one table finished and none failed."""
    table = Table(title="Demo results", title_justify="left")
    for column in ("game", "replay / game id", "outcome"):
        table.add_column(column)
    finished = 0
    failed = 0
    for run in runs:
        if run.result is not None:
            finished += 1
            view = run.result
            winners = ", ".join(
                seat_label(view.seats, s.seat) for s in view.result.seats if s.winner
            )
            outcome = f"{view.result.reason}: winner {winners or '-'}"
        elif "UNIMPLEMENTED" in run.error or "INVALID_ARGUMENT" in run.error:
            outcome = f"[dim]not available: {run.error}[/]"
        else:
            failed += 1
            outcome = f"[red]{run.error or 'did not finish'}[/]"
        table.add_row(run.name, run.game_id or "-", outcome)
    console.print(table)
    for run in runs:
        for note in run.notes:
            console.print(f"[dim]{run.name}: {note}[/]")
        if run.random_moves:
            console.print(
                f"[dim]{run.name}: {run.random_moves} of {run.actions} demo moves were random[/]"
            )
        if run.replay_file is not None:
            console.print(f"{run.name}: replay {run.game_id} -> {run.replay_file}")
    return 0 if finished and not failed else 1


def main() -> int:
    """Use or start the platform, run the demo, stop what was started."""
    config = Config.from_env()
    lobby = os.environ.get("WARROOM_LOBBY") or config.endpoint("lobby")
    started = False
    if grpc_health(lobby) != "SERVING":
        console.print(f"No platform answers on {lobby}: starting one in the background ...")
        code = run_detached(config)
        if code != 0:
            return code
        started = True
    else:
        console.print(f"Using the platform running on {lobby}.")
    try:
        runs = asyncio.run(run_demo(lobby))
        save_replays(runs, config.var / "demo")
        return report(runs)
    except KeyboardInterrupt:
        return 130
    finally:
        if started:
            stop_running(config)


if __name__ == "__main__":
    sys.exit(main())
