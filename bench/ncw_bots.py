"""New Cold War benchmark: 4-bot games, random playouts and the size of one game state.

Measures, on one core: complete 4-player games per second with all four seats played by the
official bots' flowchart (`ncw-official` chooser), applied decisions per second in random
playouts, and the peak memory of one game state. Writes its figures into docs/benchmarks.md
between `<!-- bench:ncw -->` and `<!-- /bench:ncw -->`.

After the warm-up the cyclic GC is set as the game service sets it after start-up
(`gc.collect()`, `gc.freeze()`, thresholds 20,000/20/20), in the timed and the counted runs.

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
import gc
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


def tune_gc() -> None:
    """After the warm-up, the cyclic GC as the game service sets it after start-up
    (services/game/__main__.py `tune_gc`): what exists is collected and frozen out of every
    later collection, and young collections run after 20,000 allocations instead of 700."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)


def passes(count: int, run: Callable[[], float]) -> tuple[float, float]:
    """(best, median) of `count` calls of `run`, each returning CPU seconds."""
    times = [run() for _ in range(count)]
    return min(times), statistics.median(times)


def measure(games: int, playouts: int, count: int = 3) -> dict[str, Any]:
    """Every figure of the benchmark (CPU times: best and median of `count` passes)."""
    rules = NewColdWarRules()
    bot_game(rules, 0)
    random_game(rules, 0)
    tune_gc()
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


SIXTH_PASS: tuple[str, ...] = (
    "Sixth pass, 2026-12-02 (2b00e86 -> 983d114), cachegrind as in the fifth pass",
    "(PYTHONHASHSEED=0, `--cachegrind --games 3 --playouts 6`, every step measured before and",
    "after). First the GC: the bench now sets the cyclic GC as the game service does after",
    "start-up (`gc.collect()`, `gc.freeze()`, thresholds 20,000/20/20, after the warm-up); under",
    "cachegrind that is 190.4 -> 189.6 M per game and 208.5 -> 207.8 k per decision (the GC's",
    "CPU share is larger than its instruction share). Then, per game / per decision:",
    "`stats_board`, a Board with only the region statistics, for `rank_countries` and the 6.1",
    "victory check instead of the full `board_of`: 189.6 -> 185.3 M / 207.8 k unchanged;",
    "exact-type dispatch in the event interpreter (country tests, changes and labels from dicts",
    "by step type; a step's filters looked up once per candidate list): 185.3 -> 182.7 M,",
    "207.8 -> 200.6 k; `CountryFacts` keeps its lower rating: 182.7 -> 180.6 M; `board_of` fills",
    "`Board`'s slots directly (the frozen `__init__` goes through `object.__setattr__` per field)",
    "and builds its per-power mappings as dict displays: 180.6 -> 176.5 M; `region_controller`",
    "counts in C and sums VPs only when a power holds the minimum (objective checks): 176.5 ->",
    "175.9 M, 200.7 -> 200.2 k; the bot's option ids by a list display instead of",
    "`map(attrgetter)`: 175.9 -> 173.9 M. In all 189.6 -> 173.9 M per 4-bot game (-8.3%) and",
    "207.8 -> 200.2 k per `Rules.apply` decision (-3.7%). Tried and dropped: `region_controller`",
    "memoized by the region's holders and modifiers (82% hits, but the key costs ~0.4 us: -0.1%",
    "against the C counts); the list display in `Rules.apply`'s legality scan (+0.45% per",
    "decision: most lists are short, where `map` stops early and cheaper). Measured but not",
    "changed: the OP option list costs ~81 k instructions per OP decision in its one C pass over",
    "83 countries (~1 k per country: two `getitem` calls through `map` and the chain), about 40%",
    "of an OP decision; only skipping closed regions' countries (half the OP decisions have",
    "fewer than 60 open) or keeping the list up to date per action would cut it. Seeded games",
    "replay bit for bit (`test_golden_games.py` unchanged and passing); new tests compare",
    "`board_of`/`stats_board` with a Board built field by field and `region_controller` with",
    "the country-by-country oracle; NCW and bot tests pass, mypy strict clean.",
    "CPU time (this script, 10 games, 20 playouts, best of 7, with the service's GC): three",
    "runs back to back at load 1.2-1.3 on 2 CPUs (another agent's single-core arena job runs",
    "all the time) gave 20.9 / 18.1 / 18.5 ms per 4-bot game and 39,063 / 45,071 / 40,629",
    "`Rules.apply` decisions/s; the table above is a fourth run, right after them. Against the",
    "fifth pass's table (25.4 ms, 40,753/s at load 1.9, default GC) this is not like for like:",
    "the GC setting and the load differ, so only the instruction counts above compare the code.",
    "The 25 ms target is met in every run; the 40,000 decisions/s target in most but not all",
    "(the per-decision instructions fell 3.7%, the target asked for about 25%).",
)
"""The section's text on this pass."""

