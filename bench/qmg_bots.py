"""Quartermaster General titles: random playouts and complete heuristic-bot games, on one core.

For each title (South Front, standard hands; The Cold War, 4 players by default) it measures
applied decisions per CPU second in uniformly random playouts (`Rules.apply`, every pending
seat's options drawn with a seeded generator), and the CPU time of complete games with the
`heuristic` bot (one-ply lookahead over determinizations, scored by the title's evaluation;
`--difficulty`, default intermediate: 4 determinizations per option) choosing for every seat
through the match layer, as the arena and the bot service drive it. Writes the
`<!-- bench:qmg -->` section of docs/benchmarks.md.

Every CPU-time figure is the best of `--passes` passes (the median beside it): on a shared
machine other work inflates CPU time, and the best pass is the closest to the code's own cost.

Usage: .venv/bin/python bench/qmg_bots.py [--playouts 10] [--games 1] [--passes 3]
       [--cw-variant 4p] [--difficulty intermediate] [--no-write]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "libs"))

from warroom import docsections  # noqa: E402
from warroom.engine.registry import get_rules  # noqa: E402
from warroom.engine.rng import Rng  # noqa: E402

TITLES = {
    "qmg_sf": "Quartermaster General: South Front",
    "qmg_cw": "Quartermaster General: The Cold War",
}


@dataclass(frozen=True, slots=True)
class Figures:
    """What one title measured."""

    game_id: str
    variant: str
    playout_rate: tuple[float, float]  # decisions per CPU second: best, median
    playout_decisions: float  # mean decisions per random game
    game_cpu: tuple[float, float]  # CPU s per heuristic game: best, median
    game_decisions: float  # mean decisions per heuristic game
    choices: float  # mean real choices (more than one option) per heuristic game
    finished: int
    games: int


def random_game(rules: Any, seed: int, variant: str, limit: int = 100_000) -> int:
    """One uniformly random legal playout; the number of applied decisions."""
    rng = Rng(seed)
    state = rules.setup(seed, variant, {})
    applied = 0
    while applied < limit:
        decision = rules.decision(state)
        if decision is None:
            break
        seat = rng.choice(decision.seats)
        option = rng.choice(decision.options_for(seat)).id
        state = rules.apply(state, seat, option).state
        applied += 1
    return applied


def heuristic_game(game_id: str, variant: str, seed: int, difficulty: str) -> tuple[int, int, bool]:
    """One game with the heuristic bot on every seat: (decisions, real choices, finished)."""
    from warroom.bots.position import position_for
    from warroom.bots.registry import BotSpec, seat_bots
    from warroom.engine.match import Match

    rules = get_rules(game_id)
    match = Match(rules)
    state = match.start(seed, variant, {})
    seats = len(rules.seats(state.game))
    bots = seat_bots([BotSpec("heuristic", difficulty)] * seats, game_id, seed)
    decisions = choices = 0
    while state.pending is not None and decisions < 20_000:
        seat = state.pending.seats[0]
        position = position_for(rules, state.game, seat, state.pending, variant)
        if len(position.option_ids()) > 1:
            choices += 1
        state = match.apply(state, seat, bots[seat].choose(position).option_id).state
        decisions += 1
    return decisions, choices, state.pending is None


def passes(count: int, run: Callable[[], float]) -> tuple[float, float]:
    """(best, median) of `count` calls of `run`."""
    values = [run() for _ in range(count)]
    return min(values), statistics.median(values)


def measure(game_id: str, variant: str, args: argparse.Namespace) -> Figures:
    """Every figure of one title."""
    rules = get_rules(game_id)
    random_game(rules, 0, variant)  # warm caches (content tables, memos)
    applied: list[int] = []

    def playouts() -> float:
        applied.clear()
        began = time.process_time()
        applied.extend(random_game(rules, seed, variant) for seed in range(1, args.playouts + 1))
        return sum(applied) / (time.process_time() - began)

    rates = [playouts() for _ in range(args.passes)]
    played: list[tuple[int, int, bool]] = []

    def games() -> float:
        played.clear()
        began = time.process_time()
        for seed in range(1, args.games + 1):
            played.append(heuristic_game(game_id, variant, seed, args.difficulty))
        return (time.process_time() - began) / args.games

    cpu = passes(args.game_passes, games)
    return Figures(
        game_id,
        variant,
        (max(rates), statistics.median(rates)),
        statistics.mean(applied),
        cpu,
        statistics.mean(p[0] for p in played),
        statistics.mean(p[1] for p in played),
        sum(1 for p in played if p[2]),
        len(played),
    )


def section(figures: list[Figures], args: argparse.Namespace, load: tuple[float, float]) -> str:
    """The Markdown section."""
    lines = [
        "## Quartermaster General titles: random playouts and heuristic-bot games "
        "(`bench/qmg_bots.py`)",
        "",
        f"{time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC, one core, CPU time, Python "
        f"{platform.python_version()} on {platform.machine()}; 1-minute load average "
        f"{load[0]:.1f} before and {load[1]:.1f} after on {os.cpu_count()} CPUs (a shared "
        "machine: other work inflates CPU time too). Random playouts: "
        f"{args.playouts} seeded games per pass, best of {args.passes} passes [median]. "
        f"Heuristic games: the `heuristic` bot ({args.difficulty}) on every seat through the "
        f"match layer, {args.games} game(s) per pass, best of {args.game_passes} [median].",
        "",
        "| Title | Variant | Random playouts: applied decisions/s/core | Decisions per random "
        "game | Complete heuristic game, CPU s | Decisions (real choices) per heuristic game "
        "| Finished |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for f in figures:
        lines.append(
            f"| {TITLES[f.game_id]} | {f.variant} | {f.playout_rate[0]:,.0f} "
            f"[{f.playout_rate[1]:,.0f}] | {f.playout_decisions:.0f} | {f.game_cpu[0]:.2f} "
            f"[{f.game_cpu[1]:.2f}] | {f.game_decisions:.0f} ({f.choices:.0f}) "
            f"| {f.finished}/{f.games} |"
        )
    lines += [
        "",
        "A heuristic game's time is almost all the bot's: every real choice applies each option "
        "to every determinization and scores the result with the title's evaluation, which first "
        "plays the pending card or combat out with the rule-based policy.",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--playouts", type=int, default=10)
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--game-passes", type=int, default=1)
    parser.add_argument("--sf-variant", default="standard")
    parser.add_argument("--cw-variant", default="4p")
    parser.add_argument("--difficulty", default="intermediate")
    parser.add_argument("--titles", default="qmg_sf,qmg_cw")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    variants = {"qmg_sf": args.sf_variant, "qmg_cw": args.cw_variant}
    before = os.getloadavg()[0]
    figures = []
    for game_id in args.titles.split(","):
        figures.append(measure(game_id, variants[game_id], args))
        print(figures[-1], flush=True)
    body = section(figures, args, (before, os.getloadavg()[0]))
    if not args.no_write:
        docsections.write_section(ROOT / "docs" / "benchmarks.md", "qmg", body)
    print(body)


if __name__ == "__main__":
    main()
