"""Trace a search bot through one seeded game: where it departs from its baseline, and what a
deeper search of the same decision finds.

A tool for tuning bots (it found South Front's blind spot in session 22: the Axis search's
challengers tied its baseline exactly, because no term of the evaluation moved when a piece
came up next to an enemy star). One game is played with `--bot` on the `--seat` seats and
`--other` on the rest. At each decision of a traced seat with a real choice (of `--kinds`, all
by default) one JSON line gives the round (when the state has one), the decision kind, the
number of options, the bot's answer and its baseline, and with `--deep N` a rollout policy
search of N iterations of the same position (games with a rollout policy only): its answer,
how many challengers tied the baseline exactly (paired gain 0 with no spread: options the
evaluation cannot tell apart), and its best challengers by paired gain. A last line gives the
result. Bot games cost CPU: count them in the session's arena budget.

Usage:
  python bench/search_trace.py --game qmg_sf --seed 94188 --seat 0 --bot ismcts@400it \\
      --other heuristic --deep 3200 --kind action
"""

from __future__ import annotations

import json
import math
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

app = typer.Typer(add_completion=False, help=__doc__)
SHOWN = 3
"""Challengers shown per deep search, best paired gain first."""


def deep_search(position: Any, iterations: int, seed: int) -> dict[str, Any] | None:
    """A rollout policy search of `iterations` on the position (None when the game has no
    rollout policy): its baseline, its answer, the challengers that tied the baseline
    exactly, and the best challengers as (option, pairs, gain, standard error)."""
    from warroom.bots.ismcts import POLICY_PLAYOUT, _PolicySearch
    from warroom.bots.policies import policy_for
    from warroom.engine.rng import Rng

    policy = policy_for(position.rules)
    if policy is None:
        return None
    search = _PolicySearch(position, Rng(seed), policy, POLICY_PLAYOUT)
    answer, _, spent = search.run(iterations, math.inf, time.perf_counter())
    arms = sorted(
        (a for a in search.arms.values() if a.paired >= 3 and a.option_id != search.baseline),
        key=lambda a: -a.gain(),
    )
    return {
        "baseline": search.baseline,
        "answer": answer,
        "iterations": spent,
        "ties": sum(1 for a in arms if a.gain() == 0.0 and a.error() == 0.0),
        "best": [
            (a.option_id, a.paired, round(a.gain(), 4), round(a.error(), 4)) for a in arms[:SHOWN]
        ],
    }


def trace(
    game: str,
    seed: int,
    seats: Sequence[int],
    bot: str,
    other: str,
    deep: int = 0,
    kinds: Sequence[str] = (),
    variant: str = "",
) -> Iterator[dict[str, Any]]:
    """The records of one game (see the module): a record per traced decision, then the
    result. The table is set up at once, so an unknown game (RulesError), bot spec
    (UnknownBotError) or seat (ValueError) fails here, before any move is played."""
    from warroom.bots.registry import parse_spec, seat_bots
    from warroom.engine.match import Match
    from warroom.engine.registry import get_rules

    rules = get_rules(game)
    variant = variant or rules.variants()[0].id
    match = Match(rules)
    state = match.start(seed, variant, {})
    count = len(rules.seats(state.game))
    if not seats or any(not 0 <= s < count for s in seats):
        raise ValueError(f"traced seats {list(seats)}: the game has seats 0-{count - 1}")
    specs = [parse_spec(bot if s in seats else other) for s in range(count)]
    bots = seat_bots(specs, game, seed)
    return _play(match, state, bots, variant, seed, set(seats), deep, kinds)


def _play(
    match: Any,
    state: Any,
    bots: list[Any],
    variant: str,
    seed: int,
    seats: set[int],
    deep: int,
    kinds: Sequence[str],
) -> Iterator[dict[str, Any]]:
    """Play the set-up table to its end, yielding the records `trace` names."""
    from warroom.bots.position import position_for

    rules, traced = match.rules, 0
    while state.pending is not None:
        seat = state.pending.seats[0]
        position = position_for(rules, state.game, seat, state.pending, variant)
        choice = bots[seat].choose(position)
        kind = position.decision.kind
        if seat in seats and len(position.option_ids()) > 1 and (not kinds or kind in kinds):
            traced += 1
            record: dict[str, Any] = {
                "round": getattr(state.game, "round", None),
                "seat": seat,
                "kind": kind,
                "options": len(position.option_ids()),
                "answer": choice.option_id,
                "baseline": (choice.notes or {}).get("policy"),
            }
            if deep:
                record["deep"] = deep_search(position, deep, seed * 1000 + traced)
            yield record
        state = match.apply(state, seat, choice.option_id).state
    result = match.result(state)
    assert result is not None
    yield {"result": {"winners": sorted(result.winners), "ranks": list(result.ranks)}}


@app.command()
def main(
    game: Annotated[str, typer.Option(help="Registry id of the game")] = "qmg_sf",
    seed: Annotated[int, typer.Option(help="The game's seed")] = 1,
    seat: Annotated[list[int] | None, typer.Option(help="A traced seat (repeat for more)")] = None,
    bot: Annotated[str, typer.Option(help="Spec of the traced seats' bot")] = "ismcts@400it",
    other: Annotated[str, typer.Option(help="Spec of the other seats' bots")] = "heuristic",
    deep: Annotated[int, typer.Option(help="Iterations of a deep search per decision")] = 0,
    kind: Annotated[list[str] | None, typer.Option(help="Trace only this decision kind")] = None,
    variant: Annotated[str, typer.Option(help="Variant id (default: the game's first)")] = "",
) -> None:
    """Print one JSON line per traced decision, then the result."""
    from warroom.engine.errors import RulesError

    began = time.process_time()
    try:
        records = trace(game, seed, seat or [0], bot, other, deep, kind or [], variant)
    except (RulesError, ValueError) as exc:
        raise typer.BadParameter(str(exc)) from exc
    for record in records:
        print(json.dumps(record), flush=True)
    print(json.dumps({"cpu_seconds": round(time.process_time() - began, 2)}))


if __name__ == "__main__":
    app()
