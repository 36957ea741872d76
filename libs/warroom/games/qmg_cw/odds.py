"""The Blocs' chances to win a three-player game from their standings.

A conditional logit (a softmax over the three Blocs) fitted to the winners of heuristic games
(`bench/fit_odds.py`): in round `r` Bloc `b`'s chance is proportional to

    exp((standing[b] + bias[b](r)) / scale(r)),

where `standing` is `heuristic.standings` with hands as their Draw step leaves them. The fit
says two things the search's older value (a logistic of the lead over the best other Bloc, on
a fixed scale of 8) did not know:

- a lead counts for more as the game runs out: `scale` falls from about 21 points in round 1
  to about 2 in round 19;
- at equal standings the Blocs are not equal: the Western Bloc wins as if about 15 points
  worse than the Soviet Bloc early on and about 6 worse at the end, the Non-Aligned Bloc about
  5 worse in mid-game. The standings miss something of each Bloc's position (with the
  reconstructed content and the heuristic's play), and the fit puts it back.

Both Blocs that trail count against a Bloc's chance, each by how likely it is to win, where
the lead over the best other Bloc ignored the second of two close rivals. The figures are
`INVERSE_SCALE` (the polynomial in the round of 1 / scale) and `BIAS` (by Bloc, linear in the
round, in the logit's units); `bench/fit_odds.py` refits them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

INVERSE_SCALE = (0.041928, -0.002792, 0.00137)
"""1 / scale(r) = a + b r + c r^2: about 1/21 in round 1, 1/2 in round 19."""
BIAS = ((0.0, 0.0), (-0.489697, -0.123301), (0.267868, -0.099081))
"""By Bloc (Soviet, Western, Non-Aligned): the logit's offset c + d r at equal standings."""
FITTED_ON = (
    "400 three-player heuristic mirror games, seeds 70001-70400, one position per round: "
    "held-out log loss 0.764 against 0.916 for the lead over the best other Bloc"
)


def win_chances(standing: Sequence[float], round_: int) -> list[float]:
    """Each Bloc's chance to win (summing to 1) from its standing in round `round_`."""
    a, b, c = INVERSE_SCALE
    inverse = a + b * round_ + c * round_ * round_
    logits = [
        standing[bloc] * inverse + BIAS[bloc][0] + BIAS[bloc][1] * round_
        for bloc in range(len(standing))
    ]
    top = max(logits)
    weights = [math.exp(x - top) for x in logits]
    total = sum(weights)
    return [w / total for w in weights]
