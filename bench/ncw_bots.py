"""New Cold War benchmark: 4-bot games, random playouts and the size of one game state.

Measures, on one core: complete 4-player games per second with all four seats played by the
official bots' flowchart (`ncw-official` chooser), applied decisions per second in random
playouts, and the peak memory of one game state. Writes its figures into docs/benchmarks.md
between `<!-- bench:ncw -->` and `<!-- /bench:ncw -->`.

Every CPU-time figure is the best of `--passes` passes (the median is shown beside it): on a
shared machine other work inflates CPU time, and the best pass is the closest to the code's own cost.

`--cachegrind` instead counts instructions under valgrind's cachegrind (load-independent): the
script runs itself twice under valgrind (warm-up only, then warm-up plus the work, with
PYTHONHASHSEED=0) and prints the difference per 4-bot game and per `Rules.apply` decision.

Usage: python bench/ncw_bots.py [--games N] [--playouts N] [--passes N] [--no-write]
       python bench/ncw_bots.py --cachegrind [--games N] [--playouts N]
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from warroom import docsections
from warroom.engine.match import Match
from warroom.engine.model import UNDO_OPTION_ID
from warroom.engine.rng import Rng
from warroom.games.ncw.bots.policy import choose_option
from warroom.games.ncw.rules import NewColdWarRules
from warroom.games.ncw.state import NcwState

DOC = Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"


def bot_game(
    rules: NewColdWarRules, seed: int, variant: str = "4p", timed: bool = False
) -> tuple[NcwState, int, float]:
    """One complete game with the official bot choosing for every seat: (final state, decisions,
    bot CPU s). The bots' CPU is measured only when `timed` (two clock reads a decision, which
    would inflate the game's own CPU time)."""
    state = rules.setup(seed, variant, {})
    decisions = 0
    bot_time = 0.0
    clock = time.process_time
    while True:
        decision = rules.decision(state)
        if decision is None:
            return state, decisions, bot_time
        seat = decision.seats[0]
        if timed:
            t0 = clock()
            option = choose_option(state, seat, decision)
            bot_time += clock() - t0
        else:
            option = choose_option(state, seat, decision)
        state = rules.apply(state, seat, option).state
        decisions += 1


def random_game(rules: NewColdWarRules, seed: int) -> int:
    """One random legal playout of the 4-player game; the number of applied decisions."""
    rng = Rng(seed)
    state = rules.setup(seed, "4p", {})
    applied = 0
    while True:
        decision = rules.decision(state)
        if decision is None:
            return applied
        seat = rng.choice(decision.seats)
        option = rng.choice(decision.options_for(seat)).id
        state = rules.apply(state, seat, option).state
        applied += 1


def match_random_game(match: Match[NcwState], seed: int) -> int:
    """One random legal playout through the match layer (decision ids, undo offers); decisions."""
    rng = Rng(seed)
    state = match.start(seed, "4p", {})
    applied = 0
    while state.pending is not None:
        seat = rng.choice(state.pending.seats)
        ids = [o.id for o in state.pending.options_for(seat) if o.id != UNDO_OPTION_ID]
        state = match.apply(state, seat, rng.choice(ids)).state
        applied += 1
    return applied


def state_memory(rules: NewColdWarRules) -> tuple[int, int, int]:
    """(peak bytes to build a copy of a mid-game state, its clone's bytes, its encoded size)."""
    state = rules.setup(1, "4p", {})
    while state.turn < 5 and rules.decision(state) is not None:
        decision = rules.decision(state)
        assert decision is not None
        seat = decision.seats[0]
        state = rules.apply(state, seat, choose_option(state, seat, decision)).state
    data = rules.encode_bytes(state)
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    copy = rules.decode_bytes(data)
    peak = tracemalloc.get_traced_memory()[1]
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    held = sum(stat.size_diff for stat in after.compare_to(before, "filename"))
    del copy
    return peak, held, len(data)


def passes(count: int, run: Callable[[], float]) -> tuple[float, float]:
    """(best, median) of `count` calls of `run`, each returning CPU seconds."""
    times = [run() for _ in range(count)]
    return min(times), statistics.median(times)


