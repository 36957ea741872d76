"""How bots score states: terminal rewards, per-game evaluation hooks, random rollouts.

Every value is for one seat and lies in [0, 1]. A finished game is scored by
rank: a seat earns 1 for each other seat it finishes ahead of and 1/2 for
each it ties with, divided by the number of other seats (two seats: win 1,
tie 1/2, loss 0; teammates, who share a rank, tie with each other). A game
whose places below the winners count for nothing registers its own terminal
rewards with `register_rewards` (e.g. `winner_rewards`: the winners share 1,
the others get 0), so that finished playouts are scored on the same scale as
its evaluation of unfinished ones.

A game may offer an evaluation of unfinished states in one of two ways: a
method `evaluate(state, seat) -> float` on its `Rules`, or a function
registered here with `register_evaluator` (modules under `warroom.bots.games`
named after the game id are imported on first use). Without one, the generic fallback
is the mean terminal reward of a few uniformly random playouts.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from warroom.engine.model import Result
from warroom.engine.rng import Rng
from warroom.engine.rules import Rules

Evaluator = Callable[[Any, int], float]
"""An evaluation of a game state for one seat, in [0, 1] (higher is better for the seat)."""

Rewards = Callable[[Result, int], list[float]]
"""Each seat's reward, in [0, 1], for a finished game (its result and number of seats)."""

_EVALUATORS: dict[str, Evaluator] = {}
_REWARDS: dict[str, Rewards] = {}
_LOADED: set[str] = set()


def register_evaluator(game_id: str, evaluator: Evaluator) -> None:
    """Register a per-game evaluation (used when the game's rules have no `evaluate`)."""
    _EVALUATORS[game_id] = evaluator


def register_rewards(game_id: str, rewards: Rewards) -> None:
    """Register a game's terminal rewards (used instead of `terminal_rewards`)."""
    _REWARDS[game_id] = rewards


def evaluator_for(rules: Rules[Any]) -> Evaluator | None:
    """The game's own `evaluate(state, seat)` hook, else a registered one, else None."""
    hook = getattr(rules, "evaluate", None)
    if callable(hook):
        return _clamped(hook)
    load_game_hooks(rules.game_id)
    return _EVALUATORS.get(rules.game_id)


def rewards_for(rules: Rules[Any]) -> Rewards:
    """The game's registered terminal rewards, else the rank-based `terminal_rewards`."""
    load_game_hooks(rules.game_id)
    return _REWARDS.get(rules.game_id, terminal_rewards)


def game_rewards(rules: Rules[Any], result: Result, seats: int) -> list[float]:
    """Each seat's reward for a finished game of these rules (see the module docstring)."""
    return rewards_for(rules)(result, seats)


def load_game_hooks(game_id: str) -> None:
    """Import `warroom.bots.games.<game_id>` (which registers the game's hooks), once per game."""
    if game_id in _LOADED:
        return
    _LOADED.add(game_id)
    try:
        importlib.import_module(f"warroom.bots.games.{game_id}")
    except ImportError:
        return


def _clamped(hook: Callable[..., Any]) -> Evaluator:
    def evaluate(state: Any, seat: int) -> float:
        return min(1.0, max(0.0, float(hook(state, seat))))

    return evaluate


def terminal_rewards(result: Result, seats: int) -> list[float]:
    """Each seat's reward for a finished game (see the module docstring)."""
    if seats <= 1:
        return [1.0 if seat in result.winners else 0.0 for seat in range(seats)]
    rewards = []
    for seat in range(seats):
        mine = result.ranks.get(seat, seats)
        total = 0.0
        for other in range(seats):
            if other == seat:
                continue
            theirs = result.ranks.get(other, seats)
            total += 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
        rewards.append(total / (seats - 1))
    return rewards


def winner_rewards(result: Result, seats: int) -> list[float]:
    """Terminal rewards where only winning counts: the winners share 1, every other seat gets 0."""
    share = 1.0 / len(result.winners) if result.winners else 0.0
    return [share if seat in result.winners else 0.0 for seat in range(seats)]


def rollout(
    rules: Rules[Any], state: Any, rng: Rng, max_steps: int, evaluator: Evaluator | None
) -> tuple[list[float], int]:
    """Play uniformly random options to the end (or `max_steps`) and score every seat.

    Returns the rewards per seat and the number of steps played. A rollout cut
    short is scored by `evaluator` when there is one, else 1/2 for every seat.
    """
    seats = len(rules.seats(state))
    steps = 0
    while steps < max_steps:
        decision = rules.decision(state)
        if decision is None:
            result = rules.result(state)
            assert result is not None, "a finished game must have a result"
            return game_rewards(rules, result, seats), steps
        seat = rng.choice(decision.seats)
        option = rng.choice(decision.options_for(seat))
        state = rules.apply(state, seat, option.id).state
        steps += 1
    return state_values(rules, state, seats, evaluator), steps


def state_values(
    rules: Rules[Any], state: Any, seats: int, evaluator: Evaluator | None
) -> list[float]:
    """Every seat's value of a state: terminal rewards, else the evaluator, else 1/2."""
    result = rules.result(state)
    if result is not None:
        return game_rewards(rules, result, seats)
    if evaluator is None:
        return [0.5] * seats
    return [evaluator(state, seat) for seat in range(seats)]


def seat_value(rules: Rules[Any], state: Any, seat: int, evaluator: Evaluator | None) -> float:
    """One seat's value of a state: its terminal reward, else the evaluator, else 1/2."""
    result = rules.result(state)
    if result is not None:
        return game_rewards(rules, result, len(rules.seats(state)))[seat]
    return evaluator(state, seat) if evaluator is not None else 0.5


def planned_value(
    rules: Rules[Any], before: Any, after: Any, seat: int, evaluator: Evaluator | None
) -> float:
    """A seat's value of the state its option leads to: `seat_value`, or, when the game's
    rules name follow-ups (`follow_ups(before, after, seat)`: the seat's own next options in
    the same step that the option made possible), the best of it and of the state each
    follow-up leads to. A second ply over the seat's own consecutive decisions, so that a plan
    whose first move scores little alone is found; games without the hook are unchanged."""
    value = seat_value(rules, after, seat, evaluator)
    hook = getattr(rules, "follow_ups", None)
    if evaluator is None or not callable(hook) or rules.result(after) is not None:
        return value
    for option_id in hook(before, after, seat):
        then = rules.apply(after, seat, option_id).state
        value = max(value, seat_value(rules, then, seat, evaluator))
    return value
