"""Bot arena: round-robin matches between bot specs on any game, win rates with 95% intervals.

Each pairing (A, B) plays `--games` games over rotating seatings
(`warroom.bots.pairings`): on a two-seat game A and B swap seats; on a game
with two equal teams that win together one spec takes a whole team; where
allies still compete for an individual win (New Cold War) each spec holds one
seat of every team; otherwise the specs alternate around the table. A game is
a win for A when A's best-placed seat finishes ahead of B's (equal places:
half a win). The interval is the Wilson score interval at 95%. Under the table, per pairing,
A's score in each seating with the sides that won there (so whom A took its wins from), and
the wins of each side over all seatings.

A bot spec is `kind[:difficulty][@budget]`, budget `500ms` or `200it`, e.g.
`ismcts@1000ms`, `heuristic:expert`, `ncw-official:expert`, `random`.

Usage:
  python bench/arena.py --game toy --bot ismcts@200it --bot heuristic --bot random --games 40
  python bench/arena.py --game ncw --bot ismcts@1000ms --bot ncw-official:expert --games 200 --write
  python bench/arena.py --game ncw --focus --bot ismcts@600it --bot random --bot heuristic:expert \
      --bot ncw-official:expert --games 200 --workers 2 --write

`--focus` plays only the first spec against each of the others. All games of all pairings go
to one pool of `--workers` processes.

`--cpu-minutes M` sizes a run to its budget: each game's CPU is measured (and logged), and a new
rotation of the seatings starts only if the games so far, at their mean, project it within M
minutes (with `--workers 1` the run stops exactly at a whole rotation). `--resume` on the same
log plays the rest later.

`--write` puts the table into docs/benchmarks.md between `<!-- bench:bots -->`
and `<!-- /bench:bots -->`.

Iteration budgets. A millisecond budget depends on the machine's load; for reproducible
measurements give search bots an iteration budget calibrated to the time budget on a quiet core:
  python bench/arena.py --game ncw --bot ismcts@1000ms --calibrate --games 2
plays `--games` games with the game's rollout policy (else random) for every seat, runs the bot on
every `--every`-th decision with a real choice, and prints the iterations it completes per second
of process CPU time (unaffected by other processes waiting for the core) and the matching
`@<n>it` spec. `--workers` 1 is advised: parallel searches share the core's caches.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import platform
import sys
import time
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from warroom import docsections

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DOC = ROOT / "docs" / "benchmarks.md"

app = typer.Typer(add_completion=False, help=__doc__)


def _register(extra: Sequence[str]) -> None:
    from warroom.engine.registry import register

    register("toy", "tests.engine.toy_game:ToyRules")
    for item in extra:
        game_id, _, target = item.partition("=")
        register(game_id, target)


@dataclass(frozen=True, slots=True)
class GameOutcome:
    """One finished game of a pairing: A's score (1, 1/2, 0), length, CPU seconds of decisions,
    the winning seats (for wins per side), and the CPU seconds of the whole game."""

    pair: tuple[int, int]
    score: float
    steps: int
    seconds: dict[str, float]
    decisions: dict[str, int]
    seed: int = 0
    pattern: tuple[int, ...] = ()
    winners: tuple[int, ...] = ()
    cpu: float = 0.0


def play_one(
    game_id: str,
    variant: str,
    specs: tuple[str, str],
    pattern: list[int],
    seed: int,
    pair: tuple[int, int],
    extra: Sequence[str],
) -> GameOutcome:
    """Play one game with spec A on the seats marked 0 and spec B on those marked 1."""
    _register(extra)
    from warroom.bots.position import position_for
    from warroom.bots.registry import parse_spec, seat_bots
    from warroom.engine.match import Match
    from warroom.engine.registry import get_rules

    rules = get_rules(game_id)
    cpu = time.process_time()
    bots = seat_bots([parse_spec(specs[side]) for side in pattern], game_id, seed)
    match = Match(rules)
    state = match.start(seed, variant, {})
    seconds = {"A": 0.0, "B": 0.0}
    decisions = {"A": 0, "B": 0}
    steps = 0
    while state.pending is not None:
        seat = state.pending.seats[0]
        position = position_for(rules, state.game, seat, state.pending, variant)
        began = time.process_time()
        choice = bots[seat].choose(position)
        mover = "AB"[pattern[seat]]
        if len(position.option_ids()) > 1:
            seconds[mover] += time.process_time() - began
            decisions[mover] += 1
        state = match.apply(state, seat, choice.option_id).state
        steps += 1
    result = match.result(state)
    assert result is not None
    best = {
        side: min(result.ranks[s] for s, p in enumerate(pattern) if p == side) for side in (0, 1)
    }
    score = 1.0 if best[0] < best[1] else 0.5 if best[0] == best[1] else 0.0
    winners = tuple(sorted(result.winners))
    cpu = time.process_time() - cpu
    return GameOutcome(pair, score, steps, seconds, decisions, seed, tuple(pattern), winners, cpu)


@dataclass(frozen=True, slots=True)
class Calibration:
    """Searches measured on one game: count, those that hit the time budget, iterations, CPU s."""

    searches: int
    full: int
    iterations: int
    cpu_seconds: float


def calibrate_one(
    game_id: str, variant: str, spec_text: str, seed: int, every: int, extra: Sequence[str]
) -> Calibration:
    """Run the bot on every `every`-th real choice of one policy-driven game; count its work.

    Every search that ran at least one iteration counts towards the rate, early stops included:
    their set-up cost per decision is part of what a second buys, so the rate errs low.
    """
    _register(extra)
    from warroom.bots.policies import policy_for
    from warroom.bots.position import position_for
    from warroom.bots.registry import make_bot, parse_spec
    from warroom.engine.registry import get_rules
    from warroom.engine.rng import Rng

    rules = get_rules(game_id)
    spec = parse_spec(spec_text)
    bot = make_bot(replace(spec, seed=seed), game_id)
    policy = policy_for(rules)
    rng = Rng(seed)
    state = rules.setup(seed, variant, {})
    searches = full = iterations = 0
    cpu = 0.0
    choices = 0
    while (decision := rules.decision(state)) is not None:
        seat = decision.seats[0]
        ids = [o.id for o in decision.options_for(seat)]
        if len(ids) > 1:
            choices += 1
            if choices % every == 0:
                began = time.process_time()
                choice = bot.choose(position_for(rules, state, seat, decision, variant))
                spent = time.process_time() - began
                searches += 1
                if spec.budget_ms and choice.elapsed_ms >= 0.95 * spec.budget_ms:
                    full += 1
                if choice.iterations > 0:
                    iterations += choice.iterations
                    cpu += spent
        option = policy.choose(state, seat, ids) if policy is not None else rng.choice(ids)
        state = rules.apply(state, seat, option).state
    return Calibration(searches, full, iterations, cpu)


@dataclass(slots=True)
class Budget:
    """A run's CPU budget (`--cpu-minutes`): a new rotation of the seatings starts only if the
    games played so far, at their mean CPU, project the rotation and the games still running
    within it. The first rotation always plays (it is the estimate)."""

    seconds: float
    rotation: int
    first_pair: tuple[int, int]
    first_seed: int
    used: float = 0.0
    games: int = 0

    def spent(self, cpu: float) -> None:
        """Count one finished game's CPU seconds."""
        self.used += cpu
        self.games += 1

    def allows(self, job: tuple[tuple[int, int], list[int], int], running: set[Any]) -> bool:
        """Whether the next job may start: always within a rotation, and at a rotation's
        start only if the budget holds it."""
        pair, _pattern, game_seed = job
        starts = pair == self.first_pair and (game_seed - self.first_seed) % self.rotation == 0
        if self.seconds <= 0 or not starts or not self.games:
            return True
        mean = self.used / self.games
        return self.used + mean * (len(running) + self.rotation) <= self.seconds

    def stopped(self, left: int) -> str:
        """The line printed when the budget stops a run."""
        return (
            f"stopped by the CPU budget ({self.seconds / 60:.1f} min): {self.games} games, "
            f"{self.used / 60:.1f} CPU min; {left} games not played"
        )