def measure(games: int, playouts: int, count: int = 3) -> dict[str, Any]:
    """Every figure of the benchmark (CPU times: best and median of `count` passes)."""
    rules = NewColdWarRules()
    bot_game(rules, 0)
    random_game(rules, 0)
    load_before = os.getloadavg()[0]
    decisions = 0
    bot_cpu: list[float] = []
    finished = 0

    def bots() -> float:
        nonlocal decisions, finished
        decisions = finished = 0
        t0 = time.process_time()
        for seed in range(1, games + 1):
            final, n, _ = bot_game(rules, seed)
            decisions += n
            finished += int(final.over)
        return time.process_time() - t0

    def bot_share() -> float:
        """The bots' own CPU in the games (a separate pass: its clock reads cost CPU too)."""
        cpu = sum(bot_game(rules, seed, timed=True)[2] for seed in range(1, games + 1))
        bot_cpu.append(cpu)
        return cpu

    def timed(play: Callable[[], int]) -> Callable[[], float]:
        def run() -> float:
            t0 = time.process_time()
            play()
            return time.process_time() - t0

        return run

    applied = sum(random_game(rules, 1000 + seed) for seed in range(playouts))
    match = Match(rules)
    match_applied = sum(match_random_game(match, 1000 + seed) for seed in range(playouts))
    bot_best, bot_median = passes(count, bots)
    passes(count, bot_share)
    random_best, random_median = passes(
        count, timed(lambda: sum(random_game(rules, 1000 + seed) for seed in range(playouts)))
    )
    match_best, match_median = passes(
        count,
        timed(lambda: sum(match_random_game(match, 1000 + seed) for seed in range(playouts))),
    )
    peak, held, encoded = state_memory(rules)
    return {
        "games": games,
        "passes": count,
        "finished": finished,
        "games_per_s": games / bot_best,
        "ms_per_game": 1000 * bot_best / games,
        "ms_per_game_median": 1000 * bot_median / games,
        "bot_ms_per_game": 1000 * min(bot_cpu) / games,
        "decisions_per_game": decisions / games,
        "playouts": playouts,
        "random_decisions_per_s": applied / random_best,
        "random_decisions_per_s_median": applied / random_median,
        "match_decisions_per_s": match_applied / match_best,
        "match_decisions_per_s_median": match_applied / match_median,
        "load": max(load_before, os.getloadavg()[0]),
        "cpus": os.cpu_count(),
        "state_peak_bytes": peak,
        "state_bytes": held,
        "state_encoded_bytes": encoded,
    }


FOURTH_PASS: tuple[str, ...] = (
    "Fourth pass, 2026-12-02 (059ba04 -> 1295f0a), load-independent (valgrind cachegrind,",
    "PYTHONHASHSEED=0, after warm-up, `--cachegrind --games 3 --playouts 6`): 232.0 ->",
    "205.2 M instructions per 4-bot game (-11.6%) and 227.3 -> 224.2 k",
    "per `Rules.apply` decision (-1.4%). What changed: the bots' Board stats memo built",
    "from per-region entries memoized by the region's holders (90% of region lookups hit in",
    "fresh games; board_of 199 -> 135 us in an interleaved in-process A/B); the flowchart's",
    "steps 1, 2 and 7 read each table's in-region, unblocked countries from a memo instead of",
    "checking every country's scope; `rank_countries` memoized by the board's order of",
    "priority regions; the rules' bot seats choose from the shared Option objects (no labels",
    "formatted); OP options flattened in C; veto markers from precomputed tables; per-decision",
    "imports hoisted; `Rng.choice` one call level shorter (same values). Tried and reverted:",
    "`Counter`-based stats and region VPs (fewer bytecodes, more CPU: 9.4 -> 16.6 us per board).",
    "Seeded games replay bit for bit: `test_golden_games.py` pins the final state, option log,",
    "events and views of 4-bot games, random playouts (4p and solitaire) and `Match` playouts",
    "from before the pass, and a 27,100-decision digest of every variant is unchanged.",
    "CPU time, same-minute A/B at load 2.0-2.2 on 2 CPUs (this script, 10 games, 20 playouts,",
    "best of 7, two runs each, before/after alternating): 26-27 -> 23-24 ms per 4-bot game;",
    "`Rules.apply` 34,105-37,976 before and 35,081-35,233 after (within the noise; the -1.4%",
    "instructions say the same). The table above (and the 46 ms / 24,781 before this pass, at",
    "load 5.7) differ mostly by the machine's load: on this quiet machine the 25 ms target is",
    "met or nearly (23-25 ms), the 40,000 decisions/s one is not (32,000-38,000 in these runs).",
    "",
    "What remains (why the targets are out of reach in pure Python on this code): a random",
    "playout decision is ~2,400 bytecodes and no part is above 13% of them: the state clone",
    "(45 containers, 12.7%), the RNG draws (5.7%, 2 of the 2.5 per decision are the playout's",
    "own), the engine's Decision/Applied/Event/Ctx objects (~4 per decision, 4.8%),",
    "`Rules.apply` itself (4.1%), then the phase machinery and the OP option scan (83",
    "countries per OP decision, now one C-level pass). In a 4-bot game the OP decisions (116",
    "of 566) take over half the time: the bot rebuilds its public Board from the state for",
    "each one (string-keyed mappings the flowchart reads), then walks the flowchart; the",
    "options themselves are a scan of all 83 countries. Reaching 25 ms / 40,000 decisions/s",
    "needs -40% on both: an incremental Board (updated per action instead of rebuilt) or a",
    "flowchart over the state's integers, and a copy-on-write state (sharing the rarely",
    "changed per-power lists), each a larger change than a behaviour-preserving pass.",
)
"""The section's text on this pass."""

