"""South Front for search bots: the rule-based policy as the rollout policy, and the
decisions the search spends its budget on.

The evaluation is the game's own `evaluate` hook (`warroom.games.qmg_sf.heuristic`: the
pending card or combat finished by the policy, then VP, Victory Stars times the scoring
rounds left, pieces, cards and Contingency sides). Playouts of search bots follow the
rule-based policy (`warroom.games.qmg_sf.policy`) for every seat. A screening playout runs
through the rest of the side's turn and the other side's whole turn (`TURNS` changes of the
side taking its turn), so both sides see the reply to what they did (the round epoch ended an
Allied playout before the Axis replied), and the evaluation scores the state reached; a
departure from the baseline is verified with playouts to the next scoring round. The root's
baseline is the option the evaluation prefers one step ahead (the heuristic bot's choice).

Where the search gains (`EFFORT`, the spec's budget multiplied per decision kind): the
search is spent on the Action step's choice, where a card is chosen, and on the mulligan;
every other decision (movement, payments, placements, attacks, combat) answers its baseline
without playouts: in tuning games, departures there on short playouts lost games. In the
Action step only card and action choices challenge the baseline, not removing one's own
pieces or declaring war (`challenger`).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from warroom.bots.policies import RolloutPolicy, register_policy

TURNS = 2
EFFORT: Mapping[str, float] = {"action": 1.0, "mulligan": 0.125, "*": 0.0}
NEVER_CHALLENGE = ("rm", "war")


def policy_choice(state: Any, seat: int, options: Sequence[str]) -> str:
    """The rule-based policy's option (see `warroom.games.qmg_sf.policy`)."""
    from warroom.games.qmg_sf.policy import choose

    return choose(state, seat, options)


def epoch(state: Any) -> Hashable:
    """The game round: a playout stops when it changes."""
    return int(state.round)


def turn(state: Any) -> Hashable:
    """The game round and the side taking its turn."""
    return (int(state.round), int(state.active))


def scoring_period(state: Any) -> Hashable:
    """The scoring period: the number of scoring rounds already played."""
    from warroom.games.qmg_sf.content import tables

    return sum(1 for r in tables().scoring if r < state.round)


def challenger(option_id: str, kind: str) -> bool:
    """Whether an option may challenge the baseline: in the Action step, not a removal of
    one's own piece nor a declaration of war."""
    return kind != "action" or not option_id.startswith(NEVER_CHALLENGE)


def search_policy(
    turns: int = TURNS, effort: Mapping[str, float] = EFFORT, screen: bool = True
) -> RolloutPolicy:
    """South Front's rollout policy: playouts through `turns` turn changes (0: to the end of
    the round), the budget's multiplier per decision kind (key "*": every other kind; empty:
    1 for all), and whether challengers are screened."""
    stop, changes = (turn, turns) if turns else (epoch, 1)
    return RolloutPolicy(
        policy_choice,
        stop,
        changes,
        scoring_period,
        "prior",
        effort=(lambda kind: effort.get(kind, effort.get("*", 1.0))) if effort else None,
        challenger=challenger if screen else None,
    )


register_policy("qmg_sf", search_policy())