def wilson(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    denominator = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denominator
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(slots=True)
class PairStats:
    """Accumulated results of one pairing."""

    games: int = 0
    score: float = 0.0
    steps: int = 0
    seconds_a: float = 0.0
    seconds_b: float = 0.0
    decisions_a: int = 0
    decisions_b: int = 0
    seatings: dict[tuple[int, ...], list[float]] = field(default_factory=dict)
    seating_sides: dict[tuple[int, ...], dict[int, float]] = field(default_factory=dict)

    @property
    def side_wins(self) -> dict[int, float]:
        """The games each side (seat) won over all seatings (a shared win counts a share)."""
        total: dict[int, float] = {}
        for won in self.seating_sides.values():
            for seat, share in won.items():
                total[seat] = total.get(seat, 0.0) + share
        return total

    def add(self, outcome: GameOutcome) -> None:
        """Count one game."""
        self.games += 1
        self.score += outcome.score
        tally = self.seatings.setdefault(tuple(outcome.pattern), [0.0, 0.0])
        tally[0] += 1
        tally[1] += outcome.score
        won = self.seating_sides.setdefault(tuple(outcome.pattern), {})
        for seat in outcome.winners:
            won[seat] = won.get(seat, 0.0) + 1.0 / len(outcome.winners)
        self.steps += outcome.steps
        self.seconds_a += outcome.seconds["A"]
        self.seconds_b += outcome.seconds["B"]
        self.decisions_a += outcome.decisions["A"]
        self.decisions_b += outcome.decisions["B"]


def render(
    specs: Sequence[str], stats: dict[tuple[int, int], PairStats]
) -> tuple[Table, list[str]]:
    """The win-rate table for the console, and as Markdown rows."""
    table = Table(title="Arena: win rate of A against B (95% Wilson interval)")
    for column in (
        "A",
        "B",
        "games",
        "A win rate",
        "95% CI",
        "A CPU ms/decision",
        "B CPU ms/decision",
    ):
        table.add_column(column)
    rows = [
        "| A | B | games | A win rate | 95% CI | A CPU ms/decision | B CPU ms/decision |",
        "|---|---|---:|---:|---|---:|---:|",
    ]
    for (a, b), s in stats.items():
        low, high = wilson(s.score, s.games)
        rate = s.score / s.games if s.games else 0.0
        ms_a = 1000 * s.seconds_a / max(1, s.decisions_a)
        ms_b = 1000 * s.seconds_b / max(1, s.decisions_b)
        cells = [
            specs[a],
            specs[b],
            str(s.games),
            f"{rate:.1%}",
            f"{low:.1%} - {high:.1%}",
            f"{ms_a:.1f}",
            f"{ms_b:.1f}",
        ]
        table.add_row(*cells)
        rows.append("| " + " | ".join(cells) + " |")
    return table, rows


def seating_lines(
    specs: Sequence[str], stats: dict[tuple[int, int], PairStats], sides: Sequence[str]
) -> list[str]:
    """One line per pairing: A's score and games in each seating, named by A's seats, and
    the sides that won there (whichever spec held them; a shared win counts a share), which
    tells whom A took its wins from."""
    lines = []
    for (a, b), s in stats.items():
        cells = []
        for pattern, (games, score) in sorted(s.seatings.items()):
            held = " + ".join(sides[i] for i, side in enumerate(pattern) if side == 0)
            won = s.seating_sides.get(pattern, {})
            by = ", ".join(f"{sides[i]} {won[i]:g}" for i in sorted(won))
            cells.append(f"{held} {score:g} of {games:g}" + (f" (won by {by})" if by else ""))
        if cells:
            lines.append(
                f"- {specs[a]} against {specs[b]}, by A's seats: " + "; ".join(cells) + "."
            )
    return lines


def side_lines(
    specs: Sequence[str], stats: dict[tuple[int, int], PairStats], sides: Sequence[str]
) -> list[str]:
    """One line per pairing: the games each side (seat) won, whichever spec held it (a shared
    win counts a share); for mirror play this is the balance of the sides."""
    lines = []
    for (a, b), s in stats.items():
        wins = s.side_wins
        if not sum(wins.values()):
            continue
        cells = [f"{side} {wins.get(i, 0.0):g}" for i, side in enumerate(sides)]
        lines.append(
            f"- {specs[a]} against {specs[b]}, wins by side: "
            + ", ".join(cells)
            + f" of {s.games}."
        )
    return lines


def read_log(
    log: Path, game: str, variant: str, specs: Sequence[str], pairs: Sequence[tuple[int, int]]
) -> list[GameOutcome]:
    """The finished games of these pairings recorded in `log` (one per seed, first record wins)."""
    if not log.exists():
        return []
    wanted = {(specs[a], specs[b]): (a, b) for a, b in pairs}
    found: dict[tuple[tuple[int, int], int], GameOutcome] = {}
    for number, line in enumerate(log.read_text().splitlines(), 1):
        try:
            record = json.loads(line)
            pair = wanted.get((record["a"], record["b"]))
            if pair is None or record.get("game") != game or record.get("variant") != variant:
                continue
            outcome = GameOutcome(
                pair,
                record["score"],
                record["steps"],
                record["seconds"],
                record["decisions"],
                record["seed"],
                tuple(record["pattern"]),
                tuple(record.get("winners", ())),
                float(record.get("cpu", 0.0)),
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise typer.BadParameter(
                f"line {number} of {log} is not an arena game record ({exc!r}); "
                "remove or repair it to resume"
            ) from exc
        found.setdefault((pair, outcome.seed), outcome)
    return list(found.values())


def seed_ranges(seeds: Sequence[int]) -> str:
    """Sorted seeds as ranges: `101..130, 301..305`."""
    runs: list[list[int]] = []
    for seed in seeds:
        if runs and seed == runs[-1][1] + 1:
            runs[-1][1] = seed
        else:
            runs.append([seed, seed])
    return ", ".join(f"{a}..{b}" if b > a else str(a) for a, b in runs) or "none"


def write_section(body: str, doc: Path | None = None, append: bool = False) -> None:
    """Replace (or add) this script's section of docs/benchmarks.md; `append` adds to it."""
    docsections.write_section(doc or DOC, "bots", body, append=append)


@app.command()
def main(
    game: Annotated[str, typer.Option(help="Registry id of the game (toy, ncw, ...)")] = "toy",
    bot: Annotated[list[str] | None, typer.Option(help="Bot spec; give two or more")] = None,
    games: Annotated[int, typer.Option(help="Games per pairing")] = 20,
    variant: Annotated[str, typer.Option(help="Variant id (default: the game's first)")] = "",
    seed: Annotated[int, typer.Option(help="First game seed")] = 1,
    workers: Annotated[int, typer.Option(help="Parallel processes")] = os.cpu_count() or 1,
    register: Annotated[
        list[str] | None, typer.Option(help="Extra game as id=module:Class")
    ] = None,
    write: Annotated[bool, typer.Option(help="Write docs/benchmarks.md")] = False,
    append: Annotated[
        bool, typer.Option(help="Add to the section instead of replacing it")
    ] = False,
    note: Annotated[str, typer.Option(help="A sentence to add under the table")] = "",
    calibrate: Annotated[
        bool, typer.Option(help="Measure iterations per CPU second of each --bot instead")
    ] = False,
    every: Annotated[int, typer.Option(help="Calibration: search every n-th choice")] = 5,
    log: Annotated[
        Path | None, typer.Option(help="Append each finished game as a JSON line to this file")
    ] = None,
    focus: Annotated[
        bool, typer.Option(help="Only pair the first --bot with each other one (no round robin)")
    ] = False,
    resume: Annotated[
        bool,
        typer.Option(
            help="Count the games already in --log and play only the seeds it lacks "
            "(runs of several sessions add up to one table)"
        ),
    ] = False,
    report: Annotated[
        bool, typer.Option(help="Play nothing: the table of the games in --log")
    ] = False,
    seating: Annotated[
        int,
        typer.Option(
            help="Play only this seating (its index among the game's seatings; -1: rotate "
            "through all), e.g. to tune one side's play on paired seeds"
        ),
    ] = -1,
    cpu_minutes: Annotated[
        float,
        typer.Option(
            help="CPU budget of this run (0: none): before each whole rotation of the "
            "seatings, stop if the games so far project past it (exact with --workers 1)"
        ),
    ] = 0.0,
) -> None:
    """Play every pairing of the given bot specs and print the win-rate table."""
    specs = list(bot or ["ismcts@100it", "heuristic", "random"])
    if calibrate:
        run_calibration(game, variant, specs, games, seed, workers, every, list(register or []))
        return
    if len(specs) < 2:
        raise typer.BadParameter("give at least two --bot specs")
    extra = list(register or [])
    _register(extra)
    from warroom.bots.pairings import seat_patterns
    from warroom.bots.registry import make_bot, parse_spec
    from warroom.engine.registry import get_rules

    rules = get_rules(game)
    variant = variant or rules.variants()[0].id
    for text in specs:
        make_bot(parse_spec(text), game)
    patterns = seat_patterns(rules, variant)
    if seating >= 0:
        if seating >= len(patterns):
            raise typer.BadParameter(f"--seating: the game has {len(patterns)} seatings")
        patterns = [patterns[seating]]
    pairs = (
        [(0, b) for b in range(1, len(specs))]
        if focus
        else list(itertools.combinations(range(len(specs)), 2))
    )
    resume = resume or report
    if resume and log is None:
        raise typer.BadParameter("--resume and --report need --log")
    earlier = read_log(log, game, variant, specs, pairs) if resume and log is not None else []
    done = {(o.pair, o.seed) for o in earlier}
    jobs = [
        (pair, patterns[g % len(patterns)], seed + g)
        for g in range(0 if report else games)
        for pair in pairs
        if (pair, seed + g) not in done
    ]
    stats = {pair: PairStats() for pair in pairs}
    for outcome in earlier:
        stats[outcome.pair].add(outcome)
    console = Console()
    began = time.perf_counter()
    budget = Budget(60 * cpu_minutes, len(patterns), pairs[0], seed)
    with (
        Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
        ) as progress,
        ProcessPoolExecutor(max_workers=max(1, workers)) as pool,
    ):
        task = progress.add_task(f"{game}: {len(jobs)} games", total=len(jobs))
        queue = list(jobs)
        running: set[Future[GameOutcome]] = set()
        while queue or running:
            while queue and len(running) < max(1, workers) and budget.allows(queue[0], running):
                (a, b), pattern, game_seed = queue.pop(0)
                running.add(
                    pool.submit(
                        play_one,
                        game,
                        variant,
                        (specs[a], specs[b]),
                        pattern,
                        game_seed,
                        (a, b),
                        extra,
                    )
                )
            if not running:
                console.print(budget.stopped(len(queue)))
                break
            finished, running = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                outcome = future.result()
                budget.spent(outcome.cpu)
                stats[outcome.pair].add(outcome)
                if log is not None:
                    record = {
                        "game": game,
                        "variant": variant,
                        "a": specs[outcome.pair[0]],
                        "b": specs[outcome.pair[1]],
                    }
                    with log.open("a") as out:
                        out.write(json.dumps({**record, **asdict(outcome)}) + "\n")
                progress.advance(task)
    elapsed = time.perf_counter() - began
    table, rows = render(specs, stats)
    console.print(table)
    sides = [seat.side for seat in rules.seats(rules.setup(1, variant, {}))]
    lines = [*seating_lines(specs, stats, sides), *side_lines(specs, stats, sides)]
    for line in lines:
        console.print(line)
    if write:
        seatings_played = {o.pattern for o in earlier} | {tuple(j[1]) for j in jobs}
        body = [
            *([] if append else ["## Bot arena (`bench/arena.py`)", ""]),
            f"Game `{game}`, variant `{variant}`, {len(seatings_played)} rotating seatings, seeds "
            f"{seed_ranges(sorted({o.seed for o in earlier} | {j[2] for j in jobs}))}"
            + (
                f" ({len(earlier)} games read back from `{log.name}`, {len(jobs)} played now)"
                if earlier and log
                else ""
            )
            + ("" if report else f"; {elapsed:.0f} s wall clock on {workers} process(es)")
            + f"; {platform.processor() or platform.machine()}, Python {platform.python_version()}.",
            "A game is a win for A when A's best-placed seat finishes ahead of B's (a tie counts half).",
            "",
            *rows,
            "",
            *lines,
        ]
        if note:
            body += ["", note]
        write_section("\n".join(body) + "\n", append=append)
        console.print(f"wrote the bots section of {DOC}")


def run_calibration(
    game: str,
    variant: str,
    specs: Sequence[str],
    games: int,
    seed: int,
    workers: int,
    every: int,
    extra: list[str],
) -> None:
    """Print each millisecond-budget spec's iterations per CPU second and its `@<n>it` twin."""
    _register(extra)
    from warroom.bots.registry import parse_spec
    from warroom.engine.registry import get_rules

    variant = variant or get_rules(game).variants()[0].id
    console = Console()
    for text in specs:
        spec = parse_spec(text)
        if not spec.budget_ms:
            console.print(f"{text}: no millisecond budget to calibrate")
            continue
        with ProcessPoolExecutor(max_workers=max(1, workers)) as pool:
            runs = list(
                pool.map(
                    calibrate_one,
                    [game] * games,
                    [variant] * games,
                    [text] * games,
                    range(seed, seed + games),
                    [every] * games,
                    [extra] * games,
                )
            )
        full = sum(r.full for r in runs)
        iterations = sum(r.iterations for r in runs)
        cpu = sum(r.cpu_seconds for r in runs)
        rate = iterations / cpu if cpu else 0.0
        budget = round(rate * spec.budget_ms / 1000)
        kind = text.partition("@")[0]
        console.print(
            f"{text}: {sum(r.searches for r in runs)} searches, {full} ran to the time budget; "
            f"over all searches "
            f"{rate:.0f} iterations per CPU second -> {kind}@{budget}it "
            f"(load average {os.getloadavg()[0]:.2f})"
        )


if __name__ == "__main__":
    app()
