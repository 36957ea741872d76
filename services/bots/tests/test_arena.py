"""The arena bench (bench/arena.py): intervals, seatings, one game, and its docs section."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from services.bots.tests.conftest import load_bench
from tests.engine.toy_game import ToyRules


@pytest.fixture(scope="module")
def arena() -> ModuleType:
    return load_bench("arena")


def test_wilson_interval(arena: ModuleType) -> None:
    low, high = arena.wilson(90, 100)
    assert low == pytest.approx(0.8256, abs=1e-3) and high == pytest.approx(0.9448, abs=1e-3)
    assert arena.wilson(0, 0) == (0.0, 1.0)
    low, high = arena.wilson(10, 10)
    assert high == 1.0 and 0.69 < low < 0.73


def test_seatings_and_one_game(arena: ModuleType) -> None:
    from warroom.bots.pairings import seat_patterns

    assert seat_patterns(ToyRules(), "duel") == [[0, 1], [1, 0]]
    outcome = arena.play_one("toy", "duel", ("heuristic", "random"), [1, 0], 3, (0, 1), [])
    assert outcome.score in (0.0, 0.5, 1.0)
    assert outcome.steps > 0 and outcome.decisions["A"] > 0
    stats = {(0, 1): arena.PairStats()}
    stats[(0, 1)].add(outcome)
    lines = arena.seating_lines(["heuristic", "random"], stats, ["North", "South"])
    won = ", ".join(
        f"{['North', 'South'][seat]} {1 / len(outcome.winners):g}" for seat in outcome.winners
    )
    assert lines == [
        f"- heuristic against random, by A's seats: South {outcome.score:g} of 1 (won by {won})."
    ]


def test_seating_lines_say_which_side_won_each_seating(arena: ModuleType) -> None:
    """Three seats, two seatings: the line gives A's score per seating and the sides that won
    there, a shared win as shares."""
    stats = arena.PairStats()
    game = {"steps": 1, "seconds": {"A": 0.0, "B": 0.0}, "decisions": {"A": 1, "B": 1}}
    for pattern, winners, score in (
        ((0, 1, 1), (2,), 0.0),
        ((0, 1, 1), (0,), 1.0),
        ((0, 1, 1), (2,), 0.0),
        ((1, 0, 0), (0, 1), 0.5),
    ):
        stats.add(
            arena.GameOutcome((0, 1), score, seed=1, pattern=pattern, winners=winners, **game)
        )
    lines = arena.seating_lines(["ismcts", "heuristic"], {(0, 1): stats}, ["S", "W", "NA"])
    assert lines == [
        "- ismcts against heuristic, by A's seats: S 1 of 3 (won by S 1, NA 2); "
        "W + NA 0.5 of 1 (won by S 0.5, W 0.5)."
    ]


def test_write_section_replaces_only_its_own(arena: ModuleType, tmp_path: Path) -> None:
    doc = tmp_path / "benchmarks.md"
    doc.write_text("# Benchmarks\n\n<!-- bench:game -->\nkeep\n<!-- /bench:game -->\n")
    arena.write_section("first", doc)
    arena.write_section("second", doc)
    text = doc.read_text()
    assert "keep" in text and "second" in text and "first" not in text
    assert text.count("<!-- bench:bots -->") == 1


def test_resume_plays_only_missing_seeds_and_counts_the_log(
    arena: ModuleType, tmp_path: Path
) -> None:
    from typer.testing import CliRunner

    log = tmp_path / "arena.jsonl"
    args = ["--game", "toy", "--bot", "heuristic", "--bot", "random", "--workers", "1"]
    args += ["--log", str(log), "--resume", "--seed", "5"]
    runner = CliRunner()
    first = runner.invoke(arena.app, [*args, "--games", "3"])
    assert first.exit_code == 0, first.output
    assert len(log.read_text().splitlines()) == 3
    second = runner.invoke(arena.app, [*args, "--games", "5"])
    assert second.exit_code == 0, second.output
    lines = log.read_text().splitlines()
    assert len(lines) == 5
    outcomes = arena.read_log(log, "toy", "duel", ["heuristic", "random"], [(0, 1)])
    assert sorted(o.seed for o in outcomes) == [5, 6, 7, 8, 9]
    assert all(o.pattern in ((0, 1), (1, 0)) for o in outcomes)
    assert arena.read_log(log, "toy", "duel", ["random", "heuristic"], [(0, 1)]) == []


def test_seed_ranges(arena: ModuleType) -> None:
    assert arena.seed_ranges([101, 102, 103, 105, 301, 302]) == "101..103, 105, 301..302"
    assert arena.seed_ranges([]) == "none"


def test_report_plays_nothing_and_tables_the_log(
    arena: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    log = tmp_path / "arena.jsonl"
    args = ["--game", "toy", "--bot", "heuristic", "--bot", "random", "--workers", "1"]
    runner = CliRunner()
    played = runner.invoke(arena.app, [*args, "--log", str(log), "--games", "2", "--seed", "40"])
    assert played.exit_code == 0, played.output
    before = log.read_text()
    doc = tmp_path / "benchmarks.md"
    doc.write_text("# Benchmarks\n")
    monkeypatch.setattr(arena, "DOC", doc)
    shown = runner.invoke(arena.app, [*args, "--log", str(log), "--report", "--write"])
    assert shown.exit_code == 0, shown.output
    assert log.read_text() == before
    assert "| heuristic | random | 2 |" in doc.read_text()
    assert "seeds 40..41 (2 games read back" in doc.read_text()
    refused = runner.invoke(arena.app, [*args, "--report"])
    assert refused.exit_code != 0


def test_resume_names_a_broken_log_line(arena: ModuleType, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    log = tmp_path / "arena.jsonl"
    log.write_text('{"game": "toy", "variant": "duel", "a": "heuristic"\n')
    args = ["--game", "toy", "--bot", "heuristic", "--bot", "random", "--log", str(log)]
    refused = CliRunner().invoke(arena.app, [*args, "--report"])
    assert refused.exit_code != 0
    assert "line 1" in refused.output
    assert log.read_text().count("\n") == 1


def test_cpu_budget_stops_at_a_whole_rotation(arena: ModuleType, tmp_path: Path) -> None:
    """`--cpu-minutes`: a rotation of the seatings starts only if the games so far project it
    within the budget; the first rotation always plays, and each game's CPU is logged."""
    from typer.testing import CliRunner

    log = tmp_path / "arena.jsonl"
    args = ["--game", "toy", "--bot", "heuristic", "--bot", "random", "--workers", "1"]
    args += ["--log", str(log), "--games", "10", "--seed", "60"]
    stopped = CliRunner().invoke(arena.app, [*args, "--cpu-minutes", "0.000001"])
    assert stopped.exit_code == 0, stopped.output
    outcomes = arena.read_log(log, "toy", "duel", ["heuristic", "random"], [(0, 1)])
    assert sorted(o.seed for o in outcomes) == [60, 61]  # one rotation: both seatings
    assert all(o.cpu > 0 for o in outcomes)
    assert "stopped by the CPU budget" in stopped.output and "8 games not played" in stopped.output
    log.unlink()
    whole = CliRunner().invoke(arena.app, [*args, "--cpu-minutes", "10"])
    assert whole.exit_code == 0, whole.output
    assert len(log.read_text().splitlines()) == 10 and "stopped" not in whole.output
