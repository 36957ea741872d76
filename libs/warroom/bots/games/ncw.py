"""New Cold War evaluation: victory points, with prestige as a tie-breaker.

A power's standing is `vp + 0.5 * prestige`. Its value is the mean, over the
other three powers, of a logistic of the standing difference (scale 4 VP),
so it approximates the terminal reward (finishing ahead of each other power)
and stays in [0, 1]. Used by the heuristic bot's one-ply lookahead and to
score ISMCTS playouts cut short.
"""

from __future__ import annotations

import math
from typing import Any

from warroom.bots.evaluation import register_evaluator

SCALE = 4.0


def evaluate(state: Any, seat: int) -> float:
    """The value of a New Cold War state for one power (seat), in [0, 1]."""
    vp: list[int] = state.vp
    prestige: list[int] = state.prestige or [0] * len(vp)
    standing = [v + 0.5 * p for v, p in zip(vp, prestige, strict=False)]
    others = [s for i, s in enumerate(standing) if i != seat]
    if not others:
        return 0.5
    mine = standing[seat]
    return sum(1.0 / (1.0 + math.exp(-(mine - o) / SCALE)) for o in others) / len(others)


register_evaluator("ncw", evaluate)
