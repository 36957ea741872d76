"""New Cold War for search bots: evaluation, and the official flowchart as the rollout policy.

Evaluation. A power's standing is `vp + 0.5 * prestige + PROJECTION * next`, where `next` is what
the power would score at a global scoring (4.4.2 step 3) on the current map: its country VPs in
every region plus the region reward of each region it controls. Its value is a logistic of its
lead over the best of the other three powers (scale `SCALE` VP): an estimate of its chance to
finish first, which is how New Cold War is won (the power with the most VP; its ally's place does
not count), so second place is worth little. It stays in [0, 1]. Used by the heuristic bot's
one-ply lookahead and to score ISMCTS playouts cut short. A finished game is scored on the same
scale (`winner_rewards`): the winner gets 1 (joint winners share it) and every other power 0,
whatever its place; the generic rank-based reward would value second place at 2/3 and so make a
trailing power prefer a game that ends now with an opponent's victory to one that goes on.

Rollout policy. Every seat of a playout plays the rulebook's section 6 flowchart (the
`ncw-official` chooser, without committing its random draws to the state). A playout stops at the
end of the current round (`epoch` = turn and round), before the next round's placement, whose
options are the game's most expensive to list. A departure from the flowchart's option is
verified with longer playouts that stop after the next global scoring (turns 3, 6, 9).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import Any

from warroom.bots.evaluation import register_evaluator, register_rewards, winner_rewards
from warroom.bots.policies import RolloutPolicy, register_policy

SCALE = 6.0
PROJECTION = 0.5


def _projection(state: Any) -> list[float]:
    from warroom.games.ncw import content
    from warroom.games.ncw.ops import region_controller, region_vp

    t = content.tables()
    out = [0.0, 0.0, 0.0, 0.0]
    for r in range(len(t.region_reward)):
        for p in range(4):
            out[p] += region_vp(state, p, r)
        owner = region_controller(state, r)
        if owner >= 0:
            out[owner] += t.region_reward[r][owner]
    return out


def standings(state: Any) -> list[float]:
    """Every power's standing (see the module docstring)."""
    vp: list[int] = state.vp
    prestige: list[int] = state.prestige or [0] * len(vp)
    projected = _projection(state)
    return [v + 0.5 * p + PROJECTION * n for v, p, n in zip(vp, prestige, projected, strict=False)]


def evaluate(state: Any, seat: int) -> float:
    """The value of a New Cold War state for one power (seat), in [0, 1]."""
    standing = standings(state)
    others = [s for i, s in enumerate(standing) if i != seat]
    if not others:
        return 0.5
    return 1.0 / (1.0 + math.exp(-(standing[seat] - max(others)) / SCALE))


def official_choice(state: Any, seat: int, options: Sequence[str]) -> str:
    """The official flowchart's option for `seat` (the state is left unchanged)."""
    from warroom.games.ncw.bots.policy import choose

    return choose(state, seat, options, commit=False)


def epoch(state: Any) -> Hashable:
    """The turn and round: a playout stops when they move on."""
    return (state.turn, state.round)


def scoring_period(state: Any) -> Hashable:
    """Which global scoring comes next (turns 1-3, 4-6, 7-9): verification playouts stop after it."""
    return int((state.turn - 1) // 3)


register_evaluator("ncw", evaluate)
register_rewards("ncw", winner_rewards)
register_policy("ncw", RolloutPolicy(official_choice, epoch, 1, scoring_period))