FIFTH_PASS: tuple[str, ...] = (
    "Fifth pass, 2026-12-02 (1b41625 -> 788b540), valgrind cachegrind (PYTHONHASHSEED=0, after",
    "warm-up, `--cachegrind --games 3 --playouts 6`): 205.2 -> 190.4 M instructions per 4-bot",
    "game (-7.2%) and 224.3 -> 208.5 k per `Rules.apply` decision (-7.0%); with `--playouts 20`",
    "(more of the rules' lookup tables filled) 218.9 -> 199.6 k (-8.8%). What changed:",
    "a copy-on-write state: `clone` copies only control, tokens, VPs, prestige, the deck, the",
    "plays, the stack and the outer per-power lists; the 21 other lists and dicts and each hand are",
    "shared and replaced when written (`SHARED_FIELDS`; clone 28.1 -> 14.3 k instructions; a new",
    "test plays every variant, random and bot play, and checks that no earlier state of a game",
    "changes); the OP option tables include the ORBIT overrides and permanent destabilizations",
    "(526 of 821 random-playout OP decisions patched those countries one by one before);",
    "objective conditions compiled once into checks over listed countries (same answers on",
    "17,300 positions x every objective x power); cached labels of the exchange, leftover, keep",
    "and declare options; log Events shared by text; the bots' Board control and token mappings",
    "assembled from 12-country chunks memoized by their values (`board_of` 264 -> 208 k",
    "instructions per OP position). Tried and dropped: the OP option list memoized by 6-14",
    "country chunks (22-46% of chunks hit on first sight in random playouts: no gain). Seeded",
    "games replay bit for bit (`test_golden_games.py` unchanged and passing; ncw tests pass).",
    "CPU time, interleaved A/B (this script, 10 games, 20 playouts, best of 7; before/after",
    "alternating, 5 rounds at load 1.8-4.5 on 2 CPUs): 26-35 -> 25-33 ms per 4-bot game (best",
    "26 -> 25); `Rules.apply` 23,551-34,444 -> 25,983-40,753 decisions/s (best 34,444 -> 40,753);",
    "earlier runs at load 4.1-6.2: 40-45 -> 32-43 ms. The table above is the first after-run (load",
    "1.9), the best of the five: the 40,000 decisions/s target is met there, the 25 ms one is not",
    "(25.4 ms); in the other after-runs neither is (the load of the shared machine decides).",
    "",
    "What remains: the targets asked for about -25% per `Rules.apply` decision and -15% per 4-bot",
    "game; this pass reached -7% on both. Per random-playout decision (~200-208 k) no part is",
    "above a quarter: the OP option list (~80 shared Options per OP decision, one C pass over",
    "83 countries, an estimated 50 k instructions, a third of the decisions) and its legality",
    "scan, the clone (14 k: 50 field copies and 7 lists), the phase machinery, the event",
    "interpreter and the playout's own RNG draws. In a 4-bot game, the bots' OP decisions:",
    "`board_of` ~208 k and the flowchart ~132 k per `next_action` (1.6 calls per OP decision).",
    "The rest of the gap needs the two larger changes this pass did not make: OP options kept up",
    "to date per action instead of listed afresh, and an incremental bot Board (or a flowchart",
    "over the state's integers).",
)
"""The fifth pass."""

