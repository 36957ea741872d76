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

`--term` adds a candidate term of the standings to the fit, each Bloc's count of it times the
weight the standings give the points of the Scoring Phases to come (`TERMS`; recorded with
every game since session 24): a term the standings miss lowers the held-out log loss, printed
beside the fit without the terms on the same games. Its fitted coefficient over the standing's
(`standing` at that round) is its worth in standing points.

Session 23 fitted 400 games (seeds 70001-70400): held-out log loss 0.764 against 0.916. The
scale falls from about 25 points in round 1 to 2 in round 19, and at equal standings the
Western Bloc wins as if 15 points worse than the Soviet Bloc early on (6 at the end), the
Non-Aligned Bloc about 5 worse in mid-game. Those odds as the search's value (commit e080dfe)
won 67.6% of 102 arena games against the previous value's 69.0% of 300, so they were not
kept (docs/benchmarks.md, "Session 23"); the tool stays to measure an evaluation's
calibration.

Session 24 checked session 23's two leads on 200 games (seeds 70401-70600, log
`bench/results/qmg_cw-odds-70401.jsonl`): see docs/benchmarks.md, "Session 24".

Usage:
  python bench/fit_odds.py --games 400 --seed 70001 --log bench/results/qmg_cw-odds-70001.jsonl
  python bench/fit_odds.py --from-log bench/results/qmg_cw-odds-70401.jsonl --term contested
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
TERMS = ("contested", "alone_on_symbol", "to_build")
"""Candidate terms, per Bloc: its Armies in a space another Bloc's piece shares (at risk of a
battle there), its Armies alone on a usable Supply symbol (scoring 2 points each), and its
Armies off the board that it holds Build Army cards for (hand, opening draw and deck)."""


def term_counts(game: Any) -> dict[str, list[float]]:
    """Each of `TERMS` per Bloc, times the standings' weight of the next phases' points."""
    from warroom.games.qmg_cw import board
    from warroom.games.qmg_cw.content import NAT_BLOC, tables
    from warroom.games.qmg_cw.heuristic import card_builds, phase_weight
    from warroom.games.qmg_cw.state import ARMY, piece_bloc, piece_kind, piece_nat, piece_space

    occ = board.occupants(game)
    counts = {term: [0.0, 0.0, 0.0] for term in TERMS}
    built = [0] * len(tables().piece_pool)
    for p in game.pieces:
        if piece_kind(p) != ARMY:
            continue
        bloc, space, nat = piece_bloc(p), piece_space(p), piece_nat(p)
        built[nat] += 1
        if board.contested(occ[space]):
            counts["contested"][bloc] += 1
        elif board.has_symbol(game, space, nat):
            counts["alone_on_symbol"][bloc] += 1
    builds = card_builds()
    for nat, pool in enumerate(tables().piece_pool):
        cards = sum(
            builds[c] == (nat, ARMY) for s in game.seats for c in (*s.hand, *s.opening, *s.deck)
        )
        counts["to_build"][NAT_BLOC[nat]] += min(pool[ARMY] - built[nat], cards)
    weight = phase_weight(game)
    return {term: [weight * x for x in row] for term, row in counts.items()}


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
            rounds.append(
                {
                    "round": game.round,
                    "standing": standings(game, draws=True),
                    "terms": term_counts(game),
                }
            )
        seat = state.pending.seats[0]
        position = position_for(rules, game, seat, state.pending, "3p")
        state = match.apply(state, seat, bots[seat].choose(position).option_id).state
    result = match.result(state)
    assert result is not None
    winners = sorted({state.game.seats[w].bloc for w in result.winners})
    return {"seed": seed, "winners": winners, "rounds": rounds}


def samples(games: Sequence[dict[str, Any]], terms: Sequence[str] = ()) -> list[Sample]:
    """Every recorded round of the games as a fitting sample (`FEATURES` by Bloc, then the
    `terms` asked for)."""
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
                    *(row["terms"][term][b] for term in terms),
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


def read_log(path: Path, terms: Sequence[str] = ()) -> list[dict[str, Any]]:
    """The games of a `--log` file; a BadParameter naming the file when it is missing, not
    such a log, or without the `terms` (logs before session 24 recorded none)."""
    if not path.is_file():
        raise typer.BadParameter(f"no such log: {path}")
    try:
        games = [json.loads(line) for line in path.read_text().splitlines() if line]
        missing = {
            t for g in games for row in g["rounds"] for t in terms if t not in row.get("terms", {})
        }
        if missing:
            raise typer.BadParameter(f"the terms {sorted(missing)} are not recorded in {path}")
        samples(games, terms)
    except (ValueError, KeyError, TypeError, IndexError, AttributeError) as exc:
        raise typer.BadParameter(f"{path} is not a log of this tool: {exc!r}") from exc
    return games


def split(recorded: Sequence[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The games fitted (three of four) and the games held out (every fourth)."""
    return [g for i, g in enumerate(recorded) if i % 4 != 3], list(recorded[3::4])


def held_out(recorded: Sequence[dict[str, Any]], terms: Sequence[str]) -> tuple[float, list[float]]:
    """The held-out log loss of a fit with `terms` on three games of four, and that fit."""
    train, test = split(recorded)
    held = fit(samples(train, terms), [*START, *(0.0 for _ in terms)])
    return log_loss(held, samples(test, terms)), held


@app.command()
def main(
    games: Annotated[int, typer.Option(help="Heuristic mirror games to play")] = 400,
    seed: Annotated[int, typer.Option(help="First game seed")] = 70001,
    log: Annotated[Path | None, typer.Option(help="Append each game as a JSON line")] = None,
    from_log: Annotated[Path | None, typer.Option(help="Fit these games; play none")] = None,
    term: Annotated[
        list[str] | None, typer.Option(help=f"A term to add to the fit: {', '.join(TERMS)}")
    ] = None,
) -> None:
    """Print the held-out comparison and the parameters fitted on all the games."""
    began = time.process_time()
    terms = list(term or ())
    unknown = [t for t in terms if t not in TERMS]
    if unknown:
        raise typer.BadParameter(f"unknown terms {unknown}; known: {', '.join(TERMS)}")
    if from_log is not None and log is not None:
        raise typer.BadParameter("--log records played games: give it or --from-log, not both")
    if from_log is not None:
        recorded = read_log(from_log, terms)
    elif games >= 4:
        recorded = list(games_of(seed, games, log))
    else:
        recorded = []
    if len(recorded) < 4:
        raise typer.BadParameter("fit at least 4 games (every fourth is held out)")
    loss, held = held_out(recorded, terms)
    test = samples(split(recorded)[1])
    report: dict[str, Any] = {"games": len(recorded), "held_out_log_loss": round(loss, 4)}
    if terms:
        report["without_terms"] = round(held_out(recorded, ())[0], 4)
    report["lead_log_loss"] = round(lead_loss(test), 4)
    print(json.dumps(report))
    final = fit(samples(recorded, terms), held)
    print(
        json.dumps(
            {
                "params": dict(zip((*FEATURES, *terms), (round(p, 6) for p in final), strict=True)),
                "cpu_seconds": round(time.process_time() - began, 1),
            }
        )
    )


if __name__ == "__main__":
    app()
