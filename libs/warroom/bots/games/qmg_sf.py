"""South Front for search bots: the rule-based policy as the rollout policy.

The evaluation is the game's own `evaluate` hook (`warroom.games.qmg_sf.heuristic`: the
pending card or combat finished by the policy, then VP, Victory Stars times the scoring
rounds left, pieces, cards and Contingency sides). Playouts of search bots follow the
rule-based policy (`warroom.games.qmg_sf.policy`) for every seat and stop when the game
round changes (both sides have had a turn), where that evaluation scores them. The root's
baseline is the option the evaluation prefers one step ahead (the heuristic bot's choice; the
policy's own option lets the search start below the heuristic), and a departure from it is
verified with playouts to the next scoring round.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from warroom.bots.policies import RolloutPolicy, register_policy


def policy_choice(state: Any, seat: int, options: Sequence[str]) -> str:
    """The rule-based policy's option (see `warroom.games.qmg_sf.policy`)."""
    from warroom.games.qmg_sf.policy import choose

    return choose(state, seat, options)


def epoch(state: Any) -> Hashable:
    """The game round: a playout stops when it changes."""
    return int(state.round)


def scoring_period(state: Any) -> Hashable:
    """The scoring period: the number of scoring rounds already played."""
    from warroom.games.qmg_sf.content import tables

    return sum(1 for r in tables().scoring if r < state.round)


register_policy("qmg_sf", RolloutPolicy(policy_choice, epoch, 1, scoring_period, "prior"))