HISTORY: tuple[str, ...] = (
    "Third pass, 2026-12-02 (cb2592f -> 74f22e3), each change measured in-process against the",
    "code before it, min of interleaved samples (the machine's load swung 2-12 on 2 CPUs, so",
    "whole-game A/B runs minutes apart swung 35-61 ms and could not separate the changes):",
    "`board_of` built from the state's integers with C-level iteration and its rarely-changing",
    "parts cached by source, the stats memo filled from integer rows (30.3 -> 24.5 us per board,",
    "~147 boards per game); veto options cached per (card, usable markers) (4.77 -> 2.06 us per",
    "veto decision, ~214 per game); `randbelow` with `next_u64` inlined (641 -> 382 ns); the",
    "flowchart's scope check inlined (0.97 -> 0.88 ms/game). Seeded games replay bit for bit: a",
    "79-game digest (every variant, bot and random playouts, `Match` ids) of every decision's",
    "options, events, final states and views is identical before and after each change.",
    "",
    "On this shared machine the CPU time of the same code doubles with the load of the other",
    "hyperthreads: at 23:50 UTC on 2026-12-01 (load 7.7, before the third pass) this script",
    "measured 26 ms per 4-bot game and 37,750 decisions/s; at 00:35 (load ~6, after it) 49 ms",
    "and 28,522. Whether the issue-21 targets (25 ms, 40,000/s) are met therefore depends on",
    "the run: they came within reach only on a quieter machine (compare the table above with",
    "them). Load-independent cost of the third pass (valgrind cachegrind, PYTHONHASHSEED=0,",
    "after warm-up, cb2592f -> 74f22e3): 249.9 -> 231.8 M instructions per 4-bot game (-7%, 3",
    "games) and 233.2 -> 227.0 k per `Rules.apply` decision (-3%, 6 random playouts). The",
    "targets need about -40% on both; what is left is spread over the OP option rows, the",
    "clone, the engine's frozen dataclasses and the bots' flowchart (see the second pass).",
    "",
    "Speed work of 2026-11-29, A/B on the same machine minutes apart (load average ~12 on 2 CPUs,",
    "10 games each): before (7e19cc6) 119 ms per 4-bot game, 5,216 `Rules.apply` and 4,907",
    "`Match` random-playout decisions/s; after (decision memo, inlined OP options, shared",
    "Options, cheaper clone) 70 ms, 14,886 and 12,964 decisions/s. The 20,000 decisions/s target",
    "was not reached on this loaded machine.",
    "",
    "Second pass, same day (1426129 -> 9925f28): OP options read per-(power, OPs, coup mode,",
    "open regions) country rows zipped with the board; `Frame`, `Play` and the effect context are",
    "named tuples (a frozen dataclass costs ~14k instructions to build); Plays built directly",
    "instead of `dataclasses.replace`; veto markers from a bitmask table; cached place, media",
    "benefit and OP track Options; clone through `list.copy`/`dict.copy`; one-pass region VPs;",
    "memoized effect targets. Seeded games replay bit for bit (final states, option logs, events",
    "and every decision's options compared over 45 games). Load-independent instruction counts",
    "(valgrind cachegrind, after warm-up): 276k -> 218k instructions per `Rules.apply` decision",
    "in 20 random playouts (-21%), -10% for 5 four-bot games. CPU time, interleaved A/B, best of",
    "4 runs each at load average ~8 on 2 CPUs: 20,581 -> 24,319 decisions/s and 49.8 -> 44.3 ms",
    "per 4-bot game. What is left per decision is spread thin: the OP option rows (~15% of",
    "bytecodes), the state clone (~11%), and the engine's frozen `Decision`/`Applied`/`Event`",
    "dataclasses (~2.8 built per decision, several thousand instructions each).",
)
"""Earlier passes, oldest last but the first."""


