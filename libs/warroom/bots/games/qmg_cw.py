"""QMG: The Cold War for search bots: winner-only rewards, and the rule-based policy as the
rollout policy.

The evaluation is the game's own `evaluate` hook (`warroom.games.qmg_cw.heuristic`: the
pending card finished by the rule-based policy, then a logistic of the Bloc's lead over the
best other Bloc, its estimated chance to win). A finished game is scored on the same scale
(`rewards`: 1 for each seat of the winning Bloc, 0 for the others): only the Bloc with the
most VPs wins, so second place is worth nothing; the generic rank-based reward would value it
at 1/2 and make a trailing Bloc content to let another win.

Playouts of search bots follow the rule-based policy (`warroom.games.qmg_cw.policy`) for every
seat and stop when the Bloc taking its turn changes (`TURNS` changes), where the evaluation
scores them: one Bloc turn shows what a card did, and the others' replies are left to the
evaluation's projection. Playouts through both other Blocs' turns (3 changes) were measured
and lost strength (59.8% against the heuristic on seeds 5403-5504, against 66.7% with one
change; alone on one Bloc 20 of 51 against 29 of 51: the policy's replies are not the
heuristic's, see docs/benchmarks.md). The root's baseline is the option the evaluation
prefers one step ahead (the heuristic bot's choice), so the search starts from the
heuristic's play and departs from it only on paired evidence; a departure is verified with
playouts to the next Scoring Phase.

The root's priors, and so the baseline, are averaged over `PRIOR_WORLDS` determinizations.
The search scores positions with `search_value` (the policy's `evaluator`). For the Soviet and
Non-Aligned Blocs (`DRAW_BLOCS`) that is `heuristic.evaluate_with_draws`: the heuristic's value
with every hand valued as its Draw step leaves it, so a card spent costs its worth less the card
drawn in its place, and a Build Army card with every Army built is worth little. The Western
Bloc's search keeps the heuristic's `evaluate`, kept by a rule stated before its measurement:
alone on the Western Bloc it won 21 of 40 paired tuning games against 16 of 40, and on fresh
seeds 27 of 51 over three runs against the previous value's 27 of 67 over four. This search,
at 60 iterations against the heuristic: 72.5% (66.1-78.2%) over its two fresh-seed runs,
6310-6411 and 6514-6615 (docs/benchmarks.md, "Session 24" and "Session 25"). With
`evaluate_with_draws` for every Bloc: 76.5% (seeds 5805-5906), and 68.4% pooled over four runs
(402 games); with `evaluate` for every Bloc, 68.6% (5703-5804).
Playouts through both other Blocs' turns whose other Blocs chose their Air and Action cards by
one ply of the evaluation (as the heuristic bot does; commit 457bb29) cost 25.6 CPU s a game at
30 iterations, three times the shipped search, and were stopped after 16 games (9 won).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from warroom.bots.evaluation import Evaluator, register_rewards
from warroom.bots.policies import RolloutPolicy, register_policy
from warroom.engine.model import Result
from warroom.games.qmg_cw.heuristic import evaluate, evaluate_with_draws
from warroom.games.qmg_cw.state import NA, SOV

TURNS = 1
"""Changes of the Bloc taking its turn a screening playout runs through (1: to the end of the
searching Bloc's turn; 3: back to its next turn)."""
PRIOR_WORLDS = 4
"""Determinizations the root's one-step priors, and so the search's baseline (the heuristic
bot's choice with as many samples), are averaged over. At 60 iterations against the heuristic:
68.6% with 4 (seeds 5703-5804); with 1, 66.7% at 60 (5301-5402) and at 120 iterations
(5505-5606): within the runs' noise (docs/benchmarks.md)."""

DRAW_BLOCS = frozenset({SOV, NA})
"""The Blocs whose search values hands as their Draw step leaves them (`evaluate_with_draws`);
the others' search values positions as the heuristic bot does (`evaluate`)."""


def policy_choice(state: Any, seat: int, options: Sequence[str]) -> str:
    """The rule-based policy's option (see `warroom.games.qmg_cw.policy`)."""
    from warroom.games.qmg_cw.policy import choose

    return choose(state, seat, options)


def search_value(state: Any, seat: int) -> float:
    """The search's value of a position for `seat`'s Bloc: `evaluate_with_draws` for the Blocs
    of `DRAW_BLOCS`, the heuristic's `evaluate` for the Western Bloc."""
    if state.seats[seat].bloc in DRAW_BLOCS:
        return evaluate_with_draws(state, seat)
    return evaluate(state, seat)


def search_policy(
    turns: int = TURNS,
    prior_worlds: int = PRIOR_WORLDS,
    evaluator: Evaluator | None = search_value,
) -> RolloutPolicy:
    """The Cold War's rollout policy: playouts through `turns` changes of the Bloc taking its
    turn, the determinizations the root's priors (so its baseline) are averaged over, and the
    search's value of positions (None: the game's `evaluate`, the heuristic bot's)."""
    return RolloutPolicy(
        policy_choice,
        epoch,
        turns,
        scoring_period,
        "prior",
        prior_worlds=prior_worlds,
        evaluator=evaluator,
    )


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
register_policy("qmg_cw", search_policy())