HISTORY: tuple[str, ...] = (
    "Fourth pass, 2026-12-02 (059ba04 -> 1295f0a), cachegrind as above: 232.0 -> 205.2 M",
    "instructions per 4-bot game (-11.6%), 227.3 -> 224.2 k per `Rules.apply` decision (-1.4%):",
    "the Board stats memo built from per-region entries memoized by their holders, the",
    "flowchart's in-region country lists memoized, `rank_countries` memoized, the rules' bot seats",
    "choosing from the shared Options, veto markers from tables, `Rng.choice` one call shorter.",
    "",
    "Third pass (cb2592f -> 74f22e3): `board_of` from the state's integers, veto options cached,",
    "`randbelow` inlined; 249.9 -> 231.8 M per game (-7%), 233.2 -> 227.0 k per decision (-3%).",
    "On this shared machine the CPU time of the same code doubles with the load of the other",
    "hyperthreads (26 ms per game at load 7.7, 49 ms at load ~6 minutes later): compare CPU",
    "figures only within one run, and instructions across runs.",
    "",
    "First and second passes, 2026-11-29 (7e19cc6 -> 9925f28): decision memo, OP options from",
    "precomputed country rows, named tuples for `Frame`/`Play`, shared Options, a cheaper clone;",
    "276k -> 218k instructions per `Rules.apply` decision; 119 -> 70 ms per 4-bot game at load",
    "~12, then 49.8 -> 44.3 ms at load ~8.",
)
"""Earlier passes, oldest last."""


def targets_met(figures: dict[str, Any]) -> str:
    """Whether this run's table meets each issue-21 target (best pass, at this run's load)."""
    game = "MET" if figures["ms_per_game"] < 25 else "NOT MET"
    apply = "MET" if figures["random_decisions_per_s"] >= 40_000 else "NOT MET"
    return (
        f"In this run (load {figures['load']:.1f}): the 25 ms target is {game} "
        f"({figures['ms_per_game']:.1f} ms per 4-bot game, median "
        f"{figures['ms_per_game_median']:.1f}); the 40,000 decisions/s target is {apply} "
        f"({figures['random_decisions_per_s']:,.0f}, median "
        f"{figures['random_decisions_per_s_median']:,.0f})."
    )


def render(figures: dict[str, Any]) -> str:
    """The markdown section."""
    return "\n".join(
        [
            "### New Cold War: official bots (`bench/ncw_bots.py`)",
            "",
            f"One core, CPU time, Python {platform.python_version()} on {platform.machine()}; "
            f"load average {figures['load']:.1f} on {figures['cpus']} CPUs during the run "
            "(other work on a shared machine inflates CPU time too). Each figure is the best of "
            f"{figures['passes']} passes, the median in brackets. The cyclic GC as the game "
            "service runs it (since the sixth pass): after the warm-up `gc.collect()`, "
            "`gc.freeze()` and thresholds 20,000/20/20 (services/game/__main__.py `tune_gc`); "
            "earlier passes ran with the default GC, which cost ~8% of the time.",
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
            targets_met(figures),
            "",
            *SIXTH_PASS,
            "",
            *FIFTH_PASS,
            "",
            *HISTORY,
        ]
    )


def count_work(kind: str, units: int) -> int:
    """Warm up, then play `units` 4-bot games ("bots") or random playouts ("apply"); decisions."""
    rules = NewColdWarRules()
    bot_game(rules, 0)
    random_game(rules, 0)
    tune_gc()
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
