"""How well the Cold War's standings predict the winner: odds fitted to heuristic games.

Plays `--games` three-player heuristic mirror games from `--seed` (about 1.3 CPU s each),
records every Bloc's standing (`heuristic.standings`, hands as their Draw step leaves them)
at the start of each round, and fits a conditional logit of the winning Bloc: in round r,

    logit[b] = standing[b] * (a + b r + c r^2) + bias0[b] + bias1[b] r,

with the Soviet Bloc's bias 0 (a softmax only sees differences). Every fourth game is held out
to compare the fitted odds' log loss with the search's value (a logistic of the lead over the
best other Bloc on a fixed scale of 8, normalised over the Blocs); the printed parameters are
refitted on all the games. `--log` keeps the recorded games (one JSON line each) and
`--from-log` fits a log again without playing.

Session 23 fitted 400 games (seeds 70001-70400): held-out log loss 0.764 against 0.916. The
scale falls from about 25 points in round 1 to 2 in round 19, and at equal standings the
Western Bloc wins as if 15 points worse than the Soviet Bloc early on (6 at the end), the
Non-Aligned Bloc about 5 worse in mid-game. Those odds as the search's value (commit e080dfe)
won 67.6% of 102 arena games against the previous value's 69.0% of 300, so they were not
kept (docs/benchmarks.md, "Session 23"); the tool stays to measure an evaluation's
calibration.

Usage:
  python bench/fit_odds.py --games 400 --seed 70001 --log bench/results/qmg_cw-odds-70001.jsonl
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer

app = typer.Typer(add_completion=False)

Sample = tuple[list[list[float]], list[int]]
"""One position: a feature row per Bloc, and the winning Blocs."""
FEATURES = ("standing", "standing*r", "standing*r^2", "W", "W*r", "NA", "NA*r")
START = (1 / 8, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
"""The fit's starting point: the standings on the older fixed scale of 8."""


def play(seed: int) -> dict[str, Any]:
    """One heuristic mirror game: each round's standings by Bloc, and the winning Blocs."""
    from warroom.bots.position import position_for
    from warroom.bots.registry import parse_spec, seat_bots
    from warroom.engine.match import Match
    from warroom.engine.registry import get_rules
    from warroom.games.qmg_cw.heuristic import standings

    rules = get_rules("qmg_cw")
    match = Match(rules)
    state = match.start(seed, "3p", {})
    bots = seat_bots([parse_spec("heuristic")] * 3, "qmg_cw", seed)
    rounds: list[dict[str, Any]] = []
    while state.pending is not None:
        game = state.game
        if not rounds or rounds[-1]["round"] != game.round:
            rounds.append({"round": game.round, "standing": standings(game, draws=True)})
        seat = state.pending.seats[0]
        position = position_for(rules, game, seat, state.pending, "3p")
        state = match.apply(state, seat, bots[seat].choose(position).option_id).state
    result = match.result(state)
    assert result is not None
    winners = sorted({state.game.seats[w].bloc for w in result.winners})
    return {"seed": seed, "winners": winners, "rounds": rounds}


def samples(games: Sequence[dict[str, Any]]) -> list[Sample]:
    """Every recorded round of the games as a fitting sample (`FEATURES` by Bloc)."""
    out: list[Sample] = []
    for game in games:
        for row in game["rounds"]:
            r = row["round"]
            rows = [
                [
                    s,
                    s * r,
                    s * r * r,
                    float(b == 1),
                    float(b == 1) * r,
                    float(b == 2),
                    float(b == 2) * r,
                ]
                for b, s in enumerate(row["standing"])
            ]
            out.append((rows, game["winners"]))
    return out


def chances(params: Sequence[float], rows: Sequence[Sequence[float]]) -> list[float]:
    """The softmax of each row's logit."""
    logits = [sum(p * x for p, x in zip(params, row, strict=True)) for row in rows]
    top = max(logits)
    weights = [math.exp(x - top) for x in logits]
    return [w / sum(weights) for w in weights]


def log_loss(params: Sequence[float], data: Sequence[Sample]) -> float:
    """Mean negative log chance of the winners (ties share a sample)."""
    total = 0.0
    for rows, winners in data:
        p = chances(params, rows)
        total -= sum(math.log(max(p[b], 1e-12)) for b in winners) / len(winners)
    return total / len(data)


