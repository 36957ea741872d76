"""Shared helpers of the bot tests: seeded games played by bots through the match layer."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from warroom.bots.position import Bot, Choice, SeatPosition, position_for
from warroom.engine.match import Match
from warroom.engine.model import Result
from warroom.engine.rules import Rules

Check = Callable[[SeatPosition, Choice], None]


def bonus_states(rules: Any, count: int = 8) -> list[Any]:
    """Toy-game states where seat 0 won a round and may score a bonus point or stop."""
    found = []
    for seed in range(40):
        state = rules.setup(seed, "duel", {})
        high, low = max(state.hands[0]), min(state.hands[1])
        if high <= low:
            continue
        state = rules.apply(state, 0, f"card-{high}").state
        state = rules.apply(state, 1, f"card-{low}").state
        assert state.phase == "bonus" and state.round_winner == 0
        found.append(state)
        if len(found) == count:
            break
    return found


def play(
    rules: Rules[Any],
    bots: Sequence[Bot],
    seed: int,
    variant: str | None = None,
    check: Check | None = None,
    max_steps: int = 20_000,
) -> Result:
    """Play one seeded game with one bot per seat; every choice goes through `check` first."""
    variant = variant or rules.variants()[0].id
    match = Match(rules)
    state = match.start(seed, variant, {})
    steps = 0
    while state.pending is not None:
        assert steps < max_steps, f"no end after {max_steps} steps"
        seat = state.pending.seats[0]
        position = position_for(rules, state.game, seat, state.pending, variant)
        choice = bots[seat % len(bots)].choose(position)
        if check is not None:
            check(position, choice)
        state = match.apply(state, seat, choice.option_id, state.pending.id).state
        steps += 1
    result = match.result(state)
    assert result is not None
    return result