def render(figures: dict[str, Any]) -> str:
    """The markdown section."""
    return "\n".join(
        [
            "### New Cold War: official bots (`bench/ncw_bots.py`)",
            "",
            f"One core, CPU time, Python {platform.python_version()} on {platform.machine()}; "
            f"load average {figures['load']:.1f} on {figures['cpus']} CPUs during the run "
            "(other work on a shared machine inflates CPU time too). Each figure is the best of "
            f"{figures['passes']} passes, the median in brackets.",
            "",
            "| Measure | Value |",
            "| --- | --- |",
            f"| Complete 4-bot games (4p, flowchart chooser on every seat) | {figures['games_per_s']:.2f} games/s "
            f"({figures['ms_per_game']:.0f} ms/game [{figures['ms_per_game_median']:.0f}], "
            f"{figures['finished']}/{figures['games']} finished) |",
            f"| of which the bots' own choices | {figures['bot_ms_per_game']:.1f} ms/game |",
            f"| Decisions per 4-bot game | {figures['decisions_per_game']:.0f} |",
            f"| Random playouts: applied decisions (`Rules.apply`) | "
            f"{figures['random_decisions_per_s']:.0f} decisions/s "
            f"[{figures['random_decisions_per_s_median']:.0f}] ({figures['playouts']} games) |",
            f"| Random playouts through `Match` (decision ids, undo) | "
            f"{figures['match_decisions_per_s']:.0f} decisions/s "
            f"[{figures['match_decisions_per_s_median']:.0f}] ({figures['playouts']} games) |",
            f"| One mid-game state (turn 5): peak memory to decode | {figures['state_peak_bytes'] / 1024:.1f} KiB |",
            f"| One mid-game state: memory held | {figures['state_bytes'] / 1024:.1f} KiB |",
            f"| One mid-game state: encoded protobuf | {figures['state_encoded_bytes']} bytes |",
            "",
            "Targets (issue 21): a complete 4-bot game under 25 ms of CPU on one core; at least 40,000",
            "applied decisions/s/core (random playouts through `Rules.apply`). Earlier targets (issue 3):",
            "under 100 ms and 20,000 decisions/s.",
            "",
            *FOURTH_PASS,
            "",
            *HISTORY,
        ]
    )


def count_work(kind: str, units: int) -> int:
    """Warm up, then play `units` 4-bot games ("bots") or random playouts ("apply"); decisions."""
    rules = NewColdWarRules()
    bot_game(rules, 0)
    random_game(rules, 0)
    if kind == "bots":
        return sum(bot_game(rules, seed)[1] for seed in range(1, units + 1))
    return sum(random_game(rules, 1000 + seed) for seed in range(units))


def instructions(kind: str, units: int) -> tuple[int, int]:
    """(instructions, decisions) of `count_work` under cachegrind, PYTHONHASHSEED=0."""
    env = dict(os.environ, PYTHONHASHSEED="0")
    command = [
        "valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
        sys.executable, __file__, "--count", kind, str(units),
    ]  # fmt: skip
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    refs = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    decisions = re.search(r"^decisions (\d+)$", done.stdout, re.M)
    assert refs is not None and decisions is not None, done.stderr[-2000:]
    return int(refs.group(1).replace(",", "")), int(decisions.group(1))


def cachegrind(games: int, playouts: int) -> str:
    """Instructions per 4-bot game and per applied decision, net of start-up and warm-up."""
    base, _ = instructions("bots", 0)
    bots, bot_decisions = instructions("bots", games)
    played, applied = instructions("apply", playouts)
    return (
        f"cachegrind, PYTHONHASHSEED=0, after warm-up: "
        f"{(bots - base) / games / 1e6:.1f} M instructions per 4-bot game ({games} games, "
        f"{bot_decisions / games:.0f} decisions each); "
        f"{(played - base) / applied / 1e3:.1f} k per Rules.apply decision "
        f"({playouts} random playouts, {applied} decisions)"
    )


def write(section: str) -> None:
    """Replace (or append) this script's section of docs/benchmarks.md."""
    docsections.write_section(DOC, "ncw", section)


def main() -> None:
    """Run the benchmark and record it."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--playouts", type=int, default=10)
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--cachegrind", action="store_true", help="count instructions instead")
    parser.add_argument("--count", nargs=2, metavar=("KIND", "UNITS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.count:
        print(f"decisions {count_work(args.count[0], int(args.count[1]))}")
        return
    if args.cachegrind:
        print(cachegrind(args.games, args.playouts))
        return
    section = render(measure(args.games, args.playouts, args.passes))
    print(section)
    if not args.no_write:
        write(section)


if __name__ == "__main__":
    main()