def lead_loss(data: Sequence[Sample], scale: float = 8.0) -> float:
    """The log loss of the older value: each Bloc's logistic of its lead over the best other
    Bloc, normalised over the Blocs."""
    total = 0.0
    for rows, winners in data:
        s = [row[0] for row in rows]
        v = [1 / (1 + math.exp(-(s[b] - max(s[:b] + s[b + 1 :])) / scale)) for b in range(3)]
        total -= sum(math.log(v[b] / sum(v)) for b in winners) / len(winners)
    return total / len(data)


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting."""
    n = len(vector)
    a = [[*matrix[i], vector[i]] for i in range(n)]
    for c in range(n):
        pivot = max(range(c, n), key=lambda r: abs(a[r][c]))
        a[c], a[pivot] = a[pivot], a[c]
        for r in range(n):
            if r != c:
                f = a[r][c] / a[c][c]
                a[r] = [x - f * y for x, y in zip(a[r], a[c], strict=True)]
    return [a[i][n] / a[i][i] for i in range(n)]


def fit(
    data: Sequence[Sample], start: Sequence[float] = START, steps: int = 40, ridge: float = 1e-3
) -> list[float]:
    """Newton's method on the ridge-penalized log likelihood of the winners."""
    params = list(start)
    k = len(params)
    for _ in range(steps):
        grad = [-ridge * p for p in params]
        hess = [[ridge * (i == j) for j in range(k)] for i in range(k)]
        for rows, winners in data:
            p = chances(params, rows)
            mean = [sum(p[b] * rows[b][i] for b in range(len(rows))) for i in range(k)]
            for b in winners:
                for i in range(k):
                    grad[i] += (rows[b][i] - mean[i]) / len(winners) / len(data)
            for b, row in enumerate(rows):
                d = [row[i] - mean[i] for i in range(k)]
                for i in range(k):
                    for j in range(k):
                        hess[i][j] += p[b] * d[i] * d[j] / len(data)
        step = _solve(hess, grad)
        params = [p + s for p, s in zip(params, step, strict=True)]
        if max(map(abs, step)) < 1e-9:
            break
    return params


def games_of(seed: int, count: int, log: Path | None) -> Iterator[dict[str, Any]]:
    """Play the games, appending each to `log`."""
    for s in range(seed, seed + count):
        game = play(s)
        if log is not None:
            with log.open("a") as f:
                f.write(json.dumps(game) + "\n")
        yield game


def read_log(path: Path) -> list[dict[str, Any]]:
    """The games of a `--log` file; a BadParameter naming the file when it is missing or not
    such a log."""
    if not path.is_file():
        raise typer.BadParameter(f"no such log: {path}")
    try:
        games = [json.loads(line) for line in path.read_text().splitlines() if line]
        samples(games)
    except (ValueError, KeyError, TypeError, IndexError) as exc:
        raise typer.BadParameter(f"{path} is not a log of this tool: {exc!r}") from exc
    return games


@app.command()
def main(
    games: Annotated[int, typer.Option(help="Heuristic mirror games to play")] = 400,
    seed: Annotated[int, typer.Option(help="First game seed")] = 70001,
    log: Annotated[Path | None, typer.Option(help="Append each game as a JSON line")] = None,
    from_log: Annotated[Path | None, typer.Option(help="Fit these games; play none")] = None,
) -> None:
    """Print the held-out comparison and the parameters fitted on all the games."""
    began = time.process_time()
    if from_log is not None and log is not None:
        raise typer.BadParameter("--log records played games: give it or --from-log, not both")
    if from_log is not None:
        recorded = read_log(from_log)
    elif games >= 4:
        recorded = list(games_of(seed, games, log))
    else:
        recorded = []
    if len(recorded) < 4:
        raise typer.BadParameter("fit at least 4 games (every fourth is held out)")
    train = samples([g for i, g in enumerate(recorded) if i % 4 != 3])
    test = samples([g for i, g in enumerate(recorded) if i % 4 == 3])
    held = fit(train)
    print(
        json.dumps(
            {
                "games": len(recorded),
                "held_out_log_loss": round(log_loss(held, test), 4),
                "lead_log_loss": round(lead_loss(test), 4),
            }
        )
    )
    final = fit(samples(recorded), held)
    print(
        json.dumps(
            {
                "params": dict(zip(FEATURES, (round(p, 6) for p in final), strict=True)),
                "cpu_seconds": round(time.process_time() - began, 1),
            }
        )
    )


if __name__ == "__main__":
    app()
