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
    """One heuristic game: a standing and every term per Bloc at the start of every round
    1-19, and the winning Blocs among the three. In round 1 (10 Scoring Phases to come: the
    next in full and 9 at 0.5, so a weight of 5.5) every count is a multiple of 5.5, some
    setup Army stands alone on a Supply symbol, and every Bloc has Armies to build."""
    game = fit_odds.play(70001)
    assert [row["round"] for row in game["rounds"]] == list(range(1, 20))
    assert all(len(row["standing"]) == 3 for row in game["rounds"])
    assert game["winners"] and set(game["winners"]) <= {0, 1, 2}
    first = game["rounds"][0]["terms"]
    assert set(first) == set(fit_odds.TERMS)
    assert all(x % 5.5 == 0 for row in first.values() for x in row)
    assert any(x > 0 for x in first["alone_on_symbol"])
    assert all(x > 0 for x in first["to_build"])


def test_the_terms_of_a_position(fit_odds: ModuleType) -> None:
    """A Soviet and a Western Army sharing a space are both contested; a Chinese Army alone
    on a printed Supply symbol is a lone Army on a symbol; the Non-Aligned Armies to build
    are capped by the two Chinese Build Army cards it holds, the others hold none. Each
    count is times round 1's weight (5.5)."""
    from warroom.engine.registry import get_rules
    from warroom.games.qmg_cw import board
    from warroom.games.qmg_cw.content import NATS, tables
    from warroom.games.qmg_cw.state import ARMY

    game = get_rules("qmg_cw").setup(7, "3p", {})
    t = tables()
    land = [i for i in range(len(t.space_ids)) if not t.is_sea[i]]
    symbol = next(i for i in land if t.printed_supply[i])
    plain = next(i for i in land if not t.printed_supply[i])
    game.pieces, game.tokens = [], []
    chinese = NATS.index("chinese")
    board.place(game, plain, NATS.index("soviet"), ARMY)
    board.place(game, plain, NATS.index("western"), ARMY)
    board.place(game, symbol, chinese, ARMY)
    builds = [c.id for c in t.cards if c.type == "build_army" and c.nat == chinese]
    for seat in game.seats:
        seat.hand, seat.opening, seat.deck = [], [], []
    next(s for s in game.seats if s.bloc == 2).hand = builds[:2]
    assert game.round == 1
    assert fit_odds.term_counts(game) == {
        "contested": [5.5, 5.5, 0.0],
        "alone_on_symbol": [0.0, 0.0, 5.5],
        "to_build": [0.0, 0.0, 11.0],
    }


def test_bad_input_is_a_bad_parameter(fit_odds: ModuleType, tmp_path: Path) -> None:
    """A log that does not exist or is not this tool's, fewer than 4 games, both --log and
    --from-log, an unknown term, or a term the log lacks or holds garbled, exits 2 with the
    reason."""
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
    unknown = runner.invoke(fit_odds.app, ["--games", "4", "--term", "morale"])
    assert unknown.exit_code == 2 and "unknown terms ['morale']" in unknown.output
    old = tmp_path / "old.jsonl"
    old.write_text('{"winners": [0], "rounds": [{"round": 1, "standing": [1, 2, 3]}]}\n' * 4)
    termless = runner.invoke(fit_odds.app, ["--from-log", str(old), "--term", "to_build"])
    assert termless.exit_code == 2 and "the terms ['to_build'] are not recorded" in termless.output
    short = tmp_path / "short.jsonl"
    row = '{"round": 1, "standing": [1, 2, 3], "terms": {"to_build": [1]}}'
    short.write_text(f'{{"winners": [0], "rounds": [{row}]}}\n' * 4)
    cut = runner.invoke(fit_odds.app, ["--from-log", str(short), "--term", "to_build"])
    assert cut.exit_code == 2 and "not a log of this tool" in cut.output
