"""QMG: The Cold War for search bots: winner-only rewards, and the rule-based policy as the
rollout policy.

The evaluation is the game's own `evaluate` hook (`warroom.games.qmg_cw.heuristic`: the
pending card finished by the rule-based policy, then a logistic of the Bloc's lead over the
best other Bloc, its estimated chance to win). A finished game is scored on the same scale
(`rewards`: 1 for each seat of the winning Bloc, 0 for the others): only the Bloc with the
most VPs wins, so second place is worth nothing; the generic rank-based reward would value it
at 1/2 and make a trailing Bloc content to let another win.

Playouts of search bots follow the rule-based policy (`warroom.games.qmg_cw.policy`) for every
seat and run through the rest of the Bloc's turn and both other Blocs' turns (`TURNS` changes
of the Bloc taking its turn), where the evaluation scores them: a card is judged after the
others have replied to it (playouts that stopped at the end of the Bloc's own turn left the
replies to the evaluation's projection). The root's baseline is the option the evaluation
prefers one step ahead (the heuristic bot's choice), so the search starts from the
heuristic's play and departs from it only on paired evidence; a departure is verified with
playouts to the next Scoring Phase.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from warroom.bots.evaluation import register_rewards
from warroom.bots.policies import RolloutPolicy, register_policy
from warroom.engine.model import Result

TURNS = 3
"""Changes of the Bloc taking its turn a screening playout runs through (3 Blocs: back to
the searching Bloc's next turn)."""


def policy_choice(state: Any, seat: int, options: Sequence[str]) -> str:
    """The rule-based policy's option (see `warroom.games.qmg_cw.policy`)."""
    from warroom.games.qmg_cw.policy import choose

    return choose(state, seat, options)


def epoch(state: Any) -> Hashable:
    """The round and the Bloc taking its turn: a playout stops after `TURNS` changes."""
    return (int(state.round), int(state.active))


def scoring_period(state: Any) -> Hashable:
    """Which Scoring Phase comes next (after rounds 2, 4, ..., 18, and 19)."""
    return min((int(state.round) - 1) // 2, 9)


def rewards(result: Result, seats: int) -> list[float]:
    """1 for every seat of a winning Bloc, 0 for every other seat."""
    return [1.0 if seat in result.winners else 0.0 for seat in range(seats)]


register_rewards("qmg_cw", rewards)
register_policy("qmg_cw", RolloutPolicy(policy_choice, epoch, TURNS, scoring_period, "prior"))
