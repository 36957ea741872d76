"""The Cold War odds fit (bench/fit_odds.py): it recovers known odds, and records real games."""

from __future__ import annotations

import random
from pathlib import Path
from types import ModuleType

import pytest
from typer.testing import CliRunner

from services.bots.tests.conftest import load_bench

KNOWN = [0.05, -0.003, 0.0012, -0.4, -0.1, 0.3, -0.08]


@pytest.fixture(scope="module")
def fit_odds() -> ModuleType:
    return load_bench("fit_odds")


def _synthetic(
    fit_odds: ModuleType, count: int, seed: int
) -> list[tuple[list[list[float]], list[int]]]:
    """Positions with random standings and rounds, won as the `KNOWN` odds say."""
    rng = random.Random(seed)
    games = []
    for _ in range(count):
        r = rng.randint(1, 19)
        standing = [rng.gauss(100.0 + 2 * r, 12.0) for _ in range(3)]
        games.append({"winners": [0], "rounds": [{"round": r, "standing": standing}]})
    data = fit_odds.samples(games)
    for rows, winners in data:
        chances = fit_odds.chances(KNOWN, rows)
        winners[0] = rng.choices(range(3), weights=chances)[0]
    return data


def test_the_fit_recovers_the_odds_its_samples_were_drawn_from(fit_odds: ModuleType) -> None:
    """Fitted to 3,000 positions won as known odds say, from the older fixed scale, the fit's
    odds score unseen positions almost as well as the known ones and far better than its
    start."""
    train = _synthetic(fit_odds, 3000, 1)
    test = _synthetic(fit_odds, 1000, 2)
    fitted = fit_odds.fit(train)
    known, found, start = (fit_odds.log_loss(p, test) for p in (KNOWN, fitted, fit_odds.START))
    assert found < known + 0.02 and found < start - 0.1
    assert fitted[0] == pytest.approx(KNOWN[0], rel=0.35)
    assert fitted[3] == pytest.approx(KNOWN[3], abs=0.3)


def test_a_recorded_game_has_each_rounds_standings_and_its_winner(fit_odds: ModuleType) -> None:
    """One heuristic game: a standing per Bloc at the start of every round 1-19, and the
    winning Blocs among the three."""
    game = fit_odds.play(70001)
    assert [row["round"] for row in game["rounds"]] == list(range(1, 20))
    assert all(len(row["standing"]) == 3 for row in game["rounds"])
    assert game["winners"] and set(game["winners"]) <= {0, 1, 2}


def test_bad_input_is_a_bad_parameter(fit_odds: ModuleType, tmp_path: Path) -> None:
    """A log that does not exist or is not this tool's, fewer than 4 games, or both --log and
    --from-log, exits 2 with the reason."""
    runner = CliRunner()
    missing = runner.invoke(fit_odds.app, ["--from-log", str(tmp_path / "none.jsonl")])
    assert missing.exit_code == 2 and "no such log" in missing.output
    few = runner.invoke(fit_odds.app, ["--games", "3"])
    assert few.exit_code == 2 and "at least 4 games" in few.output
    garbled = tmp_path / "garbled.jsonl"
    garbled.write_text('{"winners": [0]}\n')
    wrong = runner.invoke(fit_odds.app, ["--from-log", str(garbled)])
    assert wrong.exit_code == 2 and "not a log of this tool" in wrong.output
    both = runner.invoke(fit_odds.app, ["--from-log", str(garbled), "--log", str(garbled)])
    assert both.exit_code == 2 and "not both" in both.output
